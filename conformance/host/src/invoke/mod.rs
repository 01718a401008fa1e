//! Invocation of a resolved tool through the MCP pool: arguments checked against the
//! MCP input schema first (an `invalid_arguments` error naming the path), then
//! `tools/call`; the result as MCP content plus structured content.

mod output;
mod schema;

use serde_json::Value;

pub use output::ToolOutput;
pub use schema::{ArgumentIssue, validate_arguments};

use crate::JsonObject;
use crate::catalog::AgentTool;
use crate::error::{ErrorCode, HostError, Result};

/// Checks `arguments` against the tool's input schema and returns them as a JSON
/// object (`null` counts as `{}`).
pub fn check_arguments(tool: &AgentTool, arguments: Value) -> Result<JsonObject> {
    let arguments = match arguments {
        Value::Null => Value::Object(JsonObject::new()),
        other => other,
    };
    let issues = validate_arguments(&tool.input_schema, &arguments);
    if !issues.is_empty() {
        let list: Vec<String> = issues.iter().map(ToString::to_string).collect();
        return Err(HostError::new(
            ErrorCode::InvalidArguments,
            format!("tool '{}': {}", tool.id, list.join("; ")),
        )
        .with_target(issues[0].path.clone()));
    }
    match arguments {
        Value::Object(object) => Ok(object),
        _ => Err(HostError::new(
            ErrorCode::InvalidArguments,
            format!("tool '{}': arguments must be a JSON object", tool.id),
        )
        .with_target("arguments")),
    }
}
