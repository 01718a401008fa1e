//! The proxies against their stand-ins: the Ollama extension in front of the fake Ollama,
//! `aep-openai` in front of `fake-openai`, each against the generator asking the stand-in
//! directly what the proxy asks it.

use super::serve::Child;
use super::target::{Body, Target};
use super::{Settings, latency_rows};
use crate::report::Row;

/// A proxy and its stand-in, running, with the two targets: through the proxy, and the
/// stand-in directly as the proxy asks it.
struct Setup {
    _processes: Vec<Child>,
    via: Target,
    direct: Target,
}

#[derive(Clone, Copy)]
pub enum Proxy {
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
    async fn start(self, settings: &Settings) -> Setup {
        let (upstream, kind, model, content, path, direct_path, direct_expect) = match self {
            Proxy::Ollama => (
                settings.start(&["ollama-upstream", "--deltas", "3"]).await,
                "ollama-proxy",
                "llama3.2:latest",
                "hello there",
                "/aep/model-providers/ollama/chat",
                "/api/chat",
                &b"\"done\":true"[..],
            ),
            Proxy::OpenAi => (
                settings.start(&["upstream", "--listen", "127.0.0.1:0"]).await,
                "openai-proxy",
                "echo",
                "hello there friend",
                "/aep/model-providers/openai/chat/stream",
                "/v1/chat/completions",
                &b"[DONE]"[..],
            ),
        };
        let proxy = settings
            .start(&["open-loop-serve", kind, "--upstream", &upstream.base_url])
            .await;
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
        Setup {
            _processes: vec![proxy, upstream],
            via,
            direct,
        }
    }
}

/// A proxy against its stand-in at each proxy rate: latency rows plus the added p99.
pub async fn rows(proxy: Proxy, settings: &Settings) -> Vec<Row> {
    let what = proxy.name();
    let mut rows = Vec::new();
    for &rate in &settings.proxy_rates {
        let (mut via, mut direct) = (Vec::new(), Vec::new());
        for r in 0..settings.rounds {
            let setup = proxy.start(settings).await;
            let (v, d) = settings
                .pair(r, rate, &setup.via, &setup.direct, ["via ", "dir "])
                .await;
            via.push(v);
            direct.push(d);
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
            None,
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
