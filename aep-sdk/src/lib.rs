//! # aep-sdk
//!
//! Write AEP (Agentstration Extension Protocol) extensions in Rust.
//!
//! - [`protocol`]: the wire documents as serde types.
//! - [`validate`]: manifest rules and MCP endpoint resolution.
//! - [`server`]: the runtime: an [`server::Extension`] becomes an `axum::Router`.
//! - [`client`]: the canonical client (feature `client`, on by default).
//! - [`testing`]: start a router on a loopback port in tests.
#![warn(missing_docs)]

pub mod error;
pub mod protocol;
pub mod server;
pub mod testing;
pub mod validate;

#[cfg(feature = "client")]
pub mod client;

pub use error::{AepError, Error};

/// The names most extensions need.
pub mod prelude {
    pub use crate::AepError;
    pub use crate::protocol::{
        ChatRequest, ChatResponse, ChatUpdate, Content, ContentKind, FinishReason, Health, Message,
        ModelDescriptor, ModelProviderDescriptor, ProviderCapabilities, Role, ToolCall, Usage,
    };
    pub use crate::server::{ChatStream, RequestContext};
}
