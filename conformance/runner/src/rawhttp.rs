//! One HTTP/1.1 exchange over a plain TCP socket, for the oversized-body check: a server
//! may answer 413 and close the connection before it has read the body, and an HTTP
//! client that is still writing then reports the broken pipe instead of the answer. Here
//! the body is written in a separate task and the answer is read whatever the writer
//! meets. Plain `http` only.
//!
//! Not [`aep_sdk::testing::raw::exchange`]: the body here is streamed in pieces with a
//! pause just past the reference limit, the answer is bounded in size and read under the
//! runner's own framing rules into its [`Answer`]. Chunked answers are decoded by the
//! SDK kit's [`dechunk`].

use std::time::Duration;

use aep_sdk::testing::raw::dechunk;
use bytes::Bytes;
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use url::Url;

use crate::http::Answer;

/// How the body is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// `Content-Length` declared up front.
    Length,
    /// `Transfer-Encoding: chunked`: the server has to count.
    Chunked,
}

const MAX_ANSWER: usize = 1024 * 1024;

/// How long the head alone waits for an early answer.
const EARLY_ANSWER_WAIT: Duration = Duration::from_millis(100);

/// Where the body pauses: just past the reference's 16 MiB limit.
const PAUSE_AFTER: usize = 16 * 1024 * 1024 + 64 * 1024;

/// How long the paused body waits for an answer before the rest is sent.
const PAUSE_WAIT: Duration = Duration::from_secs(2);

/// POSTs `head` + `fill` repeated `count` times + `tail` to `url`, streamed in pieces.
pub(crate) async fn post_streamed(
    url: &Url,
    token: Option<&str>,
    framing: Framing,
    parts: (Bytes, Bytes, usize, Bytes),
    timeout: Duration,
) -> Result<Answer, String> {
    let (head, fill, count, tail) = parts;
    let host = url
        .host_str()
        .ok_or_else(|| format!("{url}: no host"))?
        .to_owned();
    let port = url.port_or_known_default().unwrap_or(80);
    let length = head.len() + fill.len() * count + tail.len();
    let mut request = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json\r\n",
        url.path(),
        match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.clone(),
        }
    );
    match framing {
        Framing::Length => request.push_str(&format!("Content-Length: {length}\r\n")),
        Framing::Chunked => request.push_str("Transfer-Encoding: chunked\r\n"),
    }
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    request.push_str("\r\n");
    let exchange = async {
        let stream = TcpStream::connect((host.as_str(), port))
            .await
            .map_err(|e| format!("{url}: could not connect: {e}"))?;
        let (mut reader, mut writer) = stream.into_split();
        // The head alone first: a server that refuses on the declared length answers
        // now, before any body byte is unread in its buffer (an unread byte turns its
        // close into a reset, which can destroy the answer before it is read).
        writer
            .write_all(request.as_bytes())
            .await
            .map_err(|e| format!("{url}: could not send the request head: {e}"))?;
        let mut received = Vec::new();
        let mut buffer = vec![0u8; 64 * 1024];
        if framing == Framing::Length
            && let Ok(read) = tokio::time::timeout(EARLY_ANSWER_WAIT, reader.read(&mut buffer)).await
        {
            match read {
                Ok(n) => received.extend_from_slice(&buffer[..n]),
                Err(e) => {
                    return Err(format!(
                        "{url}: the connection failed after the request head: {e}"
                    ));
                }
            }
        }
        // Write up to just past the reference limit, pause so the server can answer
        // with nothing of ours left unread (an unread byte turns its close into a reset,
        // which can destroy the answer), and only then send the rest.
        let (paused_tx, mut paused_rx) = tokio::sync::oneshot::channel::<()>();
        let resume = std::sync::Arc::new(tokio::sync::Notify::new());
        let resume_writer = resume.clone();
        let write = tokio::spawn(async move {
            let mut pieces = vec![head];
            pieces.extend(std::iter::repeat_n(fill, count));
            pieces.push(tail);
            let mut written = 0usize;
            let mut paused = Some(paused_tx);
            for piece in pieces {
                if written >= PAUSE_AFTER
                    && let Some(paused) = paused.take()
                {
                    let _ = paused.send(());
                    resume_writer.notified().await;
                }
                written += piece.len();
                let result = match framing {
                    Framing::Chunked => {
                        let size = format!("{:x}\r\n", piece.len());
                        match writer.write_all(size.as_bytes()).await {
                            Ok(()) => match writer.write_all(&piece).await {
                                Ok(()) => writer.write_all(b"\r\n").await,
                                Err(e) => Err(e),
                            },
                            Err(e) => Err(e),
                        }
                    }
                    Framing::Length => writer.write_all(&piece).await,
                };
                if result.is_err() {
                    // The server stopped reading: its answer (if any) is on the read side.
                    return;
                }
            }
            if framing == Framing::Chunked {
                let _ = writer.write_all(b"0\r\n\r\n").await;
            }
            let _ = writer.flush().await;
            // Keep the write side open until the answer is read: dropping it sends a FIN,
            // and many servers (hyper by default) drop a request whose client half-closed.
            std::future::pending::<()>().await;
            drop(writer);
        });
        let mut resume_at: Option<tokio::time::Instant> = None;
        let mut waiting_for_pause = true;
        let answer = loop {
            if let Some(answer) = parse(&received)? {
                break answer;
            }
            let wake = resume_at.unwrap_or_else(|| tokio::time::Instant::now() + Duration::from_secs(3600));
            tokio::select! {
                read = reader.read(&mut buffer) => match read {
                    Ok(0) => break parse_closed(&received, url)?,
                    Ok(n) => {
                        received.extend_from_slice(&buffer[..n]);
                        if received.len() > MAX_ANSWER {
                            return Err(format!("{url}: the answer is larger than {MAX_ANSWER} bytes"));
                        }
                    }
                    Err(e) if received.is_empty() => {
                        return Err(format!("{url}: the connection failed before any answer: {e}"));
                    }
                    Err(_) => break parse_closed(&received, url)?,
                },
                paused = &mut paused_rx, if waiting_for_pause => {
                    waiting_for_pause = false;
                    if paused.is_ok() {
                        resume_at = Some(tokio::time::Instant::now() + PAUSE_WAIT);
                    }
                }
                () = tokio::time::sleep_until(wake), if resume_at.is_some() => {
                    resume_at = None;
                    resume.notify_one();
                }
            }
        };
        write.abort();
        Ok(answer)
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| format!("{url}: no answer within {timeout:?}"))?
}

/// The answer once `received` holds all of it (`None` while incomplete).
fn parse(received: &[u8]) -> Result<Option<Answer>, String> {
    let Some(end) = received.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Ok(None);
    };
    let (status, headers) = parse_head(&received[..end])?;
    let body = &received[end + 4..];
    if let Some(length) = headers
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        if body.len() < length {
            return Ok(None);
        }
        return Ok(Some(answer(status, headers, body[..length].to_vec())));
    }
    if headers
        .get("transfer-encoding")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
    {
        return Ok(dechunk(body).map(|body| answer(status, headers, body)));
    }
    Ok(None)
}

/// The answer when the server closed the connection (a body delimited by the close).
fn parse_closed(received: &[u8], url: &Url) -> Result<Answer, String> {
    if let Some(answer) = parse(received)? {
        return Ok(answer);
    }
    let Some(end) = received.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Err(format!(
            "{url}: the server closed the connection without an answer{}",
            if received.is_empty() {
                ""
            } else {
                " (incomplete head)"
            }
        ));
    };
    let (status, headers) = parse_head(&received[..end])?;
    Ok(answer(status, headers, received[end + 4..].to_vec()))
}

fn answer(status: StatusCode, headers: HeaderMap, body: Vec<u8>) -> Answer {
    Answer {
        status,
        headers,
        body: Bytes::from(body),
        truncated: false,
    }
}

fn parse_head(head: &[u8]) -> Result<(StatusCode, HeaderMap), String> {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let code = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse::<u16>().ok())
        .and_then(|c| StatusCode::from_u16(c).ok())
        .ok_or_else(|| format!("not an HTTP status line: {status_line:?}"))?;
    let mut headers = HeaderMap::new();
    for line in lines {
        if let Some((name, value)) = line.split_once(':')
            && let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.trim().as_bytes()),
                HeaderValue::from_str(value.trim()),
            )
        {
            headers.append(name, value);
        }
    }
    Ok((code, headers))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_length_and_chunked_answers() {
        let raw = b"HTTP/1.1 413 Payload Too Large\r\ncontent-type: application/json\r\ncontent-length: 5\r\n\r\nhello";
        let answer = parse(raw).unwrap().unwrap();
        assert_eq!(answer.status.as_u16(), 413);
        assert_eq!(&answer.body[..], b"hello");
        assert!(parse(&raw[..raw.len() - 1]).unwrap().is_none());
        let chunked =
            b"HTTP/1.1 400 Bad Request\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        assert_eq!(&parse(chunked).unwrap().unwrap().body[..], b"abcde");
        let url = Url::parse("http://h:1/").unwrap();
        let closed = b"HTTP/1.1 500 Internal\r\ncontent-type: text/html\r\n\r\n<h1>x</h1>";
        assert_eq!(&parse_closed(closed, &url).unwrap().body[..], b"<h1>x</h1>");
        assert!(parse_closed(b"", &url).is_err());
        // A chunk size near usize::MAX is an incomplete answer, not a panic.
        let huge = b"HTTP/1.1 400 Bad Request\r\ntransfer-encoding: chunked\r\n\r\nffffffffffffffff\r\nab";
        assert!(parse(huge).unwrap().is_none());
    }
}
