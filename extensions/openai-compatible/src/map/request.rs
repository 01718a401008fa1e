//! An AEP chat request as a Chat Completions body, member by member in the reference's
//! order (shared/openai-compatible-notes.md 2.2 and 3.2): `model`, `messages`, `stream`,
//! sampling options, `response_format`, `reasoning_effort`, native options,
//! `chat_template_kwargs`, and `tools` last. `metadata` is never forwarded.

use aep_sdk::AepError;
use aep_sdk::protocol::{ChatRequest, Content, ContentKind, Message, Role, ToolDefinition};
use serde_json::{Map, Value, json};

use crate::flavor::Flavor;
use crate::profile;

/// What shapes the body besides the request.
#[derive(Debug, Clone, Copy)]
pub struct RequestSettings {
    /// The upstream kind.
    pub flavor: Flavor,
    /// Ask for the usage chunk (`stream_options.include_usage`; streams only).
    pub include_usage: bool,
    /// A streamed answer (`/chat/stream`) or one in a piece (`/chat`, as the reference).
    pub stream: bool,
}

/// The body of `POST v1/chat/completions`.
/// `native` is the validated native option values, if the request has them.
pub fn chat_body(
    request: &ChatRequest,
    native: Option<&Value>,
    settings: RequestSettings,
) -> Result<Value, AepError> {
    let flavor = settings.flavor;
    if request.model.trim().is_empty() {
        let name = match flavor {
            Flavor::OpenAi => "A",
            Flavor::LlamaCpp => "A llama.cpp",
            Flavor::LocalAi => "A LocalAI",
        };
        return Err(AepError::new(
            http::StatusCode::BAD_REQUEST,
            aep_sdk::error::codes::MODEL_UNAVAILABLE,
            format!("{name} model name is required."),
        ));
    }
    if request.messages.is_empty() {
        return Err(AepError::invalid_request("At least one message is required."));
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    let messages: Vec<Value> = request.messages.iter().map(|m| message(m, flavor)).collect();
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(settings.stream));
    if settings.stream && settings.include_usage {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    let options = request.options.as_ref();
    let additional = options.and_then(|o| o.additional_options.as_ref());
    if let Some(options) = options {
        if let Some(t) = options.temperature {
            body.insert("temperature".into(), json!(t));
        }
        if let Some(n) = options.max_output_tokens {
            body.insert("max_tokens".into(), json!(n));
        }
        if let Some(p) = options.top_p {
            body.insert("top_p".into(), json!(p));
        }
        if let Some(k) = options.top_k.filter(|_| flavor.sends_top_k()) {
            body.insert("top_k".into(), json!(k));
        }
        if let Some(seed) = options.seed {
            body.insert("seed".into(), json!(seed));
        }
        if let Some(stop) = options.stop_sequences.as_ref().filter(|s| !s.is_empty()) {
            body.insert("stop".into(), json!(stop));
        }
        if let Some(format) = &options.response_format {
            body.insert(
                "response_format".into(),
                serde_json::to_value(format).unwrap_or(Value::Null),
            );
        }
    }
    if let Some(Value::String(effort)) = additional.and_then(|a| a.get("reasoning_effort")) {
        body.insert("reasoning_effort".into(), json!(effort));
    }
    if flavor == Flavor::OpenAi {
        for key in ["frequency_penalty", "presence_penalty"] {
            if let Some(value @ Value::Number(_)) = additional.and_then(|a| a.get(key)) {
                body.insert(key.into(), value.clone());
            }
        }
    }
    let mut template_kwargs: Option<Map<String, Value>> = None;
    if flavor.maps_thinking_switch()
        && let Some(Value::Bool(enabled)) = additional.and_then(|a| a.get("reasoning_enabled"))
    {
        template_kwargs = Some(Map::from_iter([("enable_thinking".to_owned(), json!(enabled))]));
    }
    if let Some(Value::Object(values)) = native {
        match flavor {
            Flavor::LlamaCpp => profile::apply_llamacpp(values, &mut body, &mut template_kwargs),
            Flavor::LocalAi => profile::apply_localai(values, &mut body)?,
            Flavor::OpenAi => {}
        }
    }
    if let Some(kwargs) = template_kwargs {
        body.insert("chat_template_kwargs".into(), Value::Object(kwargs));
    }
    if !request.tools.is_empty() {
        body.insert(
            "tools".into(),
            Value::Array(request.tools.iter().map(tool).collect()),
        );
        // AEP has no tool choice; `additionalOptions.tool_choice` carries OpenAI's (the
        // gateway puts it there). Some servers (llama-cpp-python) call a tool only when told to.
        if flavor == Flavor::OpenAi
            && let Some(choice @ (Value::String(_) | Value::Object(_))) =
                additional.and_then(|a| a.get("tool_choice"))
        {
            body.insert("tool_choice".into(), choice.clone());
        }
    }
    Ok(Value::Object(body))
}

fn role(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        _ => "user",
    }
}

/// One message: its text joined (always a string), or, for a flavour that sends images
/// and a message that has some, OpenAI's array of `text` and `image_url` parts.
fn message(message: &Message, flavor: Flavor) -> Value {
    let mut out = Map::new();
    out.insert("role".into(), json!(role(message.role)));
    let text: String = message
        .contents
        .iter()
        .filter(|c| c.kind == ContentKind::Text)
        .map(|c| c.text.as_deref().unwrap_or(""))
        .collect();
    let images: Vec<String> = message.contents.iter().filter_map(image_url).collect();
    let content = if flavor.sends_images() && !images.is_empty() {
        let mut parts = Vec::new();
        if !text.is_empty() {
            parts.push(json!({"type": "text", "text": text}));
        }
        parts.extend(
            images
                .into_iter()
                .map(|url| json!({"type": "image_url", "image_url": {"url": url}})),
        );
        Value::Array(parts)
    } else {
        json!(text)
    };
    out.insert("content".into(), content);
    if let Some(name) = message.author_name.as_deref().filter(|n| !n.trim().is_empty()) {
        out.insert("name".into(), json!(name));
    }
    let calls: Vec<Value> = message
        .contents
        .iter()
        .filter_map(|c| c.tool_call.as_ref())
        .map(|call| {
            json!({"id": call.id, "type": "function",
                   "function": {"name": call.name, "arguments": call.arguments.to_string()}})
        })
        .collect();
    if !calls.is_empty() {
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    if let Some(result) = message.contents.iter().find_map(|c| c.tool_result.as_ref()) {
        out.insert("tool_call_id".into(), json!(result.call_id));
        let content = match &result.result {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        out.insert("content".into(), json!(content));
    }
    Value::Object(out)
}

/// An image content as a URL: its `uri`, or a `data:` URI of its base64 `data`.
fn image_url(content: &Content) -> Option<String> {
    if content.kind != ContentKind::Image {
        return None;
    }
    if let Some(uri) = &content.uri {
        return Some(uri.clone());
    }
    let data = content.data.as_ref()?.as_str()?;
    let media_type = content.media_type.as_deref().unwrap_or("image/png");
    Some(format!("data:{media_type};base64,{data}"))
}

fn tool(tool: &ToolDefinition) -> Value {
    json!({"type": "function", "function": {
        "name": tool.name, "description": tool.description, "parameters": tool.parameters}})
}

#[cfg(test)]
mod tests {
    use aep_sdk::protocol::{ModelOptions, ResponseFormat};

    use super::*;

    fn settings(flavor: Flavor) -> RequestSettings {
        RequestSettings {
            flavor,
            include_usage: false,
            stream: true,
        }
    }

    /// The reference's test vector (LlamaCppProviderTests.ChatMapsCanonicalNativeStructuredAndToolOptions),
    /// streamed: the same members in the same order, `stream: true`.
    #[test]
    fn llamacpp_reference_vector() {
        let mut request = ChatRequest::new("local-gguf", vec![Message::user("ping")]);
        let format: ResponseFormat = serde_json::from_value(
            json!({"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}}),
        )
        .unwrap();
        request.options = Some(ModelOptions {
            temperature: Some(0.2),
            max_output_tokens: Some(128),
            response_format: Some(format),
            additional_options: Some(Map::from_iter([("reasoning_enabled".to_owned(), json!(false))])),
            ..ModelOptions::default()
        });
        request.tools = vec![ToolDefinition {
            name: "weather".into(),
            description: Some("Weather".into()),
            parameters: json!({"type": "object"}),
        }];
        let native = json!({"minP": 0.05, "repeatPenalty": 1.1});
        let body = chat_body(&request, Some(&native), settings(Flavor::LlamaCpp)).unwrap();
        assert_eq!(
            body.to_string(),
            r#"{"model":"local-gguf","messages":[{"role":"user","content":"ping"}],"stream":true,"temperature":0.2,"max_tokens":128,"response_format":{"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}},"min_p":0.05,"repeat_penalty":1.1,"chat_template_kwargs":{"enable_thinking":false},"tools":[{"type":"function","function":{"name":"weather","description":"Weather","parameters":{"type":"object"}}}]}"#
        );
    }

    #[test]
    fn localai_reference_vector_and_allow_list() {
        let mut request = ChatRequest::new("chat-model", vec![Message::user("ping")]);
        request.options = Some(ModelOptions {
            temperature: Some(0.25),
            max_output_tokens: Some(128),
            additional_options: Some(Map::from_iter([("reasoning_enabled".to_owned(), json!(true))])),
            ..ModelOptions::default()
        });
        request.metadata = Some(Map::from_iter([("mcp_servers".to_owned(), json!("x"))]));
        request.tools = vec![ToolDefinition {
            name: "weather".into(),
            description: Some("Weather".into()),
            parameters: json!({"type": "object"}),
        }];
        let native = json!({"frequencyPenalty": 0.2, "presencePenalty": 0.3});
        let body = chat_body(&request, Some(&native), settings(Flavor::LocalAi)).unwrap();
        assert_eq!(
            body.to_string(),
            r#"{"model":"chat-model","messages":[{"role":"user","content":"ping"}],"stream":true,"temperature":0.25,"max_tokens":128,"frequency_penalty":0.2,"presence_penalty":0.3,"tools":[{"type":"function","function":{"name":"weather","description":"Weather","parameters":{"type":"object"}}}]}"#
        );
        let error = chat_body(
            &request,
            Some(&json!({"metadata": {}})),
            settings(Flavor::LocalAi),
        )
        .unwrap_err();
        assert_eq!(error.code(), "invalid_request");
    }

    #[test]
    fn tool_calls_results_names_and_images() {
        let call = Message {
            role: Role::Assistant,
            contents: vec![Content::tool_call("call-1", "weather", json!({"city": "Paris"}))],
            author_name: None,
        };
        let result = Message {
            role: Role::Tool,
            contents: vec![Content::tool_result("call-1", json!({"temp": 21}), false)],
            author_name: Some("weather".into()),
        };
        let image = Message {
            role: Role::User,
            contents: vec![
                Content::text("what is this?"),
                serde_json::from_value(json!({"kind": "image", "mediaType": "image/png", "data": "iVBOR"}))
                    .unwrap(),
            ],
            author_name: None,
        };
        let request = ChatRequest::new("m", vec![call, result, image]);
        let body = chat_body(&request, None, settings(Flavor::OpenAi)).unwrap();
        let messages = &body["messages"];
        assert_eq!(
            messages[0]["tool_calls"][0],
            json!({"id": "call-1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}})
        );
        assert_eq!(messages[0]["content"], "");
        assert_eq!(
            messages[1],
            json!({"role": "tool", "content": "{\"temp\":21}", "name": "weather", "tool_call_id": "call-1"})
        );
        assert_eq!(
            messages[2]["content"][1]["image_url"]["url"],
            "data:image/png;base64,iVBOR"
        );
        // The drop-ins drop images (vision: false), as the reference does.
        let body = chat_body(&request, None, settings(Flavor::LlamaCpp)).unwrap();
        assert_eq!(body["messages"][2]["content"], "what is this?");
    }

    #[test]
    fn tool_choice_is_forwarded_to_an_openai_server_with_tools() {
        let mut request = ChatRequest::new("m", vec![Message::user("x")]);
        let choice = json!({"type": "function", "function": {"name": "weather"}});
        request.options = Some(ModelOptions {
            additional_options: Some(Map::from_iter([("tool_choice".to_owned(), choice.clone())])),
            ..ModelOptions::default()
        });
        let body = chat_body(&request, None, settings(Flavor::OpenAi)).unwrap();
        assert!(body.get("tool_choice").is_none(), "no tools, no choice");
        request.tools = vec![ToolDefinition {
            name: "weather".into(),
            description: None,
            parameters: json!({"type": "object"}),
        }];
        let body = chat_body(&request, None, settings(Flavor::OpenAi)).unwrap();
        assert_eq!(body["tool_choice"], choice);
        // The drop-ins send what the reference sends.
        let body = chat_body(&request, None, settings(Flavor::LlamaCpp)).unwrap();
        assert!(body.get("tool_choice").is_none());
    }

    #[test]
    fn model_and_messages_are_required() {
        let error = chat_body(
            &ChatRequest::new(" ", vec![Message::user("x")]),
            None,
            settings(Flavor::LlamaCpp),
        )
        .unwrap_err();
        assert_eq!(
            (error.status().as_u16(), error.message()),
            (400, "A llama.cpp model name is required.")
        );
        let error = chat_body(&ChatRequest::new("m", vec![]), None, settings(Flavor::LocalAi)).unwrap_err();
        assert_eq!(
            (error.code(), error.message()),
            ("invalid_request", "At least one message is required.")
        );
    }
}
