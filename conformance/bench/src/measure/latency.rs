//! 2. Request latency: non-streaming `/chat` round trip at concurrency 1 and 64, SDK vs
//!    a hand-written axum handler; p50 and p99 per round, medians over rounds.

use std::time::Instant;

use super::{ROUNDS, http, interleave, request};
use crate::report::Row;
use crate::servers;
use crate::stats::percentile;

async fn round(
    client: &reqwest::Client,
    url: &str,
    body: &[u8],
    concurrency: usize,
    per_worker: usize,
) -> Vec<f64> {
    let workers = (0..concurrency).map(|_| {
        let client = client.clone();
        let url = format!("{url}/aep/model-providers/echo/chat");
        let body = body.to_vec();
        tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(per_worker);
            for _ in 0..per_worker {
                let start = Instant::now();
                let response = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await
                    .expect("chat request");
                assert!(response.status().is_success());
                let _ = response.bytes().await.expect("chat body");
                latencies.push(start.elapsed().as_secs_f64() * 1e6);
            }
            latencies
        })
    });
    let mut all = Vec::new();
    for worker in futures::future::join_all(workers).await {
        all.extend(worker.expect("worker"));
    }
    all
}

pub async fn rows() -> Vec<Row> {
    let sdk = servers::sdk().await;
    let base = servers::baseline().await;
    let client = http();
    let body = serde_json::to_vec(&request(8)).expect("request JSON");
    let mut rows = Vec::new();
    for (concurrency, per_worker) in [(1usize, 1000usize), (64, 40)] {
        round(&client, &sdk.base_url, &body, concurrency, 20).await;
        round(&client, &base.base_url, &body, concurrency, 20).await;
        let (s, b) = interleave(ROUNDS, |use_sdk| {
            let url = if use_sdk {
                sdk.base_url.clone()
            } else {
                base.base_url.clone()
            };
            let client = client.clone();
            let body = body.clone();
            async move {
                let latencies = round(&client, &url, &body, concurrency, per_worker).await;
                (percentile(&latencies, 50.0), percentile(&latencies, 99.0))
            }
        })
        .await;
        let (s50, s99): (Vec<f64>, Vec<f64>) = s.into_iter().unzip();
        let (b50, b99): (Vec<f64>, Vec<f64>) = b.into_iter().unzip();
        let p50 = (s50, b50);
        let p99 = (s99, b99);
        rows.push(
            Row::compare(
                format!("2. /chat latency p50, concurrency {concurrency}"),
                "µs",
                &p50.0,
                &p50.1,
            )
            .ratio_at_most(1.1),
        );
        rows.push(
            Row::compare(
                format!("2. /chat latency p99, concurrency {concurrency}"),
                "µs",
                &p99.0,
                &p99.1,
            )
            .ratio_at_most(1.1),
        );
    }
    rows
}
