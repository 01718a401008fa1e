//! The span of an MCP tool call (`tools/call {tool}`): `mcp.method.name`,
//! `gen_ai.tool.name`, `gen_ai.operation.name = execute_tool`, and `error.type` with an
//! error status when it fails: the JSON-RPC error code, or `tool_error` for a result
//! with `isError: true` (the tool's own failure, as the MCP conventions say). Its parent
//! is the trace context in the request's `_meta` (SEP-414: what an MCP client sends,
//! rmcp's included), else the HTTP server span of the request that carried
//! it (rmcp runs handlers on a session task, outside that span), else the request's
//! `traceparent` header. Tool arguments and results are never recorded.

use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, JsonObject};
use rmcp::service::{RequestContext, RoleServer};
use tracing::Span;
use tracing::field::Empty;

use super::http_server::ServerSpan;

/// The tool call's span; disabled when spans are not exported.
///
/// Call it before the handler takes the request's `_meta` and head out of `context`;
/// `params_meta` is the `_meta` older clients leave on the params.
pub(crate) fn tool_call(
    context: &RequestContext<RoleServer>,
    params_meta: Option<&JsonObject>,
    tool: &str,
) -> Span {
    if !super::enabled() {
        return Span::none();
    }
    let head = context.extensions.get::<http::request::Parts>();
    let parent = head.and_then(|h| h.extensions.get::<ServerSpan>());
    let span = tracing::info_span!(
        target: super::TARGET,
        parent: parent.and_then(|p| p.0.id()),
        "mcp.tools_call",
        otel.name = format!("tools/call {tool}"),
        otel.kind = "server",
        otel.status_code = Empty,
        mcp.method.name = "tools/call",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = tool,
        "error.type" = Empty,
    );
    let from_meta = [Some(&context.meta.0.0), params_meta]
        .into_iter()
        .flatten()
        .any(|meta| super::pipeline::extract_json_into(&span, meta));
    if !from_meta
        && parent.is_none()
        && let Some(head) = head
    {
        super::pipeline::extract_into(&span, &head.headers);
    }
    span
}

/// Marks the tool call's span failed with `error_type`.
pub(crate) fn failed(span: &Span, error_type: &str) {
    span.record("error.type", error_type);
    span.record("otel.status_code", "ERROR");
}

/// `error.type` of a tool result with `isError: true` (the OpenTelemetry MCP conventions).
pub(crate) const TOOL_ERROR: &str = "tool_error";

/// Marks the tool call's span by its outcome: a JSON-RPC error by its code, a result
/// with `isError: true` as [`TOOL_ERROR`]; a success stays unmarked.
pub(crate) fn finished(span: &Span, result: &Result<CallToolResponse, ErrorData>) {
    match result {
        Err(error) => failed(span, &error.code.0.to_string()),
        Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => failed(span, TOOL_ERROR),
        Ok(_) => {}
    }
}
