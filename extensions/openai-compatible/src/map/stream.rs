//! Chat Completions chunks into AEP updates (shared/openai-compatible-notes.md 2.4): text
//! and reasoning deltas as they come; tool-call fragments accumulated by `index` and
//! sent whole, sorted by index, with the finish; `finish_reason` mapped. The finish
//! update is held until `[DONE]`, the end of the body or a usage chunk, so the usage
//! that `stream_options.include_usage` brings (a chunk with `"choices": []` after the
//! finish) lands on it. llama.cpp's `llama-server` puts `timings` on its last chunk, asked
//! or not: a stream without a usage chunk takes its counts from there.

use std::collections::BTreeMap;

use aep_sdk::protocol::{ChatUpdate, Content, FinishReason, Role, Usage};
use serde_json::{Map, Value, json};

use crate::client::UpstreamError;

#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
}

/// Turns one stream's chunks into updates.
#[derive(Debug)]
pub struct StreamMapper {
    model: String,
    calls: BTreeMap<u64, PartialCall>,
    held: Option<ChatUpdate>,
}

impl StreamMapper {
    /// A mapper for a request for `model` (used when a chunk names none).
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            calls: BTreeMap::new(),
            held: None,
        }
    }

    /// Whether the finish update is held, waiting for `[DONE]` or usage.
    pub fn holding(&self) -> bool {
        self.held.is_some()
    }

    /// The held finish update (at `[DONE]`, the end of the body, or when the upstream
    /// stays silent after its finish).
    pub fn take_finish(&mut self) -> Option<ChatUpdate> {
        self.held.take()
    }

    /// The updates one chunk gives (none for chunks that carry nothing); a usage-only
    /// chunk after the finish completes the held update, which is then returned.
    pub fn chunk(&mut self, chunk: &Value) -> Result<Vec<ChatUpdate>, UpstreamError> {
        let Value::Object(root) = chunk else {
            return Err(UpstreamError::Malformed(format!(
                "a chunk that is not an object: {chunk}"
            )));
        };
        if let Some(error) = root.get("error") {
            let message = match error {
                Value::String(text) => text.clone(),
                other => other
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| other.to_string(), str::to_owned),
            };
            return Err(UpstreamError::Stream(message));
        }
        let usage = root.get("usage").and_then(usage);
        let timed = root.get("timings").and_then(timings_usage);
        let choice = root
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first());
        let Some(choice) = choice else {
            if let (Some(usage), Some(mut held)) = (usage, self.held.take()) {
                held.usage = Some(usage);
                return Ok(vec![held]);
            }
            return Ok(Vec::new());
        };
        let model = root
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(&self.model)
            .to_owned();
        let delta = choice.get("delta").and_then(Value::as_object);
        let finish = match choice.get("finish_reason") {
            None | Some(Value::Null) => None,
            Some(Value::String(reason)) => Some(finish_reason(reason)),
            Some(other) => return Err(UpstreamError::Malformed(format!("finish_reason {other}"))),
        };
        let mut contents = Vec::new();
        if let Some(delta) = delta {
            for key in ["reasoning_content", "reasoning"] {
                if let Some(Value::String(text)) = delta.get(key)
                    && !text.is_empty()
                {
                    contents.push(Content::reasoning(text.clone()));
                    break;
                }
            }
            if let Some(Value::String(text)) = delta.get("content")
                && !text.is_empty()
            {
                contents.push(Content::text(text.clone()));
            }
            if let Some(calls) = delta.get("tool_calls") {
                self.accumulate(calls)?;
            }
        }
        let role = delta
            .and_then(|d| d.get("role"))
            .and_then(Value::as_str)
            .and_then(role);
        if let Some(finish) = finish {
            contents.extend(self.whole_calls());
            let mut update = ChatUpdate::contents(contents)
                .with_model(model)
                .with_finish(finish);
            update.role = role;
            if usage.is_some() {
                update.usage = usage;
                return Ok(vec![update]);
            }
            // Held with llama-server's counts, if any: a usage chunk asked for still wins.
            update.usage = timed;
            self.held = Some(update);
            return Ok(Vec::new());
        }
        if contents.is_empty() {
            return Ok(Vec::new());
        }
        let mut update = ChatUpdate::contents(contents).with_model(model);
        update.role = role;
        Ok(vec![update])
    }

    fn accumulate(&mut self, calls: &Value) -> Result<(), UpstreamError> {
        let Value::Array(calls) = calls else {
            return Err(UpstreamError::Malformed(format!("tool_calls {calls}")));
        };
        for call in calls {
            let index = match call.get("index") {
                None | Some(Value::Null) => self.calls.len() as u64,
                Some(index) => index
                    .as_u64()
                    .ok_or_else(|| UpstreamError::Malformed(format!("tool call index {index}")))?,
            };
            let partial = self.calls.entry(index).or_default();
            if partial.id.is_none()
                && let Some(Value::String(id)) = call.get("id")
            {
                partial.id = Some(id.clone());
            }
            let function = call.get("function");
            if partial.name.is_none()
                && let Some(Value::String(name)) = function.and_then(|f| f.get("name"))
            {
                partial.name = Some(name.clone());
            }
            match function.and_then(|f| f.get("arguments")) {
                None | Some(Value::Null) => {}
                Some(Value::String(part)) => partial.arguments.push_str(part),
                Some(other) => return Err(UpstreamError::Malformed(format!("tool call arguments {other}"))),
            }
        }
        Ok(())
    }

    /// The accumulated calls, sorted by index: a missing id becomes a fresh one, a
    /// missing name `unknown`; arguments are parsed (blank: `{}`, not JSON:
    /// `{"value": text}`).
    fn whole_calls(&mut self) -> Vec<Content> {
        std::mem::take(&mut self.calls)
            .into_values()
            .map(|call| {
                let id = call
                    .id
                    .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string());
                let name = call.name.unwrap_or_else(|| "unknown".to_owned());
                Content::tool_call(id, name, arguments(&call.arguments))
            })
            .collect()
    }
}

/// Tool-call arguments from their text (notes 2.3).
pub fn arguments(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| json!({"value": text}))
}

pub(crate) fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" => FinishReason::Stop,
        "length" => FinishReason::Length,
        "tool_calls" => FinishReason::ToolCalls,
        "content_filter" => FinishReason::ContentFilter,
        _ => FinishReason::Other,
    }
}

pub(crate) fn role(role: &str) -> Option<Role> {
    match role {
        "system" => Some(Role::System),
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        "tool" => Some(Role::Tool),
        _ => None,
    }
}

pub(crate) fn usage(value: &Value) -> Option<Usage> {
    let object = value.as_object()?;
    let count = |key: &str| object.get(key).and_then(Value::as_u64);
    Some(Usage {
        input_tokens: count("prompt_tokens"),
        output_tokens: count("completion_tokens"),
        total_tokens: count("total_tokens"),
    })
}

/// llama-server's `timings` as usage: the prompt is what was processed plus what came
/// from its cache (`cache_n + prompt_n`), the output `predicted_n`.
fn timings_usage(value: &Value) -> Option<Usage> {
    let object = value.as_object()?;
    let count = |key: &str| object.get(key).and_then(Value::as_u64);
    let output = count("predicted_n")?;
    let input = count("prompt_n")? + count("cache_n").unwrap_or(0);
    Some(Usage {
        input_tokens: Some(input),
        output_tokens: Some(output),
        total_tokens: Some(input + output),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(chunks: &[Value]) -> Vec<ChatUpdate> {
        let mut mapper = StreamMapper::new("req-model");
        let mut updates = Vec::new();
        for chunk in chunks {
            updates.extend(mapper.chunk(chunk).unwrap());
        }
        updates.extend(mapper.take_finish());
        updates
    }

    /// The reference's vector (StreamingMapsTextAndAccumulatesFragmentedToolCalls).
    #[test]
    fn text_then_fragmented_tool_call() {
        let updates = run(&[
            json!({"model":"local-gguf","choices":[{"delta":{"role":"assistant","content":"hello "},"finish_reason":null}]}),
            json!({"model":"local-gguf","choices":[{"delta":{"tool_calls":[{"index":0,"id":"call-1","function":{"name":"weather","arguments":"{\"city\":"}}]},"finish_reason":null}]}),
            json!({"model":"local-gguf","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}),
        ]);
        assert_eq!(updates.len(), 2);
        assert_eq!(updates[0].text_delta(), "hello ");
        assert_eq!(updates[0].role, Some(Role::Assistant));
        assert_eq!(updates[0].model.as_deref(), Some("local-gguf"));
        let call = updates[1].contents[0].tool_call.as_ref().unwrap();
        assert_eq!((call.id.as_str(), call.name.as_str()), ("call-1", "weather"));
        assert_eq!(call.arguments, json!({"city": "Paris"}));
        assert_eq!(updates[1].finish_reason, Some(FinishReason::ToolCalls));
    }

    #[test]
    fn calls_sorted_by_index_ids_generated_usage_chunk_joins_the_finish() {
        let updates = run(&[
            json!({"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"name":"b","arguments":"x"}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a0","function":{"name":"a"}}]}}]}),
            json!({"choices":[{"delta":{"reasoning_content":"hmm"},"finish_reason":"stop"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}),
        ]);
        assert_eq!(updates.len(), 1);
        let update = &updates[0];
        assert_eq!(update.model.as_deref(), Some("req-model"));
        assert_eq!(
            update.contents[0].kind,
            aep_sdk::protocol::ContentKind::Structured
        );
        let first = update.contents[1].tool_call.as_ref().unwrap();
        let second = update.contents[2].tool_call.as_ref().unwrap();
        assert_eq!(
            (first.id.as_str(), first.name.as_str(), &first.arguments),
            ("a0", "a", &json!({}))
        );
        assert_eq!(second.id.len(), 32);
        assert_eq!(second.arguments, json!({"value": "x"}));
        assert_eq!(update.usage.unwrap().total_tokens, Some(8));
    }

    #[test]
    fn finish_reasons_and_errors() {
        for (wire, aep) in [
            ("length", FinishReason::Length),
            ("content_filter", FinishReason::ContentFilter),
            ("eos", FinishReason::Other),
        ] {
            let updates = run(&[json!({"choices":[{"delta":{},"finish_reason":wire}]})]);
            assert_eq!(updates[0].finish_reason, Some(aep));
        }
        let mut mapper = StreamMapper::new("m");
        let error = mapper
            .chunk(&json!({"error":{"message":"out of memory"}}))
            .unwrap_err();
        assert_eq!(error, UpstreamError::Stream("out of memory".into()));
        assert!(matches!(
            mapper.chunk(&json!([1])),
            Err(UpstreamError::Malformed(_))
        ));
        assert!(
            mapper
                .chunk(&json!({"choices":[{"delta":{"content":""}}]}))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn llama_server_timings_give_the_usage_and_a_usage_chunk_wins() {
        let text = json!({"choices":[{"index":0,"delta":{"content":"hi"}}]});
        let finish = json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],
            "timings":{"cache_n":2,"prompt_n":7,"predicted_n":4,"predicted_ms":12.5}});
        let updates = run(&[text.clone(), finish.clone()]);
        let usage = updates.last().unwrap().usage.unwrap();
        assert_eq!(
            (usage.input_tokens, usage.output_tokens, usage.total_tokens),
            (Some(9), Some(4), Some(13))
        );
        let counted =
            json!({"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":5,"total_tokens":14}});
        let updates = run(&[text, finish, counted]);
        assert_eq!(updates.len(), 2);
        assert_eq!(updates[1].usage.unwrap().output_tokens, Some(5));
        assert_eq!(updates[1].finish_reason, Some(FinishReason::Stop));
    }
}
