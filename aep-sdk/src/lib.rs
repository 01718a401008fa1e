//! # aep-sdk
//!
//! Write AEP (Agentstration Extension Protocol) extensions in Rust: annotate plain
//! `async fn`s and get the discovery manifest, the model-provider routes (chat and SSE
//! streaming) and co-hosted MCP tool servers, served by axum.
//!
//! ## Quickstart
//!
//! ```
//! use aep_sdk::prelude::*;
//!
//! #[derive(Clone, Default)]
//! struct Utilities;
//!
//! #[aep_extension(id = "acme.utilities", name = "Utilities", version = "1.0.0")]
//! impl Utilities {
//!     /// Reverse a piece of text.
//!     #[tool(id = "text.reverse", display_name = "Reverse text", read_only)]
//!     async fn reverse(
//!         &self,
//!         /// The text to reverse.
//!         text: String,
//!     ) -> Result<String, ToolError> {
//!         if text.is_empty() {
//!             return Err(ToolError::new("nothing to reverse"));
//!         }
//!         Ok(text.chars().rev().collect())
//!     }
//!
//!     /// Stream the last user message back, word by word.
//!     #[model_provider(id = "echo", display_name = "Echo", models = ["echo-1"])]
//!     async fn echo(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
//!         let text = request.last_user_text().unwrap_or_default();
//!         Ok(chat_stream! {
//!             for word in text.split_inclusive(' ') {
//!                 tokio::task::yield_now().await;
//!                 yield ChatUpdate::text(word).with_model("echo-1");
//!             }
//!             // ending without a terminal update means finishReason "stop"
//!         })
//!     }
//!
//!     /// Answer in one piece; /chat/stream streams it as one update and a finish.
//!     #[model_provider(id = "oneshot", models = ["oneshot-1"])]
//!     async fn oneshot(&self, _request: ChatRequest) -> Result<ChatResponse, AepError> {
//!         Ok(ChatResponse::text("done").with_usage(Usage::new(1, 1)))
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // In `main`: `Utilities.serve().await` (listens on `--listen`/`AEP_LISTEN`, default
//! // 127.0.0.1:8710). Here: serve on a free port and call it with the canonical client
//! // (feature `client`).
//! let server = aep_sdk::testing::spawn(Utilities.into_extension()?.router()).await;
//! # #[cfg(feature = "client")] {
//! let client = aep_sdk::client::Client::new(&server.base_url)?;
//! let manifest = client.discover().await?;
//! assert_eq!(manifest.contributions.tools[0].id, "text.reverse");
//! let answer = client.chat("echo", &ChatRequest::new("echo-1", vec![Message::user("hi")])).await?;
//! assert_eq!(answer.all_text(), "hi");
//! let answer = client.chat("oneshot", &ChatRequest::new("oneshot-1", vec![Message::user("hi")])).await?;
//! assert_eq!(answer.all_text(), "done");
//! # }
//! # Ok(()) }
//! ```
//!
//! ## The guide
//!
//! [`guide`] has a chapter for each task: [a first extension](guide::getting_started),
//! [tools](guide::tools), [model providers](guide::model_providers),
//! [resources and prompts](guide::resources_prompts), [configuration](guide::configuration),
//! [serving](guide::serving), [authorization](guide::authorization),
//! [operations](guide::operations), [testing](guide::testing), and the rest of the
//! workspace. The API reference below is for looking things up.
//!
//! ## Modules
//!
//! - [`protocol`]: the wire documents as serde types.
//! - [`validate`]: manifest rules and MCP endpoint resolution.
//! - [`config`]: versioned configuration (option sets, schema digests, migrations).
//! - [`server`]: the runtime: an [`server::Extension`] becomes an `axum::Router`.
//! - [`client`]: the canonical client (feature `client`).
//! - [`tool`]: MCP tools, resources, prompts and completions on rmcp.
//! - [`schema`]: JSON Schemas from Rust types.
//! - [`telemetry`]: OpenTelemetry (feature `otel`).
//! - [`testing`]: test support: a router or an extension on a loopback port (on its own
//!   runtime if wanted, stopped on drop) and raw HTTP/1.1 exchanges ([`testing::raw`]).
//!
//! ## Features
//!
//! None is on by default: an extension serving tools and providers builds no HTTP client,
//! no JSON Schema validator and no OpenTelemetry.
//!
//! - `client`: [`client`], the canonical AEP client (reqwest).
//! - `oauth`: OAuth 2.1 access tokens ([`server::OAuth`], `--oauth-issuer`) and
//!   `testing::TestIssuer`; without it an OAuth setting is a build error naming it.
//! - `config`: option sets (`config`, `#[option_set]`) and `schema::Validator`
//!   (jsonschema); without it a request with native options is refused as by an
//!   extension that declares no option set.
//! - `otel`: OpenTelemetry traces and metrics over OTLP ([`telemetry`]).
//! - `http2`: HTTP/2 with prior knowledge (h2c) beside HTTP/1.1 when serving.
//! - `full`: all of the above.
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
// The docs link to items of every feature; a build with some features off leaves those
// links as plain text. CI checks every link in the all-features build (`cargo doc
// --workspace`, where the bundled crates turn every feature on).
#![cfg_attr(
    not(all(feature = "client", feature = "oauth", feature = "config", feature = "otel")),
    allow(rustdoc::broken_intra_doc_links)
)]

pub mod caller;
#[cfg(feature = "config")]
pub mod config;
pub mod error;
pub mod guide;
pub mod protocol;
pub mod schema;
pub mod server;
pub mod telemetry;
pub mod testing;
pub mod tool;
pub mod validate;

#[cfg(feature = "client")]
pub mod client;

pub use aep_sdk_macros::aep_extension;

// The front page's example compiles: README.md's code blocks are doc tests too.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
pub use error::{AepError, Error};

#[doc(hidden)]
pub mod __private {
    //! Paths used by macro-generated code. Not public API.
    pub use async_stream;
    pub use futures;
    pub use rmcp;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    pub use crate::tool::resource::{optional_string_param, string_param};
    pub use crate::tool::result::{
        error_result, parse_arguments, structured_result, text_result, unit_result,
    };
    pub use crate::tool::schema::raw_schema;
}

/// The names most extensions need.
pub mod prelude {
    pub use crate::AepError;
    pub use crate::aep_extension;
    pub use crate::chat_stream;
    pub use crate::protocol::{
        Availability, ChatRequest, ChatResponse, ChatUpdate, Content, ContentKind, FinishReason, Health,
        Message, ModelDescriptor, ModelProviderDescriptor, ProviderCapabilities, Role, ToolCall, Usage,
    };
    pub use crate::server::{AepExtension, ChatStream, RequestContext};
    pub use crate::tool::{ToolContext, ToolError};
}
