//! The generator: keep-alive HTTP/1.1 connections opened before the round, a pacing
//! thread releasing request `i` at `start + i / rate`, a dispatcher handing each released
//! request to an idle connection (or queueing it until one is free), and latency taken
//! from the intended send time into HDR histograms.

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

use super::target::Target;

/// A request not answered within this long is recorded at it, as unfinished.
const REQUEST_DEADLINE: Duration = Duration::from_secs(5);
/// A rate is sustained when this share of it is achieved ...
const SUSTAINED_SHARE: f64 = 0.99;
/// ... and its p99 stays below this (the queue is not growing).
const SUSTAINED_P99: Duration = Duration::from_millis(2);

/// What one round at one rate gave.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Latency from the intended send time, ns.
    pub latency: Histogram<u64>,
    /// Dispatch time - intended send time, ns.
    pub lag: Histogram<u64>,
    /// Requests whose intended time found no idle connection.
    pub waited: u64,
    /// Non-2xx answers, broken connections, answers without the expected bytes.
    pub errors: u64,
    /// Requests not answered by the round's deadline.
    pub unfinished: u64,
    /// Recorded requests answered per second, over the measured window.
    pub achieved: f64,
    pub target: u64,
}

impl Outcome {
    pub fn quantile_us(&self, q: f64) -> f64 {
        self.latency.value_at_quantile(q) as f64 / 1000.0
    }

    pub fn sustained(&self) -> bool {
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
pub fn connections_for(rate: u64) -> usize {
    ((rate / 500) as usize).clamp(32, 256)
}

/// Runs one open-loop round on a thread of its own (a current-thread runtime, plus the
/// pacing thread), both on the CPUs `on` if given: `warmup` unrecorded, then `duration`
/// recorded, at `rate` req/s.
pub async fn round(
    target: Target,
    rate: u64,
    warmup: Duration,
    duration: Duration,
    on: Option<Vec<usize>>,
) -> Outcome {
    // A thread of its own rather than the blocking pool's: the pinning stays with it.
    let (done, outcome) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        if let Some(cpus) = &on {
            super::cpus::pin(cpus).expect("pin the generator");
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("generator runtime");
        let _ = done.send(runtime.block_on(drive(target, rate, warmup, duration)));
    });
    outcome.await.expect("the generator thread ends with an outcome")
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A loopback server whose every answer takes `delay`, with `status`.
    async fn slow_server(delay: Duration, status: u16) -> String {
        let app = axum::Router::new().route(
            "/chat",
            axum::routing::post(move || async move {
                tokio::time::sleep(delay).await;
                (
                    http::StatusCode::from_u16(status).expect("status"),
                    "{\"finish\":\"stop\"}",
                )
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        tokio::spawn(async move { axum::serve(listener, app).await });
        format!("http://{addr}")
    }

    fn chat(base: &str) -> Target {
        Target::new(base, "/chat", Body::Fixed(Bytes::from_static(b"{}")), b"\"finish")
    }

    /// The reason the generator exists: a server slower than the schedule holds requests
    /// back, and they are timed from when they were meant to go, not from when a
    /// connection came free. 300 requests at 1000/s on 32 connections of a server taking
    /// 100 ms each cannot all be answered before ~0.9 s, so the late ones waited well
    /// over half a second although no single answer took more than ~100 ms; a closed-loop
    /// timing (send to answer) would put p99 near 100 ms.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn latency_counts_from_the_intended_send_time() {
        let base = slow_server(Duration::from_millis(100), 200).await;
        let outcome = round(
            chat(&base),
            1000,
            Duration::ZERO,
            Duration::from_millis(300),
            None,
        )
        .await;
        assert_eq!(outcome.latency.len(), 300, "every scheduled request is recorded");
        assert_eq!((outcome.errors, outcome.unfinished), (0, 0));
        assert!(
            outcome.waited > 200,
            "most requests found no idle connection: {}",
            outcome.waited
        );
        let p99 = Duration::from_nanos(outcome.latency.value_at_quantile(0.99));
        assert!(
            p99 >= Duration::from_millis(500),
            "p99 {p99:?} includes the queueing"
        );
        assert!(!outcome.sustained());
    }

    /// Failed answers are counted as errors (and recorded), never as good answers.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn failed_answers_are_errors() {
        let base = slow_server(Duration::ZERO, 500).await;
        let outcome = round(chat(&base), 200, Duration::ZERO, Duration::from_millis(250), None).await;
        assert_eq!(outcome.errors, 50);
        assert_eq!(outcome.latency.len(), 50);
        assert_eq!(outcome.achieved, 0.0);
        assert!(!outcome.sustained());
    }

    /// Requests before the measured window are sent but not recorded.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_warm_up_is_not_recorded() {
        let base = slow_server(Duration::ZERO, 200).await;
        let outcome = round(
            chat(&base),
            200,
            Duration::from_millis(250),
            Duration::from_millis(250),
            None,
        )
        .await;
        assert_eq!(outcome.latency.len(), 50);
        assert_eq!(outcome.errors, 0);
    }
}
