//! An AEP answer as a `chat.completion` object, and what the streamed answer shares with
//! it: the completion id, finish reasons, usage and tool calls in OpenAI's shapes.
//!
//! Reasoning text goes in the message's `reasoning_content`, the member DeepSeek, vLLM
//! and llama.cpp use (OpenAI's reference has none; SDKs keep unknown members). Other
//! `structured` content is written into `content` as JSON text; images a model returns
//! have no place in a Chat Completions answer and are dropped.

use std::time::{SystemTime, UNIX_EPOCH};

use aep_sdk::protocol::{ChatResponse, Content, ContentKind, FinishReason, Usage};
use serde_json::{Map, Value, json};

use super::error::OpenAiError;

/// What every object of one answer repeats.
#[derive(Debug, Clone)]
pub(super) struct Answer {
    /// `chatcmpl-` and 24 random hex digits.
    pub id: String,
    /// Unix seconds.
    pub created: u64,
    /// The gateway model id the client asked for.
    pub model: String,
}

impl Answer {
    pub fn new(model: &str) -> Self {
        let mut bytes = [0u8; 12];
        // The OS random source; should it fail, the clock still tells answers apart.
        if getrandom::fill(&mut bytes).is_err() {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            bytes.copy_from_slice(&nanos.to_le_bytes()[..12]);
        }
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Self {
            id: format!("chatcmpl-{hex}"),
            created: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            model: model.to_owned(),
        }
    }
}

/// OpenAI's `finish_reason` for an AEP one (`other` has no counterpart: `stop`).
pub(super) fn finish_reason(reason: FinishReason) -> &'static str {
    match reason {
        FinishReason::Length => "length",
        FinishReason::ToolCalls => "tool_calls",
        FinishReason::ContentFilter => "content_filter",
        FinishReason::Stop | FinishReason::Other | FinishReason::Error => "stop",
    }
}

/// `{"prompt_tokens", "completion_tokens", "total_tokens"}`; a count the provider did
/// not report is 0 (the total is then the sum).
pub(super) fn usage(usage: &Usage) -> Value {
    let prompt = usage.input_tokens.unwrap_or(0);
    let completion = usage.output_tokens.unwrap_or(0);
    json!({
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": usage.total_tokens.unwrap_or(prompt + completion),
    })
}

/// Tool-call arguments as the string OpenAI sends (a JSON string value is sent as it
/// is: it is how arguments that were not JSON came in).
pub(super) fn arguments(arguments: &Value) -> String {
    match arguments {
        Value::String(raw) => raw.clone(),
        Value::Null => "{}".to_owned(),
        other => other.to_string(),
    }
}

/// The text a content adds to `content` (text, or non-reasoning structured data as
/// JSON), if any.
pub(super) fn text_of(content: &Content) -> Option<String> {
    match content.kind {
        ContentKind::Text => content.text.clone(),
        ContentKind::Structured if content.as_reasoning().is_none() => {
            content.data.as_ref().map(|d| d.to_string())
        }
        _ => None,
    }
}

/// The `chat.completion` object of a whole answer; an answer that says it failed is a
/// 502.
pub(super) fn completion(answer: &Answer, response: &ChatResponse) -> Result<Value, OpenAiError> {
    if response.finish_reason == Some(FinishReason::Error) {
        return Err(OpenAiError {
            status: axum::http::StatusCode::BAD_GATEWAY,
            message: format!("The model provider of `{}` reported a failure", answer.model),
            kind: "server_error",
            param: None,
            code: Some("provider_failed".to_owned()),
        });
    }
    let contents = response.messages.iter().flat_map(|m| &m.contents);
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut calls = Vec::new();
    for content in contents {
        if let Some(piece) = text_of(content) {
            text.push_str(&piece);
        } else if let Some(piece) = content.as_reasoning() {
            reasoning.push_str(piece);
        } else if let Some(call) = &content.tool_call {
            calls.push(json!({"id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": arguments(&call.arguments)}}));
        }
    }
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    let no_text = text.is_empty() && !calls.is_empty();
    message.insert("content".into(), if no_text { Value::Null } else { json!(text) });
    message.insert("refusal".into(), Value::Null);
    message.insert("annotations".into(), json!([]));
    let finish = match response.finish_reason {
        Some(reason) => finish_reason(reason),
        None if !calls.is_empty() => "tool_calls",
        None => "stop",
    };
    if !calls.is_empty() {
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    if !reasoning.is_empty() {
        message.insert("reasoning_content".into(), json!(reasoning));
    }
    let mut object = json!({
        "id": answer.id, "object": "chat.completion", "created": answer.created, "model": answer.model,
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
    });
    if let Some(counts) = &response.usage {
        object["usage"] = usage(counts);
    }
    Ok(object)
}

#[cfg(test)]
mod tests {
    use aep_sdk::protocol::{Message, Role};

    use super::*;

    #[test]
    fn an_answer_with_tool_calls_and_reasoning() {
        let answer = Answer::new("echo/echo-1");
        assert!(answer.id.starts_with("chatcmpl-") && answer.id.len() == 33);
        let response = ChatResponse::message(Message::new(
            Role::Assistant,
            vec![
                Content::reasoning("think"),
                Content::tool_call("c1", "f", json!({"a": 1})),
            ],
        ))
        .with_finish(FinishReason::ToolCalls)
        .with_usage(Usage::new(3, 4));
        let object = completion(&answer, &response).unwrap();
        let choice = &object["choices"][0];
        assert_eq!(choice["finish_reason"], "tool_calls");
        assert_eq!(choice["message"]["content"], Value::Null);
        assert_eq!(choice["message"]["reasoning_content"], "think");
        assert_eq!(
            choice["message"]["tool_calls"][0]["function"]["arguments"],
            "{\"a\":1}"
        );
        assert_eq!(
            object["usage"],
            json!({"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7})
        );
        assert_eq!(object["model"], "echo/echo-1");
    }

    #[test]
    fn a_text_answer_without_usage_has_none() {
        let object = completion(&Answer::new("m"), &ChatResponse::text("hi")).unwrap();
        assert_eq!(object["choices"][0]["message"]["content"], "hi");
        assert!(object.get("usage").is_none());
        let failed = ChatResponse::text("x").with_finish(FinishReason::Error);
        assert_eq!(
            completion(&Answer::new("m"), &failed)
                .unwrap_err()
                .status
                .as_u16(),
            502
        );
    }
}
