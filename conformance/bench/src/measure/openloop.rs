//! 11. Open-loop tail latency (issue 30): requests sent on a fixed schedule, latency taken
//!     from each request's *intended* send time into an HDR histogram, so a slow answer
//!     cannot hold back the requests after it (no coordinated omission), as wrk2-style
//!     gateway benchmarks report p99 at a fixed rate.
//!
//! - `/chat` (8 updates folded into one answer) and MCP `tools/call`: the SDK extension
//!   against the hand-written axum handler and the bare rmcp server, at 1k and 5k req/s
//!   and at the highest rate the baseline sustains here (found by a quick search).
//! - The proxies: the Ollama extension in front of the fake Ollama and `aep-openai` in
//!   front of `fake-openai`, against the generator talking to the stand-in directly: the
//!   added p99 at a fixed rate.
//!
//! Process layout: every server (SDK, baseline, proxy, stand-in) runs in a child process
//! of its own (`aep-bench open-loop-serve <kind>`), on its own two-worker runtime; the
//! generator runs in this process on one thread (a current-thread runtime) plus a pacing
//! thread. In one process the generator's polling would share the server's two workers
//! and its backlog would delay the server's tasks (and the other way round).
//!
//! The generator: `connections` keep-alive HTTP/1.1 connections (hyper's client
//! connections, opened before the round and reused), a pacing thread that releases
//! request `i` at `start + i / rate` (its sleeps with a 1 ns timer slack, so it wakes
//! within a few µs), and a dispatcher that hands each released request to an idle
//! connection, or queues it until one is free. A request that had to wait (for the pacer,
//! the dispatcher or a connection) is counted from its intended time, never dropped; one
//! not answered within the round's deadline is recorded at the deadline and counted as
//! unfinished. `send lag` (dispatch - intended) is reported so a late generator shows.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;

use super::{interleave, upstream_process};
use crate::report::Row;

/// The open-loop measurement's settings (`aep-bench open-loop --help`).
#[derive(Debug, Clone, clap::Args)]
pub struct Settings {
    /// Measured seconds per round (after the warm-up).
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,
    /// Unrecorded warm-up seconds at the same rate before each round.
    #[arg(long, default_value_t = 1.0)]
    pub warmup: f64,
    /// Rounds per variant and rate (SDK and baseline alternate).
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Fixed rates (req/s) measured for /chat and MCP, besides the highest sustained one.
    #[arg(long, value_delimiter = ',', default_values_t = [1000u64, 5000])]
    pub rates: Vec<u64>,
    /// Rates (req/s) of the proxy comparisons.
    #[arg(long, value_delimiter = ',', default_values_t = [1000u64, 5000])]
    pub proxy_rates: Vec<u64>,
    /// Skip the search for the highest rate the baseline sustains.
    #[arg(long)]
    pub no_search: bool,
    /// What to measure: any of chat, mcp, ollama, openai.
    #[arg(long, value_delimiter = ',', default_values_t = ["chat".to_owned(), "mcp".to_owned(), "ollama".to_owned(), "openai".to_owned()])]
    pub only: Vec<String>,
    /// The SDK and baseline servers as an operator runs them: the SDK's default tracing
    /// (`init_tracing`, `info`) in both, the SDK's Prometheus metrics on.
    #[arg(long)]
    pub operator: bool,
}

/// p99 goal for the SDK against its baseline.
const P99_GOAL: f64 = 1.10;
/// A request not answered within this long is recorded at it, as unfinished.
const REQUEST_DEADLINE: Duration = Duration::from_secs(5);
/// A rate is sustained when this share of it is achieved ...
const SUSTAINED_SHARE: f64 = 0.99;
/// ... and its p99 stays below this (the queue is not growing).
const SUSTAINED_P99: Duration = Duration::from_millis(2);

// ---------------------------------------------------------------------------------------
// What is sent.

/// One kind of request: where it goes and what it carries.
#[derive(Clone)]
struct Target {
    addr: SocketAddr,
    /// `Host` header (hyper's connection-level client does not set one).
    host: String,
    path: String,
    headers: Vec<(http::HeaderName, http::HeaderValue)>,
    body: Body,
    /// A byte string every good answer contains.
    expect: &'static [u8],
}

#[derive(Clone)]
enum Body {
    Fixed(Bytes),
    /// An MCP `tools/call` with a fresh JSON-RPC id (one session, many calls in flight).
    McpCall,
}

impl Target {
    fn new(base_url: &str, path: &str, body: Body, expect: &'static [u8]) -> Self {
        let host = base_url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned();
        let addr = host.parse().expect("a loopback address with a port");
        Self {
            addr,
            host,
            path: path.to_owned(),
            headers: vec![(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/json"),
            )],
            body,
            expect,
        }
    }

    fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((
            http::HeaderName::from_static(name),
            http::HeaderValue::from_str(value).expect("header value"),
        ));
        self
    }

    fn request(&self, id: u64) -> http::Request<Full<Bytes>> {
        let body = match &self.body {
            Body::Fixed(bytes) => bytes.clone(),
            Body::McpCall => Bytes::from(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{id},"b":1}}}}}}"#
            )),
        };
        let mut request = http::Request::post(&self.path)
            .header(http::header::HOST, &self.host)
            .body(Full::new(body))
            .expect("request");
        for (name, value) in &self.headers {
            request.headers_mut().insert(name.clone(), value.clone());
        }
        request
    }
}

// ---------------------------------------------------------------------------------------
// The generator.

/// What one round at one rate gave.
#[derive(Debug, Clone)]
struct Outcome {
    /// Latency from the intended send time, ns.
    latency: Histogram<u64>,
    /// Dispatch time - intended send time, ns.
    lag: Histogram<u64>,
    /// Requests whose intended time found no idle connection.
    waited: u64,
    /// Non-2xx answers, broken connections, answers without the expected bytes.
    errors: u64,
    /// Requests not answered by the round's deadline.
    unfinished: u64,
    /// Recorded requests answered per second, over the measured window.
    achieved: f64,
    target: u64,
}

impl Outcome {
    fn quantile_us(&self, q: f64) -> f64 {
        self.latency.value_at_quantile(q) as f64 / 1000.0
    }

    fn sustained(&self) -> bool {
        self.achieved >= SUSTAINED_SHARE * self.target as f64
            && self.errors == 0
            && self.unfinished == 0
            && self.latency.value_at_quantile(0.99) <= SUSTAINED_P99.as_nanos() as u64
    }
}

fn histogram() -> Histogram<u64> {
    // 1 ns .. 100 s at 3 significant digits.
    Histogram::new_with_bounds(1, 100_000_000_000, 3).expect("histogram bounds")
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Connections to open for `rate`: enough that at 2 ms per answer none waits.
fn connections_for(rate: u64) -> usize {
    ((rate / 500) as usize).clamp(32, 256)
}

/// Runs one open-loop round on a thread of its own (a current-thread runtime, plus the
/// pacing thread): `warmup` unrecorded, then `duration` recorded, at `rate` req/s.
async fn round(target: Target, rate: u64, warmup: Duration, duration: Duration) -> Outcome {
    tokio::task::spawn_blocking(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("generator runtime");
        runtime.block_on(drive(target, rate, warmup, duration))
    })
    .await
    .expect("generator thread")
}

async fn connect(addr: SocketAddr) -> Option<SendRequest<Full<Bytes>>> {
    let connect = async {
        let tcp = tokio::net::TcpStream::connect(addr).await.ok()?;
        tcp.set_nodelay(true).ok()?;
        let (send, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
            .await
            .ok()?;
        tokio::spawn(connection);
        Some(send)
    };
    tokio::time::timeout(Duration::from_secs(5), connect)
        .await
        .ok()
        .flatten()
}

/// The pacer: releases request `i` at `start + i / rate` until `count` are out.
fn pace(start: Instant, rate: u64, count: u64, out: tokio::sync::mpsc::UnboundedSender<Instant>) {
    // A 1 ns timer slack: the default 50 µs would make every wake-up up to 50 µs late.
    // SAFETY: prctl(PR_SET_TIMERSLACK) changes this thread's timer slack only.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
    for i in 0..count {
        let due = start + Duration::from_nanos((i as u128 * 1_000_000_000 / rate as u128) as u64);
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        if out.send(due).is_err() {
            return;
        }
    }
}

type InFlight = std::pin::Pin<Box<dyn std::future::Future<Output = Done>>>;

/// A finished request: its connection (if still usable), when it was meant to go, and
/// whether the answer was good.
struct Done {
    slot: usize,
    connection: Option<SendRequest<Full<Bytes>>>,
    intended: Instant,
    ok: bool,
}

fn send(
    slot: usize,
    mut connection: SendRequest<Full<Bytes>>,
    request: http::Request<Full<Bytes>>,
    intended: Instant,
    expect: &'static [u8],
) -> InFlight {
    Box::pin(async move {
        let exchange = async {
            connection.ready().await.ok()?;
            let response = connection.send_request(request).await.ok()?;
            let status = response.status();
            let body = response.into_body().collect().await.ok()?.to_bytes();
            Some(status.is_success() && body.windows(expect.len()).any(|w| w == expect))
        };
        match tokio::time::timeout(REQUEST_DEADLINE, exchange).await {
            Ok(Some(ok)) => Done {
                slot,
                connection: Some(connection),
                intended,
                ok,
            },
            _ => Done {
                slot,
                connection: None,
                intended,
                ok: false,
            },
        }
    })
}

async fn drive(target: Target, rate: u64, warmup: Duration, duration: Duration) -> Outcome {
    let connections = connections_for(rate);
    let mut idle = Vec::with_capacity(connections);
    for _ in 0..connections {
        idle.push(connect(target.addr).await.expect("connect to the server"));
    }
    let start = Instant::now() + Duration::from_millis(20);
    let measured_from = start + warmup;
    let total = warmup + duration;
    let count = ((total.as_secs_f64() * rate as f64).round() as u64).max(1);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let pacer = std::thread::spawn(move || pace(start, rate, count, tx));

    let mut latency = histogram();
    let mut lag = histogram();
    let (mut waited, mut errors, mut answered) = (0u64, 0u64, 0u64);
    let mut last_done = measured_from;
    let mut queue: VecDeque<Instant> = VecDeque::new();
    let mut inflight: FuturesUnordered<InFlight> = FuturesUnordered::new();
    // Intended time of the request on each slot, for the deadline's accounting.
    let mut busy: Vec<Option<Instant>> = vec![None; connections];
    let mut free_slots: Vec<usize> = (0..connections).collect();
    let mut reconnecting = FuturesUnordered::new();
    let mut next_id = 1u64;
    let mut released = true;
    let deadline = start + total + REQUEST_DEADLINE + Duration::from_secs(1);
    let deadline_sleep = tokio::time::sleep_until(deadline.into());
    tokio::pin!(deadline_sleep);

    loop {
        // Hand queued requests to idle connections.
        while !queue.is_empty() && !idle.is_empty() {
            let intended = queue.pop_front().expect("queued");
            let connection = idle.pop().expect("idle");
            let slot = free_slots.pop().expect("a slot per connection");
            let now = Instant::now();
            if intended >= measured_from {
                lag.saturating_record(nanos(now.saturating_duration_since(intended)));
            }
            busy[slot] = Some(intended);
            inflight.push(send(
                slot,
                connection,
                target.request(next_id),
                intended,
                target.expect,
            ));
            next_id += 1;
        }
        if !released && queue.is_empty() && inflight.is_empty() {
            break;
        }
        tokio::select! {
            biased;
            due = rx.recv(), if released => match due {
                Some(intended) => {
                    if idle.is_empty() && intended >= measured_from {
                        waited += 1;
                    }
                    queue.push_back(intended);
                }
                None => released = false,
            },
            Some(done) = inflight.next() => {
                let now = Instant::now();
                busy[done.slot] = None;
                free_slots.push(done.slot);
                if done.intended >= measured_from {
                    latency.saturating_record(nanos(now.saturating_duration_since(done.intended)));
                    if done.ok {
                        answered += 1;
                        last_done = now;
                    } else {
                        errors += 1;
                    }
                }
                match done.connection {
                    Some(connection) => idle.push(connection),
                    None => reconnecting.push(connect(target.addr)),
                }
            },
            Some(connection) = reconnecting.next(), if !reconnecting.is_empty() => match connection {
                Some(connection) => idle.push(connection),
                None => reconnecting.push(connect(target.addr)),
            },
            _ = &mut deadline_sleep => break,
        }
    }
    // Whatever is left at the deadline counts from its intended time to now.
    let now = Instant::now();
    let mut unfinished = 0;
    for intended in queue.iter().copied().chain(busy.iter().flatten().copied()) {
        if intended >= measured_from {
            latency.saturating_record(nanos(now.saturating_duration_since(intended)));
            unfinished += 1;
        }
    }
    drop(rx);
    let _ = pacer.join();
    let window = last_done.saturating_duration_since(measured_from).as_secs_f64();
    Outcome {
        latency,
        lag,
        waited,
        errors,
        unfinished,
        achieved: if window > 0.0 {
            answered as f64 / window
        } else {
            0.0
        },
        target: rate,
    }
}

// ---------------------------------------------------------------------------------------
// The servers, each in a process of its own.

/// `aep-bench open-loop-serve <kind> [--upstream URL]`: serves one variant until killed;
/// the first line on stdout is `listening on <url>`.
pub async fn serve(kind: &str, upstream: Option<&str>) {
    use aep_sdk::server::AepExtension;
    let running = match kind {
        "sdk" => crate::servers::sdk().await,
        "baseline" => crate::servers::baseline().await,
        "sdk-operator" => {
            aep_sdk::server::init_tracing();
            let extension = crate::servers::SdkBench
                .extension_builder()
                .metrics()
                .build()
                .expect("valid declaration");
            crate::servers::serve(extension.router()).await
        }
        "baseline-operator" => {
            aep_sdk::server::init_tracing();
            crate::servers::baseline().await
        }
        "ollama-proxy" => {
            let upstream = upstream.expect("--upstream");
            let config = aep_ollama::config::OllamaConfig::with_url(upstream).expect("upstream URL");
            let extension = aep_ollama::OllamaExtension::new(config)
                .expect("extension")
                .into_extension()
                .expect("valid declaration");
            crate::servers::serve(extension.router()).await
        }
        "openai-proxy" => {
            use aep_openai_compatible::config::UpstreamConfig;
            use aep_openai_compatible::flavor::Flavor;
            use aep_openai_compatible::openai::OpenAiExtension;
            use aep_openai_compatible::upstream::Upstream;
            let upstream = upstream.expect("--upstream");
            let mut config = UpstreamConfig::new(Flavor::OpenAi, upstream).expect("endpoint");
            config.tuning.include_usage = false;
            let extension = aep_openai_compatible::build(OpenAiExtension(
                Upstream::new(config, Vec::new()).expect("client"),
            ))
            .expect("valid declaration");
            crate::servers::serve(extension.router()).await
        }
        other => panic!("unknown server kind {other}"),
    };
    println!("listening on {}", running.base_url);
    std::future::pending::<()>().await;
}

/// A server child process, killed when dropped.
struct Child {
    _process: tokio::process::Child,
    base_url: String,
}

async fn start(args: &[&str]) -> Child {
    let start = upstream_process(args);
    let (process, base_url) = tokio::time::timeout(Duration::from_secs(30), start)
        .await
        .expect("the server process starts within 30 s");
    Child {
        _process: process,
        base_url,
    }
}

async fn start_kind(kind: &str) -> Child {
    start(&["open-loop-serve", kind]).await
}

// ---------------------------------------------------------------------------------------
// MCP: one session, initialized once.

/// Opens an MCP session at `{base}/mcp` (initialize, then notifications/initialized) and
/// returns the `tools/call` target carrying its session and protocol-version headers.
async fn mcp_target(base: &str) -> Target {
    let client = super::http();
    let url = format!("{base}/mcp");
    let accept = "application/json, text/event-stream";
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "aep-bench", "version": "1.0.0"}
        }
    });
    let response = client
        .post(&url)
        .header("accept", accept)
        .json(&initialize)
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .expect("MCP initialize");
    assert!(
        response.status().is_success(),
        "initialize: {}",
        response.status()
    );
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    let body = response.text().await.expect("initialize answer");
    let version = body
        .split("\"protocolVersion\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or("2025-11-25")
        .to_owned();
    let initialized = client
        .post(&url)
        .header("accept", accept)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", &version)
        .json(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .expect("notifications/initialized");
    assert!(
        initialized.status().is_success(),
        "initialized: {}",
        initialized.status()
    );
    Target::new(base, "/mcp", Body::McpCall, b"\"result\"")
        .header("accept", accept)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", &version)
}

fn chat_target(base: &str) -> Target {
    let body = serde_json::to_vec(&super::request(8)).expect("request JSON");
    Target::new(
        base,
        "/aep/model-providers/echo/chat",
        Body::Fixed(body.into()),
        b"\"finish",
    )
}

// ---------------------------------------------------------------------------------------
// Rounds, the search, rows.

fn log(who: &str, rate: u64, outcome: &Outcome) {
    eprintln!(
        "  {who} {rate}/s: p50 {:.0} µs, p99 {:.0} µs, p99.9 {:.0} µs, achieved {:.0}/s, lag p99 {:.0} µs, waited {}, errors {}, unfinished {}",
        outcome.quantile_us(0.5),
        outcome.quantile_us(0.99),
        outcome.quantile_us(0.999),
        outcome.achieved,
        outcome.lag.value_at_quantile(0.99) as f64 / 1000.0,
        outcome.waited,
        outcome.errors,
        outcome.unfinished,
    );
}

/// Rounds at `rate` alternating the two targets; (SDK outcomes, baseline outcomes).
async fn compare(
    sdk: &Target,
    base: &Target,
    rate: u64,
    settings: &Settings,
) -> (Vec<Outcome>, Vec<Outcome>) {
    let warmup = Duration::from_secs_f64(settings.warmup);
    let duration = Duration::from_secs_f64(settings.duration);
    interleave(settings.rounds, |use_sdk| {
        let target = if use_sdk { sdk.clone() } else { base.clone() };
        async move {
            let outcome = round(target, rate, warmup, duration).await;
            log(if use_sdk { "sdk " } else { "base" }, rate, &outcome);
            outcome
        }
    })
    .await
}

/// The highest rate `target` sustains (achieved >= 99%, no errors, p99 <= 2 ms), in
/// 2-second probes: doubling from 5k req/s, then four bisection steps, rounded down to
/// 500 req/s.
async fn highest_sustained(target: &Target) -> u64 {
    let probe = |rate: u64| {
        let target = target.clone();
        async move {
            let outcome = round(target, rate, Duration::from_millis(500), Duration::from_secs(2)).await;
            eprintln!(
                "  search {rate}/s: achieved {:.0}/s, p99 {:.0} µs, errors {}, unfinished {} -> {}",
                outcome.achieved,
                outcome.quantile_us(0.99),
                outcome.errors,
                outcome.unfinished,
                if outcome.sustained() {
                    "sustained"
                } else {
                    "not sustained"
                }
            );
            outcome.sustained()
        }
    };
    let (mut good, mut bad) = (0u64, 0u64);
    let mut rate = 5000;
    while rate <= 320_000 {
        if probe(rate).await {
            good = rate;
            rate *= 2;
        } else {
            bad = rate;
            break;
        }
    }
    if bad == 0 {
        return good;
    }
    if good == 0 {
        // Below 5k: search down from there.
        let mut low = 250;
        while low < bad && probe(low * 2).await {
            low *= 2;
        }
        good = low;
        bad = bad.min(low * 2);
    }
    for _ in 0..4 {
        let mid = (good + bad) / 2;
        if probe(mid).await {
            good = mid;
        } else {
            bad = mid;
        }
    }
    (good / 500 * 500).max(500)
}

fn quantiles(outcomes: &[Outcome], q: f64) -> Vec<f64> {
    outcomes.iter().map(|o| o.quantile_us(q)).collect()
}

fn median(values: Vec<f64>) -> f64 {
    crate::stats::Summary::of(&values).median
}

/// What the rounds of a rate say besides their latencies: achieved rate, lag, trouble.
fn context(sdk: &[Outcome], base: &[Outcome], settings: &Settings) -> String {
    let achieved = |o: &[Outcome]| median(o.iter().map(|o| o.achieved).collect());
    let lag = |o: &[Outcome]| {
        median(
            o.iter()
                .map(|o| o.lag.value_at_quantile(0.99) as f64 / 1000.0)
                .collect(),
        )
    };
    let trouble = |o: &[Outcome]| -> u64 { o.iter().map(|o| o.errors + o.unfinished).sum() };
    let waited = |o: &[Outcome]| -> u64 { o.iter().map(|o| o.waited).sum() };
    let target = sdk.first().map(|o| o.target).unwrap_or(0);
    format!(
        "achieved {:.0}/{:.0} req/s of {target}; {}x{:.0} s rounds, {} conns; generator lag p99 {:.0}/{:.0} µs; waited for a connection {}/{}; errors+unfinished {}/{}",
        achieved(sdk),
        achieved(base),
        settings.rounds,
        settings.duration,
        connections_for(target),
        lag(sdk),
        lag(base),
        waited(sdk),
        waited(base),
        trouble(sdk),
        trouble(base),
    )
}

/// Rows of a comparison of two servers at one rate: p50, p99 (goal), p99.9.
fn latency_rows(
    what: &str,
    rate: u64,
    label: &str,
    sdk: &[Outcome],
    base: &[Outcome],
    settings: &Settings,
) -> Vec<Row> {
    let name = |q: &str| format!("11. open loop {what} {q} at {rate} req/s{label}");
    vec![
        Row::compare(name("p50"), "µs", &quantiles(sdk, 0.5), &quantiles(base, 0.5)),
        Row::compare(name("p99"), "µs", &quantiles(sdk, 0.99), &quantiles(base, 0.99))
            .ratio_at_most(P99_GOAL)
            .note(context(sdk, base, settings)),
        Row::compare(
            name("p99.9"),
            "µs",
            &quantiles(sdk, 0.999),
            &quantiles(base, 0.999),
        ),
    ]
}

/// `/chat` or MCP: fixed rates, then the highest the baseline sustains.
async fn server_rows(what: &str, sdk: &Target, base: &Target, settings: &Settings, label: &str) -> Vec<Row> {
    let mut rates = settings.rates.clone();
    let mut highest = None;
    if !settings.no_search {
        eprintln!("  searching the highest rate the baseline's {what} sustains ...");
        let found = highest_sustained(base).await;
        eprintln!("  highest sustained: {found} req/s");
        rates.retain(|r| *r < found);
        rates.push(found);
        highest = Some(found);
    }
    let mut rows = Vec::new();
    for rate in rates {
        let (s, b) = compare(sdk, base, rate, settings).await;
        let mut block = latency_rows(what, rate, label, &s, &b, settings);
        if highest == Some(rate) {
            for row in &mut block {
                row.note = if row.note.is_empty() {
                    "the highest rate the baseline sustains here".into()
                } else {
                    format!("the highest rate the baseline sustains here; {}", row.note)
                };
            }
        }
        rows.extend(block);
    }
    rows
}

/// A proxy and its stand-in, running, with the two targets: through the proxy, and the
/// stand-in directly as the proxy asks it.
struct ProxySetup {
    _processes: Vec<Child>,
    via: Target,
    direct: Target,
}

#[derive(Clone, Copy)]
enum Proxy {
    Ollama,
    OpenAi,
}

impl Proxy {
    fn name(self) -> &'static str {
        match self {
            Proxy::Ollama => "Ollama proxy /chat",
            Proxy::OpenAi => "OpenAI proxy /chat/stream",
        }
    }

    /// Starts a fresh stand-in and proxy (each round gets its own: `fake-openai` keeps
    /// every request it was sent, and a store grown over all rounds would tax later ones).
    async fn start(self) -> ProxySetup {
        let (upstream, kind, model, content, path, direct_path, direct_expect) = match self {
            Proxy::Ollama => (
                start(&["ollama-upstream", "--deltas", "3"]).await,
                "ollama-proxy",
                "llama3.2:latest",
                "hello there",
                "/aep/model-providers/ollama/chat",
                "/api/chat",
                &b"\"done\":true"[..],
            ),
            Proxy::OpenAi => (
                start(&["upstream", "--listen", "127.0.0.1:0"]).await,
                "openai-proxy",
                "echo",
                "hello there friend",
                "/aep/model-providers/openai/chat/stream",
                "/v1/chat/completions",
                &b"[DONE]"[..],
            ),
        };
        let proxy = start(&["open-loop-serve", kind, "--upstream", &upstream.base_url]).await;
        let body = serde_json::to_vec(&aep_sdk::protocol::ChatRequest::new(
            model,
            vec![aep_sdk::protocol::Message::user(content)],
        ))
        .expect("request JSON");
        let via = Target::new(&proxy.base_url, path, Body::Fixed(body.into()), b"\"finish");
        let direct_body = serde_json::json!({"model": model, "messages": [{"role": "user", "content": content}], "stream": true});
        let direct = Target::new(
            &upstream.base_url,
            direct_path,
            Body::Fixed(serde_json::to_vec(&direct_body).expect("JSON").into()),
            direct_expect,
        );
        ProxySetup {
            _processes: vec![proxy, upstream],
            via,
            direct,
        }
    }
}

/// A proxy against its stand-in at each proxy rate: latency rows plus the added p99.
async fn proxy_rows(proxy: Proxy, settings: &Settings) -> Vec<Row> {
    let warmup = Duration::from_secs_f64(settings.warmup);
    let duration = Duration::from_secs_f64(settings.duration);
    let what = proxy.name();
    let mut rows = Vec::new();
    for &rate in &settings.proxy_rates {
        let (mut via, mut direct) = (Vec::new(), Vec::new());
        for r in 0..settings.rounds {
            let setup = proxy.start().await;
            for use_proxy in [r % 2 == 0, r % 2 != 0] {
                let target = if use_proxy { &setup.via } else { &setup.direct };
                let outcome = round(target.clone(), rate, warmup, duration).await;
                log(if use_proxy { "via " } else { "dir " }, rate, &outcome);
                if use_proxy {
                    via.push(outcome)
                } else {
                    direct.push(outcome)
                }
            }
        }
        let added: Vec<f64> = via
            .iter()
            .zip(&direct)
            .map(|(v, d)| (v.quantile_us(0.99) - d.quantile_us(0.99)) / 1000.0)
            .collect();
        rows.extend(latency_rows(
            what,
            rate,
            " (proxy vs stand-in direct)",
            &via,
            &direct,
            settings,
        ));
        rows.push(
            Row::single(
                format!("11. open loop {what} added p99 at {rate} req/s"),
                "ms",
                &added,
            )
            .note("per round: p99 via the proxy - p99 direct, same stand-in"),
        );
    }
    rows
}

pub async fn rows(settings: &Settings) -> Vec<Row> {
    let only = |what: &str| settings.only.iter().any(|o| o == what);
    let mut rows = Vec::new();
    if only("chat") || only("mcp") {
        let (sdk_kind, base_kind, label) = if settings.operator {
            ("sdk-operator", "baseline-operator", ", tracing + metrics")
        } else {
            ("sdk", "baseline", "")
        };
        let sdk = start_kind(sdk_kind).await;
        let base = start_kind(base_kind).await;
        if only("chat") {
            eprintln!("  /chat ...");
            let (s, b) = (chat_target(&sdk.base_url), chat_target(&base.base_url));
            rows.extend(server_rows("/chat", &s, &b, settings, label).await);
        }
        if only("mcp") {
            eprintln!("  MCP tools/call ...");
            let s = mcp_target(&sdk.base_url).await;
            let b = mcp_target(&base.base_url).await;
            rows.extend(server_rows("MCP tools/call", &s, &b, settings, label).await);
        }
    }
    if only("ollama") {
        eprintln!("  Ollama proxy ...");
        rows.extend(proxy_rows(Proxy::Ollama, settings).await);
    }
    if only("openai") {
        eprintln!("  OpenAI-compatible proxy ...");
        rows.extend(proxy_rows(Proxy::OpenAi, settings).await);
    }
    rows
}
