//! Signing in with OAuth: start, follow, sign out (see [`crate::oauth`]).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use bytes::Bytes;
use serde_json::{Value, json};
use url::Url;

use super::{Shared, parse};
use crate::error::ApiError;
use crate::oauth::StartRequest;

/// `POST /api/sign-ins`: `{url, revision?, clientId?, clientSecret?, scope?}` -> 201 and
/// the sign-in, pending, with the first `authorizationUrl` to open. It replaces any
/// earlier sign-in to the same extension (whose connections are closed).
pub async fn start(
    State(inspector): State<Shared>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let request: StartRequest = parse(&body)?;
    // The page's own origin (the guard has checked the Host): the browser comes back
    // there, and that exact URI is registered.
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let redirect_uri = Url::parse(&format!("http://{host}/oauth/callback"))
        .map_err(|e| ApiError::bad_request(format!("the Inspector's own address '{host}': {e}")))?;
    let (session, replaced) = inspector
        .sign_ins
        .start(&request, redirect_uri, inspector.sign_in_timeout)
        .await?;
    // The tokens of a sign-in it replaced are forgotten: so are its connections.
    for old in replaced {
        inspector.connections.close_signed_in(&old).await;
    }
    Ok((StatusCode::CREATED, Json(session.describe())))
}

/// `GET /api/sign-ins/{id}`: where the sign-in is.
pub async fn get(State(inspector): State<Shared>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    Ok(Json(inspector.sign_ins.get(&id)?.describe()))
}

/// `DELETE /api/sign-ins/{id}`: signs out (or cancels a pending sign-in): the tokens are
/// forgotten and the connections that used them closed (`{closed: [ids]}`).
pub async fn sign_out(
    State(inspector): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let session = inspector.sign_ins.sign_out(&id)?;
    let closed = inspector.connections.close_signed_in(&session.id).await;
    Ok(Json(
        json!({"id": session.id, "url": session.base.as_str(), "closed": closed}),
    ))
}
