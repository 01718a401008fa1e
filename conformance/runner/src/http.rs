//! Raw HTTP for the checks: reqwest directly (the canonical client hides framing), every
//! exchange bounded in time and size.

use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use reqwest::header::{self, HeaderMap};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use url::Url;

use aep_sdk::protocol::ErrorResponse;

/// The largest answer body read into memory (bigger ones are cut off and reported).
pub(crate) const MAX_BODY: usize = 8 * 1024 * 1024;

/// The HTTP side of a run: the base URL, the token, the time bounds.
#[derive(Clone)]
pub(crate) struct Http {
    pub(crate) client: reqwest::Client,
    pub(crate) base: Url,
    pub(crate) token: Option<String>,
    pub(crate) timeout: Duration,
}

/// One answer, read whole.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
    pub(crate) truncated: bool,
}

impl Http {
    pub(crate) fn new(base: Url, token: Option<String>, timeout: Duration) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            // No connection reuse: a server may close a connection after an error answer
            // (e.g. a 413 before the body was read), and a reused one then fails.
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
        Ok(Self {
            client,
            base,
            token,
            timeout,
        })
    }

    /// `path` (starting with `/`) under the base URL, with exactly one `/` between them.
    pub(crate) fn url(&self, path: &str) -> String {
        format!(
            "{}/{}",
            self.base.as_str().trim_end_matches('/'),
            path.trim_start_matches('/')
        )
    }

    /// The URL of a provider route: `/aep/model-providers/{id}{tail}`, id percent-encoded.
    pub(crate) fn provider_path(id: &str, tail: &str) -> String {
        let id: String = url::form_urlencoded::byte_serialize(id.as_bytes()).collect();
        format!("{}/{id}{tail}", aep_sdk::protocol::paths::MODEL_PROVIDERS)
    }

    pub(crate) fn request(&self, method: Method, url: &str) -> reqwest::RequestBuilder {
        let request = self.client.request(method, url);
        match &self.token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    pub(crate) async fn get(&self, path: &str) -> Result<Answer, String> {
        let url = self.url(path);
        self.send(self.request(Method::GET, &url), &url).await
    }

    pub(crate) async fn post_json(&self, path: &str, body: &Value) -> Result<Answer, String> {
        let bytes = serde_json::to_vec(body).map_err(|e| e.to_string())?;
        self.post_raw(path, "application/json", bytes).await
    }

    pub(crate) async fn post_raw(
        &self,
        path: &str,
        content_type: &str,
        body: Vec<u8>,
    ) -> Result<Answer, String> {
        let url = self.url(path);
        let request = self
            .request(Method::POST, &url)
            .header(header::CONTENT_TYPE, content_type)
            .body(body);
        self.send(request, &url).await
    }

    pub(crate) async fn send(&self, request: reqwest::RequestBuilder, url: &str) -> Result<Answer, String> {
        let exchange = async {
            let response = request.send().await.map_err(|e| describe_error(url, &e))?;
            read_answer(response, url).await
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(format!("{url}: no complete answer within {:?}", self.timeout)),
        }
    }
}

/// Reads a whole answer, at most [`MAX_BODY`] bytes.
pub(crate) async fn read_answer(response: reqwest::Response, url: &str) -> Result<Answer, String> {
    let status = response.status();
    let headers = response.headers().clone();
    let mut body = Vec::new();
    let mut truncated = false;
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| describe_error(url, &e))?;
        if body.len() + chunk.len() > MAX_BODY {
            truncated = true;
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Answer {
        status,
        headers,
        body: Bytes::from(body),
        truncated,
    })
}

/// A reqwest error with its causes, for a person.
pub(crate) fn describe_error(url: &str, error: &reqwest::Error) -> String {
    let what = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "request failed"
    };
    let mut text = format!("{url}: {what}: {error}");
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The media type of a `content-type` value, lowercase, without parameters.
pub(crate) fn essence(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// `application/json` or `application/*+json`.
pub(crate) fn is_json_type(essence: &str) -> bool {
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

impl Answer {
    pub(crate) fn essence(&self) -> String {
        essence(&self.headers)
    }

    /// A short description for messages: status, content type, start of the body.
    pub(crate) fn describe(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        let snippet: String = text.chars().take(160).collect();
        let snippet = snippet.replace(['\n', '\r'], " ");
        let content_type = self
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("none");
        let more = if text.chars().count() > 160 || self.truncated {
            "…"
        } else {
            ""
        };
        format!(
            "HTTP {} (content-type {content_type}): {snippet}{more}",
            self.status.as_u16()
        )
    }

    /// The body as JSON, requiring status 200 and a JSON content type.
    pub(crate) fn ok_json(&self) -> Result<Value, String> {
        if self.status != StatusCode::OK {
            return Err(format!("expected 200, got {}", self.describe()));
        }
        if !is_json_type(&self.essence()) {
            return Err(format!("expected a JSON content type, got {}", self.describe()));
        }
        if self.truncated {
            return Err(format!("the answer is larger than {MAX_BODY} bytes"));
        }
        serde_json::from_slice(&self.body)
            .map_err(|e| format!("the body is not JSON ({e}): {}", self.describe()))
    }

    /// Checks that this is an AEP error: a status accepted by `status_ok`, a JSON content
    /// type, and `{"error":{"code","message",...}}`; returns the code.
    pub(crate) fn aep_error(
        &self,
        status_ok: impl Fn(StatusCode) -> bool,
        expected: &str,
    ) -> Result<String, String> {
        if !status_ok(self.status) {
            return Err(format!("expected {expected}, got {}", self.describe()));
        }
        if !is_json_type(&self.essence()) {
            return Err(format!(
                "expected an AEP error JSON, got a non-JSON content type: {}",
                self.describe()
            ));
        }
        let document: ErrorResponse = serde_json::from_slice(&self.body).map_err(|e| {
            format!(
                "expected {{\"error\":{{\"code\",\"message\"}}}} ({e}), got {}",
                self.describe()
            )
        })?;
        if document.error.code.trim().is_empty() {
            return Err(format!("the error code is empty: {}", self.describe()));
        }
        Ok(document.error.code)
    }

    /// A 4xx AEP error JSON.
    pub(crate) fn client_error(&self) -> Result<String, String> {
        self.aep_error(|s| s.is_client_error(), "a 4xx status")
    }

    /// Status `status` with AEP error code `code`.
    pub(crate) fn exact_error(&self, status: u16, code: &str) -> Result<(), String> {
        let found = self.aep_error(|s| s.as_u16() == status, &format!("HTTP {status}"))?;
        if found != code {
            return Err(format!(
                "expected code '{code}', got '{found}': {}",
                self.describe()
            ));
        }
        Ok(())
    }
}
