//! Mounting rmcp servers (Streamable HTTP) inside the extension's router, with the MCP
//! specification's DNS-rebinding protection: a `Host` outside the allowed list is
//! answered 403 here, by rmcp; the `Origin` rule and CORS apply to every route and live
//! in [`super::access`].

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio_util::sync::CancellationToken;

use super::access::McpAccess;
use super::body::BodyLimits;
use crate::protocol::McpServerDescriptor;

type Mount = dyn Fn(&McpAccess, BodyLimits, CancellationToken) -> Router + Send + Sync;

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
        let mount = move |access: &McpAccess, limits: BodyLimits, shutdown: CancellationToken| {
            // legacy_session_mode stays on (the default): session clients (2025-11-25) and
            // stateless clients (2026-07-28) are served from the same endpoint.
            let config = StreamableHttpServerConfig::default()
                .with_cancellation_token(shutdown)
                .with_allowed_hosts(access.allowed_hosts.clone())
                // The router's origin guard has already refused foreign origins.
                .disable_allowed_origins();
            let handler = handler.clone();
            let service = StreamableHttpService::new(
                move || Ok(handler.clone()),
                Arc::new(LocalSessionManager::default()),
                config,
            );
            Router::new()
                .route_service(&route, service)
                .layer(axum::middleware::from_fn_with_state(limits, read_body_first))
                .layer(axum::middleware::from_fn(session_deleted))
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
    ) -> Router {
        (self.mount)(access, limits, shutdown)
    }
}

/// Reads a POST body before rmcp does, under the same limit and body-read timeout as the
/// AEP routes: rmcp answers 500 when reading fails (a malformed chunked body, a client cut
/// off by the body-read timeout); here those are 4xx AEP errors (400, 408, 413).
async fn read_body_first(State(limits): State<BodyLimits>, request: Request, next: Next) -> Response {
    if request.method() != http::Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    match super::body::read(body, super::body::content_length(&parts.headers), limits).await {
        Ok(bytes) => next.run(Request::from_parts(parts, Body::from(bytes))).await,
        Err(error) => error.into_response(),
    }
}

/// rmcp answers a session DELETE with 202; MCP clients expect 200 or 204 (the official
/// Python SDK logs "Session termination failed: 202" otherwise).
async fn session_deleted(request: Request, next: Next) -> Response {
    let delete = request.method() == http::Method::DELETE;
    let mut response = next.run(request).await;
    if delete && response.status() == http::StatusCode::ACCEPTED {
        *response.status_mut() = http::StatusCode::OK;
    }
    response
}
