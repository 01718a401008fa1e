//! Connect, list, close; the command line's URLs.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::{Value, json};

use super::{Shared, parse};
use crate::connection::ConnectRequest;
use crate::error::ApiError;
use crate::target::parse_target;

/// `GET /api/config`.
pub async fn config(State(inspector): State<Shared>) -> Json<Value> {
    Json(json!({"urls": inspector.startup_urls, "version": env!("CARGO_PKG_VERSION")}))
}

/// `GET /api/connections`.
pub async fn list(State(inspector): State<Shared>) -> Json<Value> {
    let all: Vec<Value> = inspector.connections.list().iter().map(|c| c.summary()).collect();
    Json(json!(all))
}

/// `POST /api/connections`.
pub async fn connect(
    State(inspector): State<Shared>,
    body: Bytes,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let request: ConnectRequest = parse(&body)?;
    // Signed in to this extension: its tokens (a token typed in still wins).
    let signed_in = parse_target(&request.url, request.revision.as_deref())
        .ok()
        .and_then(|(base, _)| inspector.sign_ins.signed_in_for(&base));
    let connection = inspector
        .connections
        .connect(&request, signed_in.as_deref())
        .await?;
    Ok((StatusCode::CREATED, Json(connection.summary())))
}

/// `DELETE /api/connections/{id}`.
pub async fn close(State(inspector): State<Shared>, Path(id): Path<String>) -> Result<StatusCode, ApiError> {
    inspector.connections.close(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}
