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
    /// Good answers to the recorded requests per second of their schedule (a server
    /// that falls behind but answers everything before the deadline shows in the
    /// latencies, not here).
    pub achieved: f64,
    pub target: u64,
    /// Requests sent, warm-up included.
    pub sent: u64,
    /// Requests sent again because their connection had been closed before they were
    /// written.
    pub resent: u64,
    /// The server process's CPU time per request sent, µs (when its process is known).
    pub server_cpu_us: Option<f64>,
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

/// One round at `rate` req/s: `warmup` unrecorded, then `duration` recorded, the
/// schedule handed to the targets in turn, `slice` each (all of it to one target if
/// there is one). A slice is long against a request and short against what disturbs a
/// shared machine (another tenant, a busy host), so the targets see the same machine
/// and their histograms can be compared.
#[derive(Debug, Clone)]
pub struct Round {
    pub rate: u64,
    pub warmup: Duration,
    pub duration: Duration,
    pub slice: Duration,
    /// The CPUs the generator and its pacer run on.
    pub on: Option<Vec<usize>>,
}

impl Round {
    /// Runs the round on a thread of its own (a current-thread runtime, plus the pacing
    /// thread): one outcome per target, in their order.
    pub async fn run(&self, targets: Vec<Target>) -> Vec<Outcome> {
        // A thread of its own rather than the blocking pool's: the pinning stays with it.
        let (done, outcomes) = tokio::sync::oneshot::channel();
        let round = self.clone();
        std::thread::spawn(move || {
            if let Some(cpus) = &round.on {
                super::cpus::pin(cpus).expect("pin the generator");
            }
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("generator runtime");
            let servers: Vec<Option<u32>> = targets.iter().map(|t| t.server).collect();
            let cpu = |pid: &Option<u32>| pid.and_then(super::serve::cpu_time);
            let before: Vec<_> = servers.iter().map(cpu).collect();
            let mut outcomes = runtime.block_on(drive(&round, targets));
            for ((outcome, pid), before) in outcomes.iter_mut().zip(&servers).zip(before) {
                if let (Some(before), Some(after)) = (before, cpu(pid)) {
                    let used = after.saturating_sub(before).as_secs_f64() * 1e6;
                    outcome.server_cpu_us = Some(used / outcome.sent.max(1) as f64);
                }
            }
            let _ = done.send(outcomes);
        });
        outcomes.await.expect("the generator thread ends with outcomes")
    }

    /// Which target the request meant for `intended` goes to.
    fn target_of(&self, start: Instant, intended: Instant, targets: usize) -> usize {
        let slice = self.slice.as_nanos().max(1);
        ((intended.saturating_duration_since(start).as_nanos() / slice) % targets as u128) as usize
    }
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

/// A new connection for target `t`, in place of one that broke.
async fn reconnect(t: usize, addr: SocketAddr) -> (usize, Option<SendRequest<Full<Bytes>>>) {
    (t, connect(addr).await)
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
/// how it went.
struct Done {
    slot: usize,
    connection: Option<SendRequest<Full<Bytes>>>,
    intended: Instant,
    answer: Answer,
}

enum Answer {
    /// A 2xx answer with the expected bytes.
    Good,
    /// Anything else once the request was on its way: an error status, a broken or
    /// stalled exchange, an answer without the expected bytes.
    Bad,
    /// The connection was closed before the request could be written (a server may
    /// close a kept-alive connection it has not heard from): it goes out again on
    /// another one, still timed from its intended time.
    NotSent,
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
            if connection.ready().await.is_err() {
                return Answer::NotSent;
            }
            let response = match connection.try_send_request(request).await {
                Ok(response) => response,
                Err(mut error) => {
                    return match error.take_message() {
                        Some(_) => Answer::NotSent,
                        None => Answer::Bad,
                    };
                }
            };
            let status = response.status();
            let Ok(body) = response.into_body().collect().await else {
                return Answer::Bad;
            };
            let body = body.to_bytes();
            if status.is_success() && body.windows(expect.len()).any(|w| w == expect) {
                Answer::Good
            } else {
                Answer::Bad
            }
        };
        // A connection whose exchange ran out of time is mid-request: not reusable.
        let (answer, finished) = match tokio::time::timeout(REQUEST_DEADLINE, exchange).await {
            Ok(answer) => (answer, true),
            Err(_) => (Answer::Bad, false),
        };
        let usable = finished && !connection.is_closed();
        Done {
            slot,
            connection: usable.then_some(connection),
            intended,
            answer,
        }
    })
}

/// One target's side of a round: its connections, its queue, what it recorded.
struct Side {
    target: Target,
    idle: Vec<SendRequest<Full<Bytes>>>,
    /// Its slots' numbers (global: target index x connections + k) not in use.
    free_slots: Vec<usize>,
    queue: VecDeque<Instant>,
    answered: u64,
    /// Requests scheduled for it in the measured window.
    scheduled: u64,
    /// What it recorded; `achieved` is filled in at the end.
    out: Outcome,
}

async fn drive(round: &Round, targets: Vec<Target>) -> Vec<Outcome> {
    let connections = connections_for(round.rate);
    let n = targets.len();
    let mut sides = Vec::with_capacity(n);
    for (t, target) in targets.into_iter().enumerate() {
        let mut idle = Vec::with_capacity(connections);
        for _ in 0..connections {
            idle.push(connect(target.addr).await.expect("connect to the server"));
        }
        sides.push(Side {
            target,
            idle,
            free_slots: (t * connections..(t + 1) * connections).collect(),
            queue: VecDeque::new(),
            answered: 0,
            scheduled: 0,
            out: Outcome {
                latency: histogram(),
                lag: histogram(),
                waited: 0,
                errors: 0,
                unfinished: 0,
                achieved: 0.0,
                target: round.rate,
                sent: 0,
                resent: 0,
                server_cpu_us: None,
            },
        });
    }
    let start = Instant::now() + Duration::from_millis(20);
    let measured_from = start + round.warmup;
    let total = round.warmup + round.duration;
    let rate = round.rate;
    let count = ((total.as_secs_f64() * rate as f64).round() as u64).max(1);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let pacer = std::thread::spawn(move || pace(start, rate, count, tx));

    let mut inflight: FuturesUnordered<InFlight> = FuturesUnordered::new();
    // Intended time of the request on each slot, for the deadline's accounting.
    let mut busy: Vec<Option<Instant>> = vec![None; connections * n];
    let mut reconnecting = FuturesUnordered::new();
    let mut next_id = 1u64;
    let mut released = true;
    let deadline = start + total + REQUEST_DEADLINE + Duration::from_secs(1);
    let deadline_sleep = tokio::time::sleep_until(deadline.into());
    tokio::pin!(deadline_sleep);

    loop {
        // Hand queued requests to idle connections.
        for (t, side) in sides.iter_mut().enumerate() {
            while !side.queue.is_empty() && !side.idle.is_empty() {
                let connection = side.idle.pop().expect("idle");
                if connection.is_closed() {
                    reconnecting.push(reconnect(t, side.target.addr));
                    continue;
                }
                let intended = side.queue.pop_front().expect("queued");
                let slot = side.free_slots.pop().expect("a slot per connection");
                let now = Instant::now();
                if intended >= measured_from {
                    side.out
                        .lag
                        .saturating_record(nanos(now.saturating_duration_since(intended)));
                }
                busy[slot] = Some(intended);
                let request = side.target.request(next_id);
                inflight.push(send(slot, connection, request, intended, side.target.expect));
                next_id += 1;
            }
        }
        let idle_work = sides.iter().all(|s| s.queue.is_empty());
        if !released && idle_work && inflight.is_empty() {
            break;
        }
        tokio::select! {
            biased;
            due = rx.recv(), if released => match due {
                Some(intended) => {
                    let side = &mut sides[round.target_of(start, intended, n)];
                    if intended >= measured_from {
                        side.scheduled += 1;
                        if side.idle.is_empty() {
                            side.out.waited += 1;
                        }
                    }
                    side.out.sent += 1;
                    side.queue.push_back(intended);
                }
                None => released = false,
            },
            Some(done) = inflight.next() => {
                let now = Instant::now();
                let t = done.slot / connections;
                let side = &mut sides[t];
                busy[done.slot] = None;
                side.free_slots.push(done.slot);
                match done.answer {
                    Answer::NotSent => {
                        side.out.resent += 1;
                        side.queue.push_front(done.intended);
                    }
                    answer if done.intended >= measured_from => {
                        side.out
                            .latency
                            .saturating_record(nanos(now.saturating_duration_since(done.intended)));
                        match answer {
                            Answer::Good => side.answered += 1,
                            _ => side.out.errors += 1,
                        }
                    }
                    _ => {}
                }
                match done.connection {
                    Some(connection) => side.idle.push(connection),
                    None => {
                        reconnecting.push(reconnect(t, side.target.addr));
                    }
                }
            },
            Some((t, connection)) = reconnecting.next(), if !reconnecting.is_empty() => match connection {
                Some(connection) => sides[t].idle.push(connection),
                None => reconnecting.push(reconnect(t, sides[t].target.addr)),
            },
            _ = &mut deadline_sleep => break,
        }
    }
    // Whatever is left at the deadline counts from its intended time to now.
    let now = Instant::now();
    let in_flight = busy
        .iter()
        .enumerate()
        .filter_map(|(slot, i)| Some((slot / connections, (*i)?)));
    let queued = sides
        .iter()
        .enumerate()
        .flat_map(|(t, side)| side.queue.iter().map(move |&i| (t, i)))
        .collect::<Vec<_>>();
    for (t, intended) in in_flight.chain(queued) {
        if intended >= measured_from {
            let out = &mut sides[t].out;
            out.latency
                .saturating_record(nanos(now.saturating_duration_since(intended)));
            out.unfinished += 1;
        }
    }
    drop(rx);
    let _ = pacer.join();
    sides
        .into_iter()
        .map(|mut side| {
            // Its time in the measured window: the scheduled requests' worth, so that
            // a round shared in slices counts each target's own slices.
            let window = side.scheduled as f64 / rate as f64;
            if window > 0.0 {
                side.out.achieved = side.answered as f64 / window;
            }
            side.out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::openloop::target::Body;

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

    fn round(rate: u64, warmup_ms: u64, duration_ms: u64) -> Round {
        Round {
            rate,
            warmup: Duration::from_millis(warmup_ms),
            duration: Duration::from_millis(duration_ms),
            slice: Duration::from_millis(50),
            on: None,
        }
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
        let [outcome] =
            <[Outcome; 1]>::try_from(round(1000, 0, 300).run(vec![chat(&base)]).await).expect("one outcome");
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

    /// Failed answers are counted as errors (and recorded), never as good answers;
    /// requests before the measured window are sent but not recorded.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn failed_answers_are_errors_and_the_warm_up_is_not_recorded() {
        let base = slow_server(Duration::ZERO, 500).await;
        let outcomes = round(200, 250, 250).run(vec![chat(&base)]).await;
        assert_eq!(outcomes[0].errors, 50);
        assert_eq!(outcomes[0].latency.len(), 50);
        assert_eq!(outcomes[0].achieved, 0.0);
        assert!(!outcomes[0].sustained());
    }

    /// Two targets take the schedule in turns, each recording only its own answers.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn targets_take_the_schedule_in_slices() {
        let good = slow_server(Duration::ZERO, 200).await;
        let failing = slow_server(Duration::ZERO, 503).await;
        // 400 ms at 1000/s in 50 ms slices: 4 slices, 200 requests, each.
        let outcomes = round(1000, 100, 400).run(vec![chat(&good), chat(&failing)]).await;
        assert_eq!(outcomes[0].latency.len(), 200);
        assert_eq!(outcomes[0].errors, 0);
        assert_eq!(outcomes[1].latency.len(), 200);
        assert_eq!(outcomes[1].errors, 200);
    }

    /// A server that closes kept-alive connections it has not heard from for 100 ms
    /// (hyper's header-read timeout, as the SDK's serve loop sets it) loses no request:
    /// those that find their connection closed go out again on a new one.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn connections_closed_while_idle_lose_no_request() {
        use hyper_util::rt::{TokioIo, TokioTimer};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        tokio::spawn(async move {
            loop {
                let (tcp, _) = listener.accept().await.expect("accept");
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(|_request| async {
                        Ok::<_, std::convert::Infallible>(http::Response::new(Full::new(Bytes::from_static(
                            b"{\"finish\":\"stop\"}",
                        ))))
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(Duration::from_millis(100))
                        .serve_connection(TokioIo::new(tcp), service)
                        .await;
                });
            }
        });
        // 10 requests 200 ms apart: each finds its connection closed by the server.
        let outcomes = round(5, 0, 2000).run(vec![chat(&format!("http://{addr}"))]).await;
        assert_eq!(outcomes[0].errors, 0);
        assert_eq!(outcomes[0].unfinished, 0);
        assert_eq!(outcomes[0].latency.len(), 10);
    }
}
