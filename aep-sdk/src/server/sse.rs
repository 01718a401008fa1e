//! The SSE framing of `/chat/stream`: one `data:` event per update, flushed as it is
//! produced; the first terminal update ends the stream; an error or a panic after the
//! headers becomes a terminal `finishReason: "error"` update; `: keep-alive` comments
//! fill silences; a server shutdown ends the stream with a terminal update.

use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::{Stream, StreamExt, stream::CatchUnwind};
use http::header;
use tokio::time::{Instant, Sleep};
use tokio_util::sync::{CancellationToken, DropGuard, WaitForCancellationFutureOwned};

use super::ChatStream;
use super::metrics::ChatTimer;
use crate::error::codes;
use crate::protocol::{ChatUpdate, ErrorBody, FinishReason};

const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// Encodes one update as an SSE event: `data: <json>\n\n`.
pub fn encode_event(update: &ChatUpdate) -> Bytes {
    let mut buf = Vec::with_capacity(128);
    buf.extend_from_slice(b"data: ");
    // Serializing these types cannot fail: no maps with non-string keys, no I/O.
    if serde_json::to_writer(&mut buf, update).is_err() {
        buf.truncate(6);
        buf.extend_from_slice(br#"{"contents":[],"finishReason":"error"}"#);
    }
    buf.extend_from_slice(b"\n\n");
    Bytes::from(buf)
}

/// Counts the streams whose body is alive (a test and metrics hook: it returns to zero
/// once every client is gone, so a leak shows).
#[derive(Debug, Clone, Default)]
pub(crate) struct OpenStreams(Arc<AtomicUsize>);

impl OpenStreams {
    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    fn enter(&self) -> StreamCount {
        self.0.fetch_add(1, Ordering::Relaxed);
        StreamCount(self.0.clone())
    }
}

struct StreamCount(Arc<AtomicUsize>);

impl Drop for StreamCount {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Wraps a provider stream as the body of a `text/event-stream` answer.
pub(crate) fn response(
    stream: ChatStream,
    keep_alive: Duration,
    shutdown: CancellationToken,
    guard: DropGuard,
    open: &OpenStreams,
    timer: Option<ChatTimer>,
) -> Response {
    let body = SseBody {
        _count: open.enter(),
        timer,
        inner: Some(AssertUnwindSafe(stream).catch_unwind()),
        keep_alive_every: keep_alive,
        keep_alive: Box::pin(tokio::time::sleep(keep_alive)),
        last_activity: Instant::now(),
        shutdown: Box::pin(shutdown.cancelled_owned()),
        _guard: guard,
    };
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

struct SseBody {
    inner: Option<CatchUnwind<AssertUnwindSafe<ChatStream>>>,
    keep_alive_every: Duration,
    keep_alive: Pin<Box<Sleep>>,
    last_activity: Instant,
    shutdown: Pin<Box<WaitForCancellationFutureOwned>>,
    // Cancels the request's token when the body is dropped (client gone or stream done).
    _guard: DropGuard,
    _count: StreamCount,
    /// Metrics of this request: the first update, errors, and its end (when dropped).
    timer: Option<ChatTimer>,
}

/// Updates the provider has ready at once are written as one frame, up to this size:
/// nothing waits, and the client gets fewer, larger TCP segments.
const MAX_BATCH: usize = 16 * 1024;

fn append_event(batch: &mut Vec<u8>, update: &ChatUpdate) {
    batch.extend_from_slice(b"data: ");
    if serde_json::to_writer(&mut *batch, update).is_err() {
        batch.extend_from_slice(br#"{"contents":[],"finishReason":"error"}"#);
    }
    batch.extend_from_slice(b"\n\n");
}

/// What the provider's stream had ready.
enum Next {
    /// Updates (none terminal), encoded.
    Updates,
    /// The stream is over; the batch ends with its terminal update.
    Done,
    /// Nothing ready.
    Pending,
}

impl SseBody {
    /// Collects every update the provider has ready into `batch`.
    fn collect(&mut self, cx: &mut Context<'_>, batch: &mut Vec<u8>) -> Next {
        let Some(inner) = self.inner.as_mut() else {
            return Next::Done;
        };
        loop {
            let terminal = match inner.poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(Ok(update)))) => {
                    append_event(batch, &update);
                    if let Some(timer) = &mut self.timer {
                        timer.update(&update);
                    }
                    if !update.is_terminal() {
                        if batch.len() >= MAX_BATCH {
                            return Next::Updates;
                        }
                        continue;
                    }
                    None
                }
                Poll::Ready(Some(Ok(Err(error)))) => {
                    tracing::warn!(code = error.code(), "stream failed: {}", error.message());
                    if let Some(timer) = &mut self.timer {
                        timer.error(error.code());
                    }
                    Some(ChatUpdate::failure(error.into_body()))
                }
                Poll::Ready(Some(Err(_panic))) => {
                    tracing::error!("model provider panicked while streaming");
                    if let Some(timer) = &mut self.timer {
                        timer.error(codes::INTERNAL_ERROR);
                    }
                    let body =
                        ErrorBody::new(codes::INTERNAL_ERROR, "the model provider failed unexpectedly");
                    Some(ChatUpdate::failure(body))
                }
                // A provider that ends without a terminal update finished normally.
                Poll::Ready(None) => Some(ChatUpdate::finish(FinishReason::Stop)),
                Poll::Pending if batch.is_empty() => return Next::Pending,
                Poll::Pending => return Next::Updates,
            };
            if let Some(update) = terminal {
                append_event(batch, &update);
            }
            // Dropping the provider stream here drops its upstream work at once; anything
            // it would yield after the terminal update is never asked for.
            self.inner = None;
            // The terminal update is written: the request's duration ends here.
            self.timer = None;
            return Next::Done;
        }
    }
}

impl Stream for SseBody {
    type Item = Result<Bytes, std::convert::Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.inner.is_none() {
            return Poll::Ready(None);
        }
        let mut batch = Vec::new();
        match this.collect(cx, &mut batch) {
            Next::Updates | Next::Done => {
                this.last_activity = Instant::now();
                return Poll::Ready(Some(Ok(Bytes::from(batch))));
            }
            Next::Pending => {}
        }
        if this.shutdown.as_mut().poll(cx).is_ready() {
            this.inner = None;
            if let Some(mut timer) = this.timer.take() {
                timer.error(codes::SHUTTING_DOWN);
            }
            let body = ErrorBody::new(codes::SHUTTING_DOWN, "the extension is shutting down");
            return Poll::Ready(Some(Ok(encode_event(&ChatUpdate::failure(body)))));
        }
        // The timer is re-armed only when it fires (not on every update): it fires at the
        // latest one interval after the last write.
        while this.keep_alive.as_mut().poll(cx).is_ready() {
            let due = this.last_activity + this.keep_alive_every;
            let now = Instant::now();
            if now >= due {
                this.last_activity = now;
                this.keep_alive.as_mut().reset(now + this.keep_alive_every);
                return Poll::Ready(Some(Ok(Bytes::from_static(KEEP_ALIVE))));
            }
            this.keep_alive.as_mut().reset(due);
        }
        Poll::Pending
    }
}
