//! Request extractors whose rejections are AEP errors, never axum's plain-text ones.

use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use bytes::Bytes;
use http::{StatusCode, header, request::Parts};
use serde::de::DeserializeOwned;

use crate::AepError;
use crate::error::codes;

/// A JSON body: `Content-Type: application/json` (or `+json`), within the body limit,
/// well-formed, and of the right shape; otherwise a 4xx AEP error naming the problem.
#[derive(Debug, Clone)]
pub struct AepJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for AepJson<T> {
    type Rejection = AepError;

    async fn from_request(req: Request, state: &S) -> Result<Self, AepError> {
        check_content_type(req.headers())?;
        let bytes = Bytes::from_request(req, state).await.map_err(body_error)?;
        decode(&bytes).map(AepJson)
    }
}

fn check_content_type(headers: &http::HeaderMap) -> Result<(), AepError> {
    let value = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = value.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json")) {
        return Ok(());
    }
    let shown = if value.is_empty() {
        "none".to_owned()
    } else {
        format!("'{value}'")
    };
    Err(AepError::new(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        codes::INVALID_REQUEST,
        format!("expected Content-Type: application/json, got {shown}"),
    ))
}

pub(crate) fn body_error(rejection: BytesRejection) -> AepError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&rejection);
    while let Some(error) = source {
        if error.is::<tower_http::timeout::TimeoutError>() {
            return AepError::new(
                StatusCode::REQUEST_TIMEOUT,
                codes::INVALID_REQUEST,
                "the request body stalled: the client sent nothing for too long",
            );
        }
        source = error.source();
    }
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return AepError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            codes::INVALID_REQUEST,
            "the request body is larger than this extension accepts",
        );
    }
    AepError::invalid_request(format!(
        "could not read the request body: {}",
        rejection.body_text()
    ))
}

/// Decodes a JSON document into `T`, with the path of the first wrong member.
pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AepError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        // serde_json reports some shape errors as syntax errors (a number where an enum's
        // string is expected, a number out of range): if the document itself is
        // well-formed, the error is about the value at `path`.
        let well_formed = || serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok();
        if inner.is_data() || (inner.is_syntax() && well_formed()) {
            AepError::invalid_request(format!("invalid request at '{path}': {inner}")).with_target(path)
        } else {
            AepError::invalid_request(format!("malformed JSON: {inner}"))
        }
    })?;
    de.end()
        .map_err(|e| AepError::invalid_request(format!("malformed JSON: {e}")))?;
    Ok(value)
}

/// One path segment (a provider id), percent-decoded; bad encodings are a 400.
#[derive(Debug, Clone)]
pub struct AepPath(pub String);

impl<S: Send + Sync> FromRequestParts<S> for AepPath {
    type Rejection = AepError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AepError> {
        Path::<String>::from_request_parts(parts, state)
            .await
            .map(|Path(id)| AepPath(id))
            .map_err(|e: PathRejection| AepError::invalid_request(format!("invalid path: {}", e.body_text())))
    }
}
