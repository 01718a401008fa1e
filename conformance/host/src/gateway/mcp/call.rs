//! One `tools/call` through the gateway: forwarded over the host's pooled session to the
//! owning MCP server, its progress and log messages relayed to the caller while it runs,
//! the caller's `notifications/cancelled` passed on.
//!
//! Failures follow MCP's split: a tool the gateway does not list is a JSON-RPC error
//! (-32602); anything that goes wrong running a listed tool (its arguments do not match
//! its schema, its server is down or times out, the server refuses the call) is a tool
//! result with `isError: true` and a message naming the host error code, which a model
//! can read and act on.

#![allow(deprecated)] // MCP logging: relayed for 2025-11-25 clients (see crate::mcp::relay)

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, ContentBlock, LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProgressToken, ResultType,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::catalog::{AgentTool, Catalog};
use crate::error::{ErrorCode, HostError};
use crate::mcp::{LINGER, Relay, Relayed};

/// `_meta` key of a 2026-07-28 request's own log level (SEP-2575).
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// Calls `tool` with `arguments` for the request of `context`, relaying as it runs;
/// `level` is the session's log level (`logging/setLevel`).
pub(super) async fn forward(
    catalog: &Catalog,
    tool: &AgentTool,
    arguments: Value,
    context: &RequestContext<RoleServer>,
    level: LoggingLevel,
) -> CallToolResult {
    let (events, mut received) = mpsc::unbounded_channel();
    let relay = Relay {
        events,
        cancel: context.ct.child_token(),
    };
    let sink = Sink {
        peer: context.peer.clone(),
        token: context.meta.get_progress_token(),
        level: requested_level(context).unwrap_or(level),
    };
    let call = catalog.invoke_relayed(tool, arguments, &relay);
    tokio::pin!(call);
    let result = loop {
        tokio::select! {
            // Notifications the server sent before its answer go out before it.
            biased;
            Some(event) = received.recv() => sink.send(event).await,
            result = &mut call => break result,
        }
    };
    // Log messages may trail the answer (see crate::mcp::relay): relayed for a while yet.
    tokio::spawn(async move {
        let deadline = tokio::time::Instant::now() + LINGER;
        while let Ok(Some(event)) = tokio::time::timeout_at(deadline, received.recv()).await {
            sink.send(event).await;
        }
    });
    let mut result = match result {
        Ok(result) => result,
        Err(error) => failed(tool, &error),
    };
    // The server answered a 2025-11-25 session, which has no `resultType`; a 2026-07-28
    // caller needs it (rmcp drops it again for older callers).
    result.result_type.get_or_insert(ResultType::COMPLETE);
    result
}

/// Whether `error` means the gateway has no such tool (a JSON-RPC error, not a result).
pub(super) fn unknown_tool(name: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown tool '{name}'"), None)
}

/// A failure running a listed tool, as a tool error the caller's model can read. Only
/// an argument problem is told in full (it names the argument); the others name their
/// code, and the gateway's log has the rest (the upstream's URL is not the caller's
/// business).
fn failed(tool: &AgentTool, error: &HostError) -> CallToolResult {
    let code = error.code.as_str();
    let text = match error.code {
        ErrorCode::InvalidArguments => format!(
            "tool '{}' failed ({code}): {}; check the arguments against the tool's input schema",
            tool.id, error.message
        ),
        _ => {
            tracing::warn!(tool = %tool.id, "call failed: {error}");
            format!(
                "tool '{}' failed ({code}); try again later or without it",
                tool.id
            )
        }
    };
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// Where relayed notifications go: the caller's peer, under its progress token and log
/// level.
struct Sink {
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
    level: LoggingLevel,
}

impl Sink {
    async fn send(&self, event: Relayed) {
        // A caller gone meanwhile only misses the notification.
        match event {
            Relayed::Progress {
                progress,
                total,
                message,
            } => {
                let Some(token) = &self.token else { return };
                let mut param = ProgressNotificationParam::new(token.clone(), progress);
                param.total = total;
                param.message = message;
                let _ = self.peer.notify_progress(param).await;
            }
            Relayed::Log(param) if severity(param.level) >= severity(self.level) => {
                // As the server sent it, less its `_meta` (which named its own request).
                let mut relayed = LoggingMessageNotificationParam::new(param.level, param.data);
                relayed.logger = param.logger;
                let _ = self.peer.notify_logging_message(relayed).await;
            }
            Relayed::Log(_) => {}
        }
    }
}

/// The level a request asks for in its own `_meta` (2026-07-28), if any.
fn requested_level(context: &RequestContext<RoleServer>) -> Option<LoggingLevel> {
    let value = context.meta.get(META_LOG_LEVEL)?;
    serde_json::from_value(value.clone()).ok()
}

/// RFC 5424's order, least severe first.
pub(super) fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}
