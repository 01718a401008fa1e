//! 1. Streaming throughput: updates/s through `/chat/stream`, SDK vs a hand-written axum
//!    SSE handler writing the same bytes. Also the per-update cost used by `growth`.

use std::time::Duration;

use super::{ROUNDS, http, interleave, request, stream_once};
use crate::report::Row;
use crate::servers;

/// Updates/s at each N, for both variants: (n, sdk samples, baseline samples).
pub async fn samples() -> Vec<(usize, Vec<f64>, Vec<f64>)> {
    let sdk = servers::sdk().await;
    let base = servers::baseline().await;
    let client = http();
    let mut out = Vec::new();
    for n in [1usize, 100, 10_000] {
        let body = serde_json::to_vec(&request(n)).expect("request JSON");
        // Enough requests per sample to stream ~20k updates (at least 2 requests).
        let repeats = (20_000 / n).max(2);
        // Warm up both (connections, allocator).
        for url in [&sdk.base_url, &base.base_url] {
            stream_once(&client, url, &body).await;
        }
        let (s, b) = interleave(ROUNDS, |use_sdk| {
            let url = if use_sdk {
                sdk.base_url.clone()
            } else {
                base.base_url.clone()
            };
            let client = client.clone();
            let body = body.clone();
            async move {
                let mut total = Duration::ZERO;
                let mut events = 0;
                for _ in 0..repeats {
                    let (e, d) = stream_once(&client, &url, &body).await;
                    assert_eq!(e, n + 1, "every update and the terminal one arrive");
                    events += n;
                    total += d;
                }
                events as f64 / total.as_secs_f64()
            }
        })
        .await;
        out.push((n, s, b));
    }
    out
}

pub fn rows(samples: &[(usize, Vec<f64>, Vec<f64>)]) -> Vec<Row> {
    samples
        .iter()
        .map(|(n, s, b)| {
            Row::compare(format!("1. stream throughput, N={n}"), "updates/s", s, b).ratio_at_least(0.95)
        })
        .collect()
}
