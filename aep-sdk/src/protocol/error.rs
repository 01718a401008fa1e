//! The error document every non-2xx AEP answer carries.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `{"error": {...}}`: the body of every non-2xx AEP answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorResponse {
    /// The error itself.
    pub error: ErrorBody,
}

/// A structured AEP error: a stable `code`, a human `message`, and optional context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// Stable machine-readable code, e.g. `provider_unavailable`.
    pub code: String,
    /// What went wrong, for a person.
    pub message: String,
    /// What the error concerns (a path, a provider id, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Extra string facts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<BTreeMap<String, String>>,
}

impl ErrorBody {
    /// An error with a code and a message.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            target: None,
            details: None,
        }
    }
}
