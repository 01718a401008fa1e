//! The client's error type, with the spec's client-side codes.

use std::fmt;

use http::StatusCode;

use crate::protocol::ErrorBody;

/// Client-side error codes (spec sections 4 and 6).
pub mod codes {
    /// The extension could not be reached (connect error, timeout).
    pub const EXTENSION_UNREACHABLE: &str = "extension_unreachable";
    /// The manifest's `protocolVersion` is not the one asked for.
    pub const PROTOCOL_INCOMPATIBLE: &str = "protocol_incompatible";
    /// The answer is not what the protocol says (bad JSON, wrong shape, bad framing).
    pub const INVALID_RESPONSE: &str = "invalid_response";
    /// The extension answered with an error.
    pub const EXTENSION_REQUEST_FAILED: &str = "extension_request_failed";
    /// The manifest breaks a rule of spec section 1.
    pub const DESCRIPTOR_INVALID: &str = "aep_descriptor_invalid";
    /// The client was given a bad base URL or argument.
    pub const ENDPOINT_INVALID: &str = "endpoint_invalid";
    /// The extension refused the call (401/403) and its
    /// [`TokenSource`](crate::client::TokenSource) could not sign in (the message says why).
    pub const AUTHORIZATION_FAILED: &str = "authorization_failed";
}

/// Why a call failed. `code` is one of [`codes`]; when the extension answered with an
/// AEP error, `remote` holds it and `status` its HTTP status.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientError {
    /// Client-side code.
    pub code: &'static str,
    /// What went wrong, with the URL or member concerned.
    pub message: String,
    /// HTTP status, when there was an answer.
    pub status: Option<StatusCode>,
    /// The extension's own error, when it sent one.
    pub remote: Option<Box<ErrorBody>>,
}

impl ClientError {
    pub(crate) fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            status: None,
            remote: None,
        }
    }

    /// The remote error code, if the extension sent an AEP error.
    pub fn remote_code(&self) -> Option<&str> {
        self.remote.as_ref().map(|r| r.code.as_str())
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)?;
        if let Some(status) = self.status {
            write!(f, " (HTTP {})", status.as_u16())?;
        }
        if let Some(remote) = &self.remote {
            write!(f, " [{}: {}]", remote.code, remote.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for ClientError {}
