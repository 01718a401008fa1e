//! Mounting rmcp servers (Streamable HTTP) inside the extension's router, with the MCP
//! specification's DNS-rebinding protection: a `Host` outside the allowed list is
//! answered 403 here, by rmcp; the `Origin` rule and CORS apply to every route and live
//! in [`super::access`]. A session the client deletes stops its running tool calls at
//! once (see `tool::McpRequest`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, HttpBody};
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::future::BoxFuture;
use http_body_util::BodyExt;
use rmcp::transport::common::server_side_http::SessionId;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio_util::sync::CancellationToken;

use super::access::McpAccess;
use super::body::BodyLimits;
use super::metrics::{Metrics, mcp_timing};
use crate::protocol::McpServerDescriptor;
use crate::tool::{McpRequest, ResponseStream};

type Mount = dyn Fn(&McpAccess, BodyLimits, CancellationToken, Option<Timing>, Option<Duration>) -> McpService
    + Send
    + Sync;

/// What a mount needs to time its requests: the metrics and the tool names the manifest
/// declares for it.
pub(crate) struct Timing {
    pub(crate) metrics: Arc<Metrics>,
    pub(crate) tools: Vec<String>,
}

#[derive(Clone)]
pub(crate) struct McpMount {
    pub(crate) id: String,
    pub(crate) path: String,
    mount: Arc<Mount>,
}

impl McpMount {
    /// A mount whose sessions each get a handler from `sessions` (called once per MCP
    /// session, and per request for stateless clients).
    pub(crate) fn new<H, F>(id: String, path: String, sessions: F) -> Self
    where
        H: rmcp::ServerHandler + Send + 'static,
        F: Fn() -> H + Send + Sync + 'static,
    {
        let factory = Arc::new(sessions);
        let mount = move |access: &McpAccess,
                          limits: BodyLimits,
                          shutdown: CancellationToken,
                          timing: Option<Timing>,
                          tool_timeout: Option<Duration>| {
            // legacy_session_mode stays on (the default): session clients (2025-11-25) and
            // stateless clients (2026-07-28) are served from the same endpoint.
            let config = StreamableHttpServerConfig::default()
                .with_cancellation_token(shutdown)
                .with_allowed_hosts(access.allowed_hosts.clone())
                // The router's origin guard has already refused foreign origins.
                .disable_allowed_origins();
            let factory = factory.clone();
            let manager = Arc::new(LocalSessionManager::default());
            let sessions = Sessions::new(manager.clone());
            let service = StreamableHttpService::new(move || Ok(factory()), manager, config);
            // One endpoint, shared: rmcp's own `Service::call` clones the service (its
            // configuration, allowed hosts included) per request.
            McpService(Arc::new(Endpoint {
                service,
                sessions,
                limits,
                defaults: (timing.is_some() || tool_timeout.is_some()).then(|| McpRequest {
                    timing: timing.map(|Timing { metrics, tools }| mcp_timing(metrics, &tools)),
                    tool_timeout,
                    ..McpRequest::default()
                }),
            }))
        };
        Self {
            id,
            path,
            mount: Arc::new(mount),
        }
    }

    pub(crate) fn descriptor(&self) -> McpServerDescriptor {
        McpServerDescriptor {
            id: self.id.clone(),
            endpoint: self.path.clone(),
        }
    }

    /// The endpoint's service, for the route at [`McpMount::path`].
    pub(crate) fn service(
        &self,
        access: &McpAccess,
        limits: BodyLimits,
        shutdown: CancellationToken,
        timing: Option<Timing>,
        tool_timeout: Option<Duration>,
    ) -> McpService {
        (self.mount)(access, limits, shutdown, timing, tool_timeout)
    }
}

/// A mounted endpoint as a `tower` service: cloned per request, as axum's routes are,
/// for the price of an `Arc`.
#[derive(Clone)]
pub(crate) struct McpService(Arc<dyn Serve>);

impl tower::Service<Request> for McpService {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        self.0.clone().serve(request)
    }
}

/// An [`Endpoint`] with its handler type erased.
trait Serve: Send + Sync {
    fn serve(self: Arc<Self>, request: Request) -> BoxFuture<'static, Result<Response, Infallible>>;
}

impl<S, M> Serve for Endpoint<S, M>
where
    S: rmcp::ServerHandler + Send + 'static,
    M: SessionManager,
{
    fn serve(self: Arc<Self>, request: Request) -> BoxFuture<'static, Result<Response, Infallible>> {
        // Boxed as it is made: the future is not copied again by the wrappers around it.
        Box::pin(async move { Ok(self.handle(request).await) })
    }
}

/// One session-end token per live MCP session of one mount.
struct Sessions {
    manager: Arc<LocalSessionManager>,
    ends: Mutex<Ends>,
}

#[derive(Default)]
struct Ends {
    /// foldhash: session ids are looked up on every MCP request. The key is shared with
    /// each request's `ResponseStream`.
    tokens: HashMap<SessionId, CancellationToken, foldhash::fast::RandomState>,
    /// How many were left after the last sweep of sessions that expired unseen.
    after_sweep: usize,
}

impl Sessions {
    fn new(manager: Arc<LocalSessionManager>) -> Self {
        Self {
            manager,
            ends: Mutex::new(Ends::default()),
        }
    }

    fn ends(&self) -> std::sync::MutexGuard<'_, Ends> {
        self.ends.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The id and token of session `id`, made on first sight.
    fn token(&self, id: &str) -> (SessionId, CancellationToken) {
        let mut ends = self.ends();
        if let Some((id, token)) = ends.tokens.get_key_value(id) {
            return (id.clone(), token.clone());
        }
        let (id, token): (SessionId, _) = (id.into(), CancellationToken::new());
        ends.tokens.insert(id.clone(), token.clone());
        (id, token)
    }

    /// Session `id` ended: its calls stop.
    fn end(&self, id: &str) {
        if let Some(token) = self.ends().tokens.remove(id) {
            token.cancel();
        }
    }

    /// Forgets sessions rmcp no longer has (expired without a DELETE), once the table
    /// has doubled since the last sweep: amortized constant work per request.
    async fn sweep(&self) {
        let ids: Vec<SessionId> = {
            let ends = self.ends();
            if ends.tokens.len() <= 2 * ends.after_sweep + 64 {
                return;
            }
            ends.tokens.keys().cloned().collect()
        };
        for id in ids {
            if !self.manager.has_session(&id).await.unwrap_or(false) {
                self.end(&id);
            }
        }
        let mut ends = self.ends();
        ends.after_sweep = ends.tokens.len();
    }
}

/// One mounted endpoint: rmcp's service and what the mount does around it: the body read
/// first, the request's `McpRequest` (session end, answer stream, timing), the
/// DELETE status.
struct Endpoint<S, M> {
    service: StreamableHttpService<S, M>,
    sessions: Sessions,
    limits: BodyLimits,
    /// What every request is told, when there is anything: the timing recorder and the
    /// tool timeout.
    defaults: Option<McpRequest>,
}

impl<S, M> Endpoint<S, M>
where
    S: rmcp::ServerHandler + Send + 'static,
    M: SessionManager,
{
    /// One request, in one flat future: every request of every MCP client goes through
    /// here, and each nested async fn would add a copy of its state (see `rmcp` below).
    ///
    /// - A POST body is read first, under the same limit and body-read timeout as the AEP
    ///   routes: rmcp answers 500 when reading fails (a malformed chunked body, a client
    ///   cut off by the timeout); here those are 4xx AEP errors (400, 408, 413).
    /// - Each request of a session carries its session's end token (rmcp passes the
    ///   request's extensions on to the handler), tripped when the client deletes the
    ///   session or rmcp no longer knows it (404); a POST also carries its
    ///   `ResponseStream`, and the timing recorder rides along the same way.
    /// - rmcp answers a session DELETE with 202; MCP clients expect 200 or 204 (the
    ///   official Python SDK logs "Session termination failed: 202" otherwise).
    async fn handle(&self, mut request: Request) -> Response {
        let delete = request.method() == http::Method::DELETE;
        let post = request.method() == http::Method::POST;
        // A header value is shared, not copied, when cloned.
        let header = request.headers().get("mcp-session-id").cloned();
        let session = header.as_ref().and_then(|v| v.to_str().ok());
        let stream = self.tag(&mut request, session, post);
        let request = if post {
            let (parts, body) = request.into_parts();
            let limit = super::body::content_length(&parts.headers);
            let bytes = match super::body::read(body, limit, self.limits).await {
                Ok(bytes) => bytes,
                Err(error) => return error.into_response(),
            };
            // An OAuth caller's scopes, once the body says what is asked for: refused
            // here, before rmcp (and the tool) sees the request.
            if let Some(check) = parts.extensions.get::<super::auth::McpScopeCheck>()
                && let Some(refused) = check.refusal(parts.uri.path(), &bytes)
            {
                return refused;
            }
            Request::from_parts(parts, Body::from(bytes))
        } else {
            request
        };
        // Boxed where it is made: rmcp's future is large (6.6 KiB here); held inline it
        // made this future as large, copied whole when the route boxed it (~10k
        // instructions of memcpy per MCP request, by callgrind).
        let rmcp: BoxFuture<'_, _> = Box::pin(self.service.handle(request));
        let mut response = rmcp.await;
        let status = response.status();
        match session {
            // An initialize just opened a session: a chance to forget expired ones.
            None if response.headers().contains_key("mcp-session-id") => {
                Box::pin(self.sessions.sweep()).await;
            }
            Some(id) if (delete && status.is_success()) || status == http::StatusCode::NOT_FOUND => {
                self.sessions.end(id);
            }
            _ => {}
        }
        if delete && status == http::StatusCode::ACCEPTED {
            *response.status_mut() = http::StatusCode::OK;
        }
        match stream {
            Some(stream) if streamed(&response) => response.map(|body| Body::new(watched(body, stream))),
            _ => response.map(Body::new),
        }
    }

    /// Puts in the request's extensions what the handler reads there (an [`McpRequest`]):
    /// the session's end token, a POST's `ResponseStream` (returned, to be watched), the
    /// timing recorder and the tool timeout.
    fn tag(&self, request: &mut Request, session: Option<&str>, post: bool) -> Option<ResponseStream> {
        let Some(id) = session else {
            // A stateless request is told the defaults alone, if there are any.
            if let Some(defaults) = &self.defaults {
                request.extensions_mut().insert(defaults.clone());
            }
            return None;
        };
        let mut mcp = self.defaults.clone().unwrap_or_default();
        let (id, end) = self.sessions.token(id);
        mcp.session_end = Some(end);
        if post {
            mcp.stream = Some(ResponseStream::new(self.sessions.manager.clone(), id));
        }
        let stream = mcp.stream.clone();
        request.extensions_mut().insert(mcp);
        stream
    }
}

/// An SSE answer on its way out: its stream number is in its first event's id, read
/// frame by frame; data is shown to the stream until it knows. Mapped on rmcp's body,
/// so that the answer is boxed once.
fn watched<B: HttpBody<Data = Bytes>>(
    body: B,
    stream: ResponseStream,
) -> impl HttpBody<Data = Bytes, Error = B::Error> {
    body.map_frame(move |frame| {
        if let Some(data) = frame.data_ref()
            && !stream.is_known()
        {
            stream.learn(data);
        }
        frame
    })
}

fn streamed<B>(response: &http::Response<B>) -> bool {
    response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
}
