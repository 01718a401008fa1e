//! The overview screen: identity, capabilities, contributions, option sets, health, and
//! the raw manifest of both revisions with their differences.

use aep_sdk::protocol::ProtocolVersion;
use axum::Json;
use axum::extract::{Path, State};
use serde_json::{Value, json};

use super::Shared;
use crate::error::ApiError;
use crate::limits::{REQUEST_TIMEOUT, bounded};
use crate::{diff, probe, trace};

/// `GET /api/connections/{id}/overview`.
pub async fn overview(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let connection = inspector.connections.get(&id)?;
    let manifest = &connection.manifest;
    let mut configuration = Value::Null;
    let mut configuration_error = Value::Null;
    if manifest.capabilities.contains_key("aep.configuration") {
        match bounded(
            REQUEST_TIMEOUT,
            "GET /aep/configuration",
            connection.client.configuration(),
        )
        .await
        {
            Ok(catalog) => configuration = json!(catalog),
            Err(error) => configuration_error = error.body()["error"].clone(),
        }
    }
    Ok(Json(json!({
        "connection": connection.summary(),
        "manifest": manifest,
        "configuration": configuration,
        "configurationError": configuration_error,
    })))
}

fn outcome<T: serde::Serialize>(result: Result<T, ApiError>) -> Value {
    match result {
        Ok(value) => json!(value),
        Err(error) => error.body(),
    }
}

/// `GET /api/connections/{id}/health`: the extension's, then each provider's.
pub async fn health(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let connection = inspector.connections.get(&id)?;
    let started = std::time::Instant::now();
    let extension = bounded(REQUEST_TIMEOUT, "GET /aep/health", connection.client.health()).await;
    let providers =
        futures::future::join_all(connection.manifest.contributions.model_providers.iter().map(|p| {
            let connection = connection.clone();
            async move {
                let health = bounded(
                    REQUEST_TIMEOUT,
                    "provider health",
                    connection.client.provider_health(&p.id),
                )
                .await;
                json!({"id": p.id, "displayName": p.display_name, "health": outcome(health)})
            }
        }))
        .await;
    Ok(Json(json!({
        "extension": outcome(extension),
        "providers": providers,
        "elapsedMs": started.elapsed().as_millis() as u64,
        "checkedAt": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0),
    })))
}

/// `GET /api/connections/{id}/manifests`: both discovery documents as served, and
/// where they differ (they should differ in `protocolVersion` only).
pub async fn manifests(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let connection = inspector.connections.get(&id)?;
    let token = connection.bearer().await;
    let fetches = ProtocolVersion::ALL.map(|revision| {
        probe::fetch(
            &connection.http,
            &connection.base,
            revision,
            token.as_deref(),
            &connection.trace,
        )
    });
    let [v1, latest] = fetches;
    let (v1, latest) = futures::join!(v1, latest);
    let differences = match (&v1.json, &latest.json) {
        (Some(left), Some(right)) => json!(diff::diff(left, right)),
        _ => Value::Null,
    };
    Ok(Json(json!({"documents": [v1, latest], "diff": differences})))
}

/// `GET /api/connections/{id}/providers/{provider}/models`.
pub async fn models(
    State(inspector): State<Shared>,
    Path((id, provider)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let connection = inspector.connections.get(&id)?;
    let models = bounded(REQUEST_TIMEOUT, "GET models", connection.client.models(&provider)).await?;
    Ok(Json(json!(models)))
}

/// `GET /api/connections/{id}/trace`: the exchanges the Inspector's own HTTP client
/// made to the extension, newest first, and what the trace covers.
pub async fn trace(State(inspector): State<Shared>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    let connection = inspector.connections.get(&id)?;
    Ok(Json(json!({
        "exchanges": connection.trace.newest_first(),
        "capacity": trace::CAPACITY,
        "covers": trace::COVERS,
        "proxy": format!("http://{}", connection.proxy.addr()),
        "bypassed": crate::proxy::absolute_endpoints(&connection.manifest),
    })))
}
