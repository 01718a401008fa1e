//! MCP tools, resources and prompts: the pieces `#[tool]`, `#[resource]` and `#[prompt]`
//! methods are turned into.
//!
//! A tool is a plain `async fn` inside an `#[aep_extension]` impl; the macro builds a
//! [`ToolServer`] (an rmcp `ServerHandler`) from tables of [`ToolDef`]s,
//! [`ResourceDef`]s, [`ResourceTemplateDef`]s and [`PromptDef`]s, and mounts it over
//! Streamable HTTP. You can also build a [`ToolServer`] by hand.
//!
//! ```
//! use aep_sdk::prelude::*;
//! use aep_sdk::tool::{PromptMessage, PromptRole, ToolSwitch};
//!
//! #[derive(Clone, Default)]
//! struct Notes {
//!     switch: ToolSwitch,
//! }
//!
//! #[aep_extension(id = "acme.notes", name = "Notes", tool_switch = switch)]
//! impl Notes {
//!     /// How to write a good note.
//!     #[resource(uri = "docs://notes/guide", mime_type = "text/markdown")]
//!     async fn guide(&self) -> &'static str {
//!         "# Notes\nOne idea per note."
//!     }
//!
//!     /// Note `id` (the template's variable is a typed parameter, parsed with `FromStr`).
//!     #[resource(uri_template = "notes://{id}", mime_type = "text/plain")]
//!     async fn note(&self, id: u32) -> Result<String, ToolError> {
//!         match id {
//!             1 => Ok("buy milk".to_owned()),
//!             _ => Err(ToolError::not_found(format!("no note {id}"))),
//!         }
//!     }
//!
//!     /// Ask for a title for a note.
//!     #[prompt(name = "title")]
//!     async fn title(
//!         &self,
//!         /// The note's text.
//!         text: String,
//!         /// At most this many words (default 5).
//!         words: Option<u8>,
//!     ) -> Vec<PromptMessage> {
//!         let words = words.unwrap_or(5);
//!         vec![PromptMessage::new_text(PromptRole::User, format!("Title this in {words} words: {text}"))]
//!     }
//!
//!     /// Delete every note (off until the operator turns it on).
//!     #[tool(destructive)]
//!     async fn purge(&self) -> String {
//!         "purged".to_owned()
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let notes = Notes::default();
//! notes.switch.disable("purge").await; // connected MCP clients get tools/list_changed
//! let extension = notes.clone().into_extension().unwrap();
//! let manifest = extension.manifest(aep_sdk::protocol::ProtocolVersion::LATEST);
//! assert_eq!(manifest.mcp_servers().len(), 1);
//! # });
//! ```

mod completion;
mod context;
mod error;
mod handler;
mod prompt;
pub(crate) mod resource;
pub(crate) mod result;
pub(crate) mod schema;
mod scopes;
mod server;
mod session;
mod subscriptions;
mod switch;
mod timing;
mod uri_template;

pub use completion::{Complete, CompletionDef, CompletionTarget};
pub use context::{LogLevel, ToolContext};
pub use error::ToolError;
pub use prompt::{PromptDef, PromptGet, PromptOutput};
pub use resource::{Blob, ResourceDef, ResourceOutput, ResourceRead, ResourceTemplateDef};
// The helpers of generated code (`result`, `string_param`, `raw_schema`) are reachable
// as `aep_sdk::__private::*` only.
/// The role of a prompt message (MCP's `user`/`assistant`); the AEP chat role is
/// [`crate::protocol::Role`].
pub use rmcp::model::Role as PromptRole;
/// rmcp's MCP types a tool, resource or prompt method returns or sends.
pub use rmcp::model::{
    CallToolResult, ContentBlock, ElicitResult, ElicitationSchema, GetPromptResult, PromptMessage,
    ResourceContents,
};
/// rmcp's sampling types (`ToolContext::sample`); sampling is deprecated by SEP-2577.
#[allow(deprecated)]
pub use rmcp::model::{CreateMessageRequestParams, CreateMessageResult, SamplingMessage};
pub use schema::{input_schema, output_schema, strict_schema};
pub use scopes::McpScopes;
pub use server::{ToolDef, ToolFn, ToolServer};
pub(crate) use session::{McpRequest, ResponseStream};
pub use subscriptions::Subscriptions;
pub use switch::ToolSwitch;
pub(crate) use timing::McpTiming;
pub use uri_template::UriTemplate;

/// `rmcp`'s JSON object type: tool arguments and schemas.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;
