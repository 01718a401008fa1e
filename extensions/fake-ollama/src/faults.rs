//! Fault injection.
//!
//! A [`Fault`] is attached to requests by path, either for the next request
//! only ([`crate::FakeOllama::fail_next`]) or for every request until cleared
//! ([`crate::FakeOllama::fail_always`]). One-shot faults are used first, in
//! the order they were queued; a fault is consumed when a request to its path
//! arrives, whatever happens to that request afterwards.
//!
//! [`Fault::Hang`] and [`Fault::HttpError`] act on any path, before the
//! request is validated. The other faults shape a chat *generation*: they act
//! only on a valid `/api/chat` request that generates a reply (they are
//! consumed without effect by a request that fails validation or by a
//! `messages: []` load).

use std::collections::VecDeque;
use std::time::Duration;

/// Something going wrong, the way it goes wrong with a real Ollama.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Accept the request and never answer: no status line, no byte. Ends
    /// only when the client disconnects (recorded as a disconnect), when the
    /// server is stopped, or after the server's hang limit (see
    /// [`crate::Builder::hang_limit`]), when the connection is closed
    /// without a response.
    Hang,
    /// Answer `status` with `{"error": message}` before any byte of a reply
    /// (e.g. 500 runner crash, 503 `server busy, please try again.  maximum
    /// pending requests exceeded`).
    HttpError {
        /// HTTP status.
        status: u16,
        /// The `error` string.
        message: String,
    },
    /// Slow model: overrides the reply's pacing.
    Slow {
        /// Wait before headers + first chunk.
        load_delay: Duration,
        /// Wait between chunks.
        chunk_delay: Duration,
    },
    /// Send `after` chunks (the first one with the headers), then close the
    /// connection abruptly: no `done` line, no chunked terminator. `after`
    /// is capped at the number of non-final chunks, so the `done` line is
    /// never sent. With `stream: false` the JSON object is cut in half.
    DropAfter(usize),
    /// Send `after` chunks, then stop sending (no more bytes, connection kept
    /// open) until the client goes away, the server stops or the hang limit
    /// passes (then the connection is closed abruptly). With `stream: false`
    /// this behaves like [`Fault::Hang`].
    StallAfter(usize),
    /// After `after` chunks, insert one line that is not valid JSON, then
    /// continue normally (the stream still ends with its `done` line). With
    /// `stream: false` the single body is truncated, invalid JSON (status 200).
    MalformedLineAfter(usize),
    /// After `after` chunks (status 200 already sent), send one
    /// `{"error":"..."}` line and end the stream cleanly, without a `done`
    /// line — what Ollama does when the runner fails mid-generation. With
    /// `stream: false` Ollama answers 500 `{"error": message}` instead.
    ErrorLineAfter {
        /// Chunks before the error line (capped at the non-final chunks).
        after: usize,
        /// The `error` string.
        message: String,
    },
}

impl Fault {
    /// `HttpError` shorthand.
    pub fn http(status: u16, message: impl Into<String>) -> Fault {
        Fault::HttpError {
            status,
            message: message.into(),
        }
    }

    /// Ollama's queue-full answer: 503 `server busy, please try again.
    /// maximum pending requests exceeded`.
    pub fn queue_full() -> Fault {
        Fault::http(
            503,
            "server busy, please try again.  maximum pending requests exceeded",
        )
    }

    /// `ErrorLineAfter` shorthand.
    pub fn error_line_after(after: usize, message: impl Into<String>) -> Fault {
        Fault::ErrorLineAfter {
            after,
            message: message.into(),
        }
    }

    /// Whether this fault acts before validation (on any path).
    pub(crate) fn is_pre_request(&self) -> bool {
        matches!(self, Fault::Hang | Fault::HttpError { .. })
    }
}

#[derive(Debug, Clone)]
struct Rule {
    path: String,
    fault: Fault,
}

/// The fault table of a server.
#[derive(Debug, Default)]
pub(crate) struct FaultRules {
    once: VecDeque<Rule>,
    always: Vec<Rule>,
}

impl FaultRules {
    pub(crate) fn push_once(&mut self, path: &str, fault: Fault) {
        self.once.push_back(Rule {
            path: path.to_string(),
            fault,
        });
    }

    pub(crate) fn push_always(&mut self, path: &str, fault: Fault) {
        self.always.push(Rule {
            path: path.to_string(),
            fault,
        });
    }

    pub(crate) fn clear(&mut self) {
        self.once.clear();
        self.always.clear();
    }

    /// Takes the fault for a request to `path`: the first one-shot rule for
    /// the path, else the first permanent one.
    pub(crate) fn take(&mut self, path: &str) -> Option<Fault> {
        if let Some(i) = self.once.iter().position(|r| r.path == path) {
            return self.once.remove(i).map(|r| r.fault);
        }
        self.always
            .iter()
            .find(|r| r.path == path)
            .map(|r| r.fault.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_then_always() {
        let mut r = FaultRules::default();
        r.push_always("/api/chat", Fault::DropAfter(1));
        r.push_once("/api/chat", Fault::Hang);
        r.push_once("/api/tags", Fault::queue_full());
        assert_eq!(r.take("/api/chat"), Some(Fault::Hang));
        assert_eq!(r.take("/api/chat"), Some(Fault::DropAfter(1)));
        assert_eq!(r.take("/api/chat"), Some(Fault::DropAfter(1)));
        assert_eq!(r.take("/api/show"), None);
        assert!(r.take("/api/tags").is_some());
        assert_eq!(r.take("/api/tags"), None);
    }
}
