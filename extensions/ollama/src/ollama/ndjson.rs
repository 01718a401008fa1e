//! Ollama's NDJSON stream, read with the SDK's bounded [`aep_sdk::client::LineReader`]
//! (bounded silence between reads, bounded line length, lines split at `\n` whatever the
//! chunking); its failures become [`OllamaError`]s.

use bytes::Bytes;

use super::error::OllamaError;

/// Reads one line at a time. Dropping it drops the body, which closes the connection.
#[derive(Debug)]
pub struct LineReader(aep_sdk::client::LineReader);

impl LineReader {
    /// Reads `reader`'s lines.
    pub fn new(reader: aep_sdk::client::LineReader) -> Self {
        Self(reader)
    }

    /// The next non-blank line without its `\n` (and a `\r` before it), or `None` at
    /// the end of the body. Text after the last `\n` counts as a last line.
    pub async fn next_line(&mut self) -> Result<Option<Bytes>, OllamaError> {
        self.0.next_line().await.map_err(|error| match error {
            aep_sdk::client::LineError::TooLong { max } => OllamaError::LineTooLong { max },
            aep_sdk::client::LineError::Idle { after } => OllamaError::Timeout {
                after,
                during: "mid-stream",
            },
            aep_sdk::client::LineError::Body(reason) => OllamaError::ConnectionLost {
                during: "mid-stream",
                reason,
            },
        })
    }
}
