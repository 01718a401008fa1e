//! Chat requests, responses, streamed updates and their content (spec section 3).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::serde_util::null_default;
use super::{ErrorBody, VersionedOptions};

/// `mediaType` of `structured` content that carries reasoning ("thinking") text.
pub const REASONING_MEDIA_TYPE: &str = "application/vnd.aep.reasoning+json";

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    /// Instructions.
    System,
    /// The person.
    User,
    /// The model.
    Assistant,
    /// A tool result.
    Tool,
}

/// What a [`Content`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ContentKind {
    /// `text`.
    Text,
    /// `mediaType` plus `uri` or base64 `data`.
    Image,
    /// `mediaType` plus `uri` or base64 `data`.
    File,
    /// Any JSON in `data`.
    Structured,
    /// `toolCall`.
    ToolCall,
    /// `toolResult`.
    ToolResult,
}

/// Why generation stopped. The first update that carries one ends a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FinishReason {
    /// Natural end.
    Stop,
    /// Token limit.
    Length,
    /// The model asks for tool calls.
    ToolCalls,
    /// Filtered.
    ContentFilter,
    /// Failed; a streamed update then carries `error`.
    Error,
    /// Anything else.
    Other,
}

/// One piece of a message. The wire shape is flat: `kind` says which members matter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Content {
    /// What this content is.
    pub kind: ContentKind,
    /// Text of `text` content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Media type of `image`, `file` or `structured` content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// Location of `image`/`file` content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// Base64 string for `image`/`file`; any JSON for `structured`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// The call of `toolCall` content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call: Option<ToolCall>,
    /// The result of `toolResult` content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_result: Option<ToolResult>,
}

impl Content {
    fn empty(kind: ContentKind) -> Self {
        Self {
            kind,
            text: None,
            media_type: None,
            uri: None,
            data: None,
            tool_call: None,
            tool_result: None,
        }
    }

    /// `text` content.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::empty(ContentKind::Text)
        }
    }

    /// `image` content carried inline as base64.
    pub fn image_base64(media_type: impl Into<String>, base64: impl Into<String>) -> Self {
        Self {
            media_type: Some(media_type.into()),
            data: Some(Value::String(base64.into())),
            ..Self::empty(ContentKind::Image)
        }
    }

    /// `image` content by URI (`https:` or `data:`).
    pub fn image_uri(media_type: impl Into<String>, uri: impl Into<String>) -> Self {
        Self {
            media_type: Some(media_type.into()),
            uri: Some(uri.into()),
            ..Self::empty(ContentKind::Image)
        }
    }

    /// `structured` content.
    pub fn structured(data: Value, media_type: Option<String>) -> Self {
        Self {
            data: Some(data),
            media_type,
            ..Self::empty(ContentKind::Structured)
        }
    }

    /// Reasoning text, as `structured` content with [`REASONING_MEDIA_TYPE`].
    pub fn reasoning(text: impl Into<String>) -> Self {
        let data = Value::Object(Map::from_iter([("text".to_owned(), Value::String(text.into()))]));
        Self::structured(data, Some(REASONING_MEDIA_TYPE.to_owned()))
    }

    /// `toolCall` content.
    pub fn tool_call(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self {
            tool_call: Some(ToolCall {
                id: id.into(),
                name: name.into(),
                arguments,
            }),
            ..Self::empty(ContentKind::ToolCall)
        }
    }

    /// `toolResult` content.
    pub fn tool_result(call_id: impl Into<String>, result: Value, is_error: bool) -> Self {
        Self {
            tool_result: Some(ToolResult {
                call_id: call_id.into(),
                result,
                is_error,
            }),
            ..Self::empty(ContentKind::ToolResult)
        }
    }

    /// The text of `text` content.
    pub fn as_text(&self) -> Option<&str> {
        match self.kind {
            ContentKind::Text => self.text.as_deref(),
            _ => None,
        }
    }

    /// The reasoning text of reasoning content.
    pub fn as_reasoning(&self) -> Option<&str> {
        if self.kind != ContentKind::Structured || self.media_type.as_deref() != Some(REASONING_MEDIA_TYPE) {
            return None;
        }
        self.data.as_ref()?.get("text")?.as_str()
    }
}

/// A call the model asks the host to make.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// Call id, echoed back in the result.
    pub id: String,
    /// Function name, from the request's `tools`.
    pub name: String,
    /// Arguments, a JSON object.
    #[serde(default)]
    pub arguments: Value,
}

/// The host's answer to a [`ToolCall`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The call this answers.
    pub call_id: String,
    /// Result value.
    #[serde(default)]
    pub result: Value,
    /// The tool failed.
    #[serde(default, deserialize_with = "null_default")]
    pub is_error: bool,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Author role.
    pub role: Role,
    /// The contents, in order.
    #[serde(default, deserialize_with = "null_default")]
    pub contents: Vec<Content>,
    /// Optional author name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_name: Option<String>,
}

impl Message {
    /// A message with the given role and contents.
    pub fn new(role: Role, contents: Vec<Content>) -> Self {
        Self {
            role,
            contents,
            author_name: None,
        }
    }

    /// A user message with one text content.
    pub fn user(text: impl Into<String>) -> Self {
        Self::new(Role::User, vec![Content::text(text)])
    }

    /// A system message with one text content.
    pub fn system(text: impl Into<String>) -> Self {
        Self::new(Role::System, vec![Content::text(text)])
    }

    /// An assistant message with one text content.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, vec![Content::text(text)])
    }

    /// The message's text contents, concatenated.
    pub fn text(&self) -> String {
        self.contents.iter().filter_map(Content::as_text).collect()
    }

    /// The tool calls the message carries.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.contents.iter().filter_map(|c| c.tool_call.as_ref())
    }
}

/// `POST .../chat` and `.../chat/stream`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatRequest {
    /// Model id.
    pub model: String,
    /// The conversation.
    pub messages: Vec<Message>,
    /// Generation options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<ModelOptions>,
    /// Functions the model may call; omitted when empty.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub tools: Vec<ToolDefinition>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl ChatRequest {
    /// A request for `model` with `messages` and nothing else.
    pub fn new(model: impl Into<String>, messages: Vec<Message>) -> Self {
        Self {
            model: model.into(),
            messages,
            options: None,
            tools: Vec::new(),
            metadata: None,
        }
    }

    /// The text of the last user message, if any.
    pub fn last_user_text(&self) -> Option<String> {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(Message::text)
    }
}

/// `options` of a chat request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelOptions {
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Token limit of the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Top-k sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u32>,
    /// Random seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Output format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
    /// Provider-native options pinned to an option-set version (section 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_options: Option<VersionedOptions>,
    /// Anything else, passed to the provider as is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_options: Option<Map<String, Value>>,
}

/// `responseFormat`: `{"type":"text"}`, `{"type":"json_object"}` or
/// `{"type":"json_schema","json_schema":{...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseFormat {
    /// Free text.
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON that follows a schema.
    JsonSchema {
        /// The schema and its name.
        json_schema: JsonSchemaFormat,
    },
}

/// `json_schema` of a [`ResponseFormat::JsonSchema`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonSchemaFormat {
    /// Schema name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The JSON Schema.
    pub schema: Value,
    /// Optional description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Strict schema adherence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

/// A function the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// Function name.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments.
    #[serde(default)]
    pub parameters: Value,
}

/// Answer of `POST .../chat`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatResponse {
    /// The answer messages (usually one assistant message).
    #[serde(default, deserialize_with = "null_default")]
    pub messages: Vec<Message>,
    /// Model that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Why it stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<FinishReason>,
    /// Token counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl ChatResponse {
    /// All text of all answer messages.
    pub fn all_text(&self) -> String {
        self.messages.iter().map(Message::text).collect()
    }
    /// One assistant message with `text`, finished with `stop`.
    pub fn text(text: impl Into<String>) -> Self {
        Self::message(Message::assistant(text))
    }

    /// One message, finished with `stop`.
    pub fn message(message: Message) -> Self {
        Self {
            messages: vec![message],
            finish_reason: Some(FinishReason::Stop),
            ..Self::default()
        }
    }

    /// The same answer naming the model.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The same answer with token counts.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// The same answer with another finish reason.
    pub fn with_finish(mut self, finish_reason: FinishReason) -> Self {
        self.finish_reason = Some(finish_reason);
        self
    }
}

/// One event of `POST .../chat/stream`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatUpdate {
    /// New contents (text deltas, reasoning deltas, tool calls).
    #[serde(default, deserialize_with = "null_default")]
    pub contents: Vec<Content>,
    /// Author role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// Model that answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Set on the last update only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<FinishReason>,
    /// Token counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Why the stream failed, on a terminal `finishReason: "error"` update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

impl ChatUpdate {
    /// An assistant update with one text delta.
    pub fn text(delta: impl Into<String>) -> Self {
        Self {
            contents: vec![Content::text(delta)],
            role: Some(Role::Assistant),
            ..Self::default()
        }
    }

    /// A terminal update with `finish_reason` and no contents.
    pub fn finish(finish_reason: FinishReason) -> Self {
        Self {
            finish_reason: Some(finish_reason),
            ..Self::default()
        }
    }

    /// The terminal update that reports a failure after the stream started.
    pub fn failure(error: ErrorBody) -> Self {
        Self {
            finish_reason: Some(FinishReason::Error),
            error: Some(error),
            ..Self::default()
        }
    }

    /// Whether this update ends the stream.
    pub fn is_terminal(&self) -> bool {
        self.finish_reason.is_some()
    }

    /// The update's text deltas, concatenated.
    pub fn text_delta(&self) -> String {
        self.contents.iter().filter_map(Content::as_text).collect()
    }
    /// An assistant update with one reasoning ("thinking") delta.
    pub fn reasoning(delta: impl Into<String>) -> Self {
        Self::contents(vec![Content::reasoning(delta)])
    }

    /// An assistant update asking for one tool call.
    pub fn tool_call(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self::contents(vec![Content::tool_call(id, name, arguments)])
    }

    /// An assistant update with any contents.
    pub fn contents(contents: Vec<Content>) -> Self {
        Self {
            contents,
            role: Some(Role::Assistant),
            ..Self::default()
        }
    }

    /// The same update naming the model that answers.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The same update with token counts.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// The same update, made terminal with `finish_reason`.
    pub fn with_finish(mut self, finish_reason: FinishReason) -> Self {
        self.finish_reason = Some(finish_reason);
        self
    }

    /// The same update with another role.
    pub fn with_role(mut self, role: Role) -> Self {
        self.role = Some(role);
        self
    }
}

/// Token counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Prompt tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Answer tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
}

impl Usage {
    /// Usage from input and output counts, with their total.
    pub fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            input_tokens: Some(input_tokens),
            output_tokens: Some(output_tokens),
            total_tokens: Some(input_tokens + output_tokens),
        }
    }
}
