//! The tool explorer's resources and prompts.

use aep_host::JsonObject;
use axum::Json;
use axum::extract::{Path, State};
use bytes::Bytes;
use serde::Deserialize;
use serde_json::Value;

use super::{Shared, parse};
use crate::error::ApiError;

#[derive(Debug, Deserialize)]
struct Read {
    server: String,
    uri: String,
}

#[derive(Debug, Deserialize)]
struct GetPrompt {
    server: String,
    name: String,
    #[serde(default)]
    arguments: JsonObject,
}

/// `GET /api/connections/{id}/mcp`.
pub async fn list(State(inspector): State<Shared>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    let connection = inspector.connections.get(&id)?;
    Ok(Json(crate::surface::list(&connection).await))
}

/// `POST /api/connections/{id}/mcp/resources/read`.
pub async fn read(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let request: Read = parse(&body)?;
    let connection = inspector.connections.get(&id)?;
    Ok(Json(
        crate::surface::read(&connection, &request.server, &request.uri).await?,
    ))
}

/// `POST /api/connections/{id}/mcp/prompts/get`.
pub async fn prompt(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let request: GetPrompt = parse(&body)?;
    let connection = inspector.connections.get(&id)?;
    Ok(Json(
        crate::surface::get_prompt(&connection, &request.server, &request.name, request.arguments).await?,
    ))
}
