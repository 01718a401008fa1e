//! Ollama's native JSON shapes (`docs/api.md`, `api/types.go`), only the members
//! this extension reads or writes. Readers tolerate missing members and `null`s.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `POST /api/chat` body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest {
    /// Model name as the user wrote it (`llama3.2`, `qwen3:8b`).
    pub model: String,
    /// The conversation.
    pub messages: Vec<Message>,
    /// Functions the model may call.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// `"json"` or a JSON Schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<Value>,
    /// Runtime options (`temperature`, `num_ctx`, ...).
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub options: Map<String, Value>,
    /// NDJSON stream (`true`) or one object (`false`).
    pub stream: bool,
    /// Thinking: `true`, `false` or an effort level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub think: Option<Think>,
    /// How long the model stays loaded: seconds (number) or a Go duration (string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_alive: Option<Value>,
}

/// `think`: a boolean or an effort level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Think {
    /// `true` / `false`.
    Enabled(bool),
    /// `"low"`, `"medium"`, `"high"` or `"max"`.
    Level(String),
}

/// One message of a chat request.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Message {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// Text (always sent, maybe empty).
    pub content: String,
    /// Reasoning of an earlier assistant turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// Raw base64 images (no `data:` prefix).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<String>,
    /// Calls an earlier assistant turn made.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For `role: tool`: the function that produced this result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// For `role: tool`: the call this answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

/// A function the model may call: `{"type":"function","function":{...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tool {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The declaration.
    pub function: ToolFunction,
}

/// Name, description and parameter schema of a [`Tool`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolFunction {
    /// Function name.
    pub name: String,
    /// What it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments.
    pub parameters: Value,
}

/// A tool call, in a request (replayed history) or an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// `call_...`; missing in Ollama versions before ~0.12.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The call.
    pub function: ToolCallFunction,
}

/// `function` of a [`ToolCall`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallFunction {
    /// Position among the answer's calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<i64>,
    /// Function name.
    #[serde(default)]
    pub name: String,
    /// Arguments: a JSON object.
    #[serde(default)]
    pub arguments: Value,
}

/// One line of a streamed `/api/chat` answer, or the whole non-streamed answer.
/// An `{"error": "..."}` line reads as a chunk whose `error` is set.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ChatChunk {
    /// The model, as named in the request.
    pub model: Option<String>,
    /// The delta.
    pub message: Option<ChunkMessage>,
    /// Last line.
    pub done: bool,
    /// `stop`, `length`, `load`, `unload`.
    pub done_reason: Option<String>,
    /// Prompt tokens (missing means 0).
    pub prompt_eval_count: Option<u64>,
    /// Generated tokens (missing means 0).
    pub eval_count: Option<u64>,
    /// Whole request, nanoseconds.
    pub total_duration: Option<u64>,
    /// Model load, nanoseconds.
    pub load_duration: Option<u64>,
    /// A failure after the answer started.
    pub error: Option<Value>,
}

/// `message` of a [`ChatChunk`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ChunkMessage {
    /// Always `assistant`.
    pub role: Option<String>,
    /// Text delta (maybe empty).
    pub content: Option<String>,
    /// Reasoning delta.
    pub thinking: Option<String>,
    /// Calls, when the model makes any.
    pub tool_calls: Option<Vec<ToolCall>>,
}

/// `GET /api/tags` answer.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct TagsResponse {
    /// Installed models.
    pub models: Option<Vec<TagModel>>,
}

/// One installed model.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct TagModel {
    /// `model:tag`.
    pub name: Option<String>,
    /// Same as `name` in current versions.
    pub model: Option<String>,
    /// Content digest; changes when the model is re-pulled.
    pub digest: Option<String>,
    /// Bytes on disk.
    pub size: Option<u64>,
    /// Family, size, quantization.
    pub details: Option<ModelDetails>,
}

/// `details` of a model.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ModelDetails {
    /// `gguf`.
    pub format: Option<String>,
    /// `llama`, `qwen3`, ...
    pub family: Option<String>,
    /// All families.
    pub families: Option<Vec<String>>,
    /// `8.2B`.
    pub parameter_size: Option<String>,
    /// `Q4_K_M`.
    pub quantization_level: Option<String>,
}

/// `POST /api/show` answer.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ShowResponse {
    /// `completion`, `tools`, `thinking`, `vision`, `embedding`, ...
    pub capabilities: Option<Vec<String>>,
    /// `general.architecture`, `<arch>.context_length`, ...
    pub model_info: Option<Map<String, Value>>,
    /// Same as in `/api/tags`.
    pub details: Option<ModelDetails>,
}

impl ShowResponse {
    /// `<arch>.context_length` from `model_info`.
    pub fn context_length(&self) -> Option<u64> {
        let info = self.model_info.as_ref()?;
        let arch = info.get("general.architecture")?.as_str()?;
        info.get(&format!("{arch}.context_length"))?.as_u64()
    }
}

/// `GET /api/version` answer.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct VersionResponse {
    /// `0.12.0`.
    pub version: Option<String>,
}

/// Ollama's error body: `{"error": "..."}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ErrorBody {
    /// The message.
    pub error: Option<Value>,
}

/// The text of an `error` member (a string, or any JSON written compactly).
pub fn error_text(error: &Value) -> String {
    match error {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
