//! Mounting rmcp servers (Streamable HTTP) inside the extension's router, with the MCP
//! specification's DNS-rebinding protection: a `Host` outside the allowed list is
//! answered 403 here, by rmcp; the `Origin` rule and CORS apply to every route and live
//! in [`super::access`]. A session the client deletes stops its running tool calls at
//! once (see `tool::SessionEnd`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
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
use crate::tool::McpTiming;
use crate::tool::{ResponseStream, SessionEnd, ToolTimeout};

type Mount = dyn Fn(&McpAccess, BodyLimits, CancellationToken, Option<Timing>, Option<Duration>) -> Router
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
        let route = path.clone();
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
            // One service for the endpoint, shared: rmcp's own `Service::call` clones the
            // service (its configuration, allowed hosts included) per request, and each
            // middleware layer would clone it once more.
            let endpoint = Arc::new(Endpoint {
                service,
                sessions,
                limits,
                timing: timing.map(|Timing { metrics, tools }| mcp_timing(metrics, &tools)),
                tool_timeout: tool_timeout.map(ToolTimeout),
            });
            Router::new().route_service(
                &route,
                tower::service_fn(move |request: Request| {
                    let endpoint = endpoint.clone();
                    // Boxed as it is made: the future is not copied again by each wrapper
                    // axum puts around a route.
                    let answer: futures::future::BoxFuture<'static, _> =
                        Box::pin(
                            async move { Ok::<_, std::convert::Infallible>(endpoint.handle(request).await) },
                        );
                    answer
                }),
            )
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

    pub(crate) fn router(
        &self,
        access: &McpAccess,
        limits: BodyLimits,
        shutdown: CancellationToken,
        timing: Option<Timing>,
        tool_timeout: Option<Duration>,
    ) -> Router {
        (self.mount)(access, limits, shutdown, timing, tool_timeout)
    }
}

/// One `SessionEnd` token per live MCP session of one mount.
struct Sessions {
    manager: Arc<LocalSessionManager>,
    ends: Mutex<Ends>,
}

#[derive(Default)]
struct Ends {
    /// foldhash: session ids are looked up on every MCP request.
    tokens: HashMap<String, CancellationToken, foldhash::fast::RandomState>,
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

    /// The token of session `id`, made on first sight.
    fn token(&self, id: &str) -> CancellationToken {
        let mut ends = self.ends();
        if let Some(token) = ends.tokens.get(id) {
            return token.clone();
        }
        let token = CancellationToken::new();
        ends.tokens.insert(id.to_owned(), token.clone());
        token
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
        let ids: Vec<String> = {
            let ends = self.ends();
            if ends.tokens.len() <= 2 * ends.after_sweep + 64 {
                return;
            }
            ends.tokens.keys().cloned().collect()
        };
        for id in ids {
            let id: SessionId = id.into();
            if !self.manager.has_session(&id).await.unwrap_or(false) {
                self.end(&id);
            }
        }
        let mut ends = self.ends();
        ends.after_sweep = ends.tokens.len();
    }
}

/// One mounted endpoint: rmcp's service and what the mount does around it: the body read
/// first, the session's `SessionEnd` and `ResponseStream`, the timing recorder, the
/// DELETE status.
struct Endpoint<S, M> {
    service: StreamableHttpService<S, M>,
    sessions: Sessions,
    limits: BodyLimits,
    timing: Option<McpTiming>,
    tool_timeout: Option<ToolTimeout>,
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
    /// - Each request of a session carries its session's `SessionEnd` (rmcp passes the
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
        let rmcp: futures::future::BoxFuture<'_, _> = Box::pin(self.service.handle(request));
        let mut response = rmcp.await.map(Body::new);
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
            Some(stream) => watched(response, stream),
            None => response,
        }
    }

    /// Puts in the request's extensions what the handler reads there: the session's
    /// `SessionEnd`, a POST's `ResponseStream` (returned, to be watched) and the timing
    /// recorder.
    fn tag(&self, request: &mut Request, session: Option<&str>, post: bool) -> Option<ResponseStream> {
        let mut stream = None;
        if let Some(id) = session {
            request
                .extensions_mut()
                .insert(SessionEnd(self.sessions.token(id)));
            if post {
                let opened = ResponseStream::new(self.sessions.manager.clone(), id);
                request.extensions_mut().insert(opened.clone());
                stream = Some(opened);
            }
        }
        if let Some(timing) = &self.timing {
            request.extensions_mut().insert(timing.clone());
        }
        if let Some(timeout) = self.tool_timeout {
            request.extensions_mut().insert(timeout);
        }
        stream
    }
}

/// An SSE answer's stream number is in its first event's id: read on the way out, frame
/// by frame; data is shown to the stream until it knows.
fn watched(response: Response, stream: ResponseStream) -> Response {
    let streamed = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    if !streamed {
        return response;
    }
    response.map(|body| {
        Body::new(http_body_util::BodyExt::map_frame(body, move |frame| {
            if let Some(data) = frame.data_ref()
                && !stream.is_known()
            {
                stream.learn(data);
            }
            frame
        }))
    })
}
