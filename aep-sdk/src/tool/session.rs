//! [`McpRequest`]: what the MCP mount tells a request's handler, among it the token
//! tripped when the MCP session a request belongs to ends, so that a running tool call
//! stops when its client goes away.
//!
//! rmcp lets a closed session's in-flight handlers run for up to five seconds (to drain
//! their responses) before it cancels them; a session the client deleted has nowhere to
//! send them, so the mount (`server::mcp`) trips the token at once and
//! [`ToolServer`](super::ToolServer) cancels the calls of that session.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::common::server_side_http::SessionId;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio_util::sync::CancellationToken;

use super::McpTiming;

/// What the MCP mount gives each request, as one entry of the HTTP request's extensions
/// (one allocation and one lookup, however many of these are set).
#[derive(Clone, Default)]
pub(crate) struct McpRequest {
    /// Cancelled when the request's MCP session ends.
    pub(crate) session_end: Option<CancellationToken>,
    /// The SSE stream a POST is answered on.
    pub(crate) stream: Option<ResponseStream>,
    /// Where operation durations go, when metrics are on.
    pub(crate) timing: Option<McpTiming>,
    /// The extension's bound on a tool call that has none of its own and whose server
    /// has no default
    /// ([`ExtensionBuilder::tool_timeout`](crate::server::ExtensionBuilder::tool_timeout)).
    pub(crate) tool_timeout: Option<Duration>,
}

impl McpRequest {
    /// The one the mount put on the request of `context`, if any.
    pub(crate) fn of(context: &RequestContext<RoleServer>) -> Option<&McpRequest> {
        context
            .extensions
            .get::<http::request::Parts>()?
            .extensions
            .get::<McpRequest>()
    }
}

/// The SSE stream a POST is answered on, so that a tool can close it mid-call
/// ([`ToolContext::close_response_stream`](super::ToolContext::close_response_stream)).
///
/// rmcp closes a request's stream only by its internal per-POST number, which it gives
/// no handler; it does write it into every event id (`<index>/<number>`), so the mount
/// reads it from the answer's first event.
#[derive(Debug, Clone)]
pub(crate) struct ResponseStream(Arc<StreamInner>);

#[derive(Debug)]
struct StreamInner {
    manager: Arc<LocalSessionManager>,
    session: SessionId,
    number: OnceLock<u64>,
    known: tokio::sync::Notify,
}

impl ResponseStream {
    pub(crate) fn new(manager: Arc<LocalSessionManager>, session: SessionId) -> Self {
        Self(Arc::new(StreamInner {
            manager,
            session,
            number: OnceLock::new(),
            known: tokio::sync::Notify::new(),
        }))
    }

    /// Whether the stream's number is known yet.
    pub(crate) fn is_known(&self) -> bool {
        self.0.number.get().is_some()
    }

    /// Reads the number from the first `id: <index>/<number>` line in `bytes`, if any.
    pub(crate) fn learn(&self, bytes: &[u8]) {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return;
        };
        let number = text
            .lines()
            .filter_map(|line| line.strip_prefix("id:"))
            .find_map(|id| id.trim().split_once('/')?.1.parse().ok());
        if let Some(number) = number {
            let _ = self.0.number.set(number);
            self.0.known.notify_waiters();
        }
    }

    /// Closes the stream, telling the client to reconnect after `retry`.
    pub(crate) async fn close(&self, retry: Duration) -> Result<(), String> {
        let number = match self.0.number.get() {
            Some(number) => *number,
            None => {
                let known = self.0.known.notified();
                // The first event is written as the stream opens; allow it a moment.
                let _ = tokio::time::timeout(Duration::from_secs(2), known).await;
                *self.0.number.get().ok_or("the answer's stream has not started")?
            }
        };
        let handle = self.0.manager.sessions.read().await.get(&self.0.session).cloned();
        let handle = handle.ok_or("the MCP session has ended")?;
        handle
            .close_sse_stream(number, Some(retry))
            .await
            .map_err(|e| format!("the stream could not be closed: {e}"))
    }
}
