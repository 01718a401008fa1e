//! [`ToolError`]: what a tool returns to report a failure to the model.

use std::fmt;

/// A tool failure. Returned as `Err` from a `#[tool]` method, it becomes an MCP tool
/// result with `isError: true` and the message as text, so the model can read it and
/// try again; it is not a protocol error.
///
/// ```
/// use aep_sdk::tool::ToolError;
///
/// let error = ToolError::new("the file is empty");
/// assert_eq!(error.to_string(), "the file is empty");
/// let from_io: ToolError = std::io::Error::other("disk full").into();
/// assert_eq!(from_io.to_string(), "disk full");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError(String);

impl ToolError {
    /// A failure with a message for the model.
    pub fn new(message: impl fmt::Display) -> Self {
        Self(message.to_string())
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<E: std::error::Error> From<E> for ToolError {
    fn from(error: E) -> Self {
        Self(error.to_string())
    }
}
