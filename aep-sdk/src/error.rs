//! Errors: [`AepError`] is what an AEP route answers; [`Error`] is what starting or
//! serving an extension can fail with.

use std::collections::BTreeMap;
use std::fmt;

use axum::response::{IntoResponse, Response};
use http::StatusCode;

use crate::protocol::{ErrorBody, ErrorResponse};

/// A structured AEP error with its HTTP status. Every non-2xx answer of every AEP
/// route is one of these, serialized as `{"error":{"code","message",...}}`.
///
/// ```
/// use aep_sdk::AepError;
///
/// let error = AepError::model_unavailable("model 'x' not found");
/// assert_eq!(error.status().as_u16(), 404);
/// assert_eq!(error.code(), "model_unavailable");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct AepError {
    status: StatusCode,
    body: ErrorBody,
}

/// The error codes of spec section 4.
pub mod codes {
    /// Unknown provider (404) or upstream unreachable (502).
    pub const PROVIDER_UNAVAILABLE: &str = "provider_unavailable";
    /// The upstream rejected the request (502).
    pub const REQUEST_FAILED: &str = "request_failed";
    /// Unknown or unusable model (400/404).
    pub const MODEL_UNAVAILABLE: &str = "model_unavailable";
    /// Malformed or invalid request (400, 413, 415).
    pub const INVALID_REQUEST: &str = "invalid_request";
    /// Native option values fail their schema (422).
    pub const INVALID_OPTIONS: &str = "invalid_options";
    /// Unknown option set (422).
    pub const OPTION_SET_UNSUPPORTED: &str = "option_set_unsupported";
    /// Unknown option-set version (422).
    pub const OPTION_VERSION_UNSUPPORTED: &str = "option_version_unsupported";
    /// Schema digest differs from the published one (422).
    pub const OPTION_SCHEMA_MISMATCH: &str = "option_schema_mismatch";
    /// No migration path (422).
    pub const OPTION_MIGRATION_UNSUPPORTED: &str = "option_migration_unsupported";
    /// A migration step failed or produced invalid values (422).
    pub const OPTION_MIGRATION_FAILED: &str = "option_migration_failed";
    /// No such route (404).
    pub const NOT_FOUND: &str = "not_found";
    /// Wrong HTTP method (405).
    pub const METHOD_NOT_ALLOWED: &str = "method_not_allowed";
    /// A bug in the extension: a panic or an unexpected failure (500).
    pub const INTERNAL_ERROR: &str = "internal_error";
    /// Missing or wrong credentials (401).
    pub const UNAUTHORIZED: &str = "unauthorized";
    /// The OAuth access token lacks a scope the request needs (403; the
    /// `WWW-Authenticate` header names the scopes to ask for).
    pub const INSUFFICIENT_SCOPE: &str = "insufficient_scope";
    /// The access token cannot be checked now: its authorization server is unreachable
    /// or misbehaves (503).
    pub const AUTHORIZATION_UNAVAILABLE: &str = "authorization_unavailable";
    /// A browser `Origin` the extension does not accept (403, DNS-rebinding rule).
    pub const ORIGIN_NOT_ALLOWED: &str = "origin_not_allowed";
    /// The extension is shutting down (503).
    pub const SHUTTING_DOWN: &str = "shutting_down";
    /// The upstream did not answer in time (504).
    pub const TIMEOUT: &str = "timeout";

    /// Every code above.
    pub const ALL: [&str; 19] = [
        PROVIDER_UNAVAILABLE,
        REQUEST_FAILED,
        MODEL_UNAVAILABLE,
        INVALID_REQUEST,
        INVALID_OPTIONS,
        OPTION_SET_UNSUPPORTED,
        OPTION_VERSION_UNSUPPORTED,
        OPTION_SCHEMA_MISMATCH,
        OPTION_MIGRATION_UNSUPPORTED,
        OPTION_MIGRATION_FAILED,
        NOT_FOUND,
        METHOD_NOT_ALLOWED,
        INTERNAL_ERROR,
        UNAUTHORIZED,
        INSUFFICIENT_SCOPE,
        AUTHORIZATION_UNAVAILABLE,
        ORIGIN_NOT_ALLOWED,
        SHUTTING_DOWN,
        TIMEOUT,
    ];

    /// `code` if it is one of the codes above, else `"other"`: a label value of bounded
    /// cardinality (extensions may use codes of their own).
    pub(crate) fn bounded(code: &str) -> &'static str {
        ALL.into_iter().find(|c| *c == code).unwrap_or("other")
    }
}

/// The code of an AEP error answer, in the response's extensions for the metrics layer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResponseCode(pub(crate) &'static str);

/// The refusal of native options naming an option set that provider `provider` does not
/// have (every set, when the extension declares none).
pub(crate) fn option_set_unsupported(option_set: &str, provider: &str) -> AepError {
    AepError::unprocessable(
        codes::OPTION_SET_UNSUPPORTED,
        format!("Option set '{option_set}' is not supported by model provider '{provider}'."),
    )
    .with_target("options.nativeOptions.optionSet")
}

impl AepError {
    /// An error with any status and code.
    pub fn new(status: StatusCode, code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            status,
            body: ErrorBody::new(code, message),
        }
    }

    /// Sets `target` (what the error concerns: a path, an id).
    pub fn with_target(mut self, target: impl Into<String>) -> Self {
        self.body.target = Some(target.into());
        self
    }

    /// Adds one `details` entry.
    pub fn with_detail(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.body
            .details
            .get_or_insert_with(BTreeMap::new)
            .insert(key.into(), value.into());
        self
    }

    /// 404 `provider_unavailable`: no provider with that id.
    pub fn unknown_provider(id: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            codes::PROVIDER_UNAVAILABLE,
            format!("model provider '{id}' is not available"),
        )
        .with_target(id)
    }

    /// 502 `provider_unavailable`: the upstream could not be reached.
    pub fn provider_unavailable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_GATEWAY, codes::PROVIDER_UNAVAILABLE, message)
    }

    /// 502 `request_failed`: the upstream rejected the request.
    pub fn request_failed(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_GATEWAY, codes::REQUEST_FAILED, message)
    }

    /// 404 `model_unavailable`.
    pub fn model_unavailable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, codes::MODEL_UNAVAILABLE, message)
    }

    /// 400 `invalid_request`.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, message)
    }

    /// 422 with one of the option codes.
    pub fn unprocessable(code: &str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }

    /// 500 `internal_error`.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, codes::INTERNAL_ERROR, message)
    }

    /// Rebuilds an error from a wire body (e.g. a terminal stream update).
    pub fn from_body(status: StatusCode, body: ErrorBody) -> Self {
        Self { status, body }
    }

    /// HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// Error code.
    pub fn code(&self) -> &str {
        &self.body.code
    }

    /// Message.
    pub fn message(&self) -> &str {
        &self.body.message
    }

    /// The wire body.
    pub fn body(&self) -> &ErrorBody {
        &self.body
    }

    /// The wire body, owned.
    pub fn into_body(self) -> ErrorBody {
        self.body
    }
}

impl fmt::Display for AepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.body.code,
            self.status.as_u16(),
            self.body.message
        )
    }
}

impl std::error::Error for AepError {}

impl IntoResponse for AepError {
    fn into_response(self) -> Response {
        let status = self.status;
        let code = ResponseCode(codes::bounded(&self.body.code));
        let mut response = (status, axum::Json(ErrorResponse { error: self.body })).into_response();
        response.extensions_mut().insert(code);
        response
    }
}

/// Why an extension could not start or stopped serving.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The declaration (identity, providers, tools, option sets, scopes, sign-in) breaks
    /// a rule: every problem found, each with where it is.
    #[error("invalid extension declaration:\n{}", .0.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    Declaration(Vec<crate::validate::Problem>),
    /// Could not bind the listen address.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: String,
        /// The cause.
        source: std::io::Error,
    },
    /// Serving failed.
    #[error("server failed: {0}")]
    Serve(#[from] std::io::Error),
    /// Bad command-line or environment configuration of the SDK's own options
    /// ([`ServeArgs`](crate::server::ServeArgs)).
    #[error("{0}")]
    Config(String),
    /// An extension's own failure to start (its configuration, its upstream client),
    /// kept as the extension's error type: `source()` and `downcast_ref` find it.
    #[error(transparent)]
    Extension(Box<dyn std::error::Error + Send + Sync + 'static>),
}

impl Error {
    /// Wraps an extension's own error (see [`Error::Extension`]).
    ///
    /// ```
    /// #[derive(Debug, thiserror::Error)]
    /// #[error("the endpoint is not a URL")]
    /// struct BadEndpoint;
    ///
    /// let error = aep_sdk::Error::extension(BadEndpoint);
    /// assert_eq!(error.to_string(), "the endpoint is not a URL");
    /// assert!(matches!(&error, aep_sdk::Error::Extension(e) if e.is::<BadEndpoint>()));
    /// ```
    pub fn extension(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Extension(Box::new(error))
    }
}
