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
//! of its own (`aep-bench open-loop-serve <kind>`, [`serve`]), served as in production;
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

use super::interleave;
use crate::report::Row;

pub use serve::serve;

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
    /// Let the generator and the servers share every CPU instead of one for the generator
    /// and the rest for the servers.
    #[arg(long)]
    pub no_pin: bool,
}

/// p99 goal for the SDK against its baseline.
const P99_GOAL: f64 = 1.10;

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

    /// One round at `rate` of the settings' warm-up and duration.
    async fn round(&self, target: Target, rate: u64) -> Outcome {
        driver::round(
            target,
            rate,
            Duration::from_secs_f64(self.warmup),
            Duration::from_secs_f64(self.duration),
            self.generator_cpus(),
        )
        .await
    }
}

pub(super) fn log(who: &str, rate: u64, outcome: &Outcome) {
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
    interleave(settings.rounds, |use_sdk| {
        let target = if use_sdk { sdk.clone() } else { base.clone() };
        async move {
            let outcome = settings.round(target, rate).await;
            log(if use_sdk { "sdk " } else { "base" }, rate, &outcome);
            outcome
        }
    })
    .await
}

/// The highest rate `target` sustains (achieved >= 99%, no errors, p99 <= 2 ms), in
/// 2-second probes: doubling from 5k req/s, then four bisection steps, rounded down to
/// 500 req/s.
async fn highest_sustained(target: &Target, settings: &Settings) -> u64 {
    let probe = |rate: u64| {
        let target = target.clone();
        async move {
            let outcome = driver::round(
                target,
                rate,
                Duration::from_millis(500),
                Duration::from_secs(2),
                settings.generator_cpus(),
            )
            .await;
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
        "achieved {:.0}/{:.0} req/s of {target}; {}x{:.0} s rounds, {} conns, {}; generator lag p99 {:.0}/{:.0} µs; waited for a connection {}/{}; errors+unfinished {}/{}",
        achieved(sdk),
        achieved(base),
        settings.rounds,
        settings.duration,
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

/// Rows of a comparison of two servers at one rate: p50, p99 (goal), p99.9.
pub(super) fn latency_rows(
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
        let found = highest_sustained(base, settings).await;
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

pub async fn rows(settings: &Settings) -> Vec<Row> {
    let only = |what: &str| settings.only.iter().any(|o| o == what);
    eprintln!("  {}", settings.placement());
    let mut rows = Vec::new();
    if only("chat") || only("mcp") {
        let (sdk_kind, base_kind, label) = if settings.operator {
            ("sdk-operator", "baseline-operator", ", tracing + metrics")
        } else {
            ("sdk", "baseline", "")
        };
        let sdk = settings.start(&["open-loop-serve", sdk_kind]).await;
        let base = settings.start(&["open-loop-serve", base_kind]).await;
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
        rows.extend(proxy::rows(proxy::Proxy::Ollama, settings).await);
    }
    if only("openai") {
        eprintln!("  OpenAI-compatible proxy ...");
        rows.extend(proxy::rows(proxy::Proxy::OpenAi, settings).await);
    }
    rows
}
