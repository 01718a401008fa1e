//! The tool explorer: resolved tools and calls.

use axum::Json;
use axum::extract::{Path, State};
use bytes::Bytes;
use serde::Deserialize;
use serde_json::Value;

use super::{Shared, parse};
use crate::error::ApiError;

#[derive(Debug, Deserialize)]
struct ToolCall {
    tool: String,
    #[serde(default)]
    arguments: Value,
}

/// `GET /api/connections/{id}/tools`.
pub async fn list(State(inspector): State<Shared>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    let connection = inspector.connections.get(&id)?;
    Ok(Json(crate::tools::list(&connection).await))
}

/// `POST /api/connections/{id}/tools/call`.
pub async fn call(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let call: ToolCall = parse(&body)?;
    let connection = inspector.connections.get(&id)?;
    let arguments = if call.arguments.is_null() {
        Value::Object(Default::default())
    } else {
        call.arguments
    };
    Ok(Json(
        crate::tools::call(&connection, &call.tool, arguments).await?,
    ))
}
