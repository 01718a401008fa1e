//! A small typed client for Ollama's native API: `/api/chat` (NDJSON streaming),
//! `/api/tags`, `/api/show` and `/api/version`.
//!
//! Why not a client crate: the one in use (`ollama-rs` 0.3) pins reqwest 0.12 while
//! this workspace is on 0.13, drops tool-call ids, lacks the `"max"` thinking level,
//! skips malformed lines and `{"error":..}` lines inside a 200 stream with an
//! `eprintln!`, loses UTF-8 sequences split across chunks, and has no line-length
//! or idle bound. Those are exactly the behaviours this extension must get right,
//! so the client is ~300 lines of our own on top of reqwest.
//!
//! Every call is bounded: connecting by the connect timeout, a chat by the idle
//! timeout (waiting for the first byte, then between chunks), the short calls as a
//! whole by the probe timeout. Dropping a future or a [`LineReader`] drops the
//! connection, which is how Ollama learns that the client went away.

pub mod error;
pub mod ndjson;
pub mod wire;

use std::time::Duration;

use futures::StreamExt;
use serde::de::DeserializeOwned;
use url::Url;

pub use error::OllamaError;
pub use ndjson::LineReader;

use crate::config::OllamaConfig;
use error::error_chain;

/// How much of an error body is read (Ollama's are one short JSON object).
const MAX_ERROR_BODY: usize = 64 * 1024;
/// How much of a `/api/tags` or `/api/show` body is read.
const MAX_JSON_BODY: usize = 32 * 1024 * 1024;

/// A client for one Ollama server. Cheap to clone.
#[derive(Debug, Clone)]
pub struct OllamaClient {
    http: reqwest::Client,
    base: Url,
    idle: Duration,
    probe: Duration,
    max_line: usize,
}

impl OllamaClient {
    /// A client for the Ollama at `config.url`, with its timeouts.
    pub fn new(config: &OllamaConfig) -> Result<Self, aep_sdk::Error> {
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| crate::error::ConfigError::HttpClient(error_chain(&e)))?;
        Ok(Self {
            http,
            base: config.url.clone(),
            idle: config.idle_timeout,
            probe: config.probe_timeout,
            max_line: config.max_line_bytes,
        })
    }

    /// Ollama's base URL (always ends with `/`).
    pub fn base_url(&self) -> &Url {
        &self.base
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends a request and waits (at most `bound`) for the status line; HTTP errors
    /// become [`OllamaError::Http`] with Ollama's message.
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        url: &str,
        bound: Duration,
    ) -> Result<reqwest::Response, OllamaError> {
        const WAITING: &str = "while waiting for its answer";
        let response = match tokio::time::timeout(bound, request.send()).await {
            Err(_) => {
                return Err(OllamaError::Timeout {
                    after: bound,
                    during: WAITING,
                });
            }
            Ok(Err(error)) if error.is_connect() => {
                return Err(OllamaError::Unreachable {
                    url: url.to_owned(),
                    reason: error_chain(&error),
                });
            }
            Ok(Err(error)) => {
                return Err(OllamaError::ConnectionLost {
                    during: WAITING,
                    reason: error_chain(&error),
                });
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        // The whole error body within the probe bound; a body that does not come is no message.
        let body = tokio::time::timeout(self.probe, read_limited(response, MAX_ERROR_BODY, self.probe))
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        Err(OllamaError::Http {
            status: status.as_u16(),
            message: error_message(&body),
        })
    }

    /// `POST /api/chat` with `stream: true` (forced): resolves once Ollama's status
    /// line arrived (bounded by the idle timeout), with a reader of its lines.
    pub async fn chat(&self, request: &wire::ChatRequest) -> Result<LineReader, OllamaError> {
        let url = self.url("api/chat");
        let mut request = request.clone();
        request.stream = true;
        let mut post = self.http.post(&url).json(&request);
        if aep_sdk::telemetry::enabled() {
            // Ollama (or a proxy in front of it) continues the trace.
            let mut headers = http::HeaderMap::new();
            aep_sdk::telemetry::inject(&mut headers);
            post = post.headers(headers);
        }
        let response = self.send(post, &url, self.idle).await?;
        Ok(LineReader::new(aep_sdk::client::LineReader::new(
            response.bytes_stream(),
            self.idle,
            self.max_line,
        )))
    }

    /// `GET /api/tags`: the installed models.
    pub async fn tags(&self) -> Result<wire::TagsResponse, OllamaError> {
        let url = self.url("api/tags");
        self.probe_json(self.http.get(&url), &url, "while listing models (/api/tags)")
            .await
    }

    /// `POST /api/show`: details and capabilities of one model.
    pub async fn show(&self, model: &str) -> Result<wire::ShowResponse, OllamaError> {
        let url = self.url("api/show");
        let body = serde_json::json!({ "model": model });
        self.probe_json(
            self.http.post(&url).json(&body),
            &url,
            "while describing a model (/api/show)",
        )
        .await
    }

    /// `GET /api/version`.
    pub async fn version(&self) -> Result<wire::VersionResponse, OllamaError> {
        let url = self.url("api/version");
        self.probe_json(
            self.http.get(&url),
            &url,
            "while answering its version probe (/api/version)",
        )
        .await
    }

    async fn probe_json<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
        url: &str,
        during: &'static str,
    ) -> Result<T, OllamaError> {
        let call = async {
            let response = self.send(request, url, self.probe).await?;
            let body = read_limited(response, MAX_JSON_BODY, self.probe).await?;
            serde_json::from_slice(&body).map_err(|e| OllamaError::Malformed(format!("{url}: {e}")))
        };
        match tokio::time::timeout(self.probe, call).await {
            Ok(result) => result,
            Err(_) => Err(OllamaError::Timeout {
                after: self.probe,
                during,
            }),
        }
    }
}

/// Reads at most `max` bytes of a body, each read bounded by `idle`.
async fn read_limited(
    response: reqwest::Response,
    max: usize,
    idle: Duration,
) -> Result<Vec<u8>, OllamaError> {
    let mut body = std::pin::pin!(response.bytes_stream());
    let mut out = Vec::new();
    loop {
        match tokio::time::timeout(idle, body.next()).await {
            Err(_) => {
                return Err(OllamaError::Timeout {
                    after: idle,
                    during: "while sending its answer",
                });
            }
            Ok(None) => return Ok(out),
            Ok(Some(Err(error))) => {
                return Err(OllamaError::ConnectionLost {
                    during: "while sending its answer",
                    reason: error_chain(&error),
                });
            }
            Ok(Some(Ok(chunk))) => {
                if out.len() + chunk.len() > max {
                    return Err(OllamaError::Malformed(format!(
                        "an answer larger than {max} bytes"
                    )));
                }
                out.extend_from_slice(&chunk);
            }
        }
    }
}

/// Ollama's `{"error": "..."}` text, or the beginning of whatever the body is.
fn error_message(body: &[u8]) -> String {
    if let Ok(wire::ErrorBody { error: Some(error) }) = serde_json::from_slice::<wire::ErrorBody>(body) {
        return wire::error_text(&error);
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return "(no message)".to_owned();
    }
    let mut cut: String = text.chars().take(300).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages() {
        assert_eq!(
            error_message(br#"{"error":"model 'x' not found"}"#),
            "model 'x' not found"
        );
        assert_eq!(error_message(b"404 page not found"), "404 page not found");
        assert_eq!(error_message(b""), "(no message)");
        assert_eq!(error_message(br#"{"error":{"code":1}}"#), r#"{"code":1}"#);
    }
}
