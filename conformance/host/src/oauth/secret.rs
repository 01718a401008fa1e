//! [`Secret`]: a token or client secret that never shows in `Debug`, `Display` or logs.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A token, refresh token or client secret. `Debug` prints `<redacted>`; the value comes
/// out only through [`Secret::expose`], where it is sent.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value, to send it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Reads a secret from a file (the first line, without surrounding whitespace), as
    /// `--oauth-client-secret-file` does. The error never contains the file's content.
    pub fn from_file(path: &std::path::Path) -> crate::error::Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            crate::HostError::new(
                crate::ErrorCode::ConfigurationInvalid,
                format!("cannot read the client secret file {}: {e}", path.display()),
            )
        })?;
        let secret = text.lines().next().unwrap_or_default().trim();
        if secret.is_empty() {
            return Err(crate::HostError::new(
                crate::ErrorCode::ConfigurationInvalid,
                format!("the client secret file {} is empty", path.display()),
            ));
        }
        Ok(Self(secret.to_owned()))
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}
