//! MCP tools, resources and prompts: the pieces `#[tool]`, `#[resource]` and `#[prompt]`
//! methods are turned into.
//!
//! A tool is a plain `async fn` inside an `#[aep_extension]` impl; the macro builds a
//! [`ToolServer`] (an rmcp `ServerHandler`) from tables of [`ToolDef`]s,
//! [`ResourceDef`]s, [`ResourceTemplateDef`]s and [`PromptDef`]s, and mounts it over
//! Streamable HTTP. You can also build a [`ToolServer`] by hand.

mod context;
mod error;
mod handler;
mod prompt;
mod resource;
mod result;
mod schema;
mod server;
mod switch;
mod uri_template;

pub use crate::caller::Caller;
pub use context::{LogLevel, ToolContext};
pub use error::ToolError;
pub use prompt::{PromptDef, PromptGet, PromptOutput};
pub use resource::{
    Blob, ResourceDef, ResourceOutput, ResourceRead, ResourceTemplateDef, optional_string_param, string_param,
};
pub use result::{error_result, parse_arguments, structured_result, text_result, unit_result};
pub use schema::{input_schema, output_schema, strict_schema};
pub use server::{ToolCall, ToolDef, ToolServer, set_default_timeout};
pub use switch::ToolSwitch;
pub use uri_template::UriTemplate;

/// `rmcp`'s JSON object type: tool arguments and schemas.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;
