//! Invocation of a resolved tool through the MCP pool: arguments checked against the
//! MCP input schema first (an `invalid_arguments` error naming the path), then
//! `tools/call`; the result as MCP content plus structured content.

mod output;
mod schema;

use serde_json::Value;

pub use output::ToolOutput;
pub use schema::{ArgumentIssue, validate_arguments};

use crate::JsonObject;
use crate::error::{ErrorCode, HostError, Result};

/// Checks `arguments` against tool `tool_id`'s input schema and returns them as a JSON
/// object (`null` counts as `{}`).
pub fn check_arguments(tool_id: &str, input_schema: &Value, arguments: Value) -> Result<JsonObject> {
    let arguments = match arguments {
        Value::Null => Value::Object(JsonObject::new()),
        other => other,
    };
    let issues = validate_arguments(input_schema, &arguments);
    if !issues.is_empty() {
        let list: Vec<String> = issues.iter().map(ToString::to_string).collect();
        return Err(HostError::new(
            ErrorCode::InvalidArguments,
            format!("tool '{tool_id}': {}", list.join("; ")),
        )
        .with_target(issues[0].path.clone()));
    }
    match arguments {
        Value::Object(object) => Ok(object),
        _ => Err(HostError::new(
            ErrorCode::InvalidArguments,
            format!("tool '{tool_id}': arguments must be a JSON object"),
        )
        .with_target("arguments")),
    }
}
