//! The canonical AEP client: discovery with exact protocol negotiation, manifest
//! validation, typed calls for every route, and an SSE reader for streamed chat.
//!
//! ```no_run
//! # async fn run() -> Result<(), aep_sdk::client::ClientError> {
//! use aep_sdk::client::Client;
//! use aep_sdk::protocol::{ChatRequest, Message};
//! use futures::StreamExt;
//!
//! let client = Client::new("http://127.0.0.1:8710")?;
//! let manifest = client.discover().await?;
//! println!("{} {}", manifest.extension.name, manifest.extension.version);
//! let request = ChatRequest::new("echo", vec![Message::user("hi")]);
//! let mut updates = client.chat_stream("echo", &request).await?;
//! while let Some(update) = updates.next().await {
//!     print!("{}", update?.text_delta());
//! }
//! # Ok(()) }
//! ```

mod error;
mod lines;
mod sse;
mod token;
mod wire_order;

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::{Stream, StreamExt};
use http::header;
use serde::Serialize;
use serde::de::DeserializeOwned;
use url::Url;

pub use error::{ClientError, codes};
pub use lines::{LineError, LineReader, error_chain};
pub use sse::{MAX_EVENT_BYTES, SseDecoder};
pub use token::{Challenge, MAX_CHALLENGES, TokenSource};
pub use wire_order::WireOrder;

use crate::protocol::{
    ChatRequest, ChatResponse, ChatUpdate, ConfigurationCatalog, ErrorResponse, Health, Manifest,
    MigrationRequest, MigrationResponse, ModelDescriptor, ModelProviderDescriptor, ProtocolVersion, paths,
};
use crate::telemetry::ChatSpan;
use crate::validate;
use tracing::Instrument;

/// A stream of updates; ends after the terminal update. A terminal error update comes
/// out as an `Err`. Dropping it closes the connection, which cancels the work.
pub type UpdateStream = Pin<Box<dyn Stream<Item = Result<ChatUpdate, ClientError>> + Send>>;

/// A client for one extension. Its `Debug` never shows the bearer token.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    base: Url,
    revision: ProtocolVersion,
    token: Option<String>,
    source: Option<Arc<dyn TokenSource>>,
}

/// Options of a [`Client`]. Its `Debug` never shows the bearer token.
#[derive(Clone)]
pub struct ClientBuilder {
    base: String,
    revision: ProtocolVersion,
    connect_timeout: Duration,
    read_timeout: Duration,
    token: Option<String>,
    source: Option<Arc<dyn TokenSource>>,
}

fn redacted(token: &Option<String>, source: &Option<Arc<dyn TokenSource>>) -> &'static str {
    match (token, source) {
        (_, Some(_)) => "<token source>",
        (Some(_), None) => "<redacted>",
        (None, None) => "none",
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base.as_str())
            .field("revision", &self.revision)
            .field("token", &redacted(&self.token, &self.source))
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base", &self.base)
            .field("revision", &self.revision)
            .field("token", &redacted(&self.token, &self.source))
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// The revision to negotiate (default: [`ProtocolVersion::LATEST`]).
    pub fn revision(mut self, revision: ProtocolVersion) -> Self {
        self.revision = revision;
        self
    }

    /// Bound on establishing a connection (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Bound on silence while reading an answer (default 120 s; streams send keep-alives
    /// every 15 s).
    pub fn read_timeout(mut self, timeout: Duration) -> Self {
        self.read_timeout = timeout;
        self
    }

    /// Sends `Authorization: Bearer <token>` on every call.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Takes each call's bearer token from `source` (it wins over [`Self::bearer_token`])
    /// and, when a call is refused with 401 (or 403 and a challenge), lets the source
    /// sign in and sends the call again: see [`TokenSource`].
    pub fn token_source(mut self, source: Arc<dyn TokenSource>) -> Self {
        self.source = Some(source);
        self
    }

    /// Builds the client; the base URL must be absolute HTTP(S) without credentials.
    pub fn build(self) -> Result<Client, ClientError> {
        let base = validate::parse_base_url(&self.base)
            .map_err(|e| ClientError::new(codes::ENDPOINT_INVALID, format!("base URL: {e}")))?;
        let http = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .read_timeout(self.read_timeout)
            .build()
            .map_err(|e| ClientError::new(codes::ENDPOINT_INVALID, format!("HTTP client: {e}")))?;
        Ok(Client {
            http,
            base,
            revision: self.revision,
            token: self.token,
            source: self.source,
        })
    }
}

impl Client {
    /// A client for the extension at `base_url` with default options.
    pub fn new(base_url: &str) -> Result<Self, ClientError> {
        Self::builder(base_url).build()
    }

    /// Options for a client of the extension at `base_url`.
    pub fn builder(base_url: &str) -> ClientBuilder {
        ClientBuilder {
            base: base_url.to_owned(),
            revision: ProtocolVersion::LATEST,
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(120),
            token: None,
            source: None,
        }
    }

    /// The extension's base URL.
    pub fn base_url(&self) -> &Url {
        &self.base
    }

    /// The revision this client negotiates.
    pub fn revision(&self) -> ProtocolVersion {
        self.revision
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.base.as_str().trim_end_matches('/'), path)
    }

    fn provider_url(&self, id: &str, tail: &str) -> String {
        let id: String = url::form_urlencoded::byte_serialize(id.as_bytes()).collect();
        self.url(&format!("{}/{id}{tail}", paths::MODEL_PROVIDERS))
    }

    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        url: &str,
    ) -> Result<reqwest::Response, ClientError> {
        let mut request = request;
        let mut challenges = 0;
        loop {
            // A copy for a retry after a sign-in (JSON bodies can be copied).
            let retry = match &self.source {
                Some(_) if challenges < MAX_CHALLENGES => request.try_clone(),
                _ => None,
            };
            let token = match &self.source {
                Some(source) => source.token().await,
                None => self.token.clone(),
            };
            let response = self.send_once(request, token.as_deref(), url).await?;
            let status = response.status();
            if status.is_success() {
                return Ok(response);
            }
            let challenge = response
                .headers()
                .get(header::WWW_AUTHENTICATE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let refused = status == http::StatusCode::UNAUTHORIZED
                || (status == http::StatusCode::FORBIDDEN && challenge.is_some());
            let (Some(source), Some(next), true) = (&self.source, retry, refused) else {
                return Err(failure(response, url).await);
            };
            let seen = Challenge {
                status,
                www_authenticate: challenge.as_deref(),
                sent_token: token.as_deref(),
            };
            match source.challenged(seen).await {
                Ok(()) => {
                    challenges += 1;
                    request = next;
                }
                Err(reason) => {
                    let mut error = failure(response, url).await;
                    error.code = codes::AUTHORIZATION_FAILED;
                    error.message = format!("{}; sign-in: {reason}", error.message);
                    return Err(error);
                }
            }
        }
    }

    async fn send_once(
        &self,
        request: reqwest::RequestBuilder,
        token: Option<&str>,
        url: &str,
    ) -> Result<reqwest::Response, ClientError> {
        let mut request = match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        };
        if crate::telemetry::enabled() {
            // The server continues this trace (the current span: the call's own).
            let mut headers = http::HeaderMap::new();
            crate::telemetry::inject(&mut headers);
            request = request.headers(headers);
        }
        request.send().await.map_err(|e| unreachable(url, &e))
    }

    async fn get<T: DeserializeOwned>(&self, url: String) -> Result<T, ClientError> {
        let response = self.send(self.http.get(&url), &url).await?;
        read_json(response, &url).await
    }

    async fn post<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        url: String,
        body: &B,
    ) -> Result<T, ClientError> {
        let response = self.send(self.http.post(&url).json(body), &url).await?;
        read_json(response, &url).await
    }

    /// Fetches the manifest of this client's revision, rejects any other
    /// `protocolVersion` with `protocol_incompatible`, and validates it.
    pub async fn discover(&self) -> Result<Manifest, ClientError> {
        let url = self.url(self.revision.discovery_path());
        let document: serde_json::Value = self.get(url.clone()).await?;
        let version = document
            .get("protocolVersion")
            .and_then(|v| v.as_str())
            .unwrap_or("<missing>");
        if version != self.revision.as_str() {
            return Err(ClientError::new(
                codes::PROTOCOL_INCOMPATIBLE,
                format!(
                    "{url} speaks protocol '{version}', this client speaks exactly '{}'",
                    self.revision
                ),
            ));
        }
        let mut problems = validate::validate_manifest_json(&document);
        let manifest: Option<Manifest> = if problems.is_empty() {
            match serde_json::from_value(document) {
                Ok(manifest) => Some(manifest),
                Err(e) => {
                    return Err(ClientError::new(
                        codes::INVALID_RESPONSE,
                        format!("{url}: manifest: {e}"),
                    ));
                }
            }
        } else {
            None
        };
        if let Some(manifest) = &manifest {
            problems = validate::validate_manifest(manifest);
        }
        match manifest {
            Some(manifest) if problems.is_empty() => Ok(manifest),
            _ => Err(ClientError::new(
                codes::DESCRIPTOR_INVALID,
                format!(
                    "{url}: invalid manifest: {}",
                    problems
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            )),
        }
    }

    /// `GET /aep/health`.
    pub async fn health(&self) -> Result<Health, ClientError> {
        self.get(self.url(paths::HEALTH)).await
    }

    /// `GET /aep/model-providers`.
    pub async fn providers(&self) -> Result<Vec<ModelProviderDescriptor>, ClientError> {
        self.get(self.url(paths::MODEL_PROVIDERS)).await
    }

    /// `GET /aep/model-providers/{id}/health`.
    pub async fn provider_health(&self, provider: &str) -> Result<Health, ClientError> {
        self.get(self.provider_url(provider, "/health")).await
    }

    /// `GET /aep/model-providers/{id}/models`.
    pub async fn models(&self, provider: &str) -> Result<Vec<ModelDescriptor>, ClientError> {
        self.get(self.provider_url(provider, "/models")).await
    }

    /// `POST /aep/model-providers/{id}/chat`.
    pub async fn chat(&self, provider: &str, request: &ChatRequest) -> Result<ChatResponse, ClientError> {
        let url = self.provider_url(provider, "/chat");
        let span = self.chat_span(provider, request);
        let answer: Result<ChatResponse, ClientError> = self.post(url, request).instrument(span.span()).await;
        match &answer {
            Ok(response) => span.response(response),
            Err(error) => span.error(error.code),
        }
        answer
    }

    /// The client span of a chat call (empty when spans are not exported).
    fn chat_span(&self, provider: &str, request: &ChatRequest) -> ChatSpan {
        let span = ChatSpan::for_request("client", provider, request);
        span.http_target("POST", &self.base);
        span
    }

    /// `POST /aep/model-providers/{id}/chat/stream`: the updates up to and including the
    /// terminal one.
    pub async fn chat_stream(
        &self,
        provider: &str,
        request: &ChatRequest,
    ) -> Result<UpdateStream, ClientError> {
        let url = self.provider_url(provider, "/chat/stream");
        let span = self.chat_span(provider, request);
        let response = match self
            .send(self.http.post(&url).json(request), &url)
            .instrument(span.span())
            .await
        {
            Ok(response) => response,
            Err(error) => {
                span.error(error.code);
                return Err(error);
            }
        };
        span.http_status(response.status().as_u16());
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !content_type.starts_with("text/event-stream") {
            return Err(ClientError::new(
                codes::INVALID_RESPONSE,
                format!("{url}: expected text/event-stream, got '{content_type}'"),
            ));
        }
        Ok(read_updates(response, url, span))
    }

    /// `GET /aep/configuration`.
    pub async fn configuration(&self) -> Result<ConfigurationCatalog, ClientError> {
        self.get(self.url(paths::CONFIGURATION)).await
    }

    /// `POST /aep/configuration/migrate`.
    pub async fn migrate(&self, request: &MigrationRequest) -> Result<MigrationResponse, ClientError> {
        self.post(self.url(paths::CONFIGURATION_MIGRATE), request).await
    }
}

fn unreachable(url: &str, error: &reqwest::Error) -> ClientError {
    let what = if error.is_timeout() {
        "timed out"
    } else {
        "could not connect"
    };
    ClientError::new(
        codes::EXTENSION_UNREACHABLE,
        format!("{url}: {what}: {}", error_chain(error)),
    )
}

async fn failure(response: reqwest::Response, url: &str) -> ClientError {
    let status = response.status();
    let body = response.bytes().await.unwrap_or_default();
    let remote = serde_json::from_slice::<ErrorResponse>(&body)
        .ok()
        .map(|r| Box::new(r.error));
    let mut error = match &remote {
        Some(remote) => ClientError::new(
            codes::EXTENSION_REQUEST_FAILED,
            format!("{url}: {}", remote.message),
        ),
        None => ClientError::new(
            codes::INVALID_RESPONSE,
            format!("{url}: HTTP {} without an AEP error body", status.as_u16()),
        ),
    };
    error.status = Some(status);
    error.remote = remote;
    error
}

async fn read_json<T: DeserializeOwned>(response: reqwest::Response, url: &str) -> Result<T, ClientError> {
    let status = response.status();
    let bytes = response.bytes().await.map_err(|e| unreachable(url, &e))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        let mut error = ClientError::new(codes::INVALID_RESPONSE, format!("{url}: unexpected answer: {e}"));
        error.status = Some(status);
        error
    })
}

struct Reader {
    body: Pin<Box<dyn Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    decoder: SseDecoder,
    pending: std::collections::VecDeque<String>,
    url: String,
    done: bool,
    /// The call's span, ended with the stream.
    span: ChatSpan,
}

fn read_updates(response: reqwest::Response, url: String, span: ChatSpan) -> UpdateStream {
    let reader = Reader {
        body: Box::pin(response.bytes_stream()),
        decoder: SseDecoder::default(),
        pending: Default::default(),
        url,
        done: false,
        span,
    };
    Box::pin(futures::stream::unfold(reader, |mut reader| async move {
        if reader.done {
            return None;
        }
        loop {
            if let Some(data) = reader.pending.pop_front() {
                let item = reader.update(&data);
                return Some((item, reader));
            }
            match reader.body.next().await {
                Some(Ok(bytes)) => reader.pending.extend(reader.decoder.push(&bytes)),
                Some(Err(e)) => {
                    reader.done = true;
                    let error = unreachable(&reader.url, &e);
                    reader.span.error(error.code);
                    return Some((Err(error), reader));
                }
                None => {
                    reader.done = true;
                    let error = ClientError::new(
                        codes::INVALID_RESPONSE,
                        format!("{}: the stream ended before a terminal update", reader.url),
                    );
                    reader.span.error(error.code);
                    return Some((Err(error), reader));
                }
            }
        }
    }))
}

impl Reader {
    fn update(&mut self, data: &str) -> Result<ChatUpdate, ClientError> {
        let update: ChatUpdate = match serde_json::from_str(data) {
            Ok(update) => update,
            Err(e) => {
                self.done = true;
                return Err(ClientError::new(
                    codes::INVALID_RESPONSE,
                    format!("{}: bad update: {e}", self.url),
                ));
            }
        };
        self.span.update(&update);
        if !update.is_terminal() {
            return Ok(update);
        }
        self.done = true;
        // The answer is complete: the call's span ends here.
        self.span = ChatSpan::default();
        match update.error {
            Some(remote) => {
                let mut error = ClientError::new(
                    codes::EXTENSION_REQUEST_FAILED,
                    format!("{}: the stream failed: {}", self.url, remote.message),
                );
                error.remote = Some(Box::new(remote));
                Err(error)
            }
            None => Ok(update),
        }
    }
}
