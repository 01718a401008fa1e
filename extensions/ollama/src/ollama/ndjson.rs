//! An NDJSON line reader over an HTTP body: bounded silence between reads, bounded
//! line length, lines split at `\n` whatever the chunking (a UTF-8 sequence or a
//! line may straddle chunks).

use std::pin::Pin;
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use futures::{Stream, StreamExt};

use super::error::{OllamaError, error_chain};

/// A body as a stream of byte chunks.
pub type ByteStream = Pin<Box<dyn Stream<Item = Result<Bytes, reqwest::Error>> + Send>>;

/// Reads one line at a time. Dropping it drops the body, which closes the connection.
pub struct LineReader {
    body: ByteStream,
    buffer: BytesMut,
    /// Bytes of `buffer` already searched for `\n`.
    scanned: usize,
    idle: Duration,
    max_line: usize,
    ended: bool,
}

impl LineReader {
    /// Reads `body`, allowing `idle` of silence between chunks and lines of at most
    /// `max_line` bytes.
    pub fn new(
        body: impl Stream<Item = Result<Bytes, reqwest::Error>> + Send + 'static,
        idle: Duration,
        max_line: usize,
    ) -> Self {
        Self {
            body: body.boxed(),
            buffer: BytesMut::new(),
            scanned: 0,
            idle,
            max_line,
            ended: false,
        }
    }

    /// The next non-blank line without its `\n` (and a `\r` before it), or `None` at
    /// the end of the body. Text after the last `\n` counts as a last line.
    pub async fn next_line(&mut self) -> Result<Option<Bytes>, OllamaError> {
        loop {
            if let Some(offset) = self.buffer[self.scanned..].iter().position(|&b| b == b'\n') {
                let end = self.scanned + offset;
                if end > self.max_line {
                    return Err(OllamaError::LineTooLong { max: self.max_line });
                }
                self.scanned = 0;
                let mut line = self.buffer.split_to(end).freeze();
                self.buffer.advance(1);
                if line.last() == Some(&b'\r') {
                    line.truncate(line.len() - 1);
                }
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                return Ok(Some(line));
            }
            self.scanned = self.buffer.len();
            if self.buffer.len() > self.max_line {
                return Err(OllamaError::LineTooLong { max: self.max_line });
            }
            if self.ended {
                if self.buffer.iter().all(u8::is_ascii_whitespace) {
                    return Ok(None);
                }
                self.scanned = 0;
                return Ok(Some(self.buffer.split().freeze()));
            }
            match tokio::time::timeout(self.idle, self.body.next()).await {
                Err(_) => {
                    return Err(OllamaError::Timeout {
                        after: self.idle,
                        during: "mid-stream",
                    });
                }
                Ok(None) => self.ended = true,
                Ok(Some(Ok(chunk))) => self.buffer.extend_from_slice(&chunk),
                Ok(Some(Err(error))) => {
                    return Err(OllamaError::ConnectionLost {
                        during: "mid-stream",
                        reason: error_chain(&error),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(chunks: Vec<&'static [u8]>, max_line: usize) -> LineReader {
        let items: Vec<Result<Bytes, reqwest::Error>> =
            chunks.into_iter().map(|c| Ok(Bytes::from_static(c))).collect();
        LineReader::new(futures::stream::iter(items), Duration::from_secs(1), max_line)
    }

    async fn all(mut reader: LineReader) -> Result<Vec<String>, OllamaError> {
        let mut lines = Vec::new();
        while let Some(line) = reader.next_line().await? {
            lines.push(String::from_utf8_lossy(&line).into_owned());
        }
        Ok(lines)
    }

    #[tokio::test]
    async fn lines_across_chunks() {
        // "é" is split between two chunks; a blank line and a CRLF are tolerated.
        let chunks: Vec<&'static [u8]> = vec![b"{\"a\":1}\n{\"b\":\"\xc3", b"\xa9\"}\r\n\n{\"c\"", b":3}"];
        let lines = all(reader(chunks, 64)).await.expect("lines");
        assert_eq!(lines, ["{\"a\":1}", "{\"b\":\"é\"}", "{\"c\":3}"]);
    }

    #[tokio::test]
    async fn overlong_line_is_refused() {
        let error = all(reader(vec![b"0123456789", b"0123456789\n"], 15))
            .await
            .unwrap_err();
        assert_eq!(error, OllamaError::LineTooLong { max: 15 });
        let error = all(reader(vec![b"01234567890123456789\n"], 15))
            .await
            .unwrap_err();
        assert_eq!(error, OllamaError::LineTooLong { max: 15 });
        // Exactly at the limit is fine.
        let lines = all(reader(vec![b"012345678901234\n"], 15)).await.expect("lines");
        assert_eq!(lines.len(), 1);
    }

    #[tokio::test]
    async fn silence_is_bounded() {
        let body = futures::stream::pending();
        let mut reader = LineReader::new(body, Duration::from_millis(50), 64);
        let started = std::time::Instant::now();
        let error = reader.next_line().await.unwrap_err();
        assert!(matches!(error, OllamaError::Timeout { .. }), "{error:?}");
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}
