//! The measurements. Each runs the SDK variant and its baseline in the same process,
//! interleaved over several rounds, and returns report rows.

pub mod compile;
pub mod gateway;
pub mod growth;
pub mod host;
pub mod latency;
pub mod load;
pub mod mcp;
pub mod memory;
pub mod micro;
pub mod ollama;
pub mod openai;
pub mod openloop;
pub mod stream;

use std::time::{Duration, Instant};

use aep_sdk::protocol::{ChatRequest, Message};
use futures::StreamExt;

/// Rounds per comparison; the order of the two variants alternates between rounds.
pub const ROUNDS: usize = 5;

/// Rounds of the throughput comparisons whose rounds are short and whose spread on a
/// shared two-core machine was 20-60% with [`ROUNDS`] (MCP calls/s, forwarded chunks/s).
pub const LONG_ROUNDS: usize = 9;

pub fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(1024)
        .tcp_nodelay(true)
        .build()
        .expect("HTTP client")
}

pub fn request(updates: usize) -> ChatRequest {
    ChatRequest::new(format!("n:{updates}"), vec![Message::user("go")])
}

/// Streams one answer; returns the number of SSE events and the elapsed time.
pub async fn stream_once(client: &reqwest::Client, base: &str, body: &[u8]) -> (usize, Duration) {
    let start = Instant::now();
    let response = client
        .post(format!("{base}/aep/model-providers/echo/chat/stream"))
        .header("content-type", "application/json")
        .body(body.to_vec())
        .send()
        .await
        .expect("stream request");
    let mut events = 0;
    let mut bytes = response.bytes_stream();
    let mut tail = Vec::new();
    while let Some(chunk) = bytes.next().await {
        let chunk = chunk.expect("stream body");
        tail.extend_from_slice(&chunk);
        events += count_events(&mut tail);
    }
    (events, start.elapsed())
}

/// Counts complete `\n\n`-terminated events in `buf`, keeping the incomplete rest.
fn count_events(buf: &mut Vec<u8>) -> usize {
    let mut count = 0;
    let mut start = 0;
    while let Some(pos) = buf[start..].windows(2).position(|w| w == b"\n\n") {
        count += 1;
        start += pos + 2;
    }
    buf.drain(..start);
    count
}

/// Runs `f` for the SDK and the baseline alternately, `rounds` times each.
pub async fn interleave<T, F, Fut>(rounds: usize, mut f: F) -> (Vec<T>, Vec<T>)
where
    F: FnMut(bool) -> Fut,
    Fut: std::future::Future<Output = T>,
{
    let (mut sdk, mut base) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        for sdk_first in [round % 2 == 0, round % 2 != 0] {
            let value = f(sdk_first).await;
            if sdk_first {
                sdk.push(value)
            } else {
                base.push(value)
            }
        }
    }
    (sdk, base)
}

/// Reads a framed body (SSE events, `sep` = `\n\n`, or NDJSON lines, `sep` = `\n`),
/// noting when each complete frame arrived: one instant per frame, taken at the read
/// that completed it (a read that completes two frames gives both the same instant, as
/// a client parsing events sees them).
pub async fn frames(
    response: reqwest::Response,
    start: Instant,
    first_text: &[u8],
    sep: &[u8],
) -> (Duration, Vec<Instant>, Duration) {
    let mut first = None;
    let mut arrivals = Vec::new();
    let mut body = response.bytes_stream();
    let mut tail = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.expect("body");
        let now = Instant::now();
        tail.extend_from_slice(&chunk);
        if first.is_none() && tail.windows(first_text.len()).any(|w| w == first_text) {
            first = Some(now - start);
        }
        let mut start = 0;
        while let Some(pos) = tail[start..].windows(sep.len()).position(|w| w == sep) {
            arrivals.push(now);
            start += pos + sep.len();
        }
        tail.drain(..start);
    }
    (
        first.unwrap_or_else(|| start.elapsed()),
        arrivals,
        start.elapsed(),
    )
}

/// Starts this binary again as `aep-bench <args>` (a stand-in upstream in a process of
/// its own) and returns it, killed when dropped, with the URL its first line announces
/// (`listening on <url>`).
pub async fn upstream_process(args: &[&str]) -> (tokio::process::Child, String) {
    spawn_self(
        tokio::process::Command::new(std::env::current_exe().expect("own executable")),
        args,
    )
    .await
}

/// Runs `aep-bench <args>` from `command` (this executable, set up by the caller) and
/// reads the URL from its first line, `listening on <url>`.
pub async fn spawn_self(
    mut command: tokio::process::Command,
    args: &[&str],
) -> (tokio::process::Child, String) {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let mut child = command
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the stand-in starts");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let line = lines.next_line().await.expect("its first line").expect("a line");
    let url = line.strip_prefix("listening on ").expect("listening on URL");
    (child, url.to_owned())
}

pub fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
