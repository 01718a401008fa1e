//! # aep-sdk
//!
//! Write AEP (Agentstration Extension Protocol) extensions in Rust.
//!
//! - [`protocol`]: the wire documents as serde types.
//! - [`validate`]: manifest rules and MCP endpoint resolution.
//! - [`config`]: versioned configuration (option sets, schema digests, migrations).
//! - [`server`]: the runtime: an [`server::Extension`] becomes an `axum::Router`.
//! - [`client`]: the canonical client (feature `client`, on by default).
//! - [`testing`]: start a router on a loopback port in tests.
#![warn(missing_docs)]

pub mod config;
pub mod error;
pub mod protocol;
pub mod server;
pub mod testing;
pub mod tool;
pub mod validate;

#[cfg(feature = "client")]
pub mod client;

pub use aep_sdk_macros::aep_extension;
pub use error::{AepError, Error};

#[doc(hidden)]
pub mod __private {
    //! Paths used by macro-generated code. Not public API.
    pub use futures;
    pub use rmcp;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}

/// The names most extensions need.
pub mod prelude {
    pub use crate::AepError;
    pub use crate::aep_extension;
    pub use crate::protocol::{
        ChatRequest, ChatResponse, ChatUpdate, Content, ContentKind, FinishReason, Health, Message,
        ModelDescriptor, ModelProviderDescriptor, ProviderCapabilities, Role, ToolCall, Usage,
    };
    pub use crate::server::{AepExtension, ChatStream, RequestContext};
    pub use crate::tool::{ToolContext, ToolError};
}
