//! Mounting rmcp servers (Streamable HTTP) inside the extension's router, with the MCP
//! specification's DNS-rebinding protection: a `Host` outside the allowed list is
//! answered 403 here, by rmcp; the `Origin` rule and CORS apply to every route and live
//! in [`super::access`]. A session the client deletes stops its running tool calls at
//! once (see `tool::SessionEnd`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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
use crate::tool::{ResponseStream, SessionEnd};

type Mount = dyn Fn(&McpAccess, BodyLimits, CancellationToken, Option<Timing>) -> Router + Send + Sync;

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
    pub(crate) fn new<H>(id: String, path: String, handler: H) -> Self
    where
        H: rmcp::ServerHandler + Clone + Send + Sync + 'static,
    {
        let route = path.clone();
        let mount = move |access: &McpAccess,
                          limits: BodyLimits,
                          shutdown: CancellationToken,
                          timing: Option<Timing>| {
            // legacy_session_mode stays on (the default): session clients (2025-11-25) and
            // stateless clients (2026-07-28) are served from the same endpoint.
            let config = StreamableHttpServerConfig::default()
                .with_cancellation_token(shutdown)
                .with_allowed_hosts(access.allowed_hosts.clone())
                // The router's origin guard has already refused foreign origins.
                .disable_allowed_origins();
            let handler = handler.clone();
            let manager = Arc::new(LocalSessionManager::default());
            let sessions = Sessions::new(manager.clone());
            let service = StreamableHttpService::new(move || Ok(handler.clone()), manager, config);
            // One service for the endpoint, shared: rmcp's own `Service::call` clones the
            // service (its configuration, allowed hosts included) per request, and each
            // middleware layer would clone it once more.
            let endpoint = Arc::new(Endpoint {
                service,
                sessions,
                limits,
                timing: timing.map(|Timing { metrics, tools }| mcp_timing(metrics, &tools)),
            });
            Router::new().route_service(
                &route,
                tower::service_fn(move |request: Request| {
                    let endpoint = endpoint.clone();
                    // Boxed as it is made: the future (rmcp's is large) is not copied again
                    // by each wrapper axum puts around a route.
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
    ) -> Router {
        (self.mount)(access, limits, shutdown, timing)
    }
}

/// One `SessionEnd` token per live MCP session of one mount.
struct Sessions {
    manager: Arc<LocalSessionManager>,
    ends: Mutex<Ends>,
}

#[derive(Default)]
struct Ends {
    tokens: HashMap<String, CancellationToken>,
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

/// One mounted endpoint: rmcp's service and what the mount does around it, in order:
/// the DELETE status, the session's `SessionEnd` and `ResponseStream`, the body read
/// first, the timing recorder.
struct Endpoint<S, M> {
    service: StreamableHttpService<S, M>,
    sessions: Sessions,
    limits: BodyLimits,
    timing: Option<McpTiming>,
}

impl<S, M> Endpoint<S, M>
where
    S: rmcp::ServerHandler + Send + 'static,
    M: SessionManager,
{
    /// rmcp answers a session DELETE with 202; MCP clients expect 200 or 204 (the official
    /// Python SDK logs "Session termination failed: 202" otherwise).
    async fn handle(&self, request: Request) -> Response {
        let delete = request.method() == http::Method::DELETE;
        let mut response = self.session_ends(request).await;
        if delete && response.status() == http::StatusCode::ACCEPTED {
            *response.status_mut() = http::StatusCode::OK;
        }
        response
    }

    /// Gives each request of a session its session's `SessionEnd` (rmcp passes the
    /// request's extensions on to the handler), and trips it when the client deletes the
    /// session or rmcp no longer knows it (404).
    async fn session_ends(&self, mut request: Request) -> Response {
        let sessions = &self.sessions;
        // A header value is shared, not copied, when cloned.
        let header = request.headers().get("mcp-session-id").cloned();
        let Some(id) = header.as_ref().and_then(|v| v.to_str().ok()) else {
            let response = self.read_body_first(request).await;
            // An initialize just opened a session: a chance to forget expired ones.
            if response.headers().contains_key("mcp-session-id") {
                sessions.sweep().await;
            }
            return response;
        };
        let delete = request.method() == http::Method::DELETE;
        let post = request.method() == http::Method::POST;
        request.extensions_mut().insert(SessionEnd(sessions.token(id)));
        let stream = post.then(|| ResponseStream::new(sessions.manager.clone(), id));
        if let Some(stream) = &stream {
            request.extensions_mut().insert(stream.clone());
        }
        let response = self.read_body_first(request).await;
        if (delete && response.status().is_success()) || response.status() == http::StatusCode::NOT_FOUND {
            sessions.end(id);
        }
        let streamed = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        match stream {
            // The stream's number is in its first event's id: read it on the way out.
            Some(stream) if streamed => response.map(|body| {
                // Passed through frame by frame; data is shown to the stream until it knows.
                Body::new(http_body_util::BodyExt::map_frame(body, move |frame| {
                    if let Some(data) = frame.data_ref()
                        && !stream.is_known()
                    {
                        stream.learn(data);
                    }
                    frame
                }))
            }),
            _ => response,
        }
    }

    /// Reads a POST body before rmcp does, under the same limit and body-read timeout as
    /// the AEP routes: rmcp answers 500 when reading fails (a malformed chunked body, a
    /// client cut off by the body-read timeout); here those are 4xx AEP errors (400, 408,
    /// 413).
    async fn read_body_first(&self, request: Request) -> Response {
        if request.method() != http::Method::POST {
            return self.call(request).await;
        }
        let (parts, body) = request.into_parts();
        match super::body::read(body, super::body::content_length(&parts.headers), self.limits).await {
            Ok(bytes) => self.call(Request::from_parts(parts, Body::from(bytes))).await,
            Err(error) => error.into_response(),
        }
    }

    /// rmcp's handler, with the timing recorder in the request's extensions (rmcp hands
    /// the request's head, extensions included, to the handler).
    async fn call(&self, mut request: Request) -> Response {
        if let Some(timing) = &self.timing {
            request.extensions_mut().insert(timing.clone());
        }
        self.service.handle(request).await.map(Body::new)
    }
}
