//! OpenTelemetry: traces (and, with metrics on, the instruments of
//! [`Extension::metrics_router`](crate::server::Extension::metrics_router)) exported over
//! OTLP/HTTP with protobuf, configured only by the standard environment variables.
//!
//! Built with the `otel` cargo feature (the bundled extension binaries turn it on). Even
//! then nothing is exported, and no request does any extra work, unless an endpoint is
//! set: `OTEL_EXPORTER_OTLP_ENDPOINT` (both signals; `/v1/traces` and `/v1/metrics` are
//! appended), `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`
//! (used as they are). `OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none` and
//! `OTEL_METRICS_EXPORTER=none` turn export off again; `OTEL_EXPORTER_OTLP_PROTOCOL` must
//! be `http/protobuf` (anything else is reported at start-up and export stays off).
//! The SDK reads the rest: `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
//! `OTEL_TRACES_SAMPLER`/`OTEL_TRACES_SAMPLER_ARG`, `OTEL_BSP_*`,
//! `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`.
//!
//! What goes out: W3C `traceparent`/`tracestate` are continued from incoming AEP and MCP
//! requests and sent on outgoing ones (the [`Client`](crate::client::Client), and anyone
//! calling [`inject`]); spans follow the OpenTelemetry semantic conventions for HTTP,
//! GenAI and MCP. No message content, tool argument or header value is recorded unless
//! `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` asks for message content.
//!
//! [`crate::server::init_tracing`] sets all of this up; a program with its own
//! `tracing` subscriber adds `layer()` (with the feature) to it, and calls [`shutdown`]
//! before it exits.

#[cfg(feature = "otel")]
mod config;
pub(crate) mod conventions;
mod genai;
#[cfg(feature = "otel")]
mod http_client;
#[cfg(feature = "otel")]
pub(crate) mod http_server;
#[cfg(feature = "otel")]
pub(crate) mod mcp;
#[cfg(feature = "otel")]
mod pipeline;

pub use genai::ChatSpan;
pub(crate) use genai::Traced;
#[cfg(feature = "otel")]
pub(crate) use pipeline::meter;
#[cfg(feature = "otel")]
pub use pipeline::{layer, warnings};

/// The `tracing` target of the spans this crate makes for OpenTelemetry.
pub const TARGET: &str = "aep_sdk::telemetry";

/// Whether spans are exported: the `otel` feature is built in and an OTLP endpoint for
/// traces is configured. Checked once per request (an atomic load) before any tracing
/// work; always `false` without the feature.
#[inline]
pub fn enabled() -> bool {
    #[cfg(feature = "otel")]
    {
        pipeline::traces_on()
    }
    #[cfg(not(feature = "otel"))]
    {
        false
    }
}

/// Whether metrics are exported over OTLP.
#[inline]
pub fn metrics_enabled() -> bool {
    #[cfg(feature = "otel")]
    {
        pipeline::metrics_on()
    }
    #[cfg(not(feature = "otel"))]
    {
        false
    }
}

/// Writes the current span's W3C `traceparent` (and `tracestate`) into `headers`, so
/// the server the request goes to continues this trace. Does nothing when spans are not
/// exported.
pub fn inject(headers: &mut http::HeaderMap) {
    #[cfg(feature = "otel")]
    if enabled() {
        pipeline::inject(&tracing::Span::current(), headers);
    }
    #[cfg(not(feature = "otel"))]
    let _ = headers;
}

/// Writes the current span's W3C trace context into an MCP request's `_meta`
/// (`traceparent`, `tracestate`: SEP-414 and the OpenTelemetry MCP conventions), so the
/// MCP server continues this trace; rmcp's client sends requests from a task of its own,
/// so headers cannot carry it. Does nothing when spans are not exported.
///
/// ```
/// let mut meta = serde_json::Map::new();
/// aep_sdk::telemetry::inject_meta(&mut meta);
/// // Empty unless an OTLP endpoint is configured.
/// # let _ = meta;
/// ```
pub fn inject_meta(meta: &mut serde_json::Map<String, serde_json::Value>) {
    #[cfg(feature = "otel")]
    if enabled() {
        pipeline::inject_json(&tracing::Span::current(), meta);
    }
    #[cfg(not(feature = "otel"))]
    let _ = meta;
}

/// Makes `span` a child of the W3C trace context `headers` carry (`traceparent`,
/// `tracestate`); without one, `span` stays where it is. Does nothing when spans are not
/// exported.
pub fn continue_trace(span: &tracing::Span, headers: &http::HeaderMap) {
    #[cfg(feature = "otel")]
    if enabled() {
        pipeline::extract_into(span, headers);
    }
    #[cfg(not(feature = "otel"))]
    let _ = (span, headers);
}

/// The server span of an MCP `tools/call` of `tool` answered by an rmcp server of your
/// own, as [`ToolServer`](crate::tool::ToolServer) makes for its calls: `tools/call
/// {tool}`, a child of the trace context in the request's `_meta` (SEP-414), else of the
/// HTTP request's server span or its `traceparent`. Run the call in it (`Instrument`)
/// so that the requests it makes continue the trace, then mark it with
/// [`mcp_tool_call_finished`]. Disabled when spans are not exported.
pub fn mcp_tool_call(
    context: &rmcp::service::RequestContext<rmcp::service::RoleServer>,
    tool: &str,
) -> tracing::Span {
    #[cfg(feature = "otel")]
    return mcp::tool_call(context, None, tool);
    #[cfg(not(feature = "otel"))]
    {
        let _ = (context, tool);
        tracing::Span::none()
    }
}

/// Marks a span from [`mcp_tool_call`] by the call's outcome, as the OpenTelemetry MCP
/// conventions say: a JSON-RPC error by its code, a result with `isError: true` as
/// `tool_error`.
pub fn mcp_tool_call_finished(
    span: &tracing::Span,
    result: &Result<rmcp::model::CallToolResponse, rmcp::ErrorData>,
) {
    #[cfg(feature = "otel")]
    mcp::finished(span, result);
    #[cfg(not(feature = "otel"))]
    let _ = (span, result);
}

/// Flushes and stops the exporters (spans and metrics still buffered are sent, within
/// the SDK's timeouts). [`Extension::serve`](crate::server::Extension::serve) calls it
/// on a graceful shutdown; call it before exiting in a program of your own. Safe to
/// call more than once and when nothing was set up.
pub fn shutdown() {
    #[cfg(feature = "otel")]
    pipeline::shutdown();
}

/// [`shutdown`] from async code: on a blocking thread, so the exporters' own runtime
/// work does not stall this one. What [`Extension::serve`](crate::server::Extension::serve)
/// does before it returns; call it after
/// [`Extension::serve_with`](crate::server::Extension::serve_with) in a binary of your own.
pub async fn finish() {
    tokio::task::spawn_blocking(shutdown).await.ok();
}

/// Installs `fmt` logs filtered by `filter`, plus the OpenTelemetry layer when spans are
/// exported, and logs [`warnings`]. Does nothing if a subscriber is already installed.
#[cfg(feature = "otel")]
pub(crate) fn init_with(filter: tracing_subscriber::filter::Targets) {
    use tracing_subscriber::prelude::*;
    let logs = tracing_subscriber::fmt::layer().with_filter(filter);
    if let Some(layer) = layer() {
        let _ = tracing_subscriber::registry().with(logs).with(layer).try_init();
    } else {
        let _ = tracing_subscriber::registry().with(logs).try_init();
    }
    for warning in warnings() {
        tracing::warn!("OpenTelemetry: {warning}");
    }
}
