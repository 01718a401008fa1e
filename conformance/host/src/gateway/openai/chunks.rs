//! An AEP update stream as Chat Completions SSE: a first chunk with the role, one chunk
//! per update with its text (and `reasoning_content`), each tool call as two deltas of
//! its index (id, type and name with empty arguments, then the arguments, as OpenAI
//! streams them), a chunk with the `finish_reason`, with `stream_options.include_usage`
//! a chunk with no choice and the usage (every other chunk then has `"usage": null`),
//! and `data: [DONE]`.
//!
//! A failure after the headers is one `data: {"error": {...}}` event (what the OpenAI
//! SDKs raise on), and the stream ends there, without `[DONE]`. A silence is filled with
//! a `: keep-alive` comment every 15 s, as AEP streams are. The body owns the AEP
//! stream: a client that goes away drops it, which closes the connection to the
//! extension and so cancels the provider's work.

use std::convert::Infallible;
use std::time::Duration;

use aep_sdk::client::{ClientError, UpdateStream};
use aep_sdk::protocol::{ChatUpdate, FinishReason, Usage};
use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{Value, json};

use super::completion::{Answer, arguments, finish_reason, text_of, usage};
use super::error::OpenAiError;

/// Interval of keep-alive comments during a silence.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The `text/event-stream` answer over `updates`. `extension` names the model's
/// extension in failures.
pub(super) fn response(
    answer: Answer,
    include_usage: bool,
    extension: String,
    updates: UpdateStream,
) -> Response {
    let chunker = Chunker {
        answer,
        include_usage,
        extension,
        calls: Vec::new(),
        usage: None,
    };
    let state = State {
        chunker,
        updates,
        started: false,
        done: false,
    };
    let body = futures::stream::unfold(state, |mut state| async move {
        let bytes = state.next().await?;
        Some((Ok::<_, Infallible>(bytes), state))
    });
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

struct State {
    chunker: Chunker,
    updates: UpdateStream,
    started: bool,
    done: bool,
}

impl State {
    /// The next piece of the body; `None` once it is over.
    async fn next(&mut self) -> Option<Bytes> {
        if self.done {
            return None;
        }
        let mut out = Vec::new();
        if !self.started {
            self.started = true;
            // The role only: whether any text follows is not known yet, and a client that
            // adds up the deltas (the OpenAI SDKs' stream helpers) must end with `null`
            // content for an answer that is only tool calls, as the whole answer has.
            self.chunker.event(&mut out, json!({"role": "assistant"}), None);
            return Some(out.into());
        }
        let item = tokio::select! {
            item = self.updates.next() => item,
            () = tokio::time::sleep(KEEP_ALIVE) => return Some(Bytes::from_static(b": keep-alive\n\n")),
        };
        self.done = match item {
            Some(Ok(update)) => self.chunker.update(&mut out, update),
            Some(Err(error)) => {
                self.chunker.failure(&mut out, &error);
                true
            }
            // The AEP reader reports a stream cut short as an error; this is a stream
            // that simply stopped.
            None => {
                self.chunker.finish(&mut out, FinishReason::Stop);
                true
            }
        };
        Some(out.into())
    }
}

struct Chunker {
    answer: Answer,
    include_usage: bool,
    extension: String,
    /// The ids of the tool calls streamed so far; a call's index is its position.
    calls: Vec<String>,
    usage: Option<Usage>,
}

fn write(out: &mut Vec<u8>, value: &Value) {
    out.extend_from_slice(b"data: ");
    // A `Value` always serializes.
    let _ = serde_json::to_writer(&mut *out, value);
    out.extend_from_slice(b"\n\n");
}

impl Chunker {
    /// A `chat.completion.chunk` with one choice.
    fn event(&self, out: &mut Vec<u8>, delta: Value, finish: Option<&str>) {
        let mut chunk = json!({
            "id": self.answer.id, "object": "chat.completion.chunk", "created": self.answer.created,
            "model": self.answer.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        if self.include_usage {
            chunk["usage"] = Value::Null;
        }
        write(out, &chunk);
    }

    /// Writes the chunks of one update; whether it ended the stream.
    fn update(&mut self, out: &mut Vec<u8>, update: ChatUpdate) -> bool {
        if let Some(counts) = update.usage {
            self.usage = Some(counts);
        }
        let text: String = update.contents.iter().filter_map(text_of).collect();
        let reasoning: String = update.contents.iter().filter_map(|c| c.as_reasoning()).collect();
        if !text.is_empty() || !reasoning.is_empty() {
            let mut delta = json!({});
            if !text.is_empty() {
                delta["content"] = json!(text);
            }
            if !reasoning.is_empty() {
                delta["reasoning_content"] = json!(reasoning);
            }
            self.event(out, delta, None);
        }
        for call in update.contents.iter().filter_map(|c| c.tool_call.as_ref()) {
            if self.calls.contains(&call.id) {
                continue;
            }
            let index = self.calls.len();
            self.calls.push(call.id.clone());
            let opening = json!({"index": index, "id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": ""}});
            self.event(out, json!({"tool_calls": [opening]}), None);
            let rest = json!({"index": index, "function": {"arguments": arguments(&call.arguments)}});
            self.event(out, json!({"tool_calls": [rest]}), None);
        }
        match update.finish_reason {
            None => false,
            Some(FinishReason::Error) => {
                // A terminal error update without an error member (the reader turns one
                // with a member into an `Err`).
                let error = OpenAiError {
                    status: axum::http::StatusCode::BAD_GATEWAY,
                    message: format!("The model provider of `{}` failed", self.answer.model),
                    kind: "server_error",
                    param: None,
                    code: Some("provider_failed".to_owned()),
                };
                write(out, &error.body());
                true
            }
            Some(reason) => {
                self.finish(out, reason);
                true
            }
        }
    }

    fn finish(&mut self, out: &mut Vec<u8>, reason: FinishReason) {
        self.event(out, json!({}), Some(finish_reason(reason)));
        if self.include_usage {
            // OpenAI always sends this chunk when asked; a provider that reported no
            // counts gets `null` there rather than made-up numbers.
            let counts = self.usage.as_ref().map_or(Value::Null, usage);
            let chunk = json!({
                "id": self.answer.id, "object": "chat.completion.chunk", "created": self.answer.created,
                "model": self.answer.model, "choices": [], "usage": counts,
            });
            write(out, &chunk);
        }
        out.extend_from_slice(b"data: [DONE]\n\n");
    }

    fn failure(&self, out: &mut Vec<u8>, error: &ClientError) {
        let mut shown = OpenAiError::from_client(error, &self.answer.model, &self.extension);
        if error.code == aep_sdk::client::codes::EXTENSION_UNREACHABLE {
            shown.message = format!(
                "The stream from extension '{}', which serves `{}`, broke off",
                self.extension, self.answer.model
            );
        }
        write(out, &shown.body());
    }
}

#[cfg(test)]
mod tests {
    use aep_sdk::protocol::Content;

    use super::*;

    fn events(bytes: &[u8]) -> Vec<String> {
        String::from_utf8_lossy(bytes)
            .split("\n\n")
            .filter_map(|e| e.strip_prefix("data: ").map(str::to_owned))
            .collect()
    }

    #[test]
    fn tool_calls_stream_by_index_and_usage_comes_last() {
        let mut chunker = Chunker {
            answer: Answer::new("p/m"),
            include_usage: true,
            extension: "acme.x".into(),
            calls: Vec::new(),
            usage: None,
        };
        let mut out = Vec::new();
        assert!(!chunker.update(&mut out, ChatUpdate::text("hi")));
        let calls = ChatUpdate::contents(vec![
            Content::tool_call("a", "f", json!({"x": 1})),
            Content::tool_call("b", "g", json!({})),
        ]);
        assert!(!chunker.update(&mut out, calls));
        let last = ChatUpdate::finish(FinishReason::ToolCalls).with_usage(Usage::new(2, 5));
        assert!(chunker.update(&mut out, last));
        let events = events(&out);
        let chunks: Vec<Value> = events[..events.len() - 1]
            .iter()
            .map(|e| serde_json::from_str(e).unwrap())
            .collect();
        assert_eq!(events.last().unwrap(), "[DONE]");
        assert_eq!(chunks[0]["choices"][0]["delta"]["content"], "hi");
        assert_eq!(chunks[0]["usage"], Value::Null);
        let delta = |i: usize| &chunks[i]["choices"][0]["delta"]["tool_calls"][0];
        assert_eq!(
            (delta(1)["index"].clone(), delta(1)["id"].clone()),
            (json!(0), json!("a"))
        );
        assert_eq!(delta(2)["function"]["arguments"], "{\"x\":1}");
        assert_eq!(
            (delta(3)["index"].clone(), delta(3)["function"]["name"].clone()),
            (json!(1), json!("g"))
        );
        assert_eq!(chunks[5]["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(chunks[6]["choices"], json!([]));
        assert_eq!(chunks[6]["usage"]["total_tokens"], 7);
    }

    #[test]
    fn asked_for_usage_a_provider_without_counts_gets_a_null_usage_chunk() {
        let mut chunker = Chunker {
            answer: Answer::new("p/m"),
            include_usage: true,
            extension: "acme.x".into(),
            calls: Vec::new(),
            usage: None,
        };
        let mut out = Vec::new();
        assert!(chunker.update(&mut out, ChatUpdate::finish(FinishReason::Stop)));
        let events = events(&out);
        assert_eq!(events.len(), 3, "{events:?}");
        let last: Value = serde_json::from_str(&events[1]).unwrap();
        assert_eq!(
            (last["choices"].clone(), last["usage"].clone()),
            (json!([]), Value::Null)
        );
    }
}
