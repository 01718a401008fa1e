//! [`Trace`]: a connection's HTTP trace, the last [`CAPACITY`] exchanges the Inspector's
//! own code made to the extension with its plain `reqwest` client (the raw manifest
//! fetches when connecting and on the overview, and the playground's streamed chat).
//! Requests made inside the SDK's client (health, models, non-streamed chat,
//! configuration, migrate), the host's MCP pool (tools, resources, prompts) and the
//! conformance runner are not in it: they would need hooks in those crates.
//!
//! Headers named like a secret (`authorization`, or containing `token`, `cookie` or
//! `key`) are recorded as `<redacted>`; bodies are cut to [`BODY_BYTES`].

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;

/// How many exchanges a connection keeps.
pub const CAPACITY: usize = 200;
/// How much of a body is kept.
pub const BODY_BYTES: usize = 4096;
/// What the trace covers, said to the page.
pub const COVERS: &str = "Exchanges made by the Inspector's own HTTP client: the raw manifest fetches (on connect and in the overview's raw manifests) and the playground's streamed chat. Requests made inside the SDK's client (health, models, non-streamed chat, configuration, validate's catalog read, migrate), the host's MCP pool (tools, resources, prompts) and the conformance runner are not traced.";

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
}

/// A connection's ring of exchanges. Cheap to clone (shared).
#[derive(Debug, Clone, Default)]
pub struct Trace {
    ring: Arc<Mutex<(u64, VecDeque<Exchange>)>>,
}

impl Trace {
    /// Starts recording `request` (about to be executed).
    pub fn start(&self, request: &reqwest::Request) -> Pending {
        Pending {
            trace: self.clone(),
            started: Instant::now(),
            exchange: Exchange {
                seq: 0,
                started_at: SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_millis() as u64)
                    .unwrap_or(0),
                method: request.method().to_string(),
                url: request.url().to_string(),
                status: None,
                headers_ms: None,
                total_ms: 0.0,
                request_headers: headers(request.headers()),
                response_headers: Vec::new(),
                request_body: request.body().and_then(|b| b.as_bytes()).map(body),
                response_body: None,
                failure: None,
            },
            frames: None,
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
}

impl Pending {
    /// The answer's headers arrived.
    pub fn answered(&mut self, response: &reqwest::Response) {
        self.exchange.status = Some(response.status().as_u16());
        self.exchange.headers_ms = Some(self.elapsed());
        self.exchange.response_headers = headers(response.headers());
    }

    /// The whole body arrived.
    pub fn finish(mut self, bytes: &[u8]) {
        self.exchange.response_body = Some(body(bytes));
        self.record();
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
    }
}

/// Whether a header's value is a secret by its name.
pub fn is_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name == "authorization"
        || name == "proxy-authorization"
        || ["token", "cookie", "key"].iter().any(|w| name.contains(w))
}

fn headers(map: &reqwest::header::HeaderMap) -> Vec<(String, String)> {
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
    if bytes.len() <= BODY_BYTES {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut cut = BODY_BYTES;
    while cut > 0 && std::str::from_utf8(&bytes[..cut]).is_err() && BODY_BYTES - cut < 4 {
        cut -= 1;
    }
    format!(
        "{}… ({} bytes in all)",
        String::from_utf8_lossy(&bytes[..cut]),
        bytes.len()
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
