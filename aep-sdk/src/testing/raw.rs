//! Raw HTTP/1.1 over TCP: requests that no HTTP client would send (malformed framing,
//! odd headers, bodies cut short), sent the way a slow or hostile client sends them, and
//! the answer read back under a time bound.
//!
//! [`request`] and [`chunked`] build the bytes, [`exchange`] sends them over a fresh
//! connection (as a [`Delivery`]: at once, paused, cut short, stalled or dribbled) and
//! tells what the server did ([`Outcome`]): a complete [`Answer`] (status, headers and
//! the body, de-chunked), a closed connection, or silence until the bound.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use std::time::Duration;
//! use aep_sdk::testing::raw;
//!
//! let extension = aep_sdk::server::Extension::builder("acme.t", "T", "1.0.0").build().unwrap();
//! let server = aep_sdk::testing::spawn(extension.router()).await;
//! let bytes = raw::request("GET", "/aep/health", &[], b"");
//! let answer = raw::exchange(server.addr, bytes, Duration::from_secs(5)).await.answer();
//! assert_eq!(answer.status, 200);
//! assert_eq!(answer.header("content-type"), Some("application/json"));
//! assert_eq!(answer.body, br#"{"status":"available"}"#);
//! # }
//! ```

use std::fmt::{self, Write as _};
use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How the bytes of a request go out in [`exchange`].
#[derive(Debug, Clone)]
pub enum Delivery {
    /// Everything at once.
    Whole(Vec<u8>),
    /// `first`, a pause, then `rest`: a slow but complete client.
    Paused {
        /// Sent at once.
        first: Vec<u8>,
        /// The silence before `rest`.
        pause: Duration,
        /// Sent after the pause.
        rest: Vec<u8>,
    },
    /// The bytes, then the write side is shut: a body that ends early.
    CutShort(Vec<u8>),
    /// The bytes, then silence with the connection held open.
    Stalled(Vec<u8>),
    /// One byte every `every` (slow loris), the connection held open afterwards.
    Dribble {
        /// Sent one at a time.
        bytes: Vec<u8>,
        /// The pause after each byte.
        every: Duration,
    },
}

impl Delivery {
    /// The first bytes sent: the request line starts there.
    fn start(&self) -> &[u8] {
        match self {
            Delivery::Whole(bytes)
            | Delivery::CutShort(bytes)
            | Delivery::Stalled(bytes)
            | Delivery::Dribble { bytes, .. } => bytes,
            Delivery::Paused { first, .. } => first,
        }
    }
}

impl From<Vec<u8>> for Delivery {
    fn from(bytes: Vec<u8>) -> Self {
        Delivery::Whole(bytes)
    }
}

/// A complete HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The status code (0 when the status line has none).
    pub status: u16,
    /// The header fields in the order received, names lowercased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked; empty for an answer to `HEAD`.
    pub body: Vec<u8>,
}

impl Answer {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The first 200 bytes of the body as text, with the total length when cut.
    pub fn preview(&self) -> String {
        let body = &self.body;
        let text = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
        if body.len() > 200 {
            format!("{text}... ({} bytes)", body.len())
        } else {
            text
        }
    }

    /// The `error.code` of an AEP error body, if the body is one.
    pub fn error_code(&self) -> Option<String> {
        serde_json::from_slice::<serde_json::Value>(&self.body)
            .ok()?
            .pointer("/error/code")?
            .as_str()
            .map(str::to_owned)
    }
}

/// What the server did with one [`exchange`].
#[derive(Debug)]
pub enum Outcome {
    /// A complete answer.
    Answer(Answer),
    /// The connection ended (EOF or reset) before a complete answer, with this many bytes
    /// received of the part being read: the head, or the body once the head was complete.
    Closed(usize),
    /// Nothing complete within the bound.
    Silent,
}

impl Outcome {
    /// The answer.
    ///
    /// # Panics
    ///
    /// When the connection closed or the bound passed first.
    #[track_caller]
    pub fn answer(self) -> Answer {
        match self {
            Outcome::Answer(answer) => answer,
            other => panic!("no answer: {other}"),
        }
    }
}

/// One line: the status and AEP error code (or a preview of the body), or how the
/// exchange ended without an answer.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Answer(a) => match a.error_code() {
                Some(code) => write!(f, "{} {code}", a.status),
                None if a.body.is_empty() => write!(f, "{} (empty body)", a.status),
                None => write!(f, "{} {:?}", a.status, a.preview()),
            },
            Outcome::Closed(n) => write!(f, "closed after {n} bytes"),
            Outcome::Silent => f.write_str("no answer within the bound"),
        }
    }
}

/// Connects to `addr`, sends the request as `delivery` says and reads one answer, all
/// within `bound`.
///
/// The bytes are written beside the reading: a server may answer (and close) before it
/// has read the whole body. The write side stays open until the exchange is over, except
/// for [`Delivery::CutShort`]. An answer to a request that starts with `HEAD ` has no
/// body.
///
/// # Panics
///
/// When nothing accepts connections at `addr`.
pub async fn exchange(addr: SocketAddr, delivery: impl Into<Delivery>, bound: Duration) -> Outcome {
    let delivery = delivery.into();
    let head_only = delivery.start().starts_with(b"HEAD ");
    let stream = TcpStream::connect(addr)
        .await
        .unwrap_or_else(|e| panic!("connect to the test server at {addr}: {e}"));
    let (mut reader, mut writer) = stream.into_split();
    let write = tokio::spawn(async move {
        match delivery {
            Delivery::Whole(bytes) => {
                let _ = writer.write_all(&bytes).await;
            }
            Delivery::Paused { first, pause, rest } => {
                let _ = writer.write_all(&first).await;
                tokio::time::sleep(pause).await;
                let _ = writer.write_all(&rest).await;
            }
            Delivery::CutShort(bytes) => {
                let _ = writer.write_all(&bytes).await;
                let _ = writer.shutdown().await;
            }
            Delivery::Stalled(bytes) => {
                let _ = writer.write_all(&bytes).await;
                std::future::pending::<()>().await;
            }
            Delivery::Dribble { bytes, every } => {
                for byte in bytes {
                    if writer.write_all(&[byte]).await.is_err() {
                        break;
                    }
                    tokio::time::sleep(every).await;
                }
                std::future::pending::<()>().await;
            }
        }
        writer
    });
    let outcome = match tokio::time::timeout(bound, read_answer(&mut reader, head_only)).await {
        Ok(Ok(answer)) => Outcome::Answer(answer),
        Ok(Err(received)) => Outcome::Closed(received),
        Err(_) => Outcome::Silent,
    };
    write.abort();
    outcome
}

/// Reads one answer from `reader`; when the connection ends (EOF or an error) first,
/// `Err` with the number of bytes received of the part being read (the head, or the body
/// once the head was complete).
///
/// The body is framed as RFC 9112 section 6.3 says: `Transfer-Encoding: chunked` first
/// (decoded with [`dechunk`]), then `Content-Length`, then none for `head_only`, 1xx, 204
/// and 304, and otherwise up to the end of the connection. Bytes after the answer are
/// left unread or dropped: one answer per connection.
pub async fn read_answer<R: AsyncRead + Unpin>(reader: &mut R, head_only: bool) -> Result<Answer, usize> {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut fill = async |buf: &mut Vec<u8>| -> Result<(), usize> {
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => Err(buf.len()),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                Ok(())
            }
        }
    };
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i;
        }
        fill(&mut buf).await?;
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = buf.split_off(head_end + 4);
    let get = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    if head_only {
        body.clear();
    } else if get("transfer-encoding").is_some_and(|te| te.eq_ignore_ascii_case("chunked")) {
        loop {
            if let Some(decoded) = dechunk(&body) {
                body = decoded;
                break;
            }
            fill(&mut body).await?;
        }
    } else if let Some(length) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        while body.len() < length {
            fill(&mut body).await?;
        }
        body.truncate(length);
    } else if status != 204 && status != 304 && !(100..200).contains(&status) {
        // Neither: the body runs to the end of the connection.
        while fill(&mut body).await.is_ok() {}
    }
    Ok(Answer {
        status,
        headers,
        body,
    })
}

/// Decodes a chunked body up to its last (zero-size) chunk; `None` while that chunk has
/// not arrived, or when a chunk-size line is not a hexadecimal number. Chunk extensions
/// (`;name=value`) are skipped; trailer fields after the last chunk are not read.
///
/// ```
/// use aep_sdk::testing::raw::{chunked, dechunk};
/// assert_eq!(dechunk(b"3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n").as_deref(), Some(&b"abcde"[..]));
/// assert_eq!(dechunk(&chunked(&[&b"ab"[..], &b"c"[..]])).as_deref(), Some(&b"abc"[..]));
/// assert_eq!(dechunk(b"3\r\nabc\r\n"), None);
/// ```
pub fn dechunk(mut raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line = find(raw, b"\r\n")?;
        let size_text = String::from_utf8_lossy(&raw[..line]);
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        raw = &raw[line + 2..];
        if size == 0 {
            return Some(out);
        }
        // The chunk and the CRLF after it.
        if raw.len() < size || raw.len() - size < 2 {
            return None;
        }
        out.extend_from_slice(&raw[..size]);
        raw = &raw[size + 2..];
    }
}

/// `chunks` as a chunked body, with the terminating chunk.
pub fn chunked(chunks: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        out.extend_from_slice(chunk);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

/// A request: `method`, `target`, extra header lines (`"Name: value"`, sent as given),
/// then `body`. `Host: 127.0.0.1` and `Connection: close` come first; a `Content-Length`
/// is added when the body is not empty or the method is `POST`, `PUT` or `PATCH`, unless
/// `headers` already frame the body (a `Content-Length` or `Transfer-Encoding` line).
///
/// ```
/// let bytes = aep_sdk::testing::raw::request("POST", "/x", &["Content-Type: text/plain"], b"hi");
/// assert_eq!(
///     bytes,
///     b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi"
/// );
/// ```
pub fn request(method: &str, target: &str, headers: &[&str], body: &[u8]) -> Vec<u8> {
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    let framed = headers.iter().any(|h| {
        let h = h.to_ascii_lowercase();
        h.starts_with("content-length:") || h.starts_with("transfer-encoding:")
    });
    for header in headers {
        head.push_str(header);
        head.push_str("\r\n");
    }
    if !framed && (!body.is_empty() || method == "POST" || method == "PUT" || method == "PATCH") {
        let _ = write!(head, "Content-Length: {}\r\n", body.len());
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dechunk_waits_for_the_last_chunk_and_refuses_bad_sizes() {
        let body = chunked(&[&b"hello "[..], &b"world"[..]]);
        assert_eq!(dechunk(&body).as_deref(), Some(&b"hello world"[..]));
        for cut in 0..body.len() - 4 {
            assert_eq!(dechunk(&body[..cut]), None, "cut at {cut}");
        }
        assert_eq!(dechunk(b"zz\r\n{}\r\n0\r\n\r\n"), None);
        assert_eq!(dechunk(b"\xFF\r\n{}\r\n0\r\n\r\n"), None);
        // A size near usize::MAX neither overflows nor panics.
        assert_eq!(dechunk(b"ffffffffffffffff\r\nab\r\n0\r\n\r\n"), None);
        assert_eq!(dechunk(b"fffffffffffffffff\r\nab\r\n0\r\n\r\n"), None);
    }

    #[tokio::test]
    async fn read_answer_frames_by_chunks_length_or_close() {
        let mut raw: &[u8] =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: b\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
        let answer = read_answer(&mut raw, false).await.unwrap();
        assert_eq!((answer.status, answer.body.as_slice()), (200, &b"abc"[..]));
        assert_eq!(answer.header("x-a"), Some("b"));
        let mut raw: &[u8] = b"HTTP/1.1 413 Payload Too Large\r\ncontent-length: 5\r\n\r\nhello, more";
        assert_eq!(read_answer(&mut raw, false).await.unwrap().body, b"hello");
        let mut raw: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n";
        assert_eq!(read_answer(&mut raw, true).await.unwrap().body, b"");
        let mut raw: &[u8] = b"HTTP/1.1 500 Internal\r\n\r\n<h1>x</h1>";
        assert_eq!(read_answer(&mut raw, false).await.unwrap().body, b"<h1>x</h1>");
        let mut raw: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\nshort";
        assert_eq!(read_answer(&mut raw, false).await, Err(5));
        let mut raw: &[u8] = b"HTTP/1.1 2";
        assert_eq!(read_answer(&mut raw, false).await, Err(10));
    }
}
