//! 4. Ollama proxy overhead: the Ollama extension in front of the fake Ollama, against a
//!    client talking to the fake directly (reading the same NDJSON stream the extension
//!    reads). Added latency, time to first token, inter-frame gaps with a paced upstream,
//!    forwarded chunks/s with an unpaced one, and disconnect propagation.
//!
//!    Forwarded chunks/s is measured against a fake run out of process (`aep-bench
//!    ollama-upstream`), as the OpenAI-compatible one is: in process, the fake's writing
//!    competed with the extension and the client for the same runtime's two workers, and
//!    the ratio swung between 0.88x and 1.36x from run to run.

use std::time::{Duration, Instant};

use aep_ollama::OllamaExtension;
use aep_ollama::config::OllamaConfig;
use aep_sdk::protocol::{ChatRequest, Message};
use aep_sdk::server::AepExtension;
use fake_ollama::{FakeOllama, Reply};
use futures::StreamExt;
use serde_json::json;

use super::{LONG_ROUNDS, ROUNDS, frames, http, interleave, micros, upstream_process};
use crate::report::Row;
use crate::stats::percentile;

const MODEL: &str = "llama3.2:latest";

/// Deltas of one unpaced answer (a round of the forwarded chunks/s comparison).
const UNPACED: usize = 20_000;

/// The extension in front of an upstream, and a client for both.
struct Ends {
    upstream: String,
    proxy: aep_sdk::testing::TestServer,
    client: reqwest::Client,
}

struct Setup {
    fake: FakeOllama,
    ends: Ends,
}

/// The extension in front of the fake Ollama at `upstream`.
async fn ends(upstream: String) -> Ends {
    let config = OllamaConfig::with_url(&upstream).expect("fake URL");
    let extension = OllamaExtension::new(config)
        .expect("extension")
        .into_extension()
        .expect("valid declaration");
    let proxy = aep_sdk::testing::spawn(extension.router()).await;
    Ends {
        upstream,
        proxy,
        client: http(),
    }
}

async fn setup() -> Setup {
    let fake = FakeOllama::start().await;
    let ends = ends(fake.base_url()).await;
    Setup { fake, ends }
}

/// A fake Ollama in a process of its own, answering every chat with `deltas` unpaced
/// deltas; killed when dropped.
async fn out_of_process(deltas: usize) -> (Ends, tokio::process::Child) {
    let deltas = deltas.to_string();
    let (child, url) = upstream_process(&["ollama-upstream", "--deltas", &deltas]).await;
    (ends(url).await, child)
}

/// `aep-bench ollama-upstream --deltas N`: the fake Ollama, answering every chat with N
/// unpaced deltas, until killed.
pub async fn serve_upstream(deltas: usize) {
    let fake = FakeOllama::start().await;
    fake.set_default_reply(Some(Reply::deltas((0..deltas).map(|i| format!("t{i} ")))));
    println!("listening on {}", fake.base_url());
    loop {
        // Its request log would grow without bound.
        tokio::time::sleep(Duration::from_secs(1)).await;
        fake.clear_requests();
    }
}

/// One answer through the proxy; returns (time to first text, frame arrival times, total).
async fn via_proxy(s: &Ends, stream: bool) -> (Duration, Vec<Instant>, Duration) {
    let request = ChatRequest::new(MODEL, vec![Message::user("hello there")]);
    let path = if stream { "chat/stream" } else { "chat" };
    let start = Instant::now();
    let response = s
        .client
        .post(format!("{}/aep/model-providers/ollama/{path}", s.proxy.base_url))
        .json(&request)
        .send()
        .await
        .expect("proxy request");
    assert!(
        response.status().is_success(),
        "proxy answered {}",
        response.status()
    );
    frames(
        response,
        start,
        b"data: {\"contents\":[{\"kind\":\"text\"",
        b"\n\n",
    )
    .await
}

/// The same answer straight from the fake, as the extension asks for it.
async fn direct(s: &Ends) -> (Duration, Vec<Instant>, Duration) {
    let body =
        json!({"model": MODEL, "messages": [{"role": "user", "content": "hello there"}], "stream": true});
    let start = Instant::now();
    let response = s
        .client
        .post(format!("{}/api/chat", s.upstream))
        .json(&body)
        .send()
        .await
        .expect("direct");
    assert!(response.status().is_success());
    frames(response, start, b"{\"model\"", b"\n").await
}

fn gaps(arrivals: &[Instant]) -> Vec<f64> {
    arrivals.windows(2).map(|w| micros(w[1] - w[0])).collect()
}

pub async fn rows() -> Vec<Row> {
    let s = setup().await;
    let mut rows = Vec::new();

    // Added latency and time to first token, short answers, concurrency 1.
    s.fake.set_default_reply(Some(Reply::text("hello there friend")));
    for _ in 0..20 {
        via_proxy(&s.ends, false).await;
        direct(&s.ends).await;
    }
    let (via, dir) = interleave(ROUNDS, |use_proxy| {
        let s = &s;
        async move {
            let mut totals = Vec::new();
            let mut ttft = Vec::new();
            for _ in 0..200 {
                let (first, _, total) = if use_proxy {
                    via_proxy(&s.ends, false).await
                } else {
                    direct(&s.ends).await
                };
                totals.push(micros(total));
                if use_proxy {
                    let (first, _, _) = via_proxy(&s.ends, true).await;
                    ttft.push(micros(first));
                } else {
                    ttft.push(micros(first));
                }
            }
            s.fake.clear_requests();
            (
                percentile(&totals, 50.0),
                percentile(&totals, 99.0),
                percentile(&ttft, 50.0),
            )
        }
    })
    .await;
    let added = |i: usize| -> Vec<f64> {
        via.iter()
            .zip(&dir)
            .map(|(v, d)| [v.0 - d.0, v.1 - d.1, v.2 - d.2][i] / 1000.0)
            .collect()
    };
    for (i, name) in [
        (0, "4. added latency, non-streamed chat p50"),
        (1, "4. added latency, non-streamed chat p99"),
    ] {
        let row = Row::single(name, "ms", &added(i));
        let note = format!("{:.3} ms below the 1 ms goal", 1.0 - row.sdk.median);
        rows.push(row.value_at_most(1.0, "<= 1 ms").note(note));
    }
    rows.push(Row::single("4. added time to first token (p50)", "ms", &added(2)));

    // Inter-frame gaps with a paced upstream: 64 deltas 20 ms apart.
    let paced = Reply::deltas((0..64).map(|i| format!("t{i} "))).chunk_delay(Duration::from_millis(20));
    let (via_gaps, dir_gaps) = interleave(3, |use_proxy| {
        let s = &s;
        let paced = paced.clone();
        async move {
            s.fake.set_default_reply(Some(paced));
            let (_, arrivals, _) = if use_proxy {
                via_proxy(&s.ends, true).await
            } else {
                direct(&s.ends).await
            };
            percentile(&gaps(&arrivals), 99.0) / 1000.0
        }
    })
    .await;
    rows.push(
        Row::compare(
            "4. inter-frame gap p99, paced upstream (20 ms)",
            "ms",
            &via_gaps,
            &dir_gaps,
        )
        .note("per event as a client parses them; added gap = SDK - baseline"),
    );

    // Forwarded chunks/s with an unpaced upstream, run out of process.
    let (unpaced, _child) = out_of_process(UNPACED).await;
    let (via_rate, dir_rate) = interleave(LONG_ROUNDS, |use_proxy| {
        let s = &unpaced;
        async move {
            let start = Instant::now();
            if use_proxy {
                via_proxy(s, true).await
            } else {
                direct(s).await
            };
            UNPACED as f64 / start.elapsed().as_secs_f64()
        }
    })
    .await;
    rows.push(
        Row::compare(
            "4. forwarded chunks/s, unpaced upstream",
            "chunks/s",
            &via_rate,
            &dir_rate,
        )
        .ratio_at_least(0.9),
    );

    // Disconnect propagation: drop the AEP stream, time until the fake sees its socket close.
    s.fake.set_default_reply(Some(
        Reply::deltas((0..1000).map(|i| format!("t{i} "))).chunk_delay(Duration::from_millis(5)),
    ));
    let mut propagation = Vec::new();
    let client = aep_sdk::client::Client::new(&s.ends.proxy.base_url).expect("client");
    for _ in 0..5 {
        let before = s.fake.disconnects().len();
        let request = ChatRequest::new(MODEL, vec![Message::user("go")]);
        let mut stream = client.chat_stream("ollama", &request).await.expect("stream");
        for _ in 0..3 {
            let _ = stream.next().await;
        }
        let dropped_at = Instant::now();
        drop(stream);
        let deadline = Instant::now() + Duration::from_secs(5);
        while s.fake.disconnects().len() == before && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let seen = s.fake.disconnects().last().map(|d| d.at).unwrap_or(deadline);
        propagation.push(micros(seen.saturating_duration_since(dropped_at)) / 1000.0);
    }
    rows.push(
        Row::single(
            "4. disconnect propagation (client drop -> upstream closed)",
            "ms",
            &propagation,
        )
        .value_at_most(1000.0, "<= 1 s"),
    );
    s.fake.set_default_reply(None);
    rows
}
