//! The small typed client for the Chat Completions API and the probes around it, on
//! reqwest. Every wait is bounded: connecting, the answer's headers, the silence between
//! two lines of a stream, each probe as a whole. Dropping a future or an
//! [`EventReader`] drops the request, which closes its socket: that is how a client
//! that goes away stops the generation upstream.

pub mod error;
pub mod sse;

use crate::error::ConfigError;
use aep_sdk::client::{LineReader, error_chain};
use bytes::Bytes;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use serde_json::Value;
use url::Url;

pub use error::{UpstreamError, error_message};
pub use sse::{Event, EventReader};

use crate::config::{Tuning, UpstreamConfig};
use crate::flavor::Flavor;

/// The Chat Completions route, relative to the endpoint.
const CHAT_PATH: &str = "v1/chat/completions";

/// A client for one upstream.
#[derive(Debug, Clone)]
pub struct UpstreamClient {
    http: reqwest::Client,
    endpoint: Url,
    flavor: Flavor,
    tuning: Tuning,
}

impl UpstreamClient {
    /// A client for `config`'s upstream.
    pub fn new(config: &UpstreamConfig) -> Result<Self, aep_sdk::Error> {
        let mut headers = HeaderMap::new();
        if let Some(key) = &config.api_key {
            let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose()))
                .map_err(|_| ConfigError::ApiKeyHeader)?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        let http = reqwest::Client::builder()
            .connect_timeout(config.tuning.connect_timeout)
            .default_headers(headers)
            .build()
            .map_err(|e| ConfigError::HttpClient(error_chain(&e)))?;
        Ok(Self {
            http,
            endpoint: config.endpoint.clone(),
            flavor: config.flavor,
            tuning: config.tuning.clone(),
        })
    }

    /// The endpoint.
    pub fn endpoint(&self) -> &Url {
        &self.endpoint
    }

    /// The flavour.
    pub fn flavor(&self) -> Flavor {
        self.flavor
    }

    fn url(&self, path: &str) -> Url {
        self.endpoint.join(path).unwrap_or_else(|_| self.endpoint.clone())
    }

    /// Where chats go: `v1/chat/completions` under the endpoint.
    pub fn chat_url(&self) -> Url {
        self.url(CHAT_PATH)
    }

    /// A chat `POST` with `body`, carrying the current span's `traceparent` when spans
    /// are exported (the upstream, or a proxy in front of it, continues the trace).
    fn chat_post(&self, body: &Value) -> reqwest::RequestBuilder {
        let post = self.http.post(self.chat_url()).json(body);
        if !aep_sdk::telemetry::enabled() {
            return post;
        }
        let mut headers = HeaderMap::new();
        aep_sdk::telemetry::inject(&mut headers);
        post.headers(headers)
    }

    /// `POST v1/chat/completions` with `body` (which asks for a stream): waits for the
    /// answer's headers (bounded), refuses a non-2xx status with its message, and
    /// returns the event reader.
    pub async fn chat_stream(&self, body: &Value) -> Result<EventReader, UpstreamError> {
        let request = self.chat_post(body);
        let response = match tokio::time::timeout(self.tuning.first_byte_timeout, request.send()).await {
            Err(_) => {
                return Err(UpstreamError::Timeout {
                    after: self.tuning.first_byte_timeout,
                    during: "before its answer",
                });
            }
            Ok(Err(error)) => return Err(send_error(&error)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if !status.is_success() {
            let body = tokio::time::timeout(self.tuning.probe_timeout, response.bytes())
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
            return Err(UpstreamError::Http {
                status: status.as_u16(),
                message: error_message(self.flavor, status.as_u16(), &body),
            });
        }
        Ok(EventReader::new(LineReader::new(
            response.bytes_stream(),
            self.tuning.idle_timeout,
            self.tuning.max_line_bytes,
        )))
    }

    /// `POST v1/chat/completions` with `body` (which asks for no stream), the whole
    /// exchange within the first-byte bound, as the reference does: the answer's JSON.
    pub async fn chat_once(&self, body: &Value) -> Result<Value, UpstreamError> {
        let request = self.chat_post(body);
        let (status, body) = self
            .exchange(request, self.tuning.first_byte_timeout, "before its answer")
            .await?;
        if !(200..300).contains(&status) {
            return Err(UpstreamError::Http {
                status,
                message: error_message(self.flavor, status, &body),
            });
        }
        serde_json::from_slice(&body).map_err(|e| UpstreamError::Malformed(format!("chat completion: {e}")))
    }

    /// `GET path` as a whole within the probe bound: the status and the body.
    pub async fn probe(&self, path: &str) -> Result<(u16, Bytes), UpstreamError> {
        let request = self.http.get(self.url(path));
        self.exchange(request, self.tuning.probe_timeout, "answering a probe")
            .await
    }

    /// Sends `request` and reads its whole answer within `bound`.
    async fn exchange(
        &self,
        request: reqwest::RequestBuilder,
        bound: std::time::Duration,
        during: &'static str,
    ) -> Result<(u16, Bytes), UpstreamError> {
        let exchange = async {
            let response = request.send().await.map_err(|e| send_error(&e))?;
            let status = response.status().as_u16();
            let body = response
                .bytes()
                .await
                .map_err(|e| UpstreamError::ConnectionLost {
                    reason: error_chain(&e),
                })?;
            Ok((status, body))
        };
        tokio::time::timeout(bound, exchange)
            .await
            .unwrap_or(Err(UpstreamError::Timeout { after: bound, during }))
    }

    /// `GET path` that must answer 2xx with JSON.
    pub async fn probe_json(&self, path: &str) -> Result<Value, UpstreamError> {
        let (status, body) = self.probe(path).await?;
        if !(200..300).contains(&status) {
            return Err(UpstreamError::Http {
                status,
                message: error_message(self.flavor, status, &body),
            });
        }
        serde_json::from_slice(&body).map_err(|e| UpstreamError::Malformed(format!("GET {path}: {e}")))
    }
}

fn send_error(error: &reqwest::Error) -> UpstreamError {
    let reason = error_chain(error);
    if error.is_connect() || error.is_builder() {
        UpstreamError::Unreachable { reason }
    } else {
        UpstreamError::ConnectionLost { reason }
    }
}
