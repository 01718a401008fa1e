//! The conformance screen: the checks to choose from; run the suite with live progress;
//! export the last report.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::Value;

use super::{Shared, parse};
use crate::error::ApiError;
use crate::sse;
use crate::suite::{self, RunRequest};

/// `POST /api/connections/{id}/conformance`.
pub async fn run(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let request: RunRequest = if body.is_empty() {
        RunRequest::default()
    } else {
        parse(&body)?
    };
    let patterns = request.patterns()?;
    let connection = inspector.connections.get(&id)?;
    Ok(sse::response(suite::start(connection, patterns, request.strict)))
}

/// `GET /api/checks`: the runner's catalogue, to choose checks from.
pub async fn checks() -> Json<Value> {
    Json(suite::catalog_json())
}

fn last(inspector: &Shared, id: &str) -> Result<std::sync::Arc<aep_conformance::Report>, ApiError> {
    let connection = inspector.connections.get(id)?;
    let report = connection
        .last_report
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    report.ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no_report",
            "run the conformance suite first",
        )
    })
}

fn download(content_type: &'static str, name: &str, body: String) -> Response {
    let disposition = format!("attachment; filename=\"{name}\"");
    (
        [
            (header::CONTENT_TYPE, content_type.to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        body,
    )
        .into_response()
}

/// `GET /api/connections/{id}/conformance/report.json`.
pub async fn json(State(inspector): State<Shared>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let report = last(&inspector, &id)?;
    let body = serde_json::to_string_pretty(&suite::report_json(&report)).unwrap_or_default();
    Ok(download("application/json", "aep-conformance.json", body))
}

/// `GET /api/connections/{id}/conformance/report.xml` (JUnit).
pub async fn junit(State(inspector): State<Shared>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let report = last(&inspector, &id)?;
    Ok(download(
        "application/xml",
        "aep-conformance.xml",
        report.to_junit(),
    ))
}
