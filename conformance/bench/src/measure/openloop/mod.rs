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
//! of its own (`aep-bench open-loop-serve <kind>`, [`serve`](mod@serve)), served as in production;
//! the generator ([`driver`]) runs in this process on one thread (a current-thread
//! runtime) plus a pacing thread. The generator is pinned to one CPU and the servers to
//! the others ([`cpus`]; `--no-pin` to share them): on two cores a server sharing the
//! generator's core delays it, and the generator's lateness would count as the server's
//! latency.
//!
//! A request that had to wait (for the pacer, the dispatcher or a connection) is counted
//! from its intended time, never dropped; one not answered within the round's deadline
//! is recorded at the deadline and counted as unfinished. The generator's own lag
//! (dispatch - intended) is reported so a late generator shows.

mod cpus;
mod driver;
mod proxy;
mod serve;
mod target;

use std::time::Duration;

use driver::{Outcome, connections_for};
use target::{Target, chat_target, mcp_target};

use crate::report::Row;

pub use serve::serve;

/// The open-loop measurement's settings (`aep-bench open-loop --help`).
#[derive(Debug, Clone, clap::Args)]
pub struct Settings {
    /// Measured seconds per round (after the warm-up), shared by the SDK and its
    /// baseline in alternating slices.
    #[arg(long, default_value_t = 20.0)]
    pub duration: f64,
    /// Seconds of the schedule one side gets before the other takes over.
    #[arg(long, default_value_t = 0.5)]
    pub slice: f64,
    /// Unrecorded warm-up seconds at the same rate before each round (also sliced).
    #[arg(long, default_value_t = 1.0)]
    pub warmup: f64,
    /// Rounds per rate (which side takes the first slice alternates).
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Fixed rates (req/s) measured for /chat and MCP, besides the highest sustained one.
    #[arg(long, value_delimiter = ',', default_values_t = [1000u64, 5000])]
    pub rates: Vec<u64>,
    /// Rates (req/s) of the proxy comparisons (a proxy and its stand-in share the
    /// servers' CPUs).
    #[arg(long, value_delimiter = ',', default_values_t = [1000u64, 2500])]
    pub proxy_rates: Vec<u64>,
    /// Skip the search for the highest rate the baseline sustains.
    #[arg(long)]
    pub no_search: bool,
    /// What to measure: any of chat, mcp, ollama, openai.
    #[arg(long, value_delimiter = ',', default_values_t = ["chat".to_owned(), "mcp".to_owned(), "ollama".to_owned(), "openai".to_owned()])]
    pub only: Vec<String>,
    /// The SDK and baseline servers as an operator runs them: the SDK's default tracing
    /// (init_tracing at level info) in both, the SDK's Prometheus metrics on.
    #[arg(long)]
    pub operator: bool,
    /// Measure the baseline against a second copy of itself in the SDK's place: the
    /// ratios then show this machine's noise floor (how far from 1.00x two identical
    /// servers land), the yardstick for the SDK's rows.
    #[arg(long)]
    pub control: bool,
    /// Let the generator and the servers share every CPU instead of one for the generator
    /// and the rest for the servers.
    #[arg(long)]
    pub no_pin: bool,
}

/// p99 goal for the SDK against its baseline.
const P99_GOAL: f64 = 1.10;
/// How long the search for the highest sustained rate tries each rate: near its limit a
/// server keeps up for a second or two before its queue starts to grow.
const PROBE: Duration = Duration::from_secs(5);

impl Settings {
    fn split(&self) -> Option<cpus::Split> {
        if self.no_pin {
            None
        } else {
            cpus::Split::of_this_process()
        }
    }

    fn placement(&self) -> String {
        self.split()
            .map(|s| s.describe())
            .unwrap_or_else(|| "generator and servers on the same CPUs".into())
    }

    /// Where the generator runs.
    fn generator_cpus(&self) -> Option<Vec<usize>> {
        self.split().map(|s| s.generator)
    }

    /// Starts `aep-bench <args>` on the servers' CPUs.
    async fn start(&self, args: &[&str]) -> serve::Child {
        serve::start(args, self.split().as_ref().map(|s| &s.servers[..])).await
    }

    /// Round `r` at `rate` of the settings' warm-up, duration and slices over `a` and
    /// `b` (the first slice `a`'s in even rounds, `b`'s in odd ones): (a's, b's).
    async fn pair(
        &self,
        r: usize,
        rate: u64,
        a: &Target,
        b: &Target,
        names: [&str; 2],
    ) -> (Outcome, Outcome) {
        let round = driver::Round {
            rate,
            warmup: Duration::from_secs_f64(self.warmup),
            duration: Duration::from_secs_f64(self.duration),
            slice: Duration::from_secs_f64(self.slice),
            on: self.generator_cpus(),
        };
        let flip = r % 2 == 1;
        let mut targets = vec![a.clone(), b.clone()];
        if flip {
            targets.reverse();
        }
        let mut outcomes = round.run(targets).await;
        if flip {
            outcomes.reverse();
        }
        let [a_out, b_out] = <[Outcome; 2]>::try_from(outcomes).expect("an outcome per target");
        log(names[0], rate, &a_out);
        log(names[1], rate, &b_out);
        (a_out, b_out)
    }
}

pub(super) fn log(who: &str, rate: u64, outcome: &Outcome) {
    eprintln!(
        "  {who} {rate}/s: p50 {:.0} µs, p99 {:.0} µs, p99.9 {:.0} µs, achieved {:.0}/s, lag p99 {:.0} µs, waited {}, errors {}, unfinished {}, resent {}",
        outcome.quantile_us(0.5),
        outcome.quantile_us(0.99),
        outcome.quantile_us(0.999),
        outcome.achieved,
        outcome.lag.value_at_quantile(0.99) as f64 / 1000.0,
        outcome.waited,
        outcome.errors,
        outcome.unfinished,
        outcome.resent,
    );
}

/// The rounds at `rate`, SDK and baseline sharing each; (SDK outcomes, baseline outcomes).
async fn compare(
    sdk: &Target,
    base: &Target,
    rate: u64,
    settings: &Settings,
) -> (Vec<Outcome>, Vec<Outcome>) {
    let (mut s, mut b) = (Vec::new(), Vec::new());
    for r in 0..settings.rounds {
        let (one, other) = settings.pair(r, rate, sdk, base, ["sdk ", "base"]).await;
        s.push(one);
        b.push(other);
    }
    (s, b)
}

/// The highest rate `target` sustains (achieved >= 99%, no errors, p99 <= 2 ms), in
/// 5-second probes (doubling from 5k req/s, then four bisection steps, rounded down to
/// 500 req/s), confirmed at a round's length.
async fn highest_sustained(target: &Target, settings: &Settings) -> u64 {
    let found = search(target, settings, PROBE).await;
    // A rate held for a probe may not hold for a whole round: confirm it at the round's
    // length (at most 20 s), 10% lower each time it does not.
    let confirm = Duration::from_secs_f64(settings.duration.min(20.0));
    let mut rate = found;
    for _ in 0..4 {
        if probe(target, settings, rate, confirm).await {
            return rate;
        }
        rate = (rate * 9 / 10 / 500 * 500).max(500);
    }
    rate
}

/// One baseline-only round of `duration` at `rate`: does it keep up?
async fn probe(target: &Target, settings: &Settings, rate: u64, duration: Duration) -> bool {
    let round = driver::Round {
        rate,
        warmup: Duration::from_secs(1),
        duration,
        slice: duration,
        on: settings.generator_cpus(),
    };
    let outcome = round.run(vec![target.clone()]).await.remove(0);
    eprintln!(
        "  search {rate}/s for {:.0} s: achieved {:.0}/s, p99 {:.0} µs, errors {}, unfinished {} -> {}",
        duration.as_secs_f64(),
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

/// The search itself, in probes of `length`.
async fn search(target: &Target, settings: &Settings, length: Duration) -> u64 {
    let probe = |rate: u64| probe(target, settings, rate, length);
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
    let ratios: Vec<String> = sdk
        .iter()
        .zip(base)
        .map(|(s, b)| format!("{:.2}", s.quantile_us(0.99) / b.quantile_us(0.99)))
        .collect();
    format!(
        "p99 ratio per round {}; achieved {:.0}/{:.0} req/s of {target}; {} rounds of {:.0} s in {} s slices, {} conns, {}; generator lag p99 {:.0}/{:.0} µs; waited for a connection {}/{}; errors+unfinished {}/{}",
        ratios.join(", "),
        achieved(sdk),
        achieved(base),
        settings.rounds,
        settings.duration,
        settings.slice,
        connections_for(target),
        settings.placement(),
        lag(sdk),
        lag(base),
        waited(sdk),
        waited(base),
        trouble(sdk),
        trouble(base),
    )
}

/// Rows of a comparison of two servers at one rate: p50, p99 (with `goal`, if any), p99.9.
pub(super) fn latency_rows(
    what: &str,
    rate: u64,
    label: &str,
    sdk: &[Outcome],
    base: &[Outcome],
    settings: &Settings,
    goal: Option<f64>,
) -> Vec<Row> {
    let name = |q: &str| format!("11. open loop {what} {q} at {rate} req/s{label}");
    let p99 = Row::compare(name("p99"), "µs", &quantiles(sdk, 0.99), &quantiles(base, 0.99));
    let p99 = match goal {
        Some(goal) => p99.ratio_at_most(goal),
        None => p99,
    };
    let mut rows = vec![
        Row::compare(name("p50"), "µs", &quantiles(sdk, 0.5), &quantiles(base, 0.5)),
        p99.note(context(sdk, base, settings)),
        Row::compare(
            name("p99.9"),
            "µs",
            &quantiles(sdk, 0.999),
            &quantiles(base, 0.999),
        ),
    ];
    let cpu = |o: &[Outcome]| o.iter().map(|o| o.server_cpu_us).collect::<Option<Vec<f64>>>();
    if let (Some(s), Some(b)) = (cpu(sdk), cpu(base)) {
        rows.push(
            Row::compare(name("server CPU per request"), "µs", &s, &b)
                .note("user + system time of the server's process over the round / requests sent to it"),
        );
    }
    rows
}

/// `/chat` or MCP: fixed rates, then the highest the baseline sustains.
async fn server_rows(what: &str, sdk: &Target, base: &Target, settings: &Settings, label: &str) -> Vec<Row> {
    let mut rates = settings.rates.clone();
    let mut highest = None;
    if !settings.no_search {
        eprintln!("  searching the highest rate the baseline's {what} sustains ...");
        let found = highest_sustained(base, settings).await;
        eprintln!("  highest sustained: {found} req/s");
        rates.retain(|r| *r < found);
        rates.push(found);
        highest = Some(found);
    }
    let mut rows = Vec::new();
    for rate in rates {
        let (s, b) = compare(sdk, base, rate, settings).await;
        let mut block = latency_rows(what, rate, label, &s, &b, settings, Some(P99_GOAL));
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

pub async fn rows(settings: &Settings) -> Vec<Row> {
    let only = |what: &str| settings.only.iter().any(|o| o == what);
    eprintln!("  {}", settings.placement());
    let mut rows = Vec::new();
    if only("chat") || only("mcp") {
        let (mut sdk_kind, base_kind, mut label) = if settings.operator {
            (
                "sdk-operator",
                "baseline-operator",
                ", tracing + metrics".to_owned(),
            )
        } else {
            ("sdk", "baseline", String::new())
        };
        if settings.control {
            sdk_kind = base_kind;
            label.push_str(", control: baseline vs baseline");
        }
        let label = label.as_str();
        let sdk = settings.start(&["open-loop-serve", sdk_kind]).await;
        let base = settings.start(&["open-loop-serve", base_kind]).await;
        if only("chat") {
            eprintln!("  /chat ...");
            let s = chat_target(&sdk.base_url).served_by(sdk.pid());
            let b = chat_target(&base.base_url).served_by(base.pid());
            rows.extend(server_rows("/chat", &s, &b, settings, label).await);
        }
        if only("mcp") {
            eprintln!("  MCP tools/call ...");
            let s = mcp_target(&sdk.base_url).await.served_by(sdk.pid());
            let b = mcp_target(&base.base_url).await.served_by(base.pid());
            rows.extend(server_rows("MCP tools/call", &s, &b, settings, label).await);
        }
    }
    if only("ollama") {
        eprintln!("  Ollama proxy ...");
        rows.extend(proxy::rows(proxy::Proxy::Ollama, settings).await);
    }
    if only("openai") {
        eprintln!("  OpenAI-compatible proxy ...");
        rows.extend(proxy::rows(proxy::Proxy::OpenAi, settings).await);
    }
    rows
}
