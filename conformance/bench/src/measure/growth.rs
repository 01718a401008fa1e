//! 7. Cost growth: per-update streaming cost as N grows (1 -> 10,000) and per-stream
//!    memory as concurrency grows (10 -> 1,000), with a verdict on flatness.

use super::memory::Profile;
use crate::report::Row;

/// Per-update cost (µs) at each N from the throughput samples.
pub fn update_rows(samples: &[(usize, Vec<f64>, Vec<f64>)]) -> Vec<Row> {
    let cost = |v: &[f64]| v.iter().map(|ups| 1e6 / ups).collect::<Vec<_>>();
    let mut rows: Vec<Row> = samples
        .iter()
        .map(|(n, s, b)| {
            Row::compare(
                format!("7. cost per update, N={n}"),
                "µs/update",
                &cost(s),
                &cost(b),
            )
        })
        .collect();
    let median = |n: usize| {
        rows.iter()
            .find(|r| r.name.ends_with(&format!("N={n}")))
            .map(|r| r.sdk.median)
    };
    if let (Some(c100), Some(c10k)) = (median(100), median(10_000)) {
        let growth = c10k / c100;
        let verdict = if growth <= 1.25 {
            "flat: O(1) per update"
        } else {
            "grows: look at it"
        };
        if let Some(last) = rows.last_mut() {
            last.note = format!("N=100 -> 10,000: x{growth:.2}, {verdict}; N=1 is per-request overhead");
        }
    }
    rows
}

/// Per-stream memory (KiB) between concurrency steps.
pub fn stream_rows(sdk: &Profile, base: &Profile) -> Vec<Row> {
    let per_stream = |p: &Profile, from: usize, to: usize| {
        let at = |n: usize| {
            p.at.iter()
                .find(|(k, _)| *k == n)
                .map(|(_, r)| *r)
                .unwrap_or(f64::NAN)
        };
        (at(to) - at(from)) / (to - from) as f64 / 1024.0
    };
    let mut rows = Vec::new();
    for (from, to) in [(10usize, 100usize), (100, 1000)] {
        rows.push(Row::compare(
            format!("7. memory per open stream, {from} -> {to}"),
            "KiB/stream",
            &[per_stream(sdk, from, to)],
            &[per_stream(base, from, to)],
        ));
    }
    let (a, b) = (per_stream(sdk, 10, 100), per_stream(sdk, 100, 1000));
    let verdict = if b <= a * 1.5 + 4.0 {
        "flat: O(1) per stream"
    } else {
        "grows: look at it"
    };
    if let Some(last) = rows.last_mut() {
        last.note = verdict.to_owned();
    }
    rows
}
