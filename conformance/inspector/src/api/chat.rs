//! The model playground: one chat, or a streamed chat proxied frame by frame.

use std::time::{Duration, Instant};

use aep_sdk::protocol::ChatRequest;
use axum::Json;
use axum::extract::{Path, State};
use axum::response::Response;
use bytes::Bytes;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Shared, parse};
use crate::error::ApiError;
use crate::limits::{CHAT_TIMEOUT, DEFAULT_STALL, MAX_STALL, bounded};
use crate::{sse, stream};

/// What the page sends.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChatCall {
    provider: String,
    request: Value,
    #[serde(default)]
    stall_seconds: Option<f64>,
}

fn stall(seconds: Option<f64>) -> Result<Duration, ApiError> {
    match seconds {
        None => Ok(DEFAULT_STALL),
        Some(s) if s.is_finite() && s > 0.0 && s <= MAX_STALL.as_secs_f64() => Ok(Duration::from_secs_f64(s)),
        Some(s) => Err(ApiError::bad_request(format!(
            "stallSeconds must be above 0 and at most {}, not {s}",
            MAX_STALL.as_secs()
        ))),
    }
}

/// `POST /api/connections/{id}/chat`.
pub async fn chat(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let call: ChatCall = parse(&body)?;
    let connection = inspector.connections.get(&id)?;
    let request: ChatRequest = serde_json::from_value(call.request)
        .map_err(|e| ApiError::bad_request(format!("request is not a ChatRequest: {e}")))?;
    let started = Instant::now();
    let response = bounded(
        CHAT_TIMEOUT,
        "chat",
        connection.client.chat(&call.provider, &request),
    )
    .await?;
    Ok(Json(
        json!({"response": response, "elapsedMs": started.elapsed().as_millis() as u64}),
    ))
}

/// `POST /api/connections/{id}/chat/stream`.
pub async fn stream(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let call: ChatCall = parse(&body)?;
    let connection = inspector.connections.get(&id)?;
    let bound = stall(call.stall_seconds)?;
    let events = stream::open(connection, &call.provider, &call.request, bound).await?;
    Ok(sse::response(events))
}
