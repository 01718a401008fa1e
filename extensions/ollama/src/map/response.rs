//! Ollama's answer lines -> AEP chat updates.

use aep_sdk::protocol::{ChatUpdate, Content, FinishReason, Usage};
use serde_json::{Map, Value};

use crate::ollama::{OllamaError, wire};

/// Turns the lines of one `/api/chat` stream into updates, remembering what the
/// finish reason needs (whether the answer carried tool calls).
///
/// - `message.thinking` -> reasoning content (`structured`,
///   `application/vnd.aep.reasoning+json`, `{"text": ...}`);
/// - `message.content` -> text;
/// - each of `message.tool_calls` -> a tool call, keeping Ollama's id or getting a
///   fresh `call_<uuid>`; calls may come in several chunks;
/// - the `done: true` line -> the terminal update: its contents, `finishReason`
///   (`length` for `length`; `toolCalls` when the answer carried a call, else `stop`
///   for `stop`; `other` for anything else) and usage from
///   `prompt_eval_count`/`eval_count` (missing counters are 0);
/// - an `{"error": ...}` line -> [`OllamaError::Stream`]; a line that is not an
///   Ollama chunk -> [`OllamaError::Malformed`].
#[derive(Debug, Clone)]
pub struct StreamMapper {
    requested_model: String,
    tool_calls: usize,
}

impl StreamMapper {
    /// A mapper for an answer to a request for `model`.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            requested_model: model.into(),
            tool_calls: 0,
        }
    }

    /// Tool calls seen so far.
    pub fn tool_calls(&self) -> usize {
        self.tool_calls
    }

    /// Maps one line; `Ok(None)` for a line that carries nothing (an empty delta).
    pub fn line(&mut self, line: &[u8]) -> Result<Option<ChatUpdate>, OllamaError> {
        let chunk: wire::ChatChunk = serde_json::from_slice(line).map_err(|error| {
            let text = String::from_utf8_lossy(line);
            let mut excerpt: String = text.chars().take(120).collect();
            if excerpt.len() < text.len() {
                excerpt.push('…');
            }
            OllamaError::Malformed(format!("{error} in line '{excerpt}'"))
        })?;
        self.chunk(chunk)
    }

    /// Maps one parsed chunk.
    pub fn chunk(&mut self, chunk: wire::ChatChunk) -> Result<Option<ChatUpdate>, OllamaError> {
        if let Some(error) = &chunk.error {
            return Err(OllamaError::Stream(wire::error_text(error)));
        }
        let mut contents = Vec::new();
        if let Some(message) = chunk.message {
            if let Some(thinking) = message.thinking.filter(|t| !t.is_empty()) {
                contents.push(Content::reasoning(thinking));
            }
            if let Some(text) = message.content.filter(|t| !t.is_empty()) {
                contents.push(Content::text(text));
            }
            for call in message.tool_calls.unwrap_or_default() {
                self.tool_calls += 1;
                let id = call
                    .id
                    .filter(|id| !id.trim().is_empty())
                    .unwrap_or_else(new_call_id);
                contents.push(Content::tool_call(
                    id,
                    call.function.name,
                    arguments(call.function.arguments),
                ));
            }
        }
        if !chunk.done && contents.is_empty() {
            return Ok(None);
        }
        let model = chunk
            .model
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| self.requested_model.clone());
        let update = ChatUpdate::contents(contents).with_model(model);
        if !chunk.done {
            return Ok(Some(update));
        }
        let usage = Usage::new(
            chunk.prompt_eval_count.unwrap_or(0),
            chunk.eval_count.unwrap_or(0),
        );
        Ok(Some(
            update
                .with_finish(self.finish_reason(chunk.done_reason.as_deref()))
                .with_usage(usage),
        ))
    }

    fn finish_reason(&self, done_reason: Option<&str>) -> FinishReason {
        match done_reason.unwrap_or("stop") {
            "length" => FinishReason::Length,
            "stop" | "" if self.tool_calls > 0 => FinishReason::ToolCalls,
            "stop" | "" => FinishReason::Stop,
            _ => FinishReason::Other,
        }
    }
}

/// A unique call id for Ollama versions that send none.
fn new_call_id() -> String {
    format!("call_{}", uuid::Uuid::new_v4().simple())
}

/// Ollama sends an object; a JSON string holding one is unwrapped, `null` is `{}`.
fn arguments(arguments: Value) -> Value {
    match arguments {
        Value::Null => Value::Object(Map::new()),
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(parsed @ Value::Object(_)) => parsed,
            _ => Value::String(text),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(mapper: &mut StreamMapper, line: Value) -> Option<ChatUpdate> {
        mapper.line(line.to_string().as_bytes()).expect("a valid line")
    }

    #[test]
    fn deltas_tool_calls_and_finish() {
        let mut mapper = StreamMapper::new("qwen3");
        let msg = |m: Value| json!({"model": "qwen3:8b", "message": m, "done": false});
        let empty = map(&mut mapper, msg(json!({"role": "assistant", "content": ""})));
        assert!(empty.is_none());
        let thinking = map(
            &mut mapper,
            msg(json!({"role": "assistant", "content": "", "thinking": "hm"})),
        )
        .unwrap();
        assert_eq!(thinking.contents[0].as_reasoning(), Some("hm"));
        assert_eq!(thinking.model.as_deref(), Some("qwen3:8b"));
        let calls = map(
            &mut mapper,
            msg(json!({"role": "assistant", "content": "", "tool_calls": [
                {"id": "call_keep", "function": {"index": 0, "name": "a", "arguments": {"x": 1}}},
                {"function": {"index": 1, "name": "b", "arguments": "{\"y\":2}"}},
                {"function": {"index": 2, "name": "c"}}
            ]})),
        )
        .unwrap();
        let ids: Vec<_> = calls
            .contents
            .iter()
            .map(|c| c.tool_call.clone().unwrap())
            .collect();
        assert_eq!(ids[0].id, "call_keep");
        assert!(ids[1].id.starts_with("call_") && ids[1].id != ids[2].id);
        assert_eq!(ids[1].arguments, json!({"y": 2}));
        assert_eq!(ids[2].arguments, json!({}));
        let done = map(
            &mut mapper,
            json!({"model": "qwen3:8b", "message": {"role": "assistant", "content": ""}, "done": true,
                   "done_reason": "stop", "eval_count": 7}),
        )
        .unwrap();
        assert_eq!(done.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(done.usage, Some(Usage::new(0, 7)));
    }

    #[test]
    fn finish_reasons() {
        for (reason, expected) in [
            (json!("stop"), FinishReason::Stop),
            (json!("length"), FinishReason::Length),
            (json!("load"), FinishReason::Other),
            (Value::Null, FinishReason::Stop),
        ] {
            let mut mapper = StreamMapper::new("m");
            let update = map(&mut mapper, json!({"done": true, "done_reason": reason})).unwrap();
            assert_eq!(update.finish_reason, Some(expected));
            assert_eq!(update.model.as_deref(), Some("m"));
        }
    }

    #[test]
    fn error_and_malformed_lines() {
        let mut mapper = StreamMapper::new("m");
        assert_eq!(
            mapper.line(br#"{"error":"runner crashed"}"#),
            Err(OllamaError::Stream("runner crashed".into()))
        );
        assert!(matches!(
            mapper.line(b"{\"model\":\"m\",\"mess"),
            Err(OllamaError::Malformed(_))
        ));
        assert!(matches!(mapper.line(b"[1]"), Err(OllamaError::Malformed(_))));
    }
}
