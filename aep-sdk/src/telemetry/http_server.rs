//! The HTTP server span of every request (`otel.kind = server`): named after the method
//! and the route template, with `http.request.method`, `http.route` (the template, never
//! the raw path), `url.scheme` and `http.response.status_code`, continuing the trace of
//! the request's `traceparent`. Installed only when spans are exported.

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;
use tracing::field::Empty;

use super::conventions::{method_label, route_template};

/// The request's server span, in its extensions: MCP handlers, which rmcp runs on a task
/// of its own, make it their parent.
#[derive(Clone)]
pub(crate) struct ServerSpan(pub(crate) tracing::Span);

/// The router layer; see the module.
pub(crate) async fn server_span(mut request: Request, next: Next) -> Response {
    let method = method_label(request.method());
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| route_template(p.as_str()));
    let name = match &route {
        Some(route) => format!("{method} {route}"),
        None => method.to_owned(),
    };
    let span = tracing::info_span!(
        target: super::TARGET,
        "http.server",
        otel.name = name,
        otel.kind = "server",
        otel.status_code = Empty,
        http.request.method = method,
        http.route = route,
        url.scheme = "http",
        http.response.status_code = Empty,
        "error.type" = Empty,
    );
    super::pipeline::extract_into(&span, request.headers());
    request.extensions_mut().insert(ServerSpan(span.clone()));
    let response = next.run(request).instrument(span.clone()).await;
    let status = response.status();
    // An integer attribute (tracing-opentelemetry writes `u64` fields as strings).
    span.record("http.response.status_code", i64::from(status.as_u16()));
    // The conventions: 5xx is an error on the server side, 4xx is the client's.
    if status.is_server_error() {
        span.record("otel.status_code", "ERROR");
        span.record("error.type", status.as_str());
    }
    response
}
