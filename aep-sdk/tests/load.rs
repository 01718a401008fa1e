//! Load without loss (issue 10, item 1): 200 concurrent streams of 500 sequence-numbered
//! updates each through an extension served by `Extension::serve_listener` on
//! 127.0.0.1:0. Every update arrives exactly once and in order, every stream ends with
//! exactly one terminal update, and once the clients are gone the server is idle again:
//! `Extension::open_streams()` is back to 0, the server runtime's alive task count
//! (`tokio::runtime::RuntimeMetrics::num_alive_tasks`) is back to its pre-load level and
//! the process's RSS has not grown beyond a generous bound. A second test drops half the
//! streams midway and shows the provider sees each of those cancelled.
//!
//! The server runs on its own tokio runtime so that its task count is not mixed with the
//! clients' (reqwest spawns a task per connection). Half the streams are read with the
//! canonical client, half as raw SSE, which also shows that nothing follows the terminal
//! update on the wire. The two tests hold a lock so their loads never overlap (RSS is a
//! process-wide number).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aep_sdk::client::{Client, SseDecoder};
use aep_sdk::prelude::*;
use aep_sdk::server::{ConnectionLimits, Extension, ModelProvider};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::runtime::Runtime;
use tokio::sync::oneshot;

const STREAMS: u64 = 200;
const UPDATES: u64 = 500;
/// Where the streams of the drop test stop: the provider holds there, the client leaves.
const DROP_AT: u64 = 250;
/// How long a held provider waits for its client to leave before it carries on (which
/// fails the test: the cancellation was not seen).
const HOLD_LIMIT: Duration = Duration::from_secs(30);
/// Bound on the whole load of one test.
const LOAD_LIMIT: Duration = Duration::from_secs(60);
/// Bound on the server becoming idle after the clients left.
const SETTLE_LIMIT: Duration = Duration::from_secs(10);

/// Serializes the tests of this file: their loads and RSS readings must not overlap.
static SERIAL: Mutex<()> = Mutex::new(());

/// What became of one provider stream, recorded when its request's cancellation token
/// fires (the server cancels it when the answer's body is dropped: stream over or client
/// gone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// The provider yielded this many updates and its terminal update.
    Completed(u64),
    /// Cancelled after this many updates, before the terminal one.
    Cancelled(u64),
}

#[derive(Default)]
struct Probe {
    outcomes: Mutex<HashMap<u64, Outcome>>,
    /// Provider streams dropped by the server (the upstream work is gone).
    dropped: AtomicUsize,
    /// The served extension, to read its open-stream counter from inside the provider.
    extension: std::sync::OnceLock<Extension>,
    /// `open_streams()` when all streams of a load had started (read by the last one).
    open_when_all_started: AtomicUsize,
}

struct StreamState {
    yielded: AtomicU64,
    finished: AtomicBool,
}

struct DropCount(Arc<Probe>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.dropped.fetch_add(1, Ordering::SeqCst);
    }
}

/// Streams `metadata.updates` updates whose text is their sequence number (0, 1, ...),
/// then a terminal update whose usage counts them. With `metadata.holdAfter = k` it
/// stops after `k` updates until its client leaves. Before its first update every stream
/// waits until all `STREAMS` streams are open, so they really run concurrently; the last
/// one to arrive reads the open-stream counter before any is let go.
struct Sequence {
    probe: Arc<Probe>,
    all_open: Arc<tokio::sync::Barrier>,
    counted: Arc<tokio::sync::Barrier>,
}

fn meta_u64(request: &ChatRequest, key: &str) -> Option<u64> {
    request.metadata.as_ref()?.get(key)?.as_u64()
}

impl ModelProvider for Sequence {
    async fn chat_stream(&self, request: ChatRequest, ctx: RequestContext) -> Result<ChatStream, AepError> {
        let id = meta_u64(&request, "stream").ok_or_else(|| AepError::invalid_request("metadata.stream"))?;
        let updates =
            meta_u64(&request, "updates").ok_or_else(|| AepError::invalid_request("metadata.updates"))?;
        let hold_after = meta_u64(&request, "holdAfter");
        let state = Arc::new(StreamState {
            yielded: AtomicU64::new(0),
            finished: AtomicBool::new(false),
        });
        let token = ctx.cancellation().clone();
        let (probe, watched) = (self.probe.clone(), state.clone());
        tokio::spawn(async move {
            token.cancelled().await;
            let yielded = watched.yielded.load(Ordering::SeqCst);
            let outcome = if watched.finished.load(Ordering::SeqCst) {
                Outcome::Completed(yielded)
            } else {
                Outcome::Cancelled(yielded)
            };
            probe.outcomes.lock().unwrap().insert(id, outcome);
        });
        let dropped = DropCount(self.probe.clone());
        let (all_open, counted, probe) = (self.all_open.clone(), self.counted.clone(), self.probe.clone());
        let stream = futures::stream::unfold(0u64, move |i| {
            let (state, all_open, counted, probe) =
                (state.clone(), all_open.clone(), counted.clone(), probe.clone());
            async move {
                if i == 0 {
                    if all_open.wait().await.is_leader() {
                        let open = probe.extension.get().map_or(0, Extension::open_streams);
                        probe.open_when_all_started.store(open, Ordering::SeqCst);
                    }
                    counted.wait().await;
                }
                if hold_after == Some(i) {
                    tokio::time::sleep(HOLD_LIMIT).await;
                }
                if i < updates {
                    state.yielded.fetch_add(1, Ordering::SeqCst);
                    Some((Ok(ChatUpdate::text(i.to_string())), i + 1))
                } else if i == updates {
                    state.finished.store(true, Ordering::SeqCst);
                    let terminal = ChatUpdate {
                        usage: Some(Usage::new(0, updates)),
                        ..ChatUpdate::finish(FinishReason::Stop)
                    };
                    Some((Ok(terminal), i + 1))
                } else {
                    None
                }
            }
        });
        Ok(ChatStream::new(stream.map(move |update| {
            let _alive = &dropped;
            update
        })))
    }
}

/// The extension served by `serve_listener` on its own two-worker runtime.
struct Server {
    runtime: Option<Runtime>,
    /// A clone of the served extension: it shares the open-stream counter.
    extension: Extension,
    probe: Arc<Probe>,
    base_url: String,
    stop: Option<oneshot::Sender<()>>,
}

impl Server {
    fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("server")
            .enable_all()
            .build()
            .unwrap();
        let probe = Arc::new(Probe::default());
        let extension = Extension::builder("test.load", "Load", "1.0.0")
            .model_provider(
                ModelProviderDescriptor::new("seq", "Sequence"),
                Sequence {
                    probe: probe.clone(),
                    all_open: Arc::new(tokio::sync::Barrier::new(STREAMS as usize)),
                    counted: Arc::new(tokio::sync::Barrier::new(STREAMS as usize)),
                },
            )
            .build()
            .unwrap();
        let _ = probe.extension.set(extension.clone());
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let signal = async move {
            let _ = stopped.await;
        };
        runtime.spawn(
            extension
                .clone()
                .serve_listener(listener, signal, ConnectionLimits::default()),
        );
        Self {
            runtime: Some(runtime),
            extension,
            probe,
            base_url,
            stop: Some(stop),
        }
    }

    fn alive_tasks(&self) -> usize {
        self.runtime.as_ref().unwrap().metrics().num_alive_tasks()
    }

    /// Waits until no stream is open and the task count is back to `tasks`.
    fn settle(&self, tasks: usize) -> Duration {
        let started = Instant::now();
        loop {
            let (open, alive) = (self.extension.open_streams(), self.alive_tasks());
            if open == 0 && alive == tasks {
                return started.elapsed();
            }
            assert!(
                started.elapsed() < SETTLE_LIMIT,
                "not idle {SETTLE_LIMIT:?} after the load: {open} open streams, {alive} alive tasks (idle: {tasks})"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(5));
        }
    }
}

/// Resident set size of this process (client and server), from `/proc/self/statm`,
/// counted in 4 KiB pages (the Linux page size on x86_64; a larger page size only
/// makes the bounds below looser).
fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm (Linux)");
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn request(stream: u64, updates: u64, hold_after: Option<u64>) -> ChatRequest {
    let mut metadata = json!({ "stream": stream, "updates": updates });
    if let Some(k) = hold_after {
        metadata["holdAfter"] = json!(k);
    }
    let Value::Object(metadata) = metadata else {
        unreachable!()
    };
    ChatRequest {
        metadata: Some(metadata),
        ..ChatRequest::new("m", vec![Message::user("count")])
    }
}

/// Checks one update against the sequence: `seen` sequence updates so far, `updates`
/// expected in all. Returns whether it was the terminal update.
fn check(update: &ChatUpdate, seen: &mut u64, updates: u64) -> Result<bool, String> {
    if update.is_terminal() {
        if *seen != updates {
            return Err(format!("terminal update after {seen} of {updates} updates"));
        }
        if update.finish_reason != Some(FinishReason::Stop) || update.error.is_some() {
            return Err(format!("unexpected terminal update {update:?}"));
        }
        if update.usage.and_then(|u| u.output_tokens) != Some(updates) {
            return Err(format!("terminal update with the wrong count: {update:?}"));
        }
        return Ok(true);
    }
    let text = update.text_delta();
    if text != seen.to_string() {
        return Err(format!("expected update {seen}, got '{text}'"));
    }
    *seen += 1;
    Ok(false)
}

/// Reads a stream with the canonical client; with `leave_after` it drops the stream
/// after that many updates.
async fn read_with_client(client: &Client, id: u64, leave_after: Option<u64>) -> Result<(), String> {
    let mut stream = client
        .chat_stream("seq", &request(id, UPDATES, leave_after))
        .await
        .map_err(|e| format!("stream {id}: {e}"))?;
    let (mut seen, mut terminals) = (0u64, 0u32);
    while let Some(item) = stream.next().await {
        let update = item.map_err(|e| format!("stream {id}: {e}"))?;
        if check(&update, &mut seen, UPDATES).map_err(|e| format!("stream {id}: {e}"))? {
            terminals += 1;
        }
        if leave_after == Some(seen) {
            return Ok(());
        }
    }
    if terminals != 1 {
        return Err(format!("stream {id}: {terminals} terminal updates"));
    }
    Ok(())
}

/// Reads a stream as raw SSE: every `data:` event is checked, including any that would
/// follow the terminal update (none may), until the server ends the body.
async fn read_raw(
    http: &reqwest::Client,
    base: &str,
    id: u64,
    leave_after: Option<u64>,
) -> Result<(), String> {
    let response = http
        .post(format!("{base}/aep/model-providers/seq/chat/stream"))
        .json(&request(id, UPDATES, leave_after))
        .send()
        .await
        .map_err(|e| format!("raw stream {id}: {e}"))?;
    let content_type = response.headers().get("content-type").cloned();
    if response.status() != 200 || content_type.as_ref().is_none_or(|v| v != "text/event-stream") {
        return Err(format!(
            "raw stream {id}: status {}, content type {content_type:?}",
            response.status()
        ));
    }
    let mut body = response.bytes_stream();
    let mut decoder = SseDecoder::default();
    let (mut seen, mut terminals) = (0u64, 0u32);
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| format!("raw stream {id}: {e}"))?;
        for data in decoder.push(&chunk) {
            let update: ChatUpdate =
                serde_json::from_str(&data).map_err(|e| format!("raw stream {id}: bad event {data}: {e}"))?;
            if terminals > 0 {
                return Err(format!("raw stream {id}: data after the terminal update: {data}"));
            }
            if check(&update, &mut seen, UPDATES).map_err(|e| format!("raw stream {id}: {e}"))? {
                terminals += 1;
            }
            if leave_after == Some(seen) {
                return Ok(());
            }
        }
    }
    if terminals != 1 || decoder.has_partial() {
        return Err(format!(
            "raw stream {id}: {terminals} terminal updates, partial event: {}",
            decoder.has_partial()
        ));
    }
    Ok(())
}

/// What a load looked like from the server's side.
#[derive(Debug, Default)]
struct Peaks {
    elapsed: Duration,
    open_streams: usize,
    alive_tasks: usize,
    rss: u64,
}

/// Runs `STREAMS` concurrent streams (even ids with the canonical client, odd ones raw);
/// the streams for which `leave(id)` holds are held by the provider at `DROP_AT` and
/// dropped there by their client. The clients are dropped before this returns.
fn run_load(server: &Server, client_rt: &Runtime, leave: impl Fn(u64) -> bool) -> Peaks {
    let base = server.base_url.as_str();
    let started = Instant::now();
    let done = AtomicBool::new(false);
    let mut peaks = std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let mut peaks = Peaks::default();
            while !done.load(Ordering::SeqCst) {
                peaks.open_streams = peaks.open_streams.max(server.extension.open_streams());
                peaks.alive_tasks = peaks.alive_tasks.max(server.alive_tasks());
                peaks.rss = peaks.rss.max(rss_bytes());
                std::thread::sleep(Duration::from_millis(5));
            }
            peaks
        });
        let errors = load(client_rt, base, leave);
        done.store(true, Ordering::SeqCst);
        assert!(
            errors.is_empty(),
            "{} of {STREAMS} streams failed, e.g. {:?}",
            errors.len(),
            &errors[..errors.len().min(5)]
        );
        sampler.join().unwrap()
    });
    peaks.elapsed = started.elapsed();
    assert_eq!(
        server.probe.open_when_all_started.swap(0, Ordering::SeqCst) as u64,
        STREAMS,
        "all streams were open at once (the provider waits for that) and counted"
    );
    peaks
}

fn load(client_rt: &Runtime, base: &str, leave: impl Fn(u64) -> bool) -> Vec<String> {
    client_rt.block_on(async {
        let client = Client::builder(base)
            .read_timeout(Duration::from_secs(45))
            .build()
            .unwrap();
        let http = reqwest::Client::new();
        let tasks: Vec<_> = (0..STREAMS)
            .map(|id| {
                let (client, http, base) = (client.clone(), http.clone(), base.to_owned());
                let leave_after = leave(id).then_some(DROP_AT);
                tokio::spawn(async move {
                    if id % 2 == 0 {
                        read_with_client(&client, id, leave_after).await
                    } else {
                        read_raw(&http, &base, id, leave_after).await
                    }
                })
            })
            .collect();
        let all = futures::future::join_all(tasks);
        let results = tokio::time::timeout(LOAD_LIMIT, all)
            .await
            .unwrap_or_else(|_| panic!("the load did not finish within {LOAD_LIMIT:?}"));
        results
            .into_iter()
            .filter_map(|r| r.map_err(|e| e.to_string()).and_then(|r| r).err())
            .collect()
        // Both clients are dropped here: their pooled connections close.
    })
}

fn client_runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("client")
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn two_hundred_streams_of_five_hundred_updates_arrive_whole() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let server = Server::start();
    let client_rt = client_runtime();
    let idle_tasks = server.alive_tasks();

    // Round 1 warms up allocator arenas, connection pools and lazy statics; round 2 is
    // the same load again. A leak proportional to the work shows as growth between them.
    let rss_start = rss_bytes();
    let mut rss = Vec::new();
    for round in 1..=2 {
        let peaks = run_load(&server, &client_rt, |_| false);
        let settled = server.settle(idle_tasks);
        let after = rss_bytes();
        eprintln!(
            "round {round}: {STREAMS} x {UPDATES} updates in {:?}; peaks: {} open streams, {} server tasks \
             (idle {idle_tasks}), RSS {:.1} MiB; idle again {settled:?} later with RSS {:.1} MiB (start {:.1} MiB)",
            peaks.elapsed,
            peaks.open_streams,
            peaks.alive_tasks,
            mib(peaks.rss),
            mib(after),
            mib(rss_start)
        );
        rss.push(after);
        let outcomes = std::mem::take(&mut *server.probe.outcomes.lock().unwrap());
        assert_eq!(
            outcomes.len() as u64,
            STREAMS,
            "every provider stream was cancelled once done"
        );
        for (id, outcome) in outcomes {
            assert_eq!(outcome, Outcome::Completed(UPDATES), "stream {id}");
        }
    }
    assert_eq!(
        server.probe.dropped.load(Ordering::SeqCst) as u64,
        2 * STREAMS,
        "every provider stream was dropped"
    );
    assert_eq!(server.extension.open_streams(), 0);
    assert_eq!(server.alive_tasks(), idle_tasks);

    // Memory is noisy (allocator caching, thread arenas, socket buffers), so the bounds
    // are generous yet far below what a leak of the load would cost: 2 x 100,000 updates
    // of ~70 bytes on the wire and several times that in memory per side, plus per-stream
    // buffers of 400 connections. Round 2 may add at most 16 MiB to round 1, and the two
    // rounds together at most 64 MiB to the start.
    let (first, second) = (rss[0], rss[1]);
    assert!(
        second <= first + 16 * 1024 * 1024,
        "RSS grew from {:.1} MiB to {:.1} MiB over the second round",
        mib(first),
        mib(second)
    );
    assert!(
        second <= rss_start + 64 * 1024 * 1024,
        "RSS grew from {:.1} MiB to {:.1} MiB",
        mib(rss_start),
        mib(second)
    );
}

#[test]
fn clients_that_leave_midway_cancel_their_streams() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let server = Server::start();
    let client_rt = client_runtime();
    let idle_tasks = server.alive_tasks();

    // Ids 0, 1, 4, 5, ...: half the canonical and half the raw readers leave at DROP_AT.
    let leaves = |id: u64| id % 4 < 2;
    let peaks = run_load(&server, &client_rt, leaves);
    let settled = server.settle(idle_tasks);
    eprintln!(
        "{STREAMS} streams, {} left after {DROP_AT} updates, in {:?}; peaks: {} open streams, {} server tasks \
         (idle {idle_tasks}); idle again {settled:?} later",
        STREAMS / 2,
        peaks.elapsed,
        peaks.open_streams,
        peaks.alive_tasks
    );

    let outcomes = server.probe.outcomes.lock().unwrap().clone();
    assert_eq!(outcomes.len() as u64, STREAMS);
    for (id, outcome) in outcomes {
        let expected = if leaves(id) {
            Outcome::Cancelled(DROP_AT)
        } else {
            Outcome::Completed(UPDATES)
        };
        assert_eq!(outcome, expected, "stream {id}");
    }
    assert_eq!(server.probe.dropped.load(Ordering::SeqCst) as u64, STREAMS);
    assert_eq!(server.extension.open_streams(), 0);
}
