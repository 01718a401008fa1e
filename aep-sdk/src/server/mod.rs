//! The server runtime: declare an [`Extension`] with its builder, get an
//! `axum::Router` serving every AEP route, and [`Extension::serve`] it.
//!
//! ```no_run
//! use aep_sdk::prelude::*;
//! use aep_sdk::server::{ChatStream, Extension, ModelProvider, RequestContext};
//!
//! struct Echo;
//!
//! impl ModelProvider for Echo {
//!     async fn chat_stream(&self, request: ChatRequest, _ctx: RequestContext) -> Result<ChatStream, AepError> {
//!         let text = request.last_user_text().unwrap_or_default();
//!         Ok(ChatStream::from_updates([ChatUpdate::text(text), ChatUpdate::finish(FinishReason::Stop)]))
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), aep_sdk::Error> {
//!     Extension::builder("acme.echo", "Echo", "1.0.0")
//!         .model_provider(ModelProviderDescriptor::new("echo", "Echo"), Echo)
//!         .build()?
//!         .serve()
//!         .await
//! }
//! ```

mod access;
mod aep_extension;
mod args;
mod auth;
mod body;
mod builder;
mod chat_stream;
#[cfg(feature = "config")]
mod config_routes;
mod extract;
mod jsonrpc;
mod mcp;
mod metrics;
mod provider;
mod request_span;
mod routes;
mod serve;
pub mod sse;

pub use access::McpAccess;
pub use aep_extension::AepExtension;
pub use args::{DEFAULT_LISTEN, Secret, ServeArgs, parse_duration};
pub use auth::{BearerAuth, OAuth};
pub use body::{BodyLimits, DEFAULT_BODY_LIMIT, DEFAULT_BODY_READ_TIMEOUT};
pub use builder::{DEFAULT_KEEP_ALIVE, Extension, ExtensionBuilder};
pub use chat_stream::ChatStream;
pub use extract::{AepJson, AepPath};
pub use metrics::MODEL_LABELS;
pub use provider::{ModelProvider, RequestContext, collect_stream};
pub use serve::{ConnectionLimits, init_tracing, log_filter, shutdown_signal};

use axum::response::{IntoResponse, Response};

/// A panic in a handler becomes a 500 AEP error; the server keeps serving.
fn panic_response(_panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    tracing::error!("a request handler panicked");
    crate::AepError::internal("the extension failed unexpectedly while handling this request").into_response()
}
