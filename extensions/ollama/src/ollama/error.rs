//! What can go wrong talking to Ollama, and the AEP error each failure becomes.

use std::time::Duration;

use aep_sdk::AepError;
use aep_sdk::error::codes;
use http::StatusCode;

/// A failed exchange with Ollama.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OllamaError {
    /// No connection could be made (refused, DNS, connect timeout).
    #[error("Ollama at {url} is unreachable: {reason}")]
    Unreachable {
        /// The URL called.
        url: String,
        /// Why.
        reason: String,
    },
    /// The connection broke while an answer was being read.
    #[error("the connection to Ollama broke {during}: {reason}")]
    ConnectionLost {
        /// `while waiting for its answer`, `mid-stream`.
        during: &'static str,
        /// Why.
        reason: String,
    },
    /// Ollama stayed silent longer than allowed.
    #[error("Ollama sent nothing for {} {during}", format_duration(*.after))]
    Timeout {
        /// The bound that was exceeded.
        after: Duration,
        /// `while waiting for its answer`, `mid-stream`, ...
        during: &'static str,
    },
    /// Ollama answered an HTTP error before its answer started.
    #[error("Ollama answered HTTP {status}: {message}")]
    Http {
        /// The status.
        status: u16,
        /// Ollama's `error` text (or the body's beginning when it is not Ollama's shape).
        message: String,
    },
    /// An `{"error": ...}` line inside a `200` stream: the generation failed.
    #[error("Ollama failed mid-stream: {0}")]
    Stream(String),
    /// A line or body that is not what Ollama sends.
    #[error("Ollama sent a malformed answer: {0}")]
    Malformed(String),
    /// A line longer than the configured maximum.
    #[error("Ollama sent a line longer than {max} bytes")]
    LineTooLong {
        /// The maximum.
        max: usize,
    },
    /// The stream ended without its final `done: true` line.
    #[error("Ollama's stream ended before its final line")]
    Truncated,
}

fn format_duration(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} ms", duration.as_millis())
    }
}

impl OllamaError {
    /// The AEP error a chat failure becomes (spec section 4):
    ///
    /// | failure | code | status |
    /// |---|---|---|
    /// | unreachable, connection lost | `provider_unavailable` | 502 |
    /// | silence beyond the bound | `timeout` | 504 |
    /// | HTTP 404 (unknown model) | `model_unavailable`, Ollama's message | 404 |
    /// | other HTTP error | `request_failed`, Ollama's message | 502 |
    /// | error line, malformed line, truncated stream | `request_failed` | 502 |
    ///
    /// Every error carries `details.ollamaStatus` when Ollama answered a status.
    pub fn into_aep(self) -> AepError {
        let message = self.to_string();
        match self {
            OllamaError::Unreachable { .. } | OllamaError::ConnectionLost { .. } => {
                AepError::provider_unavailable(message)
            }
            OllamaError::Timeout { .. } => {
                AepError::new(StatusCode::GATEWAY_TIMEOUT, codes::TIMEOUT, message)
            }
            OllamaError::Http { status: 404, message } => {
                AepError::model_unavailable(message).with_detail("ollamaStatus", "404")
            }
            OllamaError::Http { status, .. } => {
                AepError::request_failed(message).with_detail("ollamaStatus", status.to_string())
            }
            OllamaError::Stream(_)
            | OllamaError::Malformed(_)
            | OllamaError::LineTooLong { .. }
            | OllamaError::Truncated => AepError::request_failed(message),
        }
    }
}

impl From<OllamaError> for AepError {
    fn from(error: OllamaError) -> Self {
        error.into_aep()
    }
}

pub(crate) use aep_sdk::client::error_chain;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_statuses() {
        let cases = [
            (
                OllamaError::Unreachable {
                    url: "http://h/api/chat".into(),
                    reason: "refused".into(),
                },
                "provider_unavailable",
                502,
            ),
            (
                OllamaError::Timeout {
                    after: Duration::from_millis(300),
                    during: "mid-stream",
                },
                "timeout",
                504,
            ),
            (
                OllamaError::Http {
                    status: 404,
                    message: "model 'x' not found".into(),
                },
                "model_unavailable",
                404,
            ),
            (
                OllamaError::Http {
                    status: 500,
                    message: "boom".into(),
                },
                "request_failed",
                502,
            ),
            (OllamaError::Truncated, "request_failed", 502),
        ];
        for (error, code, status) in cases {
            let aep = error.into_aep();
            assert_eq!((aep.code(), aep.status().as_u16()), (code, status), "{aep}");
        }
        let timeout = OllamaError::Timeout {
            after: Duration::from_millis(300),
            during: "mid-stream",
        };
        assert_eq!(timeout.to_string(), "Ollama sent nothing for 300 ms mid-stream");
        let missing = OllamaError::Http {
            status: 404,
            message: "model 'x' not found".into(),
        }
        .into_aep();
        assert!(missing.message().contains("model 'x' not found"));
    }
}
