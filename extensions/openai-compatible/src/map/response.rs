//! A non-streamed Chat Completions answer as an AEP [`ChatResponse`]
//! (shared/openai-compatible-notes.md 2.3): `choices[0].message`'s text, then its tool
//! calls (ids kept, arguments parsed), role, model, finish reason and usage. Reasoning
//! (`reasoning_content`) comes first, as in streams.

use aep_sdk::protocol::{ChatResponse, Content, Message, Role};
use serde_json::Value;

use super::stream::{arguments, finish_reason, role, usage};
use crate::client::UpstreamError;

/// The AEP answer; `model` is the request's, used when the answer names none.
pub fn chat_response(answer: &Value, model: &str) -> Result<ChatResponse, UpstreamError> {
    let choice = answer
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or(UpstreamError::NoChoice)?;
    let message = choice
        .get("message")
        .and_then(Value::as_object)
        .ok_or(UpstreamError::NoChoice)?;
    let mut contents = Vec::new();
    for key in ["reasoning_content", "reasoning"] {
        if let Some(Value::String(text)) = message.get(key)
            && !text.is_empty()
        {
            contents.push(Content::reasoning(text.clone()));
            break;
        }
    }
    if let Some(Value::String(text)) = message.get("content")
        && !text.is_empty()
    {
        contents.push(Content::text(text.clone()));
    }
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(function) = call.get("function") else {
            continue;
        };
        let Some(name) = function
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.trim().is_empty())
        else {
            continue;
        };
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .map_or_else(|| uuid::Uuid::new_v4().simple().to_string(), str::to_owned);
        let text = function.get("arguments").and_then(Value::as_str).unwrap_or("");
        contents.push(Content::tool_call(id, name, arguments(text)));
    }
    let role = message
        .get("role")
        .and_then(Value::as_str)
        .and_then(role)
        .unwrap_or(Role::Assistant);
    let mut response = ChatResponse::message(Message {
        role,
        contents,
        author_name: None,
    })
    .with_model(answer.get("model").and_then(Value::as_str).unwrap_or(model));
    response.finish_reason = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(finish_reason);
    response.usage = answer.get("usage").and_then(usage);
    Ok(response)
}

#[cfg(test)]
mod tests {
    use aep_sdk::protocol::FinishReason;
    use serde_json::json;

    use super::*;

    #[test]
    fn text_tool_calls_usage_and_finish() {
        let answer = json!({"model": "m", "choices": [{"message": {"role": "assistant", "content": "hi",
            "tool_calls": [{"id": "c1", "function": {"name": "weather", "arguments": "{\"city\": \"Paris\"}"}},
                           {"function": {"name": " "}}]}, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 34, "completion_tokens": 20, "total_tokens": 54}});
        let response = chat_response(&answer, "req").unwrap();
        assert_eq!(response.all_text(), "hi");
        let calls: Vec<_> = response.messages[0].tool_calls().collect();
        assert_eq!(
            (calls.len(), calls[0].id.as_str(), &calls[0].arguments),
            (1, "c1", &json!({"city": "Paris"}))
        );
        assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(response.usage.unwrap().total_tokens, Some(54));
        assert_eq!(response.model.as_deref(), Some("m"));
    }

    #[test]
    fn no_choice_is_refused() {
        assert_eq!(
            chat_response(&json!({"choices": []}), "m").unwrap_err(),
            UpstreamError::NoChoice
        );
        assert_eq!(
            chat_response(&json!({"choices": [{}]}), "m").unwrap_err(),
            UpstreamError::NoChoice
        );
    }
}
