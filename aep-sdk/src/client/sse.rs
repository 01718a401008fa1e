//! An incremental `text/event-stream` decoder: bytes in, `data` payloads out.

/// Splits an SSE byte stream into event payloads. Comment lines (`: ...`) and fields
/// other than `data` are ignored; several `data:` lines of one event are joined with
/// `\n`, as the SSE specification says. Lines may end in `\n`, `\r\n` or `\r`.
///
/// ```
/// use aep_sdk::client::SseDecoder;
///
/// let mut decoder = SseDecoder::default();
/// let mut events = decoder.push(b": keep-alive\n\ndata: {\"a\"");
/// assert!(events.is_empty());
/// events = decoder.push(b":1}\n\n");
/// assert_eq!(events, vec![r#"{"a":1}"#.to_string()]);
/// ```
#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    data: Option<String>,
    last_was_cr: bool,
}

/// The largest single event the decoder buffers (16 MiB); longer lines are cut off.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

impl SseDecoder {
    /// Feeds bytes; returns the payloads of the events they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut events = Vec::new();
        for &byte in bytes {
            match byte {
                b'\n' if self.last_was_cr => self.last_was_cr = false,
                b'\n' | b'\r' => {
                    self.last_was_cr = byte == b'\r';
                    self.end_line(&mut events);
                }
                _ => {
                    self.last_was_cr = false;
                    if self.line.len() < MAX_EVENT_BYTES {
                        self.line.push(byte);
                    }
                }
            }
        }
        events
    }

    fn end_line(&mut self, events: &mut Vec<String>) {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            if let Some(data) = self.data.take() {
                events.push(data);
            }
            return;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => return, // comment
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (&line[..], &[][..]),
        };
        if field == b"data" {
            let value = String::from_utf8_lossy(value);
            match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(&value);
                }
                None => self.data = Some(value.into_owned()),
            }
        }
    }

    /// Whether a partial event is buffered (bytes received after the last complete event).
    pub fn has_partial(&self) -> bool {
        !self.line.is_empty() || self.data.is_some()
    }
}
