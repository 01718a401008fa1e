//! [`ConfigError`]: why an OpenAI-compatible extension cannot start.

use std::path::PathBuf;

/// What stops an OpenAI-compatible extension from starting; an
/// [`aep_sdk::Error::Extension`] carries it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The upstream endpoint is not an absolute HTTP(S) URL (`message` as the C#
    /// extension words it, or naming the flag).
    #[error("{0}")]
    Endpoint(String),
    /// The API key file cannot be read.
    #[error("cannot read the API key file {}: {source}", path.display())]
    KeyFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The API key cannot be sent in an `Authorization` header.
    #[error("the API key is not a valid header value")]
    ApiKeyHeader,
    /// The HTTP client cannot be built (its TLS setup).
    #[error("cannot build the HTTP client: {0}")]
    HttpClient(String),
}

impl From<ConfigError> for aep_sdk::Error {
    fn from(error: ConfigError) -> Self {
        aep_sdk::Error::extension(error)
    }
}
