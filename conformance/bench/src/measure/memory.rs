//! 5. Memory: RSS of a server process idle and with 1,000 concurrent open streams, SDK
//!    vs the hand-written baseline, each in its own child process so its RSS is its own.
//!    Also the per-stream cost as concurrency grows (used by `growth`).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures::StreamExt;

use super::http;
use crate::report::Row;

const MIB: f64 = 1024.0 * 1024.0;

struct Server {
    child: Child,
    base_url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(kind: &str) -> Server {
    let exe = std::env::current_exe().expect("own executable");
    let mut child = Command::new(exe)
        .args(["serve", kind])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start server process");
    let stdout = child.stdout.take().expect("child stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("server prints its URL");
    Server {
        child,
        base_url: line.trim().to_owned(),
    }
}

/// Resident set size of `pid`, in bytes.
pub fn rss(pid: u32) -> f64 {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).unwrap_or_default();
    let pages: f64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(f64::NAN);
    pages * 4096.0
}

/// Holds `count` streams open (each has received its first update) until dropped.
async fn open_streams(
    client: &reqwest::Client,
    base: &str,
    count: usize,
) -> Vec<tokio::task::JoinHandle<()>> {
    // Model "hold": one update, then silence until the client goes away.
    let mut hold = super::request(0);
    hold.model = "hold".into();
    let body = serde_json::to_vec(&hold).expect("request JSON");
    let mut handles = Vec::with_capacity(count);
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<()>(count.max(1));
    for _ in 0..count {
        let client = client.clone();
        let url = format!("{base}/aep/model-providers/echo/chat/stream");
        let body = body.clone();
        let ready = ready_tx.clone();
        handles.push(tokio::spawn(async move {
            let response = client
                .post(url)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await;
            let Ok(response) = response else { return };
            let mut bytes = response.bytes_stream();
            let _ = bytes.next().await;
            let _ = ready.send(()).await;
            // Keep the stream open until this task is aborted.
            let _ = bytes.next().await;
        }));
    }
    for _ in 0..count {
        let _ = tokio::time::timeout(Duration::from_secs(30), ready_rx.recv()).await;
    }
    handles
}

/// (kind, idle RSS, RSS at 10/100/1000 open streams, RSS after closing them).
pub struct Profile {
    pub idle: f64,
    pub at: Vec<(usize, f64)>,
    pub after: f64,
}

pub async fn profile(kind: &str) -> Profile {
    let server = start(kind);
    let client = http();
    let pid = server.child.id();
    // Warm up: one full request so lazily allocated state exists in both variants.
    for handle in open_streams(&client, &server.base_url, 1).await {
        handle.abort();
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let idle = rss(pid);
    let mut held = Vec::new();
    let mut at = Vec::new();
    for target in [10usize, 100, 1000] {
        let more = target - held.len();
        held.extend(open_streams(&client, &server.base_url, more).await);
        tokio::time::sleep(Duration::from_millis(200)).await;
        at.push((target, rss(pid)));
    }
    for handle in held {
        handle.abort();
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = rss(pid);
    Profile { idle, at, after }
}

pub fn rows(sdk: &Profile, base: &Profile) -> Vec<Row> {
    let at = |p: &Profile, n: usize| {
        p.at.iter()
            .find(|(k, _)| *k == n)
            .map(|(_, r)| *r)
            .unwrap_or(f64::NAN)
    };
    vec![
        Row::compare("5. RSS idle", "MiB", &[sdk.idle / MIB], &[base.idle / MIB]),
        Row::compare(
            "5. RSS with 1,000 open streams",
            "MiB",
            &[at(sdk, 1000) / MIB],
            &[at(base, 1000) / MIB],
        )
        .value_at_most(64.0, "<= 64 MiB"),
        Row::compare(
            "5. RSS after the streams closed",
            "MiB",
            &[sdk.after / MIB],
            &[base.after / MIB],
        )
        .note("returns toward idle; allocator keeps some pages"),
    ]
}
