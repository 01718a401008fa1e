//! [`SessionEnd`]: tripped when the MCP session a request belongs to ends, so that a
//! running tool call stops when its client goes away.
//!
//! rmcp lets a closed session's in-flight handlers run for up to five seconds (to drain
//! their responses) before it cancels them; a session the client deleted has nowhere to
//! send them, so the mount (`server::mcp`) trips this token at once and
//! [`ToolServer`](super::ToolServer) cancels the calls of that session.

use tokio_util::sync::CancellationToken;

/// Put in the HTTP request's extensions by the MCP mount; cancelled when the session ends.
#[derive(Debug, Clone)]
pub(crate) struct SessionEnd(pub(crate) CancellationToken);
