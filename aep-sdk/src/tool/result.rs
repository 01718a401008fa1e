//! Converting tool inputs and outputs.

use std::fmt;

use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::JsonObject;

/// A text result.
pub fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// The result of a tool that returns nothing.
pub fn unit_result() -> CallToolResult {
    CallToolResult::success(Vec::new())
}

/// A tool failure the model can read (`isError: true`).
pub fn error_result(error: impl fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(error.to_string())])
}

/// A structured result: `structuredContent` plus a text copy of the same JSON, since
/// many clients ignore `structuredContent`. A value that is not a JSON object is
/// wrapped as `{"result": value}`, matching [`super::output_schema`].
pub fn structured_result<T: Serialize>(value: &T) -> CallToolResult {
    match serde_json::to_value(value) {
        Ok(Value::Object(object)) => CallToolResult::structured(Value::Object(object)),
        Ok(other) => CallToolResult::structured(serde_json::json!({ "result": other })),
        Err(error) => error_result(format!("the tool's result could not be serialized: {error}")),
    }
}

/// Decodes tool arguments; on failure, a tool error naming the offending path, so the
/// model can correct its call.
pub fn parse_arguments<T: DeserializeOwned>(arguments: JsonObject) -> Result<T, Box<CallToolResult>> {
    let value = Value::Object(arguments);
    // Fast path: well-formed arguments decode straight from the borrowed value; only a
    // failure pays for tracking the path.
    T::deserialize(&value).map_err(|_| {
        let error = match serde_path_to_error::deserialize::<_, T>(&value) {
            Err(error) => error,
            Ok(_) => return Box::new(error_result("invalid arguments")),
        };
        let path = error.path().to_string();
        let inner = error.into_inner();
        Box::new(if path == "." {
            error_result(format!("invalid arguments: {inner}"))
        } else {
            error_result(format!("invalid arguments at '{path}': {inner}"))
        })
    })
}
