//! The router layer: `http_server_request_duration_seconds` of every request and
//! `aep_server_errors_total` of every AEP error answer.

use std::sync::Arc;
use std::time::Instant;

use crate::telemetry::conventions::method_label;
use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use super::{HttpLabels, Metrics};
use crate::error::ResponseCode;

/// Times the request until its response head, labelled with the route template (never
/// the raw path: a request no route matched is `unmatched`).
pub(crate) async fn record_request(
    State(metrics): State<Arc<Metrics>>,
    request: Request,
    next: Next,
) -> Response {
    let start = Instant::now();
    let method = method_label(request.method());
    let route = match request.extensions().get::<MatchedPath>() {
        Some(path) => metrics.routes.get(path.as_str()),
        None => metrics.unmatched.clone(),
    };
    let response = next.run(request).await;
    if let Some(ResponseCode(code)) = response.extensions().get::<ResponseCode>() {
        metrics.error(code);
    }
    let labels = HttpLabels {
        http_request_method: method,
        http_route: route,
        http_response_status_code: response.status().as_u16(),
    };
    let seconds = start.elapsed().as_secs_f64();
    metrics.http.get_or_create(&labels).observe(seconds);
    #[cfg(feature = "otel")]
    if let Some(otel) = &metrics.otel {
        otel.http(
            method,
            &labels.http_route,
            labels.http_response_status_code,
            seconds,
        );
    }
    response
}
