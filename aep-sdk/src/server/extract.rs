//! Request extractors whose rejections are AEP errors, never axum's plain-text ones.

use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use http::{StatusCode, header, request::Parts};
use serde::de::DeserializeOwned;

use super::body::BodyLimits;
use crate::AepError;
use crate::error::codes;

/// A JSON body: `Content-Type: application/json` (or `+json`), within the body limits
/// (the [`BodyLimits`] in the request's extensions, which the extension's router sets,
/// else the defaults), well-formed, and of the right shape; otherwise a 4xx AEP error
/// naming the problem.
#[derive(Debug, Clone)]
pub struct AepJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for AepJson<T> {
    type Rejection = AepError;

    async fn from_request(req: Request, _state: &S) -> Result<Self, AepError> {
        let limits = req.extensions().get::<BodyLimits>().copied().unwrap_or_default();
        let (parts, body) = req.into_parts();
        json_body(&parts.headers, body, limits).await.map(AepJson)
    }
}

/// Checks the content type, reads the body under `limits` and decodes it.
pub(crate) async fn json_body<T: DeserializeOwned>(
    headers: &http::HeaderMap,
    body: axum::body::Body,
    limits: BodyLimits,
) -> Result<T, AepError> {
    check_content_type(headers)?;
    let bytes = super::body::read(body, super::body::content_length(headers), limits).await?;
    decode(&bytes)
}

fn check_content_type(headers: &http::HeaderMap) -> Result<(), AepError> {
    let value = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = value.split(';').next().unwrap_or("").trim().as_bytes();
    // Compared without case and without allocating: this runs on every chat request.
    let prefix = b"application/";
    let is_application =
        essence.len() >= prefix.len() && essence[..prefix.len()].eq_ignore_ascii_case(prefix);
    let subtype = &essence[prefix.len().min(essence.len())..];
    if is_application
        && (subtype.eq_ignore_ascii_case(b"json")
            || (subtype.len() >= b"+json".len()
                && subtype[subtype.len() - 5..].eq_ignore_ascii_case(b"+json")))
    {
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

/// Decodes a JSON document into `T`, with the path of the first wrong member.
pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AepError> {
    // Fast path: most requests are well formed. Only a failure pays for the path.
    serde_json::from_slice(bytes).map_err(|_| explain::<T>(bytes))
}

/// Re-reads a document that failed to decode, tracking where it failed.
fn explain<T: DeserializeOwned>(bytes: &[u8]) -> AepError {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Err(error) => {
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
        }
        Ok(_) => match de.end() {
            Err(e) => AepError::invalid_request(format!("malformed JSON: {e}")),
            Ok(()) => AepError::invalid_request("malformed JSON"),
        },
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn accepted(value: &str) -> bool {
        let mut headers = http::HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, value.parse().unwrap());
        check_content_type(&headers).is_ok()
    }

    #[test]
    fn json_media_types_in_any_case() {
        for value in [
            "application/json",
            "Application/JSON; charset=utf-8",
            " application/json ;x=y",
            "application/vnd.acme+json",
            "APPLICATION/GEO+JSON",
            "application/+json",
        ] {
            assert!(accepted(value), "{value}");
        }
        for value in [
            "text/json",
            "application/jsonx",
            "application/json+xml",
            "application/",
            "application",
            "json",
            "",
            "applicatio/json",
        ] {
            assert!(!accepted(value), "{value}");
        }
        assert!(check_content_type(&http::HeaderMap::new()).is_err());
    }
}
