//! Errors, both ways: an AEP client error as a rig [`ProviderError`]
//! ([`provider_error`]) and a rig provider error as the AEP error an `aep-rig`
//! route answers ([`aep_error`]).
//!
//! AEP -> rig (the AEP error keeps its code and message):
//!
//! | AEP failure | rig error |
//! |---|---|
//! | the extension answered an AEP error (HTTP status + `{"error":{code,message}}`) | `ProviderResponse` with that status and body (`machine_code()` is the AEP code); 401/403: `InvalidAuthentication` |
//! | a terminal `finishReason: "error"` update | `ProviderResponse` without status, the `{"error":...}` body; retryable for `provider_unavailable`, `timeout`, `shutting_down` |
//! | `extension_unreachable` (connect error, timeout, broken stream) | `Http` (retryable) |
//! | `invalid_response` (bad JSON, a stream without its terminal update) | `Response` |
//! | anything else (bad base URL, sign-in failed) | `Provider` |
//!
//! rig -> AEP:
//!
//! | rig error | AEP code | status |
//! |---|---|---|
//! | provider answered 404 | `model_unavailable` | 404 |
//! | provider answered 401/403 (or `InvalidAuthentication`) | `request_failed` (the configured key was refused: the extension's configuration, not the caller's) | 502 |
//! | provider answered 408/429 | `request_failed` | the provider's |
//! | provider answered another 4xx | `invalid_request` | the provider's |
//! | provider answered 5xx | `provider_unavailable` | the provider's |
//! | an error envelope with no status (in a 200 stream) | `request_failed` | 502 |
//! | `Http` (no connection, reset, timeout) | `provider_unavailable` | 502 |
//! | `Truncated` (the reply ended before the provider ended it) | `invalid_response` | 502 |
//! | `Json`, `Response` (an answer rig cannot read) | `invalid_response` | 502 |
//! | `Request` (the request cannot be built) | `invalid_request` | 400 |
//! | `UnsupportedOption` | `invalid_options` | 422 |
//! | anything else | `request_failed` | 502 |
//!
//! Every AEP error from rig carries `details.rigError` (rig's error kind) and, when the
//! provider answered, `details.upstreamStatus`.

use std::sync::Arc;

use aep_sdk::AepError;
use aep_sdk::client::{ClientError, codes as client_codes};
use aep_sdk::error::codes;
use aep_sdk::protocol::{ErrorBody, ErrorResponse};
use http::StatusCode;
use rig_core::ProviderResponseError;
use rig_core::error::{ErrorKind, ProviderError};
use rig_core::http_client;
use serde_json::Value;

/// The code of an answer rig could not read (spec section 4, client side).
pub const INVALID_RESPONSE: &str = "invalid_response";

/// AEP codes that say the same request may succeed later.
const TRANSIENT: [&str; 3] = [codes::PROVIDER_UNAVAILABLE, codes::TIMEOUT, codes::SHUTTING_DOWN];

fn body_of(remote: &ErrorBody) -> String {
    serde_json::to_string(&ErrorResponse {
        error: remote.clone(),
    })
    .unwrap_or_default()
}

/// An AEP client error as the rig error a rig caller sees.
///
/// ```
/// use aep_rig::map::error::provider_error;
/// use aep_sdk::client::Client;
///
/// # async fn run() {
/// // Nothing listens on port 9 of this host.
/// let error = Client::new("http://127.0.0.1:9").unwrap().health().await.unwrap_err();
/// assert!(provider_error(error).is_retryable());
/// # }
/// ```
pub fn provider_error(error: ClientError) -> ProviderError {
    if let Some(remote) = &error.remote {
        let code = Some(remote.code.clone());
        return match error.status {
            Some(status) if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN => {
                ProviderError::InvalidAuthentication(
                    ProviderResponseError::new(status, body_of(remote)).with_code(code),
                )
            }
            Some(status) => ProviderError::ProviderResponse(
                ProviderResponseError::new(status, body_of(remote)).with_code(code),
            ),
            None => ProviderError::ProviderResponse(
                ProviderResponseError::without_status(body_of(remote))
                    .with_code(code)
                    .with_transient(Some(TRANSIENT.contains(&remote.code.as_str()))),
            ),
        };
    }
    match error.code {
        client_codes::EXTENSION_UNREACHABLE => {
            ProviderError::Http(Arc::new(http_client::Error::Instance(Box::new(error))))
        }
        client_codes::INVALID_RESPONSE => ProviderError::Response(error.to_string()),
        _ => ProviderError::Provider(error.to_string()),
    }
}

/// The message of a provider's error body: `error.message`, a string `error`, a root
/// `message`, else the body itself (at most 500 characters).
fn message_of(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|value| {
        let error = value.get("error");
        error
            .and_then(|e| e.get("message"))
            .or(error.filter(|e| e.is_string()))
            .or_else(|| value.get("message"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    from_json.unwrap_or_else(|| {
        let body = body.trim();
        match body.char_indices().nth(500) {
            Some((cut, _)) => format!("{}...", &body[..cut]),
            None if body.is_empty() => "(empty body)".to_owned(),
            None => body.to_owned(),
        }
    })
}

/// The AEP error for a reply the provider answered with `status` and `body`.
fn answered(upstream: &str, status: Option<StatusCode>, body: &str, refused_key: bool) -> AepError {
    let message = message_of(body);
    let bad_gateway = StatusCode::BAD_GATEWAY;
    let refused_key = refused_key || matches!(status, Some(StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN));
    let error = match status {
        _ if refused_key => AepError::new(
            bad_gateway,
            codes::REQUEST_FAILED,
            format!("{upstream} refused the configured credentials: {message}"),
        ),
        Some(StatusCode::NOT_FOUND) => AepError::model_unavailable(format!("{upstream}: {message}")),
        Some(s) if s == StatusCode::REQUEST_TIMEOUT || s == StatusCode::TOO_MANY_REQUESTS => {
            AepError::new(s, codes::REQUEST_FAILED, format!("{upstream}: {message}"))
        }
        Some(s) if s.is_client_error() => {
            AepError::new(s, codes::INVALID_REQUEST, format!("{upstream}: {message}"))
        }
        Some(s) if s.is_server_error() => {
            AepError::new(s, codes::PROVIDER_UNAVAILABLE, format!("{upstream}: {message}"))
        }
        _ => AepError::new(
            bad_gateway,
            codes::REQUEST_FAILED,
            format!("{upstream} failed: {message}"),
        ),
    };
    match status {
        Some(status) => error.with_detail("upstreamStatus", status.as_u16().to_string()),
        None => error,
    }
}

/// A rig provider error as the AEP error `aep-rig` answers; `upstream` names the
/// provider in messages (e.g. `openai at https://api.openai.com/v1`).
///
/// ```
/// use aep_rig::map::error::aep_error;
/// use rig_core::error::ProviderError;
///
/// let error = aep_error(ProviderError::Truncated, "openai");
/// assert_eq!(error.code(), "invalid_response");
/// assert_eq!(error.status().as_u16(), 502);
/// ```
pub fn aep_error(error: ProviderError, upstream: &str) -> AepError {
    let kind = error.kind().code();
    let bad_gateway = StatusCode::BAD_GATEWAY;
    let mapped = match &error {
        ProviderError::ProviderResponse(response) | ProviderError::CacheExpired { response, .. } => {
            answered(upstream, response.status, &response.body, false)
        }
        ProviderError::InvalidAuthentication(response) => {
            answered(upstream, response.status, &response.body, true)
        }
        ProviderError::Relayed(report) => match report.kind {
            ErrorKind::ProviderResponse => answered(
                upstream,
                report.provider_response_status(),
                report.provider_response_body().unwrap_or(&report.message),
                false,
            ),
            ErrorKind::Http => AepError::provider_unavailable(format!("{upstream}: {}", report.message)),
            _ => AepError::request_failed(format!("{upstream}: {}", report.message)),
        },
        ProviderError::Http(cause) => AepError::provider_unavailable(format!(
            "{upstream} could not be reached or the connection broke: {cause}"
        )),
        ProviderError::Truncated => AepError::new(
            bad_gateway,
            INVALID_RESPONSE,
            format!("{upstream}'s reply ended before it said it was finished (the stream was cut)"),
        ),
        ProviderError::Json(cause) => AepError::new(
            bad_gateway,
            INVALID_RESPONSE,
            format!("{upstream} sent JSON rig cannot read: {cause}"),
        ),
        ProviderError::Response(message) => AepError::new(
            bad_gateway,
            INVALID_RESPONSE,
            format!("{upstream} sent an answer rig cannot read: {message}"),
        ),
        ProviderError::Request(cause) => {
            AepError::invalid_request(format!("the request cannot be sent to {upstream}: {cause}"))
        }
        ProviderError::UnsupportedOption(option) => AepError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            codes::INVALID_OPTIONS,
            format!("{upstream}: {option}"),
        ),
        ProviderError::Url(cause) => {
            AepError::provider_unavailable(format!("{upstream}: a bad URL: {cause}"))
        }
        other => AepError::request_failed(format!("{upstream}: {other}")),
    };
    mapped.with_detail("rigError", kind)
}

/// The AEP error for a reply rig folded but marked failed (`CompletionResponse::error`:
/// no finish reason, a tool call left unfinished, a refusal).
pub fn failed_reply(message: &str) -> AepError {
    AepError::request_failed(format!("the provider's reply failed: {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: u16, body: &str) -> ProviderError {
        ProviderError::from_http_response(StatusCode::from_u16(status).unwrap(), body)
    }

    #[test]
    fn provider_answers_map_by_status() {
        let body = r#"{"error":{"message":"no such model","type":"invalid_request_error"}}"#;
        for (status, code, answered_status) in [
            (404, codes::MODEL_UNAVAILABLE, 404),
            (400, codes::INVALID_REQUEST, 400),
            (422, codes::INVALID_REQUEST, 422),
            (429, codes::REQUEST_FAILED, 429),
            (401, codes::REQUEST_FAILED, 502),
            (403, codes::REQUEST_FAILED, 502),
            (500, codes::PROVIDER_UNAVAILABLE, 500),
            (503, codes::PROVIDER_UNAVAILABLE, 503),
        ] {
            let error = aep_error(response(status, body), "up");
            assert_eq!(
                (error.code(), error.status().as_u16()),
                (code, answered_status),
                "{status}"
            );
            assert!(error.message().contains("no such model"), "{status}: {error}");
            let details = error.body().details.clone().unwrap();
            assert_eq!(details["upstreamStatus"], status.to_string());
            assert_eq!(details["rigError"], "provider_response");
        }
        // An in-band error envelope (no status) failed the request.
        let error = aep_error(ProviderError::from_provider_body(r#"{"error":"boom"}"#), "up");
        assert_eq!(
            (error.code(), error.status().as_u16()),
            (codes::REQUEST_FAILED, 502)
        );
        assert!(error.message().contains("boom"));
        // A body that is not JSON is quoted, cut at 500 characters.
        let long = "x".repeat(600);
        let error = aep_error(response(500, &long), "up");
        assert!(error.message().ends_with("..."), "{}", error.message());
        assert!(error.message().len() < 520);
    }

    #[test]
    fn rig_failures_map_by_kind() {
        let truncated = aep_error(ProviderError::Truncated, "up");
        assert_eq!(
            (truncated.code(), truncated.status().as_u16()),
            (INVALID_RESPONSE, 502)
        );
        assert_eq!(truncated.body().details.clone().unwrap()["rigError"], "response");
        let request = aep_error(ProviderError::request("an empty message"), "up");
        assert_eq!(
            (request.code(), request.status().as_u16()),
            (codes::INVALID_REQUEST, 400)
        );
        let unparsed = aep_error(ProviderError::Response("a chunk without choices".into()), "up");
        assert_eq!(unparsed.code(), INVALID_RESPONSE);
        let provider = aep_error(ProviderError::Provider("refused".into()), "up");
        assert_eq!(provider.code(), codes::REQUEST_FAILED);
    }

    #[test]
    fn aep_errors_keep_their_code_message_and_status_in_rig() {
        let mut remote = ClientError {
            code: client_codes::EXTENSION_REQUEST_FAILED,
            message: "http://x/chat: no model".into(),
            status: Some(StatusCode::NOT_FOUND),
            remote: Some(Box::new(ErrorBody::new(codes::MODEL_UNAVAILABLE, "no model"))),
        };
        let error = provider_error(remote.clone());
        let ProviderError::ProviderResponse(response) = &error else {
            panic!("{error:?}")
        };
        assert_eq!(response.status, Some(StatusCode::NOT_FOUND));
        assert_eq!(response.machine_code().as_deref(), Some("model_unavailable"));
        assert!(error.to_string().contains("no model"));
        assert!(!error.is_retryable());

        remote.status = Some(StatusCode::UNAUTHORIZED);
        assert!(matches!(
            provider_error(remote.clone()),
            ProviderError::InvalidAuthentication(_)
        ));

        // A terminal error update: no status; retryable when the code says so.
        remote.status = None;
        assert!(!provider_error(remote.clone()).is_retryable());
        remote.remote = Some(Box::new(ErrorBody::new(codes::PROVIDER_UNAVAILABLE, "down")));
        let error = provider_error(remote);
        assert_eq!(error.provider_response_status(), None);
        assert!(error.is_retryable());
    }
}
