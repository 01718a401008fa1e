//! MCP tools: the pieces `#[tool]` methods are turned into.
//!
//! A tool is a plain `async fn` inside an `#[aep_extension]` impl; the macro builds a
//! [`ToolServer`] (an rmcp `ServerHandler`) from a table of [`ToolDef`]s and mounts it
//! over Streamable HTTP. You can also build a [`ToolServer`] by hand.

mod context;
mod error;
mod result;
mod schema;
mod server;

pub use context::{LogLevel, ToolContext};
pub use error::ToolError;
pub use result::{error_result, parse_arguments, structured_result, text_result, unit_result};
pub use schema::{input_schema, output_schema, strict_schema};
pub use server::{ToolCall, ToolDef, ToolServer, set_default_timeout};

/// `rmcp`'s JSON object type: tool arguments and schemas.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;
