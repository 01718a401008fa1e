//! Reading request bodies under a size limit and a read timeout, with AEP errors:
//! 413 for too large, 408 for a stalled client, 400 for a broken body.

use std::time::Duration;

use axum::body::Body;
use bytes::{Bytes, BytesMut};
use http::StatusCode;
use http_body_util::BodyExt;

use crate::AepError;
use crate::error::codes;

/// Default request-body limit: 16 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 16 * 1024 * 1024;
/// Default bound on the silence between two pieces of a request body: 30 s.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// How request bodies are read: at most `max_bytes`, and no silence longer than
/// `read_timeout` between two pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyLimits {
    /// Largest accepted body.
    pub max_bytes: usize,
    /// Longest silence between two pieces of a body.
    pub read_timeout: Duration,
}

impl Default for BodyLimits {
    fn default() -> Self {
        Self {
            max_bytes: DEFAULT_BODY_LIMIT,
            read_timeout: DEFAULT_BODY_READ_TIMEOUT,
        }
    }
}

/// Bounds on discarding the rest of a body that is too large, so the client reads the 413
/// instead of a connection reset.
const DRAIN_BYTES: usize = 64 * 1024 * 1024;
const DRAIN_TIME: Duration = Duration::from_secs(2);

fn too_large() -> AepError {
    AepError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        codes::INVALID_REQUEST,
        "the request body is larger than this extension accepts",
    )
}

fn stalled() -> AepError {
    AepError::new(
        StatusCode::REQUEST_TIMEOUT,
        codes::INVALID_REQUEST,
        "the request body stalled: the client sent nothing for too long",
    )
}

/// Reads a whole body. `declared` is the `Content-Length`, when given.
pub(crate) async fn read(
    mut body: Body,
    declared: Option<u64>,
    limits: BodyLimits,
) -> Result<Bytes, AepError> {
    // The slow paths (a timer, draining) are boxed: inline, their state would make this
    // future, and every future that awaits it, several times larger, and futures are
    // moved (copied) by each layer that wraps them.
    if declared.is_some_and(|n| n > limits.max_bytes as u64) {
        Box::pin(drain(body)).await;
        return Err(too_large());
    }
    // The timer is only armed when a piece is not already there: a small body that came
    // with the headers costs no timer at all.
    let mut first: Option<Bytes> = None;
    let mut rest = BytesMut::new();
    let mut total = 0usize;
    // Outside a Tokio runtime (an extractor driven by another executor) there is no timer.
    let mut timed = None;
    loop {
        // A piece that is already there is taken as it is: no clock, no timer.
        let next = match futures::FutureExt::now_or_never(body.frame()) {
            Some(frame) => Ok(frame),
            None if *timed.get_or_insert_with(|| tokio::runtime::Handle::try_current().is_ok()) => {
                Box::pin(tokio::time::timeout(limits.read_timeout, body.frame())).await
            }
            None => Ok(body.frame().await),
        };
        let frame = match next {
            Err(_) => return Err(stalled()),
            Ok(None) => break,
            Ok(Some(Err(error))) => {
                return Err(AepError::invalid_request(format!(
                    "could not read the request body: {error}"
                )));
            }
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(data) = frame.into_data() else { continue };
        total += data.len();
        if total > limits.max_bytes {
            Box::pin(drain(body)).await;
            return Err(too_large());
        }
        match first.take() {
            None if rest.is_empty() => first = Some(data),
            None => rest.extend_from_slice(&data),
            Some(previous) => {
                rest.extend_from_slice(&previous);
                rest.extend_from_slice(&data);
            }
        }
    }
    Ok(first.unwrap_or_else(|| rest.freeze()))
}

async fn drain(mut body: Body) {
    if tokio::runtime::Handle::try_current().is_err() {
        return;
    }
    let deadline = tokio::time::Instant::now() + DRAIN_TIME;
    let mut discarded = 0usize;
    while discarded < DRAIN_BYTES {
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(Some(Ok(frame))) => discarded += frame.data_ref().map_or(0, Bytes::len),
            _ => break,
        }
    }
}

/// The `Content-Length` of a request, when present and numeric.
pub(crate) fn content_length(headers: &http::HeaderMap) -> Option<u64> {
    headers
        .get(http::header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}
