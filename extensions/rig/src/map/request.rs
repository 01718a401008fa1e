//! Requests, both ways: a rig [`CompletionRequest`] as an AEP [`ChatRequest`]
//! ([`to_aep_request`], what the AEP model sends) and an AEP chat request as a rig
//! completion request ([`to_rig_request`], what `aep-rig` hands its rig provider).
//!
//! | rig | AEP |
//! |---|---|
//! | `Message::System` | `system` message |
//! | user text, image, document, audio, video | `user` message: `text`, `image`, `file` contents |
//! | user tool results | one `tool` message per result: `toolResult { callId, result, isError }` |
//! | assistant text, reasoning, tool calls, images | `assistant` message: `text`, reasoning (`structured`, [`REASONING_MEDIA_TYPE`](aep_sdk::protocol::REASONING_MEDIA_TYPE)), `toolCall`, `image` |
//! | `tools` | `tools` (name, description, parameters) |
//! | `temperature`, `max_tokens`, `options.top_p`, `options.seed`, `options.stop` | `options.temperature`, `maxOutputTokens`, `topP`, `seed`, `stopSequences` |
//! | `output_schema` | `options.responseFormat` `json_schema` |
//! | `additional_params` (an object) | `options.additionalOptions` |
//!
//! AEP has no member for a tool choice other than `auto`, nor for rig's reasoning,
//! cache, service tier, verbosity and parallel-tool-calls options: the AEP model
//! refuses them (see [`crate::model`]) instead of dropping them silently. A
//! `ToolChoice::None` is honoured by offering no tools.

use aep_sdk::AepError;
use aep_sdk::error::codes;
use aep_sdk::protocol::{
    self as aep, ChatRequest, Content, ContentKind, JsonSchemaFormat, ModelOptions, ResponseFormat, Role,
};
use http::StatusCode;
use rig_core::completion::{CompletionRequest, ToolDefinition};
use rig_core::error::EncodeError;
use rig_core::message::{
    AssistantContent, AssistantMessage, CallId, DocumentSourceKind, Image, ImageMediaType, Message, MimeType,
    Reasoning, ToolCall, ToolChoice, ToolFunction, ToolName, ToolResult, ToolResultContent, UserContent,
};
use serde_json::{Map, Value, json};

/// The JSON Schema of a tool that declares no parameters.
fn empty_parameters() -> Value {
    json!({"type": "object", "properties": {}})
}

/// Why a rig request cannot be sent over AEP (becomes rig's `EncodeError` at the end).
type Refusal = String;

/// A rig completion request as the AEP chat request for `model` (the request's own
/// model wins when it names one).
///
/// ```
/// use aep_rig::map::request::to_aep_request;
/// use rig_core::completion::CompletionRequest;
///
/// let request = CompletionRequest::new("Hello").preamble("Be brief.").temperature(0.2);
/// let chat = to_aep_request(request, "echo-1").unwrap();
/// assert_eq!(chat.model, "echo-1");
/// assert_eq!(chat.messages.len(), 2);
/// assert_eq!(chat.options.unwrap().temperature, Some(0.2));
/// ```
// `EncodeError` is what rig's `Wire::encode` returns; rig allows its size itself.
#[allow(clippy::result_large_err)]
pub fn to_aep_request(request: CompletionRequest, model: &str) -> Result<ChatRequest, EncodeError> {
    aep_request(request, model).map_err(EncodeError::request)
}

fn aep_request(request: CompletionRequest, model: &str) -> Result<ChatRequest, Refusal> {
    let model = request
        .model
        .clone()
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| model.to_owned());
    let mut messages = Vec::new();
    for message in &request.chat_history {
        messages.extend(aep_messages(message)?);
    }
    let tools = match &request.tool_choice {
        None | Some(ToolChoice::Auto) => request.tools.iter().map(aep_tool).collect(),
        Some(ToolChoice::None) => Vec::new(),
        Some(choice) => {
            return Err(format!(
                "AEP chat requests carry no tool choice; {choice:?} cannot be sent (auto and none can)"
            ));
        }
    };
    Ok(ChatRequest {
        options: aep_options(&request)?,
        tools,
        ..ChatRequest::new(model, messages)
    })
}

fn aep_tool(tool: &ToolDefinition) -> aep::ToolDefinition {
    aep::ToolDefinition {
        name: tool.name.to_string(),
        description: Some(tool.description.clone()).filter(|d| !d.is_empty()),
        parameters: match &tool.parameters {
            Value::Null => empty_parameters(),
            schema => schema.clone(),
        },
    }
}

fn aep_options(request: &CompletionRequest) -> Result<Option<ModelOptions>, Refusal> {
    let generation = &request.options;
    let max_output_tokens = request
        .max_tokens
        .map(|n| u32::try_from(n).map_err(|_| format!("max_tokens {n} does not fit AEP's maxOutputTokens")))
        .transpose()?;
    let seed = generation
        .seed
        .map(|s| i64::try_from(s).map_err(|_| format!("seed {s} does not fit AEP's seed")))
        .transpose()?;
    let additional_options = match &request.additional_params {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map.clone()),
        Some(other) => {
            return Err(format!(
                "additional_params must be a JSON object to become AEP additionalOptions, not {other}"
            ));
        }
    };
    let response_format = request
        .output_schema
        .as_ref()
        .map(|schema| ResponseFormat::JsonSchema {
            json_schema: JsonSchemaFormat {
                name: request.output_schema_name(),
                schema: schema.as_value().clone(),
                description: None,
                strict: None,
            },
        });
    let options = ModelOptions {
        temperature: request.temperature,
        max_output_tokens,
        top_p: generation.top_p,
        seed,
        stop_sequences: (!generation.stop.is_empty()).then(|| generation.stop.clone()),
        response_format,
        additional_options,
        ..ModelOptions::default()
    };
    Ok((options != ModelOptions::default()).then_some(options))
}

/// The AEP messages one rig message becomes: user tool results each become a `tool`
/// message (before the user's other contents, which they answer the turn before).
fn aep_messages(message: &Message) -> Result<Vec<aep::Message>, Refusal> {
    Ok(match message {
        Message::System { content } => vec![aep::Message::system(content.clone())],
        Message::User { content } => {
            let mut out = Vec::new();
            let mut contents = Vec::new();
            for part in content {
                match part {
                    UserContent::ToolResult(_) => {
                        out.push(aep::Message::new(Role::Tool, vec![user_content(part)?]))
                    }
                    other => contents.push(user_content(other)?),
                }
            }
            if !contents.is_empty() {
                out.push(aep::Message::new(Role::User, contents));
            }
            out
        }
        Message::Assistant(assistant) => {
            let contents: Vec<Content> = assistant.content.iter().filter_map(assistant_content).collect();
            if contents.is_empty() {
                Vec::new()
            } else {
                vec![aep::Message::new(Role::Assistant, contents)]
            }
        }
    })
}

/// A tool result's value: one text as a string, one JSON value as itself, several as an
/// array of those (an image as `{"kind":"image", ...}` AEP content).
fn tool_result_value(result: &ToolResult) -> Value {
    let mut values: Vec<Value> = result
        .content
        .iter()
        .map(|part| match part {
            ToolResultContent::Text(text) => Value::String(text.text.clone()),
            ToolResultContent::Json { value } => value.clone(),
            ToolResultContent::Image(image) => {
                image_content(image).map_or(Value::Null, |c| serde_json::to_value(c).unwrap_or(Value::Null))
            }
        })
        .collect();
    match values.len() {
        0 => Value::String(String::new()),
        1 => values.remove(0),
        _ => Value::Array(values),
    }
}

fn media(kind: &DocumentSourceKind, media_type: String, image: bool) -> Option<Content> {
    let mut content = match kind {
        DocumentSourceKind::Base64(data) => Content::image_base64(media_type, data.clone()),
        DocumentSourceKind::Url(uri) => Content::image_uri(media_type, uri.clone()),
        _ => return None,
    };
    if !image {
        content.kind = ContentKind::File;
    }
    Some(content)
}

fn image_content(image: &Image) -> Option<Content> {
    let media_type = image
        .media_type
        .as_ref()
        .map_or("image/*", |m| m.to_mime_type())
        .to_owned();
    media(&image.data, media_type, true)
}

fn user_content(part: &UserContent) -> Result<Content, Refusal> {
    let unsupported = |what: &str| format!("AEP carries {what} only as base64 data or a URL");
    Ok(match part {
        UserContent::Text(text) => Content::text(text.text.clone()),
        UserContent::Image(image) => image_content(image).ok_or_else(|| unsupported("images"))?,
        UserContent::Document(document) => match &document.data {
            // Literal text documents (rig folds `documents` into the history this way).
            DocumentSourceKind::String(text) => Content::text(text.clone()),
            data => {
                let media_type = document
                    .media_type
                    .as_ref()
                    .map_or("application/octet-stream", |m| m.to_mime_type());
                media(data, media_type.to_owned(), false).ok_or_else(|| unsupported("documents"))?
            }
        },
        UserContent::Audio(audio) => {
            let media_type = audio.media_type.as_ref().map_or("audio/*", |m| m.to_mime_type());
            media(&audio.data, media_type.to_owned(), false).ok_or_else(|| unsupported("audio"))?
        }
        UserContent::Video(video) => {
            let media_type = video.media_type.as_ref().map_or("video/*", |m| m.to_mime_type());
            media(&video.data, media_type.to_owned(), false).ok_or_else(|| unsupported("video"))?
        }
        UserContent::ToolResult(result) => {
            Content::tool_result(result.call.wire(), tool_result_value(result), result.is_error)
        }
    })
}

fn assistant_content(part: &AssistantContent) -> Option<Content> {
    match part {
        AssistantContent::Text(text) if !text.text.is_empty() => Some(Content::text(text.text.clone())),
        AssistantContent::Reasoning(reasoning) if !reasoning.text.is_empty() => {
            Some(Content::reasoning(reasoning.text.clone()))
        }
        AssistantContent::ToolCall(call) => Some(Content::tool_call(
            call.id.wire(),
            call.function.name.to_string(),
            call.function.arguments_value(),
        )),
        AssistantContent::Image(image) => image_content(image),
        // Empty text, redacted reasoning and provider-only items mean nothing to AEP.
        _ => None,
    }
}

// ---- AEP -> rig ------------------------------------------------------------------------

fn invalid(message: impl Into<String>) -> AepError {
    AepError::invalid_request(message)
}

/// An AEP chat request as a rig completion request.
///
/// Fails with `invalid_request` (400) for what rig cannot be given: no messages, a tool
/// result answering no earlier call, a call or tool without a name; `invalid_options`
/// (422) for `topK` (rig has no such option: pass it in `additionalOptions` as the
/// provider names it) and a negative seed. `nativeOptions` never arrive here: the
/// extension declares no option set, so the SDK refuses them first.
///
/// ```
/// use aep_rig::map::request::to_rig_request;
/// use aep_sdk::protocol::{ChatRequest, Message};
///
/// let request = ChatRequest::new("gpt", vec![Message::system("Be brief."), Message::user("Hi")]);
/// let rig = to_rig_request(&request).unwrap();
/// assert_eq!(rig.model.as_deref(), Some("gpt"));
/// assert_eq!(rig.system_instructions(), Some("Be brief."));
/// ```
pub fn to_rig_request(request: &ChatRequest) -> Result<CompletionRequest, AepError> {
    let mut history: Vec<Message> = Vec::new();
    // Tool names by call id, from the assistant turns so far: rig's tool results name
    // their tool, AEP's only the call.
    let mut names: Vec<(String, ToolName)> = Vec::new();
    for (index, message) in request.messages.iter().enumerate() {
        let at = |what: &str| format!("messages[{index}]: {what}");
        match message.role {
            Role::System => {
                let text = message.text();
                if !text.is_empty() {
                    history.push(Message::System { content: text });
                }
            }
            Role::User | Role::Tool => {
                let mut content = Vec::new();
                for (position, part) in message.contents.iter().enumerate() {
                    let at = |what: &str| format!("messages[{index}].contents[{position}]: {what}");
                    match part.kind {
                        ContentKind::ToolResult => {
                            let result = part
                                .tool_result
                                .as_ref()
                                .ok_or_else(|| invalid(at("toolResult is missing")))?;
                            let name = names
                                .iter()
                                .rev()
                                .find(|(id, _)| *id == result.call_id)
                                .map(|(_, name)| name.clone())
                                .ok_or_else(|| {
                                    invalid(at(&format!(
                                        "the tool result answers call '{}', which no earlier assistant message made",
                                        result.call_id
                                    )))
                                })?;
                            content.push(UserContent::ToolResult(ToolResult {
                                call: CallId::from_wire(result.call_id.clone()),
                                name,
                                content: vec![match &result.result {
                                    Value::String(text) => ToolResultContent::text(text.clone()),
                                    value => ToolResultContent::json(value.clone()),
                                }],
                                is_error: result.is_error,
                            }));
                        }
                        _ => content.push(rig_user_content(part).map_err(|why| invalid(at(&why)))?),
                    }
                }
                if content.is_empty() {
                    return Err(invalid(at("a user or tool message without content")));
                }
                history.push(Message::User { content });
            }
            Role::Assistant => {
                let mut content = Vec::new();
                for part in &message.contents {
                    if let Some(reasoning) = part.as_reasoning() {
                        content.push(AssistantContent::Reasoning(Reasoning::new(reasoning)));
                        continue;
                    }
                    match part.kind {
                        ContentKind::Text => {
                            let text = part.text.clone().unwrap_or_default();
                            if !text.is_empty() {
                                content.push(AssistantContent::text(text));
                            }
                        }
                        ContentKind::ToolCall => {
                            let call = part
                                .tool_call
                                .as_ref()
                                .ok_or_else(|| invalid(at("toolCall is missing")))?;
                            let name = ToolName::new(call.name.clone())
                                .map_err(|_| invalid(at("a tool call without a name")))?;
                            names.push((call.id.clone(), name.clone()));
                            let arguments = match &call.arguments {
                                // Some providers send the arguments as JSON text.
                                Value::String(text) => {
                                    serde_json::from_str(text).unwrap_or(Value::Object(Map::new()))
                                }
                                Value::Null => Value::Object(Map::new()),
                                value => value.clone(),
                            };
                            content.push(AssistantContent::ToolCall(ToolCall::new(
                                CallId::from_wire(call.id.clone()),
                                ToolFunction::new(name, arguments),
                            )));
                        }
                        ContentKind::Image => {
                            if let Ok(UserContent::Image(image)) = rig_user_content(part) {
                                content.push(AssistantContent::Image(image));
                            }
                        }
                        // Structured content other than reasoning, files, results: nothing
                        // a model's own turn can hold in rig.
                        _ => {}
                    }
                }
                if !content.is_empty() {
                    history.push(Message::Assistant(AssistantMessage::new(content)));
                }
            }
        }
    }
    let Some(prompt) = history.last().cloned() else {
        return Err(invalid("the request has no messages (or only empty ones)"));
    };
    let mut rig = CompletionRequest::new(prompt);
    rig.chat_history = history;
    rig.model = Some(request.model.clone()).filter(|m| !m.is_empty());
    rig.tools = request
        .tools
        .iter()
        .enumerate()
        .map(|(index, tool)| {
            Ok(ToolDefinition {
                name: ToolName::new(tool.name.clone())
                    .map_err(|_| invalid(format!("tools[{index}]: a tool without a name")))?,
                description: tool.description.clone().unwrap_or_default(),
                parameters: match &tool.parameters {
                    Value::Null => empty_parameters(),
                    schema => schema.clone(),
                },
            })
        })
        .collect::<Result<_, AepError>>()?;
    if let Some(options) = &request.options {
        apply_options(&mut rig, options)?;
    }
    Ok(rig)
}

fn unprocessable(message: impl Into<String>) -> AepError {
    AepError::new(StatusCode::UNPROCESSABLE_ENTITY, codes::INVALID_OPTIONS, message)
}

fn apply_options(rig: &mut CompletionRequest, options: &ModelOptions) -> Result<(), AepError> {
    rig.temperature = options.temperature;
    rig.max_tokens = options.max_output_tokens.map(u64::from);
    rig.options.top_p = options.top_p;
    if let Some(seed) = options.seed {
        rig.options.seed = Some(
            u64::try_from(seed).map_err(|_| unprocessable(format!("options.seed: {seed} is negative")))?,
        );
    }
    rig.options.stop = options.stop_sequences.clone().unwrap_or_default();
    if options.top_k.is_some() {
        return Err(unprocessable(
            "options.topK: rig has no top-k option; pass it in options.additionalOptions as the provider names it",
        )
        .with_target("options.topK"));
    }
    match &options.response_format {
        None | Some(ResponseFormat::Text) => {}
        Some(ResponseFormat::JsonSchema { json_schema }) => {
            let schema = rig_core::schemars::Schema::try_from(json_schema.schema.clone())
                .map_err(|e| unprocessable(format!("options.responseFormat.json_schema.schema: {e}")))?;
            rig.output_schema = Some(schema);
        }
        Some(ResponseFormat::JsonObject) => {
            // rig has no "any JSON object" mode; an object schema is the same request.
            rig.output_schema = Some(rig_core::schemars::json_schema!({"type": "object"}));
        }
    }
    if let Some(additional) = &options.additional_options
        && !additional.is_empty()
    {
        rig.additional_params = Some(Value::Object(additional.clone()));
    }
    Ok(())
}

fn rig_user_content(part: &Content) -> Result<UserContent, String> {
    match part.kind {
        ContentKind::Text => Ok(UserContent::text(part.text.clone().unwrap_or_default())),
        ContentKind::Image | ContentKind::File => {
            let media_type = part.media_type.clone().unwrap_or_default();
            let data = match (&part.data, &part.uri) {
                (Some(Value::String(data)), _) => DocumentSourceKind::Base64(data.clone()),
                (_, Some(uri)) => DocumentSourceKind::Url(uri.clone()),
                _ => return Err("image and file contents need base64 `data` or a `uri`".to_owned()),
            };
            if part.kind == ContentKind::Image {
                return Ok(UserContent::Image(Image {
                    data,
                    media_type: ImageMediaType::from_mime_type(&media_type),
                    ..Image::default()
                }));
            }
            use rig_core::message::{AudioMediaType, Document, DocumentMediaType, VideoMediaType};
            if let Some(audio) = AudioMediaType::from_mime_type(&media_type) {
                return Ok(UserContent::Audio(rig_core::message::Audio {
                    data,
                    media_type: Some(audio),
                }));
            }
            if let Some(video) = VideoMediaType::from_mime_type(&media_type) {
                return Ok(UserContent::Video(rig_core::message::Video {
                    data,
                    media_type: Some(video),
                    additional_params: None,
                }));
            }
            Ok(UserContent::Document(Document {
                data,
                media_type: DocumentMediaType::from_mime_type(&media_type),
                additional_params: None,
            }))
        }
        // Structured data a person sends: its JSON as text.
        ContentKind::Structured => Ok(UserContent::text(
            part.data.as_ref().map(Value::to_string).unwrap_or_default(),
        )),
        ContentKind::ToolCall => Err("a toolCall in a user message".to_owned()),
        ContentKind::ToolResult => Err("a toolResult without its call".to_owned()),
    }
}
