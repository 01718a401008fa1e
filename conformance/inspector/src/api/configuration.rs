//! The configuration screen: option sets, checking values, migrating them.

use axum::Json;
use axum::extract::{Path, State};
use bytes::Bytes;
use serde_json::Value;

use super::{Shared, parse};
use crate::configuration::{self, MigrateRequest, ValidateRequest};
use crate::error::ApiError;

/// `GET /api/connections/{id}/configuration`.
pub async fn catalog(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let connection = inspector.connections.get(&id)?;
    let catalog = configuration::catalog(&connection).await?;
    Ok(Json(configuration::annotate(&catalog)))
}

/// `POST /api/connections/{id}/configuration/validate`.
pub async fn validate(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let request: ValidateRequest = parse(&body)?;
    let connection = inspector.connections.get(&id)?;
    Ok(Json(configuration::validate(&connection, &request).await?))
}

/// `POST /api/connections/{id}/configuration/migrate`.
pub async fn migrate(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let request: MigrateRequest = parse(&body)?;
    let connection = inspector.connections.get(&id)?;
    Ok(Json(configuration::migrate(&connection, &request).await?))
}
