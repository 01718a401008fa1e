//! Mounting rmcp servers (Streamable HTTP) inside the extension's router.

use std::sync::Arc;

use axum::Router;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio_util::sync::CancellationToken;

use crate::protocol::McpServerDescriptor;

pub(crate) struct McpMount {
    pub(crate) id: String,
    pub(crate) path: String,
    pub(crate) router: Router,
}

impl McpMount {
    pub(crate) fn new<H>(id: String, path: String, handler: H, shutdown: CancellationToken) -> Self
    where
        H: rmcp::ServerHandler + Clone + Send + Sync + 'static,
    {
        // legacy_session_mode stays on (the default): session clients (2025-11-25) and
        // stateless clients (2026-07-28) are served from the same endpoint.
        let config = StreamableHttpServerConfig::default().with_cancellation_token(shutdown);
        let service = StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let router = Router::new().route_service(&path, service);
        Self { id, path, router }
    }

    pub(crate) fn descriptor(&self) -> McpServerDescriptor {
        McpServerDescriptor {
            id: self.id.clone(),
            endpoint: self.path.clone(),
        }
    }
}
