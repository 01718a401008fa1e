//! [`Trace`]: a connection's HTTP trace, the last [`CAPACITY`] exchanges between the
//! Inspector and the extension. Two kinds are recorded: those its own `reqwest` client
//! makes (the raw manifest fetches and the playground's streamed chat, recorded here with
//! [`Trace::start`]), and everything the SDK's client, the host's MCP pool and the
//! conformance runner send, which goes through the connection's recording proxy
//! ([`crate::proxy`], recorded with [`Trace::begin`]).
//!
//! Headers named like a secret (`authorization`, or containing `token`, `cookie` or
//! `key`) are recorded as `<redacted>`; bodies are cut to [`BODY_BYTES`].

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use reqwest::header::HeaderMap;
use serde::Serialize;

/// How many exchanges a connection keeps.
pub const CAPACITY: usize = 200;
/// How much of a body is kept.
pub const BODY_BYTES: usize = 4096;
/// What the trace covers, said to the page.
pub const COVERS: &str = "Every exchange between the Inspector and the extension: the SDK's client (discovery, health, models, chat, configuration, migrate), the host's MCP pool (tools, resources, prompts) and the conformance runner reach the extension through a recording proxy on a loopback port, and the Inspector's own client (raw manifests, the streamed chat) is recorded as it sends. An MCP server whose manifest endpoint is an absolute URL is reached directly, so its exchanges are not in the trace.";

/// One request and its answer.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Exchange {
    /// Order of recording within the connection, from 1.
    pub seq: u64,
    /// When it was sent, milliseconds since the Unix epoch.
    pub started_at: u64,
    /// HTTP method.
    pub method: String,
    /// The URL requested.
    pub url: String,
    /// The answer's status, when there was one.
    pub status: Option<u16>,
    /// From sending to the answer's headers.
    pub headers_ms: Option<f64>,
    /// From sending to the end of the body (or of the stream, or the failure).
    pub total_ms: f64,
    /// Request headers, secrets redacted.
    pub request_headers: Vec<(String, String)>,
    /// Response headers, secrets redacted.
    pub response_headers: Vec<(String, String)>,
    /// The request body, cut to [`BODY_BYTES`].
    pub request_body: Option<String>,
    /// The response body, cut to [`BODY_BYTES`], or `streamed, N frames`.
    pub response_body: Option<String>,
    /// Why there is no (whole) answer.
    pub failure: Option<String>,
    /// Who sent it: `inspector` (its own client), or through the recording proxy `sdk`
    /// (the SDK's client), `mcp` (the host's MCP pool), `runner` (the conformance
    /// runner) or `proxy` (a request to the proxy naming no sender).
    pub via: &'static str,
}

/// A connection's ring of exchanges. Cheap to clone (shared).
#[derive(Debug, Clone, Default)]
pub struct Trace {
    ring: Arc<Mutex<(u64, VecDeque<Exchange>)>>,
}

impl Trace {
    /// Starts recording `request` (about to be executed by the Inspector's own client).
    pub fn start(&self, request: &reqwest::Request) -> Pending {
        let mut pending = self.begin(
            request.method().as_str(),
            request.url().as_str(),
            request.headers(),
            "inspector",
        );
        pending.exchange.request_body = request.body().and_then(|b| b.as_bytes()).map(body);
        pending
    }

    /// Starts recording a request about to be sent by `via`, its body (if any) given
    /// later with [`Pending::request_body`].
    pub fn begin(&self, method: &str, url: &str, request_headers: &HeaderMap, via: &'static str) -> Pending {
        Pending {
            trace: self.clone(),
            started: Instant::now(),
            exchange: Exchange {
                seq: 0,
                started_at: SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_millis() as u64)
                    .unwrap_or(0),
                method: method.to_owned(),
                url: url.to_owned(),
                status: None,
                headers_ms: None,
                total_ms: 0.0,
                request_headers: headers(request_headers),
                response_headers: Vec::new(),
                request_body: None,
                response_body: None,
                failure: None,
                via,
            },
            frames: None,
            request_capture: None,
        }
    }

    fn push(&self, mut exchange: Exchange) {
        let mut ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        ring.0 += 1;
        exchange.seq = ring.0;
        if ring.1.len() == CAPACITY {
            ring.1.pop_front();
        }
        ring.1.push_back(exchange);
    }

    /// The exchanges kept, newest first.
    pub fn newest_first(&self) -> Vec<Exchange> {
        let ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        ring.1.iter().rev().cloned().collect()
    }
}

/// An exchange under way; recorded by [`Pending::finish`], [`Pending::fail`] or, when
/// dropped unfinished (a cancelled stream), as it stands.
#[derive(Debug)]
pub struct Pending {
    trace: Trace,
    started: Instant,
    exchange: Exchange,
    frames: Option<usize>,
    request_capture: Option<Arc<Mutex<Capture>>>,
}

impl Pending {
    /// The answer's headers arrived.
    pub fn answered(&mut self, response: &reqwest::Response) {
        self.answered_with(response.status().as_u16(), response.headers());
    }

    /// The answer's headers arrived: `status` and `response_headers`.
    pub fn answered_with(&mut self, status: u16, response_headers: &HeaderMap) {
        self.exchange.status = Some(status);
        self.exchange.headers_ms = Some(self.elapsed());
        self.exchange.response_headers = headers(response_headers);
    }

    /// Where the request body is being captured as it is sent (read when recording).
    pub fn request_body(&mut self, capture: Arc<Mutex<Capture>>) {
        self.request_capture = Some(capture);
    }

    /// The whole body arrived.
    pub fn finish(mut self, bytes: &[u8]) {
        self.exchange.response_body = Some(body(bytes));
        self.record();
    }

    /// The whole body arrived, as captured.
    pub fn finish_captured(mut self, capture: &Capture) {
        self.exchange.response_body = Some(capture.render());
        self.record();
    }

    /// The part of the body that arrived before the exchange was abandoned.
    pub fn partial(&mut self, capture: &Capture) {
        if capture.total() > 0 {
            self.exchange.response_body = Some(capture.render());
        }
    }

    /// The answer is a stream: its body is recorded as `streamed, N frames`.
    pub fn streaming(&mut self) {
        self.frames = Some(0);
    }

    /// One more frame of the stream.
    pub fn frame(&mut self) {
        *self.frames.get_or_insert(0) += 1;
    }

    /// Why the stream ended early (it is recorded with the exchange).
    pub fn note(&mut self, why: String) {
        self.exchange.failure = Some(why);
    }

    /// The stream ended (normally, or as [`Pending::note`] said).
    pub fn streamed(mut self) {
        self.record();
    }

    /// No (whole) answer.
    pub fn fail(mut self, why: String) {
        self.exchange.failure = Some(why);
        self.record();
    }

    fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }

    fn record(&mut self) {
        self.exchange.total_ms = self.elapsed();
        if let Some(capture) = self.request_capture.take() {
            let capture = capture.lock().unwrap_or_else(|e| e.into_inner());
            if capture.total > 0 {
                self.exchange.request_body = Some(capture.render());
            }
        }
        if let Some(frames) = self.frames {
            self.exchange.response_body = Some(format!("streamed, {frames} frames"));
        }
        let exchange = std::mem::replace(&mut self.exchange, empty());
        self.trace.push(exchange);
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.exchange.method.is_empty() {
            if self.exchange.failure.is_none() {
                self.exchange.failure = Some("abandoned before the answer ended".into());
            }
            self.record();
        }
    }
}

fn empty() -> Exchange {
    Exchange {
        seq: 0,
        started_at: 0,
        method: String::new(),
        url: String::new(),
        status: None,
        headers_ms: None,
        total_ms: 0.0,
        request_headers: Vec::new(),
        response_headers: Vec::new(),
        request_body: None,
        response_body: None,
        failure: None,
        via: "",
    }
}

/// The start of a body being sent or received piece by piece ([`BODY_BYTES`] of it) and
/// its whole length.
#[derive(Debug, Default)]
pub struct Capture {
    head: Vec<u8>,
    total: usize,
}

impl Capture {
    /// One more piece.
    pub fn push(&mut self, bytes: &[u8]) {
        let room = (BODY_BYTES + 4).saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
        self.total += bytes.len();
    }

    /// How many bytes passed.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The body as the trace shows it: cut to [`BODY_BYTES`], with its whole length.
    pub fn render(&self) -> String {
        cut(&self.head, self.total)
    }
}

/// Whether a header's value is a secret by its name.
pub fn is_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name == "authorization"
        || name == "proxy-authorization"
        || ["token", "cookie", "key"].iter().any(|w| name.contains(w))
}

fn headers(map: &HeaderMap) -> Vec<(String, String)> {
    map.iter()
        .map(|(name, value)| {
            let shown = if is_secret(name.as_str()) {
                "<redacted>".to_owned()
            } else {
                String::from_utf8_lossy(value.as_bytes()).into_owned()
            };
            (name.as_str().to_owned(), shown)
        })
        .collect()
}

fn body(bytes: &[u8]) -> String {
    cut(bytes, bytes.len())
}

/// `bytes` (the start of a body of `total` bytes) cut to [`BODY_BYTES`].
fn cut(bytes: &[u8], total: usize) -> String {
    if total <= BODY_BYTES {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut end = BODY_BYTES;
    while end > 0 && std::str::from_utf8(&bytes[..end]).is_err() && BODY_BYTES - end < 4 {
        end -= 1;
    }
    format!(
        "{}… ({} bytes in all)",
        String::from_utf8_lossy(&bytes[..end]),
        total
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_bodies_cut_and_the_ring_bounded() {
        assert!(is_secret("Authorization"));
        assert!(is_secret("x-api-key"));
        assert!(is_secret("Set-Cookie"));
        assert!(is_secret("x-session-token"));
        assert!(!is_secret("content-type"));
        let long = vec![b'a'; BODY_BYTES + 10];
        assert!(body(&long).ends_with(&format!("({} bytes in all)", BODY_BYTES + 10)));
        let mut capture = Capture::default();
        for _ in 0..3 {
            capture.push(&long);
        }
        assert_eq!(capture.render(), cut(&long, 3 * (BODY_BYTES + 10)));
        assert!(
            capture
                .render()
                .ends_with(&format!("({} bytes in all)", 3 * (BODY_BYTES + 10)))
        );
        let trace = Trace::default();
        let client = reqwest::Client::new();
        for _ in 0..CAPACITY + 5 {
            let request = client
                .get("http://127.0.0.1:9/x")
                .bearer_auth("sekrit")
                .build()
                .unwrap();
            trace.start(&request).fail("no".into());
        }
        let all = trace.newest_first();
        assert_eq!(all.len(), CAPACITY);
        assert_eq!(all[0].seq, (CAPACITY + 5) as u64);
        assert_eq!(all[0].request_headers[0].1, "<redacted>");
        assert!(!serde_json::to_string(&all).unwrap().contains("sekrit"));
    }
}
