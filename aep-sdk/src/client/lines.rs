//! Reading an upstream's streamed body one line at a time, with every wait bounded: the
//! silence between two chunks and the length of a line. What provider extensions put
//! in front of a model server's NDJSON (Ollama) or SSE (OpenAI-compatible) stream.

use std::fmt;
use std::pin::Pin;
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use futures::{Stream, StreamExt};

type ByteStream = Pin<Box<dyn Stream<Item = Result<Bytes, String>> + Send>>;

/// Why a line could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    /// A line longer than the bound.
    TooLong {
        /// The bound, in bytes.
        max: usize,
    },
    /// No byte arrived for this long.
    Idle {
        /// The bound.
        after: Duration,
    },
    /// The body failed (connection reset, broken chunking...), with the reason.
    Body(String),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::TooLong { max } => write!(f, "a line is longer than {max} bytes"),
            LineError::Idle { after } => write!(f, "no data for {after:?}"),
            LineError::Body(reason) => write!(f, "the connection failed: {reason}"),
        }
    }
}

impl std::error::Error for LineError {}

/// Splits a body into lines at `\n` (a `\r` before it is dropped) whatever the
/// chunking: a line or a UTF-8 sequence may straddle chunks. Blank lines are skipped.
/// Dropping the reader drops the body, which closes the connection.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use aep_sdk::client::LineReader;
/// use bytes::Bytes;
/// use std::time::Duration;
///
/// let chunks = [b"data: {\"a\"".as_slice(), b":1}\r\n\ndata: [DONE]\n"]
///     .map(|c| Ok::<_, std::io::Error>(Bytes::from_static(c)));
/// let mut reader = LineReader::new(futures::stream::iter(chunks), Duration::from_secs(1), 1024);
/// assert_eq!(reader.next_line().await.unwrap().unwrap(), "data: {\"a\":1}");
/// assert_eq!(reader.next_line().await.unwrap().unwrap(), "data: [DONE]");
/// assert_eq!(reader.next_line().await.unwrap(), None);
/// # }
/// ```
pub struct LineReader {
    body: ByteStream,
    buffer: BytesMut,
    /// Bytes of `buffer` already searched for `\n`.
    scanned: usize,
    idle: Duration,
    max_line: usize,
    ended: bool,
}

impl fmt::Debug for LineReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LineReader")
            .field("buffered", &self.buffer.len())
            .field("idle", &self.idle)
            .field("max_line", &self.max_line)
            .finish_non_exhaustive()
    }
}

impl LineReader {
    /// Reads `body`, allowing `idle` of silence between chunks and lines of at most
    /// `max_line` bytes. A body error is kept as its text with its sources.
    pub fn new<E>(
        body: impl Stream<Item = Result<Bytes, E>> + Send + 'static,
        idle: Duration,
        max_line: usize,
    ) -> Self
    where
        E: std::error::Error,
    {
        Self {
            body: body.map(|item| item.map_err(|e| error_chain(&e))).boxed(),
            buffer: BytesMut::new(),
            scanned: 0,
            idle,
            max_line,
            ended: false,
        }
    }

    /// The next non-blank line without its line ending, or `None` at the end of the
    /// body. Text after the last `\n` counts as a last line.
    pub async fn next_line(&mut self) -> Result<Option<Bytes>, LineError> {
        loop {
            if let Some(offset) = self.buffer[self.scanned..].iter().position(|&b| b == b'\n') {
                let end = self.scanned + offset;
                if end > self.max_line {
                    return Err(LineError::TooLong { max: self.max_line });
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
                return Err(LineError::TooLong { max: self.max_line });
            }
            if self.ended {
                if self.buffer.iter().all(u8::is_ascii_whitespace) {
                    return Ok(None);
                }
                self.scanned = 0;
                return Ok(Some(self.buffer.split().freeze()));
            }
            match tokio::time::timeout(self.idle, self.body.next()).await {
                Err(_) => return Err(LineError::Idle { after: self.idle }),
                Ok(None) => self.ended = true,
                Ok(Some(Ok(chunk))) => self.buffer.extend_from_slice(&chunk),
                Ok(Some(Err(reason))) => return Err(LineError::Body(reason)),
            }
        }
    }
}

/// An error and its sources, `: `-separated (reqwest hides the useful part in a source).
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(chunks: Vec<&'static [u8]>, max_line: usize) -> LineReader {
        let items: Vec<Result<Bytes, std::io::Error>> =
            chunks.into_iter().map(|c| Ok(Bytes::from_static(c))).collect();
        LineReader::new(futures::stream::iter(items), Duration::from_secs(1), max_line)
    }

    async fn all(mut reader: LineReader) -> Result<Vec<String>, LineError> {
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
        assert_eq!(error, LineError::TooLong { max: 15 });
        let error = all(reader(vec![b"01234567890123456789\n"], 15))
            .await
            .unwrap_err();
        assert_eq!(error, LineError::TooLong { max: 15 });
        // Exactly at the limit is fine.
        let lines = all(reader(vec![b"012345678901234\n"], 15)).await.expect("lines");
        assert_eq!(lines.len(), 1);
    }

    #[tokio::test]
    async fn silence_is_bounded() {
        let body = futures::stream::pending::<Result<Bytes, std::io::Error>>();
        let mut reader = LineReader::new(body, Duration::from_millis(50), 64);
        let error = reader.next_line().await.unwrap_err();
        assert_eq!(
            error,
            LineError::Idle {
                after: Duration::from_millis(50)
            }
        );
    }

    #[tokio::test]
    async fn body_errors_keep_their_reason() {
        let items = vec![
            Ok(Bytes::from_static(b"a\n")),
            Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset")),
        ];
        let mut reader = LineReader::new(futures::stream::iter(items), Duration::from_secs(1), 64);
        assert_eq!(reader.next_line().await.unwrap().unwrap(), "a");
        assert_eq!(
            reader.next_line().await.unwrap_err(),
            LineError::Body("reset".into())
        );
    }
}
