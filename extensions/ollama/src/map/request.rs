//! AEP chat request -> Ollama `/api/chat` body.

use std::collections::HashMap;

use aep_sdk::AepError;
use aep_sdk::protocol::{self as aep, ContentKind, ResponseFormat, Role};
use serde_json::{Map, Value};

use crate::ollama::wire;
use crate::profile::{ModelProfile, ThinkSetting};

/// Builds Ollama's chat body (with `stream: true`; the client always streams).
///
/// - roles map one to one; the text contents of a message are concatenated;
/// - images (`image` content, or `file` content with an `image/*` media type) go to
///   `images` as raw base64: `data` as is, a `data:...;base64,` URI stripped of its
///   prefix; a remote URI is refused (400 `invalid_request`): Ollama does not fetch;
/// - reasoning content (`structured`, `application/vnd.aep.reasoning+json`) of an
///   earlier assistant turn goes to `thinking`; other structured content is appended
///   to the text as compact JSON;
/// - tool calls go to `tool_calls` with their id and object arguments; each tool
///   result becomes its own `role: tool` message with `tool_name` (found from the
///   call it answers) and `tool_call_id`; a failed result's text starts with `Error: `;
/// - `tools` -> `tools` (`type: function`); `responseFormat` `json_object` ->
///   `format: "json"`, `json_schema` -> `format: <schema>`;
/// - options: `additionalOptions`, then the profile's `additionalOptions`, then the
///   named options (`temperature`, `top_p`, `top_k`, `seed`, `num_predict`, `stop`,
///   `num_ctx`, `num_gpu`, `num_thread`, `num_batch`, `mirostat`), each later one
///   winning; `think` and `keep_alive` from the profile.
pub fn chat_request(
    request: &aep::ChatRequest,
    profile: Option<&ModelProfile>,
) -> Result<wire::ChatRequest, AepError> {
    let options = request.options.as_ref();
    Ok(wire::ChatRequest {
        model: request.model.clone(),
        messages: messages(&request.messages)?,
        tools: request.tools.iter().map(tool).collect(),
        format: options.and_then(|o| o.response_format.as_ref()).and_then(format),
        options: ollama_options(options, profile),
        stream: true,
        think: profile.and_then(|p| p.think.as_ref()).map(|think| match think {
            ThinkSetting::Enabled(enabled) => wire::Think::Enabled(*enabled),
            ThinkSetting::Level(level) => wire::Think::Level(level.clone()),
        }),
        keep_alive: profile.and_then(|p| p.keep_alive.as_deref()).map(keep_alive),
    })
}

fn role(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

fn messages(messages: &[aep::Message]) -> Result<Vec<wire::Message>, AepError> {
    // Tool results name the call they answer; Ollama wants the function's name.
    let call_names: HashMap<&str, &str> = messages
        .iter()
        .flat_map(|m| m.tool_calls())
        .map(|call| (call.id.as_str(), call.name.as_str()))
        .collect();
    let mut out = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        let mut main = wire::Message {
            role: role(message.role).to_owned(),
            ..wire::Message::default()
        };
        let mut has_main_content = message.contents.is_empty();
        let mut results = Vec::new();
        for (position, content) in message.contents.iter().enumerate() {
            let at = format!("messages[{index}].contents[{position}]");
            if content.kind == ContentKind::ToolResult {
                results.push(tool_result(content, &call_names, &at)?);
                continue;
            }
            has_main_content = true;
            add_content(&mut main, content, &at)?;
        }
        if has_main_content {
            out.push(main);
        }
        out.extend(results);
    }
    Ok(out)
}

fn add_content(message: &mut wire::Message, content: &aep::Content, at: &str) -> Result<(), AepError> {
    match content.kind {
        ContentKind::Text => message
            .content
            .push_str(content.text.as_deref().unwrap_or_default()),
        ContentKind::Image => message.images.push(image_base64(content, at)?),
        ContentKind::File => {
            let media_type = content.media_type.as_deref().unwrap_or_default();
            if !media_type.to_ascii_lowercase().starts_with("image/") {
                return Err(AepError::invalid_request(format!(
                    "{at}: Ollama takes text and images only, not a file of type '{media_type}'"
                ))
                .with_target(at));
            }
            message.images.push(image_base64(content, at)?);
        }
        ContentKind::Structured => match content.as_reasoning() {
            Some(reasoning) => message
                .thinking
                .get_or_insert_with(String::new)
                .push_str(reasoning),
            None => {
                let data = content.data.clone().unwrap_or(Value::Null);
                message.content.push_str(&data.to_string());
            }
        },
        ContentKind::ToolCall => {
            let Some(call) = &content.tool_call else {
                return Err(missing(at, "toolCall"));
            };
            message.tool_calls.push(wire::ToolCall {
                id: (!call.id.is_empty()).then(|| call.id.clone()),
                function: wire::ToolCallFunction {
                    index: None,
                    name: call.name.clone(),
                    arguments: arguments(&call.arguments, at)?,
                },
            });
        }
        // Tool results become messages of their own (see `messages`).
        ContentKind::ToolResult => {}
    }
    Ok(())
}

fn missing(at: &str, member: &str) -> AepError {
    AepError::invalid_request(format!("{at}: '{member}' is missing")).with_target(at)
}

/// Ollama only accepts an object (a JSON string is a 400 on its side).
fn arguments(arguments: &Value, at: &str) -> Result<Value, AepError> {
    match arguments {
        Value::Object(_) => Ok(arguments.clone()),
        Value::Null => Ok(Value::Object(Map::new())),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(parsed @ Value::Object(_)) => Ok(parsed),
            _ => Err(not_an_object(at)),
        },
        _ => Err(not_an_object(at)),
    }
}

fn not_an_object(at: &str) -> AepError {
    let target = format!("{at}.toolCall.arguments");
    AepError::invalid_request(format!("{target}: tool-call arguments must be a JSON object"))
        .with_target(target)
}

fn tool_result(
    content: &aep::Content,
    call_names: &HashMap<&str, &str>,
    at: &str,
) -> Result<wire::Message, AepError> {
    let Some(result) = &content.tool_result else {
        return Err(missing(at, "toolResult"));
    };
    let text = match &result.result {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    Ok(wire::Message {
        role: "tool".to_owned(),
        content: if result.is_error {
            format!("Error: {text}")
        } else {
            text
        },
        tool_name: call_names
            .get(result.call_id.as_str())
            .map(|name| (*name).to_owned()),
        tool_call_id: (!result.call_id.is_empty()).then(|| result.call_id.clone()),
        ..wire::Message::default()
    })
}

/// Raw base64 of an image: `data`, or the payload of a base64 `data:` URI.
fn image_base64(content: &aep::Content, at: &str) -> Result<String, AepError> {
    if let Some(data) = &content.data {
        let Value::String(text) = data else {
            let target = format!("{at}.data");
            return Err(
                AepError::invalid_request(format!("{target}: image data must be a base64 string"))
                    .with_target(target),
            );
        };
        if text
            .trim_start()
            .get(..5)
            .is_some_and(|p| p.eq_ignore_ascii_case("data:"))
        {
            return data_uri(text.trim(), &format!("{at}.data"));
        }
        return normalize_base64(text).ok_or_else(|| bad_base64(&format!("{at}.data")));
    }
    let Some(uri) = content.uri.as_deref().map(str::trim) else {
        return Err(
            AepError::invalid_request(format!("{at}: an image needs base64 'data' or a 'uri'"))
                .with_target(at),
        );
    };
    if uri.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("data:")) {
        return data_uri(uri, &format!("{at}.uri"));
    }
    let target = format!("{at}.uri");
    let shown: String = uri.chars().take(120).collect();
    Err(AepError::invalid_request(format!(
        "{target}: Ollama only takes inline images; the remote URI '{shown}' is not fetched. \
         Send the image as base64 'data' or as a data: URI"
    ))
    .with_target(target))
}

/// `data:[<media type>][;params];base64,<payload>` -> the payload.
fn data_uri(uri: &str, target: &str) -> Result<String, AepError> {
    let Some((header, payload)) = uri.split_once(',') else {
        return Err(
            AepError::invalid_request(format!("{target}: a data: URI needs a ',' before its data"))
                .with_target(target),
        );
    };
    let is_base64 = header
        .split(';')
        .skip(1)
        .any(|param| param.trim().eq_ignore_ascii_case("base64"));
    if !is_base64 {
        return Err(AepError::invalid_request(format!(
            "{target}: only base64 data: URIs are supported (data:<type>;base64,...)"
        ))
        .with_target(target));
    }
    normalize_base64(payload).ok_or_else(|| bad_base64(target))
}

fn bad_base64(target: &str) -> AepError {
    AepError::invalid_request(format!("{target}: the image is not valid base64")).with_target(target)
}

/// Standard padded base64, as Ollama (Go's `StdEncoding`) requires: whitespace
/// removed, the URL-safe alphabet translated, padding added. `None` if it cannot be.
fn normalize_base64(text: &str) -> Option<String> {
    let mut out: String = text
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            other => other,
        })
        .collect();
    let body = out.trim_end_matches('=');
    if body.is_empty()
        || !body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/')
    {
        return None;
    }
    let padding = out.len() - body.len();
    let body_len = body.len();
    if body_len % 4 == 1 || padding > 2 {
        return None;
    }
    out.truncate(body_len);
    while !out.len().is_multiple_of(4) {
        out.push('=');
    }
    Some(out)
}

fn tool(definition: &aep::ToolDefinition) -> wire::Tool {
    let parameters = match &definition.parameters {
        Value::Null => serde_json::json!({"type": "object", "properties": {}}),
        other => other.clone(),
    };
    wire::Tool {
        kind: "function",
        function: wire::ToolFunction {
            name: definition.name.clone(),
            description: definition.description.clone(),
            parameters,
        },
    }
}

fn format(format: &ResponseFormat) -> Option<Value> {
    match format {
        ResponseFormat::Text => None,
        ResponseFormat::JsonObject => Some(Value::String("json".to_owned())),
        ResponseFormat::JsonSchema { json_schema } => Some(json_schema.schema.clone()),
    }
}

fn ollama_options(options: Option<&aep::ModelOptions>, profile: Option<&ModelProfile>) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(extra) = options.and_then(|o| o.additional_options.as_ref()) {
        out.extend(extra.clone());
    }
    if let Some(extra) = profile.and_then(|p| p.additional_options.as_ref()) {
        out.extend(extra.clone());
    }
    let mut set = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            out.insert(key.to_owned(), value);
        }
    };
    if let Some(o) = options {
        set("temperature", o.temperature.map(Value::from));
        set("top_p", o.top_p.map(Value::from));
        set("top_k", o.top_k.map(Value::from));
        set("seed", o.seed.map(Value::from));
        set("num_predict", o.max_output_tokens.map(Value::from));
        set("stop", o.stop_sequences.clone().map(Value::from));
    }
    if let Some(p) = profile {
        set("num_ctx", p.context_size.map(Value::from));
        set("num_gpu", p.num_gpu.map(Value::from));
        set("num_thread", p.num_thread.map(Value::from));
        set("num_batch", p.num_batch.map(Value::from));
        set("mirostat", p.mirostat.map(Value::from));
    }
    out
}

/// A bare number (`"300"`, `"-1"`) means seconds: Ollama refuses it as a string.
fn keep_alive(text: &str) -> Value {
    let trimmed = text.trim();
    if let Ok(seconds) = trimmed.parse::<i64>() {
        return Value::from(seconds);
    }
    if let Ok(seconds) = trimmed.parse::<f64>()
        && seconds.is_finite()
    {
        return Value::from(seconds);
    }
    Value::String(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn base64_forms() {
        assert_eq!(normalize_base64("aGVsbG8=").as_deref(), Some("aGVsbG8="));
        assert_eq!(normalize_base64("aGVs\nbG8").as_deref(), Some("aGVsbG8="));
        assert_eq!(normalize_base64("-_8").as_deref(), Some("+/8="));
        assert_eq!(normalize_base64("a"), None);
        assert_eq!(normalize_base64("not base64!"), None);
        assert_eq!(normalize_base64(""), None);
    }

    #[test]
    fn data_uris() {
        assert_eq!(
            data_uri("data:image/png;base64,aGVsbG8=", "t").ok().as_deref(),
            Some("aGVsbG8=")
        );
        assert_eq!(
            data_uri("DATA:;BASE64,aGVsbG8", "t").ok().as_deref(),
            Some("aGVsbG8=")
        );
        assert!(data_uri("data:image/png,hello", "t").is_err());
        assert!(data_uri("data:image/png;base64", "t").is_err());
    }

    #[test]
    fn keep_alive_numbers_become_seconds() {
        assert_eq!(keep_alive("300"), json!(300));
        assert_eq!(keep_alive("-1"), json!(-1));
        assert_eq!(keep_alive("1.5"), json!(1.5));
        assert_eq!(keep_alive("10m"), json!("10m"));
    }

    #[test]
    fn arguments_must_be_objects() {
        assert_eq!(arguments(&json!({"a": 1}), "m").ok(), Some(json!({"a": 1})));
        assert_eq!(arguments(&json!(null), "m").ok(), Some(json!({})));
        assert_eq!(arguments(&json!("{\"a\":1}"), "m").ok(), Some(json!({"a": 1})));
        assert!(arguments(&json!([1]), "m").is_err());
        assert!(arguments(&json!("[1]"), "m").is_err());
    }
}
