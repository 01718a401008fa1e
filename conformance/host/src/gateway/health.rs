//! `GET /healthz` (the gateway runs) and `GET /readyz` (at least one extension answers
//! its health route), for load balancers and Kubernetes probes. Neither needs a
//! credential; `/readyz` asks every extension at once, each bounded.

use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Map, Value, json};

use super::Gateway;

pub(super) const HEALTHZ: &str = "/healthz";
pub(super) const READYZ: &str = "/readyz";

/// Bound on one extension's health answer (a probe's own timeout is usually 1-5 s).
const EXTENSION_BOUND: Duration = Duration::from_secs(2);

pub(super) fn router(gateway: Gateway) -> Router {
    Router::new()
        .route(HEALTHZ, get(|| async { axum::Json(json!({"status": "ok"})) }))
        .route(READYZ, get(ready))
        .with_state(gateway)
}

/// 200 when some extension is reachable, else 503; the body says how each one fared.
async fn ready(State(gateway): State<Gateway>) -> Response {
    let registry = gateway.catalog().registry();
    let checks = registry.entries().map(|entry| async move {
        let outcome = tokio::time::timeout(EXTENSION_BOUND, entry.client().health()).await;
        let reachable = matches!(outcome, Ok(Ok(_)));
        let status = match outcome {
            Ok(Ok(health)) => serde_json::to_value(health.status).unwrap_or(Value::Null),
            // The probe needs no credential, so the answer names no URL or error text;
            // the gateway's log has them.
            Ok(Err(error)) => {
                tracing::warn!(extension = %entry.id, "not ready: {error}");
                json!("unreachable")
            }
            Err(_) => {
                tracing::warn!(extension = %entry.id, "not ready: no health answer within {EXTENSION_BOUND:?}");
                json!("unreachable")
            }
        };
        (entry.id.clone(), reachable, status)
    });
    let results = futures::future::join_all(checks).await;
    let ready = results.iter().any(|(_, reachable, _)| *reachable);
    let extensions: Map<String, Value> = results.into_iter().map(|(id, _, status)| (id, status)).collect();
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = json!({ "status": if ready { "ready" } else { "unavailable" }, "extensions": extensions });
    (status, axum::Json(body)).into_response()
}
