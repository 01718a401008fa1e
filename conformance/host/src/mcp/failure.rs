//! Classifying rmcp failures into host errors.

use rmcp::ServiceError;
use rmcp::model::ErrorCode as JsonRpcCode;
use rmcp::service::ClientInitializeError;
use url::Url;

use crate::error::{ErrorCode, HostError};

/// What a failed MCP request means for the pooled connection.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The connection is unusable (transport failed or closed): drop it, reconnect next time.
    Transport(HostError),
    /// The request timed out; the connection may still be fine.
    Timeout(HostError),
    /// The server answered with a JSON-RPC error saying the tool does not exist.
    UnknownTool(HostError),
    /// Any other JSON-RPC error.
    Rejected(HostError),
}

impl Failure {
    pub(crate) fn into_error(self) -> HostError {
        match self {
            Failure::Transport(e) | Failure::Timeout(e) | Failure::UnknownTool(e) | Failure::Rejected(e) => e,
        }
    }
}

pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let next = cause.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = cause.source();
    }
    text
}

pub(crate) fn classify(url: &Url, what: &str, error: ServiceError) -> Failure {
    match error {
        ServiceError::McpError(data) => {
            let message = format!(
                "{url}: {what}: JSON-RPC error {}{}: {}",
                data.code.0,
                meaning(data.code),
                data.message
            );
            let unknown_tool = matches!(
                data.code,
                JsonRpcCode::INVALID_PARAMS | JsonRpcCode::METHOD_NOT_FOUND
            ) && data.message.to_lowercase().contains("not found");
            let error = HostError::new(ErrorCode::McpRequestFailed, message).with_target(url.as_str());
            if unknown_tool {
                Failure::UnknownTool(error)
            } else {
                Failure::Rejected(error)
            }
        }
        ServiceError::Timeout { .. } => Failure::Timeout(unreachable(url, what, "timed out")),
        ServiceError::Cancelled { .. } => Failure::Timeout(unreachable(url, what, "cancelled")),
        ServiceError::UnexpectedResponse => Failure::Rejected(
            HostError::new(
                ErrorCode::InvalidResponse,
                format!("{url}: {what}: the MCP server answered with an unexpected result"),
            )
            .with_target(url.as_str()),
        ),
        other => Failure::Transport(unreachable(url, what, &chain(&other))),
    }
}

/// What a standard JSON-RPC or MCP error code means, for the message: ` (invalid params)`.
fn meaning(code: JsonRpcCode) -> &'static str {
    match code {
        JsonRpcCode::RESOURCE_NOT_FOUND => " (resource not found)",
        JsonRpcCode::INVALID_PARAMS => " (invalid params)",
        JsonRpcCode::METHOD_NOT_FOUND => " (method not found)",
        JsonRpcCode::INVALID_REQUEST => " (invalid request)",
        JsonRpcCode::INTERNAL_ERROR => " (internal error)",
        JsonRpcCode::PARSE_ERROR => " (parse error)",
        _ => "",
    }
}

pub(crate) fn unreachable(url: &Url, what: &str, why: &str) -> HostError {
    HostError::new(ErrorCode::ExtensionUnreachable, format!("{url}: {what}: {why}")).with_target(url.as_str())
}

pub(crate) fn initialize_failed(url: &Url, error: ClientInitializeError) -> HostError {
    match error {
        ClientInitializeError::JsonRpcError(data) => HostError::new(
            ErrorCode::McpRequestFailed,
            format!("{url}: MCP initialize refused: {}", data.message),
        )
        .with_target(url.as_str()),
        other => unreachable(url, "MCP initialize", &chain(&other)),
    }
}
