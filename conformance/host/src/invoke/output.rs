//! [`ToolOutput`]: what a tool call returned, as MCP content plus structured content.

use rmcp::model::CallToolResult;
use serde::Serialize;
use serde_json::Value;

/// The result of a completed `tools/call`. `is_error` is the tool's own failure
/// (`isError: true`), which a model can read and react to; transport and protocol
/// failures are `Err(HostError)` instead.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    /// The MCP content blocks, as JSON (`{"type":"text","text":...}`, images, ...).
    pub content: Vec<Value>,
    /// MCP `structuredContent`, when the tool returned one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// The tool reported a failure.
    pub is_error: bool,
}

impl ToolOutput {
    /// Converts rmcp's result.
    pub fn from_mcp(result: CallToolResult) -> Self {
        let content = result
            .content
            .iter()
            .map(|block| serde_json::to_value(block).unwrap_or(Value::Null))
            .collect();
        Self {
            content,
            structured: result.structured_content,
            is_error: result.is_error.unwrap_or(false),
        }
    }

    /// The text blocks, concatenated.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect()
    }

    /// The value to hand a model as the tool result: the structured content when there
    /// is one, else the text when every block is text, else the content blocks.
    pub fn result_value(&self) -> Value {
        if let Some(structured) = &self.structured {
            return structured.clone();
        }
        let all_text = self
            .content
            .iter()
            .all(|block| block.get("type").and_then(Value::as_str) == Some("text"));
        if all_text {
            Value::String(self.text())
        } else {
            Value::Array(self.content.clone())
        }
    }
}
