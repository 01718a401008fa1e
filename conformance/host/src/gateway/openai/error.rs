//! OpenAI's error envelope, `{"error": {"message", "type", "param", "code"}}`, with the
//! statuses the OpenAI API answers, and how an AEP client failure becomes one.
//!
//! The gateway never repeats an extension's URL to its clients (they are the operator's
//! internals): the message names the model and the extension id, the full failure goes
//! to the log.

use aep_sdk::AepError;
use aep_sdk::client::{ClientError, codes};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// `type` of a request the client got wrong (OpenAI uses it for 401 and 404 too).
const INVALID_REQUEST: &str = "invalid_request_error";
/// `type` of a failure on the serving side.
const SERVER_ERROR: &str = "server_error";

/// One OpenAI error answer.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct OpenAiError {
    pub status: StatusCode,
    pub message: String,
    pub kind: &'static str,
    pub param: Option<String>,
    pub code: Option<String>,
}

impl OpenAiError {
    /// A 400 `invalid_request_error`.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
            kind: INVALID_REQUEST,
            param: None,
            code: None,
        }
    }

    /// A 400 about the request member `param`, with an OpenAI error `code` if any.
    pub fn param(param: impl Into<String>, code: Option<&str>, message: impl Into<String>) -> Self {
        Self {
            param: Some(param.into()),
            code: code.map(str::to_owned),
            ..Self::invalid(message)
        }
    }

    /// A 400 for a member this gateway knows and does not implement.
    pub fn unsupported(param: &str, why: &str) -> Self {
        Self::param(
            param,
            Some("unsupported_parameter"),
            format!("'{param}' is not supported by this gateway: {why}"),
        )
    }

    /// 404 `model_not_found`, in OpenAI's words.
    pub fn model_not_found(model: &str) -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            message: format!("The model `{model}` does not exist or you do not have access to it."),
            kind: INVALID_REQUEST,
            param: Some("model".to_owned()),
            code: Some("model_not_found".to_owned()),
        }
    }

    fn server(status: StatusCode, code: &str, message: String) -> Self {
        Self {
            status,
            message,
            kind: SERVER_ERROR,
            param: None,
            code: Some(code.to_owned()),
        }
    }

    /// A request body the runtime's extractor refused (malformed JSON, wrong content
    /// type, too large, stalled): its status, in this envelope.
    pub fn from_body_rejection(error: &AepError) -> Self {
        Self {
            status: error.status(),
            message: error.message().to_owned(),
            kind: INVALID_REQUEST,
            param: None,
            code: None,
        }
    }

    /// What the AEP call for `model` (of extension `extension`) failing means to an
    /// OpenAI client. An extension refusing the gateway's own credentials is the
    /// gateway's problem (502), not the client's key being wrong (401).
    pub fn from_client(error: &ClientError, model: &str, extension: &str) -> Self {
        tracing::warn!(%model, %extension, "the model call failed: {error}");
        let remote = error.remote.as_deref();
        let said = remote.map_or(String::new(), |r| format!(": {}", r.message));
        let status = error.status.map(|s| s.as_u16());
        match (status, remote.map(|r| r.code.as_str())) {
            (_, Some("model_unavailable")) | (Some(404), Some("provider_unavailable")) => Self {
                message: format!("The model `{model}` is not available{said}"),
                ..Self::model_not_found(model)
            },
            (Some(401 | 403), _) => Self::server(
                StatusCode::BAD_GATEWAY,
                "upstream_unauthorized",
                format!("extension '{extension}' refused the gateway's credentials{said}"),
            ),
            (Some(429), _) => Self {
                status: StatusCode::TOO_MANY_REQUESTS,
                message: format!("The model provider of `{model}` is rate limited{said}"),
                kind: "requests",
                param: None,
                code: Some("rate_limit_exceeded".to_owned()),
            },
            (Some(400..=499), code) => Self {
                code: code.map(str::to_owned),
                ..Self::invalid(format!(
                    "The model provider of `{model}` refused the request{said}"
                ))
            },
            (Some(503), _) => Self::server(
                StatusCode::SERVICE_UNAVAILABLE,
                "provider_unavailable",
                format!("The model provider of `{model}` is unavailable{said}"),
            ),
            (Some(504), _) => Self::server(
                StatusCode::GATEWAY_TIMEOUT,
                "timeout",
                format!("The model provider of `{model}` timed out{said}"),
            ),
            _ if error.code == codes::EXTENSION_UNREACHABLE => Self::server(
                StatusCode::SERVICE_UNAVAILABLE,
                codes::EXTENSION_UNREACHABLE,
                format!("extension '{extension}', which serves `{model}`, could not be reached"),
            ),
            _ => Self::server(
                StatusCode::BAD_GATEWAY,
                remote.map_or(error.code, |r| r.code.as_str()),
                format!("The model provider of `{model}` failed{said}"),
            ),
        }
    }

    /// `{"error": {...}}`.
    pub fn body(&self) -> Value {
        json!({"error": {
            "message": self.message,
            "type": self.kind,
            "param": self.param,
            "code": self.code,
        }})
    }
}

impl IntoResponse for OpenAiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(self.body())).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_has_all_four_members() {
        let body = OpenAiError::model_not_found("x/y").body();
        assert_eq!(
            body,
            json!({"error": {
                "message": "The model `x/y` does not exist or you do not have access to it.",
                "type": "invalid_request_error", "param": "model", "code": "model_not_found"}})
        );
        assert_eq!(OpenAiError::invalid("no").body()["error"]["param"], Value::Null);
    }
}
