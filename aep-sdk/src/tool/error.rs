//! [`ToolError`]: what a tool, resource or prompt returns to report a failure.

use std::fmt;

use rmcp::ErrorData;

/// A failure of a tool, resource read or prompt.
///
/// Returned as `Err` from a `#[tool]` method, it becomes an MCP tool result with
/// `isError: true` and the message as text, so the model can read it and try again; it
/// is not a protocol error. From a `#[resource]` or `#[prompt]` method it becomes a
/// JSON-RPC error: [`ToolError::not_found`] is MCP's "resource not found" (-32002),
/// [`ToolError::invalid_params`] is -32602, anything else an internal error (-32603).
///
/// ```
/// use aep_sdk::tool::ToolError;
///
/// let error = ToolError::new("the file is empty");
/// assert_eq!(error.to_string(), "the file is empty");
/// let from_io: ToolError = std::io::Error::other("disk full").into();
/// assert_eq!(from_io.to_string(), "disk full");
/// assert_eq!(ToolError::not_found("no note 7").into_error_data().code.0, -32002);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: String,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Failed,
    NotFound,
    InvalidParams,
}

impl ToolError {
    /// A failure with a message for the model (or the client).
    pub fn new(message: impl fmt::Display) -> Self {
        Self::of(Kind::Failed, message)
    }

    /// What was asked for does not exist (a resource read answers MCP's -32002).
    pub fn not_found(message: impl fmt::Display) -> Self {
        Self::of(Kind::NotFound, message)
    }

    /// The request's parameters are wrong (a resource read or prompt answers -32602).
    pub fn invalid_params(message: impl fmt::Display) -> Self {
        Self::of(Kind::InvalidParams, message)
    }

    fn of(kind: Kind, message: impl fmt::Display) -> Self {
        Self {
            message: message.to_string(),
            kind,
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The JSON-RPC error a resource read or prompt answers with.
    pub fn into_error_data(self) -> ErrorData {
        match self.kind {
            Kind::Failed => ErrorData::internal_error(self.message, None),
            Kind::NotFound => ErrorData::resource_not_found(self.message, None),
            Kind::InvalidParams => ErrorData::invalid_params(self.message, None),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error> From<E> for ToolError {
    fn from(error: E) -> Self {
        Self::new(error)
    }
}
