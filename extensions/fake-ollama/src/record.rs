//! Recording of what the server received, and detection of clients that
//! went away before their response was complete.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::Notify;

/// One request as received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// 0-based arrival order.
    pub seq: u64,
    /// `GET`, `POST`, ...
    pub method: String,
    /// Path without the query, e.g. `/api/chat`.
    pub path: String,
    /// Raw query string, if any.
    pub query: Option<String>,
    /// Request headers (lower-case names, lossy UTF-8 values).
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON, `None` when empty or not JSON.
    pub body: Option<Value>,
    /// The body as received.
    pub raw_body: Bytes,
    /// When the body had been read.
    pub at: Instant,
}

impl RecordedRequest {
    /// Value of header `name` (case-insensitive), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A client that closed its connection before its response was complete
/// (before the first byte, or mid-stream).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disconnect {
    /// `seq` of the request (see [`RecordedRequest::seq`]).
    pub seq: u64,
    /// Path of the request.
    pub path: String,
    /// When the server noticed (the response future or body was dropped).
    pub at: Instant,
    /// Time from the request's arrival to `at`.
    pub after: Duration,
    /// Whether the status line had been handed to the connection.
    pub headers_sent: bool,
    /// NDJSON lines handed to the connection before the disconnect.
    pub chunks_sent: usize,
}

#[derive(Default)]
struct Inner {
    requests: Vec<RecordedRequest>,
    disconnects: Vec<Disconnect>,
    disconnect_cursor: usize,
    show_calls: HashMap<String, usize>,
    next_seq: u64,
}

/// Shared recorder.
#[derive(Default)]
pub(crate) struct Recorder {
    inner: Mutex<Inner>,
    changed: Notify,
    open_chat: AtomicUsize,
}

impl Recorder {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn next_seq(&self) -> u64 {
        let mut g = self.lock();
        let s = g.next_seq;
        g.next_seq += 1;
        s
    }

    pub(crate) fn record(&self, req: RecordedRequest) {
        self.lock().requests.push(req);
        self.changed.notify_waiters();
    }

    pub(crate) fn count_show(&self, canonical_model: String) {
        *self.lock().show_calls.entry(canonical_model).or_default() += 1;
    }

    pub(crate) fn show_calls(&self, canonical_model: &str) -> usize {
        self.lock().show_calls.get(canonical_model).copied().unwrap_or(0)
    }

    pub(crate) fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    pub(crate) fn count_where(&self, f: impl Fn(&RecordedRequest) -> bool) -> usize {
        self.lock().requests.iter().filter(|r| f(r)).count()
    }

    pub(crate) fn clear(&self) {
        let mut g = self.lock();
        g.requests.clear();
        g.disconnects.clear();
        g.disconnect_cursor = 0;
        g.show_calls.clear();
    }

    pub(crate) fn disconnects(&self) -> Vec<Disconnect> {
        self.lock().disconnects.clone()
    }

    pub(crate) fn open_chat(&self) -> usize {
        self.open_chat.load(Ordering::SeqCst)
    }

    fn push_disconnect(&self, d: Disconnect) {
        tracing::debug!(seq = d.seq, path = %d.path, "fake-ollama: client disconnected");
        self.lock().disconnects.push(d);
        self.changed.notify_waiters();
    }

    /// Waits (bounded) until `ready` holds, re-checking on every change.
    async fn wait_until<T>(
        &self,
        timeout: Duration,
        mut ready: impl FnMut(&mut Inner, usize) -> Option<T>,
    ) -> Option<T> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let open = self.open_chat();
                let mut g = self.lock();
                if let Some(v) = ready(&mut g, open) {
                    return Some(v);
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                let open = self.open_chat();
                return ready(&mut self.lock(), open);
            }
        }
    }

    /// The oldest disconnect not returned by an earlier call.
    pub(crate) async fn wait_for_disconnect(&self, timeout: Duration) -> Option<Disconnect> {
        self.wait_until(timeout, |g, _| {
            let d = g.disconnects.get(g.disconnect_cursor).cloned();
            if d.is_some() {
                g.disconnect_cursor += 1;
            }
            d
        })
        .await
    }

    pub(crate) async fn wait_for_requests(&self, path: &str, n: usize, timeout: Duration) -> bool {
        self.wait_until(timeout, |g, _| {
            (g.requests.iter().filter(|r| r.path == path).count() >= n).then_some(())
        })
        .await
        .is_some()
    }

    pub(crate) async fn wait_for_open_chat(&self, n: usize, timeout: Duration) -> bool {
        self.wait_until(timeout, |_, open| (open == n).then_some(()))
            .await
            .is_some()
    }
}

/// Lives as long as a response is in flight (first inside the handler
/// future, then inside the body stream). Dropped while still open means the
/// client went away.
pub(crate) struct ResponseGuard {
    rec: Arc<Recorder>,
    seq: u64,
    path: String,
    started: Instant,
    is_chat: bool,
    pub(crate) headers_sent: bool,
    pub(crate) chunks_sent: usize,
    open: bool,
}

impl ResponseGuard {
    pub(crate) fn new(rec: Arc<Recorder>, seq: u64, path: &str, started: Instant) -> Self {
        let is_chat = path == "/api/chat";
        if is_chat {
            rec.open_chat.fetch_add(1, Ordering::SeqCst);
            rec.changed.notify_waiters();
        }
        ResponseGuard {
            rec,
            seq,
            path: path.to_string(),
            started,
            is_chat,
            headers_sent: false,
            chunks_sent: 0,
            open: true,
        }
    }

    /// The response ended as planned (complete, or cut by the server on
    /// purpose): dropping the guard now records no disconnect.
    pub(crate) fn finish(&mut self) {
        self.open = false;
    }
}

impl Drop for ResponseGuard {
    fn drop(&mut self) {
        if self.open {
            let at = Instant::now();
            self.rec.push_disconnect(Disconnect {
                seq: self.seq,
                path: std::mem::take(&mut self.path),
                at,
                after: at.saturating_duration_since(self.started),
                headers_sent: self.headers_sent,
                chunks_sent: self.chunks_sent,
            });
        }
        if self.is_chat {
            self.rec.open_chat.fetch_sub(1, Ordering::SeqCst);
            self.rec.changed.notify_waiters();
        }
    }
}
