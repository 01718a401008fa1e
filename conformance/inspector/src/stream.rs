//! The streamed chat, proxied frame by frame: the extension's SSE `data` payloads as they
//! arrive, each with its arrival time and the gap since the one before, then a summary
//! (text, reasoning, tool calls, usage, finish reason, time to first token, gaps).
//!
//! Events sent to the page: `open` (the extension answered 200), `frame` per SSE event,
//! then exactly one of `end` (a terminal update arrived) or `failure` (the stream
//! stalled, broke, or ended without a terminal update). When the page goes away the
//! stream is dropped, which closes the connection to the extension and so cancels the
//! provider's work.

use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use aep_sdk::client::SseDecoder;
use aep_sdk::protocol::{ChatUpdate, ContentKind, paths};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde_json::{Value, json};

use crate::connection::Connection;
use crate::error::{ApiError, codes};
use crate::limits::SNIPPET_CHARS;
use crate::sse;

/// What is known about a stream so far.
#[derive(Debug, Default)]
struct Summary {
    frames: usize,
    first_token_ms: Option<f64>,
    gaps_ms: Vec<f64>,
    text: String,
    reasoning: String,
    tool_calls: Vec<Value>,
    model: Option<String>,
    usage: Option<Value>,
    finish_reason: Option<Value>,
    error: Option<Value>,
}

impl Summary {
    fn add(&mut self, update: &ChatUpdate, at_ms: f64) {
        for content in &update.contents {
            if let Some(reasoning) = content.as_reasoning() {
                self.reasoning.push_str(reasoning);
            } else if let Some(text) = content.as_text() {
                self.text.push_str(text);
            } else if content.kind == ContentKind::ToolCall {
                self.tool_calls
                    .push(serde_json::to_value(&content.tool_call).unwrap_or(Value::Null));
            }
        }
        let has_token = update.contents.iter().any(|c| {
            c.as_text().is_some_and(|t| !t.is_empty())
                || c.as_reasoning().is_some()
                || c.kind == ContentKind::ToolCall
        });
        if has_token && self.first_token_ms.is_none() {
            self.first_token_ms = Some(at_ms);
        }
        if let Some(model) = &update.model {
            self.model = Some(model.clone());
        }
        if let Some(usage) = &update.usage {
            self.usage = serde_json::to_value(usage).ok();
        }
        if let Some(finish) = &update.finish_reason {
            self.finish_reason = serde_json::to_value(finish).ok();
        }
        if let Some(error) = &update.error {
            self.error = serde_json::to_value(error).ok();
        }
    }

    fn to_json(&self, total_ms: f64) -> Value {
        json!({
            "frames": self.frames,
            "totalMs": total_ms,
            "timeToFirstTokenMs": self.first_token_ms,
            "gapsMs": self.gaps_ms,
            "text": self.text,
            "reasoning": self.reasoning,
            "toolCalls": self.tool_calls,
            "model": self.model,
            "usage": self.usage,
            "finishReason": self.finish_reason,
            "error": self.error,
        })
    }
}

/// Milliseconds with two decimals (timings of frames on loopback are sub-millisecond).
fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 100_000.0).round() / 100.0
}

type Body = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

struct State {
    body: Body,
    decoder: SseDecoder,
    pending: std::collections::VecDeque<String>,
    started: Instant,
    last_frame: Instant,
    stall: Duration,
    summary: Summary,
    done: bool,
    opened: bool,
    exchange: Option<crate::trace::Pending>,
}

impl State {
    fn ms(&self) -> f64 {
        millis(self.started.elapsed())
    }

    fn failure(&mut self, code: &str, message: String) -> Bytes {
        self.done = true;
        if let Some(exchange) = &mut self.exchange {
            exchange.note(format!("{code}: {message}"));
        }
        let total = self.ms();
        sse::event(
            "failure",
            &json!({"code": code, "message": message, "summary": self.summary.to_json(total)}),
        )
    }

    fn frame(&mut self, data: String) -> Bytes {
        let now = Instant::now();
        let at_ms = millis(now.duration_since(self.started));
        let gap_ms = if self.summary.frames == 0 {
            None
        } else {
            Some(millis(now.duration_since(self.last_frame)))
        };
        self.last_frame = now;
        if let Some(gap) = gap_ms {
            self.summary.gaps_ms.push(gap);
        }
        self.summary.frames += 1;
        if let Some(exchange) = &mut self.exchange {
            exchange.frame();
        }
        let index = self.summary.frames;
        let parsed = serde_json::from_str::<ChatUpdate>(&data);
        let (update, problem) = match &parsed {
            Ok(update) => {
                self.summary.add(update, at_ms);
                (serde_json::to_value(update).ok(), None)
            }
            Err(e) => (None, Some(format!("not a ChatUpdate: {e}"))),
        };
        let mut out = sse::event(
            "frame",
            &json!({"index": index, "atMs": at_ms, "gapMs": gap_ms, "data": data, "update": update, "problem": problem}),
        )
        .to_vec();
        match parsed {
            Ok(update) if update.is_terminal() => {
                self.done = true;
                let total = self.ms();
                out.extend_from_slice(&sse::event("end", &self.summary.to_json(total)));
            }
            Ok(_) => {}
            Err(e) => {
                let failure = self.failure(
                    aep_sdk::client::codes::INVALID_RESPONSE,
                    format!("frame {index} is not a ChatUpdate: {e}"),
                );
                out.extend_from_slice(&failure);
            }
        }
        Bytes::from(out)
    }

    async fn next_event(&mut self) -> Option<Bytes> {
        if self.done {
            if let Some(exchange) = self.exchange.take() {
                exchange.streamed();
            }
            return None;
        }
        if !self.opened {
            self.opened = true;
            return Some(sse::event("open", &json!({"atMs": self.ms()})));
        }
        loop {
            if let Some(data) = self.pending.pop_front() {
                return Some(self.frame(data));
            }
            let left = self.stall.saturating_sub(self.last_frame.elapsed());
            match tokio::time::timeout(left, self.body.next()).await {
                Err(_) => {
                    let message = format!(
                        "no SSE frame from the extension for {} s (keep-alives do not count); the Inspector closed the stream",
                        self.stall.as_secs_f64()
                    );
                    return Some(self.failure(codes::STREAM_STALLED, message));
                }
                Ok(Some(Ok(bytes))) => {
                    let events = self.decoder.push(&bytes);
                    self.pending.extend(events);
                }
                Ok(Some(Err(e))) => {
                    let message = format!("the stream broke: {}", aep_sdk::client::error_chain(&e));
                    return Some(self.failure(aep_sdk::client::codes::EXTENSION_UNREACHABLE, message));
                }
                Ok(None) => {
                    let message =
                        "the extension closed the stream before a terminal update (one with a finishReason)"
                            .to_owned();
                    return Some(self.failure(aep_sdk::client::codes::INVALID_RESPONSE, message));
                }
            }
        }
    }
}

/// Starts `POST /aep/model-providers/{provider}/chat/stream` with `request` (a
/// ChatRequest as JSON, sent as given) and answers its events. An answer that is not a
/// 200 event stream, or none within `stall`, is an [`ApiError`] before any event.
pub async fn open(
    connection: Arc<Connection>,
    provider: &str,
    request: &Value,
    stall: Duration,
) -> Result<impl Stream<Item = Bytes> + Send + 'static, ApiError> {
    let id: String = url::form_urlencoded::byte_serialize(provider.as_bytes()).collect();
    let path = format!("{}/{id}/chat/stream", paths::MODEL_PROVIDERS);
    let url = crate::probe::join(&connection.base, &path);
    let started = Instant::now();
    let built = connection
        .request(reqwest::Method::POST, &path)
        .await
        .header(reqwest::header::ACCEPT, "text/event-stream")
        .json(request)
        .build()
        .map_err(|e| ApiError::bad_request(format!("request: {e}")))?;
    let mut exchange = connection.trace.start(&built);
    let send = connection.http.execute(built);
    let response = match tokio::time::timeout(stall, send).await {
        Err(_) => {
            exchange.fail(format!("no answer headers within {} s", stall.as_secs_f64()));
            return Err(ApiError::upstream(
                codes::STREAM_STALLED,
                format!("{url} sent no answer headers within {} s", stall.as_secs_f64()),
            ));
        }
        Ok(Err(e)) => {
            exchange.fail(aep_sdk::client::error_chain(&e));
            return Err(ApiError::upstream(
                aep_sdk::client::codes::EXTENSION_UNREACHABLE,
                format!("{url}: {}", aep_sdk::client::error_chain(&e)),
            ));
        }
        Ok(Ok(response)) => response,
    };
    exchange.answered(&response);
    let status = response.status();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    if !status.is_success() || !content_type.starts_with("text/event-stream") {
        return Err(refusal(response, &url, status.as_u16(), &content_type, stall, exchange).await);
    }
    exchange.streaming();
    let state = State {
        body: Box::pin(response.bytes_stream()),
        decoder: SseDecoder::default(),
        pending: Default::default(),
        started,
        last_frame: Instant::now(),
        stall,
        summary: Summary::default(),
        done: false,
        opened: false,
        exchange: Some(exchange),
    };
    Ok(futures::stream::unfold(state, |mut state| async move {
        let event = state.next_event().await?;
        Some((event, state))
    }))
}

/// The extension's answer when it is not a stream: its AEP error, or what it sent.
async fn refusal(
    response: reqwest::Response,
    url: &str,
    status: u16,
    content_type: &str,
    bound: Duration,
    exchange: crate::trace::Pending,
) -> ApiError {
    let body = tokio::time::timeout(bound, response.bytes())
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    exchange.finish(&body);
    let json: Option<Value> = serde_json::from_slice(&body).ok();
    if let Some(error) = json.as_ref().and_then(|j| j.get("error")) {
        let code = error.get("code").and_then(Value::as_str).unwrap_or("unknown");
        let message = error.get("message").and_then(Value::as_str).unwrap_or("");
        return ApiError::upstream(
            aep_sdk::client::codes::EXTENSION_REQUEST_FAILED,
            format!("{url} answered HTTP {status}, {code}: {message}"),
        );
    }
    let text: String = String::from_utf8_lossy(&body)
        .chars()
        .take(SNIPPET_CHARS)
        .collect();
    let what = if status < 300 {
        format!("HTTP {status} with '{content_type}', not text/event-stream")
    } else {
        format!("HTTP {status} ('{content_type}') without an AEP error body")
    };
    ApiError::upstream(
        aep_sdk::client::codes::INVALID_RESPONSE,
        format!("{url} answered {what}"),
    )
    .with_details(if text.is_empty() { Vec::new() } else { vec![text] })
}
