//! The Chat Completions stream: `data:` lines read with the SDK's bounded line reader.
//! As the reference does, every `data:` line is one event (lines of other fields,
//! comments and blank lines are skipped) and `data: [DONE]` ends it.

use serde_json::Value;

use super::error::UpstreamError;
use aep_sdk::client::{LineError, LineReader};

/// One event of the stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A chunk.
    Chunk(Value),
    /// `[DONE]`.
    Done,
}

/// Reads events. Dropping it drops the body, which closes the connection.
#[derive(Debug)]
pub struct EventReader(LineReader);

impl EventReader {
    /// Reads `lines`.
    pub fn new(lines: LineReader) -> Self {
        Self(lines)
    }

    /// The next event, or `None` at the end of the body.
    pub async fn next_event(&mut self) -> Result<Option<Event>, UpstreamError> {
        loop {
            let line = self.0.next_line().await.map_err(|error| match error {
                LineError::TooLong { max } => UpstreamError::LineTooLong { max },
                LineError::Idle { after } => UpstreamError::Timeout {
                    after,
                    during: "mid-stream",
                },
                LineError::Body(reason) => UpstreamError::ConnectionLost { reason },
            })?;
            let Some(line) = line else { return Ok(None) };
            let Some(data) = line.strip_prefix(b"data:") else {
                continue;
            };
            let data = data.trim_ascii_start();
            if data.is_empty() {
                continue;
            }
            if data == b"[DONE]" {
                return Ok(Some(Event::Done));
            }
            return serde_json::from_slice(data)
                .map(|v| Some(Event::Chunk(v)))
                .map_err(|e| {
                    let shown = String::from_utf8_lossy(&data[..data.len().min(120)]).into_owned();
                    UpstreamError::Malformed(format!("data line ({e}): {shown}"))
                });
        }
    }
}
