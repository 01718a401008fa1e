//! [`ConfigError`]: why the Ollama extension cannot start.

/// What stops the Ollama extension from starting; an [`aep_sdk::Error::Extension`]
/// carries it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The HTTP client cannot be built (its TLS setup).
    #[error("cannot build the HTTP client: {0}")]
    HttpClient(String),
}

impl From<ConfigError> for aep_sdk::Error {
    fn from(error: ConfigError) -> Self {
        aep_sdk::Error::extension(error)
    }
}
