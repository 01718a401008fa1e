//! What can go wrong talking to the upstream, and the AEP error each failure becomes.

use std::time::Duration;

use aep_sdk::AepError;
use aep_sdk::error::codes;
use http::StatusCode;
use serde_json::Value;

use crate::flavor::Flavor;

/// The code of an answer the upstream should never have sent.
pub const INVALID_RESPONSE: &str = "invalid_response";

/// A failed exchange with the upstream.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UpstreamError {
    /// No connection could be made (refused, DNS, TLS, connect timeout).
    #[error("unreachable: {reason}")]
    Unreachable {
        /// Why.
        reason: String,
    },
    /// The upstream answered an HTTP error.
    #[error("HTTP {status}: {message}")]
    Http {
        /// Its status.
        status: u16,
        /// The message extracted from its body (see [`error_message`]).
        message: String,
    },
    /// The upstream stayed silent longer than allowed.
    #[error("no answer for {after:?} {during}")]
    Timeout {
        /// The bound.
        after: Duration,
        /// `before its answer`, `mid-stream`.
        during: &'static str,
    },
    /// The connection broke while an answer was being read.
    #[error("the connection broke mid-stream: {reason}")]
    ConnectionLost {
        /// Why.
        reason: String,
    },
    /// A `data:` line or body that is not a Chat Completions answer.
    #[error("malformed answer: {0}")]
    Malformed(String),
    /// A line longer than the bound.
    #[error("a line longer than {max} bytes")]
    LineTooLong {
        /// The bound.
        max: usize,
    },
    /// An `{"error": ...}` event inside a `200` stream: the generation failed.
    #[error("failed mid-stream: {0}")]
    Stream(String),
    /// A non-streamed answer without `choices[0].message`.
    #[error("an answer without a chat completion choice")]
    NoChoice,
    /// The stream ended before a chunk with a `finish_reason`.
    #[error("the stream ended before its finish_reason")]
    Truncated,
}

impl UpstreamError {
    /// The AEP error (shared/openai-compatible-notes.md 2.7, with the spec's
    /// improvements: JSON errors everywhere, `timeout`):
    ///
    /// | failure | code | status |
    /// |---|---|---|
    /// | unreachable | `provider_unavailable` (`llama.cpp is unreachable.`) | 502 |
    /// | HTTP 404 | `model_unavailable` | 404 |
    /// | other HTTP 4xx | `invalid_request` | the upstream's |
    /// | other HTTP error | `provider_unavailable` | the upstream's |
    /// | silence beyond a bound | `timeout` | 504 |
    /// | connection lost mid-stream | `provider_unavailable` | 502 |
    /// | malformed or oversized line, no finish | `invalid_response` | 502 |
    /// | error event mid-stream | `request_failed` | 502 |
    pub fn into_aep(self, flavor: Flavor) -> AepError {
        let name = flavor.upstream_name();
        match self {
            UpstreamError::Unreachable { reason } => {
                AepError::provider_unavailable(format!("{name} is unreachable."))
                    .with_detail("reason", reason)
            }
            UpstreamError::Http { status, message } => {
                let code = match status {
                    404 => codes::MODEL_UNAVAILABLE,
                    400..=499 => codes::INVALID_REQUEST,
                    _ => codes::PROVIDER_UNAVAILABLE,
                };
                let http = StatusCode::from_u16(status)
                    .ok()
                    .filter(|s| s.is_client_error() || s.is_server_error())
                    .unwrap_or(StatusCode::BAD_GATEWAY);
                AepError::new(http, code, message).with_detail("upstreamStatus", status.to_string())
            }
            UpstreamError::Timeout { after, during } => AepError::new(
                StatusCode::GATEWAY_TIMEOUT,
                codes::TIMEOUT,
                format!("{name} sent nothing for {} {during}.", seconds(after)),
            ),
            UpstreamError::ConnectionLost { reason } => {
                AepError::provider_unavailable(format!("The connection to {name} broke mid-stream: {reason}"))
            }
            error @ (UpstreamError::Malformed(_)
            | UpstreamError::LineTooLong { .. }
            | UpstreamError::Truncated) => AepError::new(
                StatusCode::BAD_GATEWAY,
                INVALID_RESPONSE,
                format!("{name} sent a {error}."),
            ),
            UpstreamError::NoChoice => AepError::new(
                StatusCode::BAD_GATEWAY,
                INVALID_RESPONSE,
                format!("{name} returned no chat completion choice."),
            ),
            UpstreamError::Stream(message) => {
                AepError::request_failed(format!("{name} failed mid-stream: {message}"))
            }
        }
    }
}

fn seconds(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} ms", duration.as_millis())
    }
}

/// The message of an upstream error body (notes 2.7 and 3.4): a root `error` string, or
/// `error.message`, or the error's JSON; else the body's JSON (a JSON string: its
/// value); a body that is not JSON gives the status's reason phrase, or
/// `{name} returned HTTP {status}.`
pub fn error_message(flavor: Flavor, status: u16, body: &[u8]) -> String {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(root)) if root.contains_key("error") => match &root["error"] {
            Value::String(text) => text.clone(),
            error => match error.get("message") {
                Some(Value::String(text)) => text.clone(),
                _ => error.to_string(),
            },
        },
        Ok(Value::String(text)) => text,
        Ok(other) => other.to_string(),
        Err(_) => StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{} returned HTTP {status}.", flavor.upstream_name())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_from_each_body_shape() {
        let f = Flavor::LlamaCpp;
        assert_eq!(
            error_message(f, 503, br#"{"error":{"message":"Loading model"}}"#),
            "Loading model"
        );
        assert_eq!(error_message(f, 500, br#"{"error":"boom"}"#), "boom");
        assert_eq!(error_message(f, 500, br#"{"error":{"code":1}}"#), r#"{"code":1}"#);
        assert_eq!(error_message(f, 400, br#""plain""#), "plain");
        assert_eq!(error_message(f, 400, br#"{"detail":"x"}"#), r#"{"detail":"x"}"#);
        assert_eq!(error_message(f, 400, b"<html>"), "Bad Request");
        assert_eq!(error_message(f, 599, b""), "llama.cpp returned HTTP 599.");
    }

    #[test]
    fn status_passes_through() {
        let f = Flavor::LocalAi;
        let http = |status| {
            UpstreamError::Http {
                status,
                message: "m".into(),
            }
            .into_aep(f)
        };
        assert_eq!(
            (http(404).status().as_u16(), http(404).code().to_owned()),
            (404, "model_unavailable".into())
        );
        assert_eq!(
            (http(401).status().as_u16(), http(401).code().to_owned()),
            (401, "invalid_request".into())
        );
        assert_eq!(
            (http(503).status().as_u16(), http(503).code().to_owned()),
            (503, "provider_unavailable".into())
        );
        let error = UpstreamError::Unreachable {
            reason: "refused".into(),
        }
        .into_aep(f);
        assert_eq!(
            (error.status().as_u16(), error.message()),
            (502, "LocalAI is unreachable.")
        );
    }
}
