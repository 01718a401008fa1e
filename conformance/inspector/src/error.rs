//! [`ApiError`]: how every `/api` route fails: an HTTP status and
//! `{"error": {"code", "message", "details"?}}`, the shape AEP errors have, so the page
//! shows one kind of message whatever went wrong.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// Codes of the Inspector's own failures (the others are passed on from the SDK's
/// client, the host and the extension).
pub mod codes {
    /// No connection has this id (it was closed, or the Inspector restarted).
    pub const CONNECTION_NOT_FOUND: &str = "connection_not_found";
    /// The request to the Inspector itself is malformed.
    pub const BAD_REQUEST: &str = "bad_request";
    /// Something answered on the discovery route, but not an AEP manifest.
    pub const NOT_AEP: &str = "not_an_aep_extension";
    /// The extension sent no SSE frame within the stall bound.
    pub const STREAM_STALLED: &str = "stream_stalled";
    /// The extension did not answer within the Inspector's bound.
    pub const TIMED_OUT: &str = "timed_out";
    /// The extension is an OAuth 2.1 protected resource: sign in to connect.
    pub const SIGN_IN_REQUIRED: &str = "sign_in_required";
    /// Nobody came back from the authorization server in time.
    pub const SIGN_IN_EXPIRED: &str = "sign_in_expired";
    /// The sign-in was cancelled, or signed out of, before it ended.
    pub const SIGN_IN_CANCELLED: &str = "sign_in_cancelled";
    /// No sign-in has this id (signed out, replaced, or the Inspector restarted).
    pub const SIGN_IN_NOT_FOUND: &str = "sign_in_not_found";
}

/// A failed `/api` call.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status of the Inspector's answer.
    pub status: StatusCode,
    /// Stable code (`extension_unreachable`, `not_an_aep_extension`, ...).
    pub code: String,
    /// A sentence for people, naming the URL concerned.
    pub message: String,
    /// More lines (manifest problems, the first bytes of an HTML page).
    pub details: Vec<String>,
}

impl ApiError {
    /// An error with a status, a code and a message.
    pub fn new(status: StatusCode, code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            status,
            code: code.into(),
            message: message.into(),
            details: Vec::new(),
        }
    }

    /// A 400 for a malformed request to the Inspector.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, codes::BAD_REQUEST, message)
    }

    /// A 502: the extension failed (the Inspector itself is fine).
    pub fn upstream(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_GATEWAY, code, message)
    }

    /// Adds detail lines.
    pub fn with_details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }

    /// The JSON body.
    pub fn body(&self) -> Value {
        let mut error = json!({"code": self.code, "message": self.message});
        if !self.details.is_empty() {
            error["details"] = json!(self.details);
        }
        json!({ "error": error })
    }
}

impl From<aep_sdk::client::ClientError> for ApiError {
    fn from(error: aep_sdk::client::ClientError) -> Self {
        let mut message = error.message.clone();
        if let Some(remote) = &error.remote {
            message = format!("{message} (the extension's code: {})", remote.code);
        }
        Self::upstream(error.code, message)
    }
}

impl From<aep_host::HostError> for ApiError {
    fn from(error: aep_host::HostError) -> Self {
        let status = match error.code {
            aep_host::ErrorCode::InvalidArguments => StatusCode::UNPROCESSABLE_ENTITY,
            aep_host::ErrorCode::ToolNotFound => StatusCode::NOT_FOUND,
            _ => StatusCode::BAD_GATEWAY,
        };
        Self::new(status, error.code.as_str(), error.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body())).into_response()
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ApiError {}
