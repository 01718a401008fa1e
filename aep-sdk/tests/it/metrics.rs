//! Metrics (issue 17, items 2 and 3): an extension served with metrics on (port 0 for
//! both listeners) answers a streamed chat, a non-streamed chat, errors and an MCP
//! `tools/call`; its `/metrics` listener then shows each series with bounded labels, and
//! a real Prometheus server scraping that listener returns them from its HTTP API.
//!
//! Prometheus: the test starts Debian's `prometheus` (`--config.file`, `--storage.tsdb.path`
//! and `--web.listen-address` on a free 127.0.0.1 port) with a generated scrape config
//! (`scrape_interval: 1s`) in a directory under `target/tmp`, and stops it when the test
//! ends. When no `prometheus` binary is found (PATH, /usr/bin, /usr/local/bin), the test
//! FAILS if `CI` is set (CI installs the package) and otherwise prints a NOTICE and
//! passes without running. Install it with `apt-get install prometheus`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use aep_sdk::client::Client;
use aep_sdk::prelude::*;
use aep_sdk::server::{ConnectionLimits, Extension, ServeArgs};
use futures::StreamExt;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::Value;

#[derive(Clone)]
struct Metered;

#[aep_extension(id = "t.metered", name = "Metered", version = "1.0.0")]
impl Metered {
    /// Doubles a number.
    #[tool(read_only)]
    async fn double(&self, n: i64) -> i64 {
        n * 2
    }

    /// Echoes the last user message in two updates, the last reporting 3 input and 4
    /// output tokens; model `fail` fails before answering, model `fail-late` after its
    /// first update.
    #[model_provider(id = "meter", models = ["m1"])]
    async fn answer(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        if request.model == "fail" {
            return Err(AepError::model_unavailable("model 'fail' fails"));
        }
        let late = request.model == "fail-late";
        let text = request.last_user_text().unwrap_or_default();
        Ok(chat_stream! {
            yield ChatUpdate::text(text);
            if late {
                Err(AepError::internal("failed late"))?;
            }
            yield ChatUpdate::finish(FinishReason::Stop).with_usage(Usage::new(3, 4));
        })
    }
}

/// The extension serving on port 0, configured from `ServeArgs` as `serve` would be,
/// and its metrics on a second port-0 listener.
struct Served {
    base_url: String,
    metrics: SocketAddr,
}

async fn serve() -> Served {
    let args = ServeArgs {
        listen: "127.0.0.1:0".to_owned(),
        metrics_listen: Some("127.0.0.1:0".to_owned()),
        ..ServeArgs::default()
    };
    let extension: Extension = Metered.extension_builder().serve_args(&args).build().unwrap();
    let router = extension
        .metrics_router()
        .expect("--metrics-listen turns metrics on");
    let metrics = tokio::net::TcpListener::bind(args.metrics_listen.as_deref().unwrap())
        .await
        .unwrap();
    let metrics_addr = metrics.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(metrics, router).await });
    let listener = tokio::net::TcpListener::bind(&args.listen).await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(extension.serve_listener(listener, std::future::pending(), ConnectionLimits::default()));
    Served {
        base_url: format!("http://{addr}"),
        metrics: metrics_addr,
    }
}

/// A streamed chat, a non-streamed one, a stream that fails after its first update, a
/// chat the provider refuses, a request to an unknown provider, many distinct models, and
/// a `tools/call` (plus one of an undeclared tool).
async fn traffic(served: &Served) {
    let client = Client::new(&served.base_url).unwrap();
    let hello = |model: &str| ChatRequest::new(model, vec![Message::user("hello")]);
    let mut stream = client.chat_stream("meter", &hello("m1")).await.unwrap();
    let mut updates = 0;
    while let Some(update) = stream.next().await {
        update.unwrap();
        updates += 1;
    }
    assert_eq!(updates, 2);
    assert_eq!(
        client.chat("meter", &hello("m1")).await.unwrap().all_text(),
        "hello"
    );
    let mut late = client.chat_stream("meter", &hello("fail-late")).await.unwrap();
    let mut last = None;
    while let Some(update) = late.next().await {
        last = Some(update);
    }
    assert!(last.is_some());
    let refused = client.chat("meter", &hello("fail")).await.unwrap_err();
    assert_eq!(
        refused.remote.map(|e| e.code),
        Some("model_unavailable".to_owned())
    );
    let unknown = client.chat("nobody", &hello("m1")).await.unwrap_err();
    assert_eq!(
        unknown.remote.map(|e| e.code),
        Some("provider_unavailable".to_owned())
    );
    // More distinct models than the label keeps.
    for i in 0..aep_sdk::server::MODEL_LABELS + 5 {
        client.chat("meter", &hello(&format!("many-{i}"))).await.unwrap();
    }

    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", served.base_url));
    let mcp = ClientConfig::default().serve(transport).await.unwrap();
    let result = mcp
        .call_tool(
            CallToolRequestParams::new("double")
                .with_arguments(serde_json::json!({ "n": 21 }).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let undeclared = mcp.call_tool(CallToolRequestParams::new("undeclared")).await;
    assert!(undeclared.is_err(), "{undeclared:?}");
    mcp.cancel().await.unwrap();
}

async fn scrape(metrics: SocketAddr) -> String {
    let response = reqwest::get(format!("http://{metrics}/metrics")).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    response.text().await.unwrap()
}

/// The value of the one series `name{labels}` (labels exactly as written).
fn value(text: &str, series: &str) -> f64 {
    let prefix = format!("{series} ");
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(lines.len(), 1, "{series} in:\n{text}");
    lines[0][prefix.len()..].parse().unwrap()
}

/// Every label value of `label` on series of `name`.
fn label_values(text: &str, name: &str, label: &str) -> std::collections::BTreeSet<String> {
    let key = format!("{label}=\"");
    text.lines()
        .filter(|l| l.starts_with(name) && !l.starts_with('#'))
        .filter_map(|l| {
            let start = l.find(&key)? + key.len();
            Some(l[start..start + l[start..].find('"')?].to_owned())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_show_each_instrument_with_bounded_labels() {
    let served = serve().await;
    traffic(&served).await;
    let text = scrape(served.metrics).await;

    let route = |r: &str, status: u16| {
        format!(
            "http_server_request_duration_seconds_count{{http_request_method=\"POST\",http_route=\"/aep/model-providers/{{id}}/{r}\",http_response_status_code=\"{status}\"}}"
        )
    };
    assert_eq!(value(&text, &route("chat/stream", 200)), 2.0);
    assert_eq!(
        value(&text, &route("chat", 200)),
        1.0 + (aep_sdk::server::MODEL_LABELS + 5) as f64
    );
    // model_unavailable and provider_unavailable, both 404.
    assert_eq!(value(&text, &route("chat", 404)), 2.0);
    // Route templates only: no raw path (no provider id) in any label.
    assert!(!text.contains("/meter/") && !text.contains("/nobody/"), "{text}");
    let routes = label_values(&text, "http_server_request_duration_seconds", "http_route");
    assert!(routes.contains("/mcp"), "{routes:?}");

    let chat = |name: &str, model: &str| {
        format!("{name}_count{{gen_ai_provider_name=\"meter\",gen_ai_request_model=\"{model}\"}}")
    };
    let duration = "gen_ai_server_request_duration_seconds";
    let first = "gen_ai_server_time_to_first_token_seconds";
    assert_eq!(value(&text, &chat(duration, "m1")), 2.0);
    assert_eq!(value(&text, &chat(duration, "fail-late")), 1.0);
    assert_eq!(value(&text, &chat(duration, "fail")), 1.0);
    assert_eq!(value(&text, &chat(first, "m1")), 1.0);
    assert_eq!(value(&text, &chat(first, "fail-late")), 1.0);
    // Time per output token: the stream that ended normally with >= 2 output tokens only
    // (not the non-streamed chat, not the stream that failed).
    let per_token = "gen_ai_server_time_per_output_token_seconds";
    assert_eq!(value(&text, &chat(per_token, "m1")), 1.0);
    assert!(!text.contains(&chat(per_token, "fail-late")), "{text}");
    // Token usage by type: the stream and the chat of m1 each reported 3 + 4.
    let tokens = |kind: &str, what: &str| {
        format!(
            "gen_ai_client_token_usage_{what}{{gen_ai_provider_name=\"meter\",gen_ai_request_model=\"m1\",gen_ai_token_type=\"{kind}\"}}"
        )
    };
    assert_eq!(value(&text, &tokens("input", "count")), 2.0);
    assert_eq!(value(&text, &tokens("input", "sum")), 6.0);
    assert_eq!(value(&text, &tokens("output", "sum")), 8.0);
    assert_eq!(
        label_values(&text, "gen_ai_client_token_usage", "gen_ai_token_type"),
        ["input".to_owned(), "output".to_owned()].into()
    );
    // A stream that failed reported nothing.
    assert!(
        !text.contains("gen_ai_request_model=\"fail-late\",gen_ai_token_type"),
        "{text}"
    );
    // The first MODEL_LABELS distinct models (m1, fail-late, fail and the first of the
    // many) keep their names; the rest are `other`.
    let models = label_values(&text, duration, "gen_ai_request_model");
    assert_eq!(models.len(), aep_sdk::server::MODEL_LABELS + 1, "{models:?}");
    assert!(models.contains("other"), "{models:?}");
    assert_eq!(value(&text, &chat(duration, "other")), 8.0);
    // Only registered providers: the unknown one never got this far.
    assert_eq!(
        label_values(&text, duration, "gen_ai_provider_name"),
        ["meter".to_owned()].into()
    );

    assert_eq!(
        value(&text, "aep_server_errors_total{code=\"model_unavailable\"}"),
        1.0
    );
    assert_eq!(
        value(&text, "aep_server_errors_total{code=\"provider_unavailable\"}"),
        1.0
    );
    // The stream's terminal error update.
    assert_eq!(
        value(&text, "aep_server_errors_total{code=\"internal_error\"}"),
        1.0
    );
    assert_eq!(value(&text, "aep_server_open_streams"), 0.0);

    let mcp = "mcp_server_operation_duration_seconds_count";
    assert_eq!(
        value(
            &text,
            &format!("{mcp}{{mcp_method_name=\"tools/call\",gen_ai_tool_name=\"double\"}}")
        ),
        1.0
    );
    assert_eq!(
        value(
            &text,
            &format!("{mcp}{{mcp_method_name=\"tools/call\",gen_ai_tool_name=\"other\"}}")
        ),
        1.0
    );
}

#[tokio::test]
async fn without_metrics_listen_nothing_is_recorded_or_served() {
    let extension: Extension = Metered
        .extension_builder()
        .serve_args(&ServeArgs::default())
        .build()
        .unwrap();
    assert!(extension.metrics_router().is_none());
    let parsed = <Cli as clap::Parser>::try_parse_from(["x", "--metrics-listen", "127.0.0.1:9464"]).unwrap();
    assert_eq!(parsed.serve.metrics_listen.as_deref(), Some("127.0.0.1:9464"));
    let parsed = <Cli as clap::Parser>::try_parse_from(["x"]).unwrap();
    assert_eq!(parsed.serve.metrics_listen, None);
}

#[derive(clap::Parser)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

fn find_prometheus() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/bin", "/usr/local/bin"].map(PathBuf::from))
        .map(|dir| dir.join("prometheus"))
        .find(|candidate| candidate.is_file())
}

/// A running Prometheus; killed and its directory removed on drop (kept, with its log
/// printed, when the test panics).
struct Prometheus {
    child: Child,
    dir: PathBuf,
    api: String,
}

impl Prometheus {
    fn start(binary: &Path, target: SocketAddr) -> Self {
        let dir =
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("prometheus-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let config = format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: aep\n    static_configs:\n      - targets: ['{target}']\n"
        );
        std::fs::write(dir.join("prometheus.yml"), config).unwrap();
        let listen = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let log = std::fs::File::create(dir.join("prometheus.log")).unwrap();
        let child = Command::new(binary)
            .arg(format!("--config.file={}", dir.join("prometheus.yml").display()))
            .arg(format!("--storage.tsdb.path={}", dir.join("data").display()))
            .arg(format!("--web.listen-address={listen}"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start prometheus");
        Self {
            child,
            dir,
            api: format!("http://{listen}/api/v1"),
        }
    }

    /// The result vector of an instant query.
    async fn query(&self, http: &reqwest::Client, query: &str) -> Vec<Value> {
        let Ok(response) = http
            .get(format!(
                "{}/query?query={}",
                self.api,
                percent_encoding::utf8_percent_encode(query, percent_encoding::NON_ALPHANUMERIC)
            ))
            .send()
            .await
        else {
            return Vec::new();
        };
        let Ok(body) = response.json::<Value>().await else {
            return Vec::new();
        };
        body["data"]["result"].as_array().cloned().unwrap_or_default()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            let log = std::fs::read_to_string(self.dir.join("prometheus.log")).unwrap_or_default();
            eprintln!("prometheus log ({}):\n{log}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Debian's prometheus (CI installs it and runs these tests with --include-ignored)"]
async fn a_real_prometheus_scrapes_every_instrument() {
    let Some(binary) = find_prometheus() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "prometheus is not installed, and CI is set: install Debian's prometheus package"
        );
        eprintln!("NOTICE: prometheus not found; test skipped (apt-get install prometheus to run it)");
        return;
    };
    let served = serve().await;
    traffic(&served).await;
    let prometheus = Prometheus::start(&binary, served.metrics);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    // Each query with the series it must return (label sets as Prometheus stores them).
    let expected: [(&str, &[(&str, &str)]); 9] = [
        (
            "http_server_request_duration_seconds_count{http_route=\"/aep/model-providers/{id}/chat/stream\"}",
            &[
                ("http_request_method", "POST"),
                ("http_response_status_code", "200"),
            ],
        ),
        (
            "gen_ai_server_request_duration_seconds_count{gen_ai_request_model=\"m1\"}",
            &[("gen_ai_provider_name", "meter")],
        ),
        (
            "gen_ai_server_time_to_first_token_seconds_count{gen_ai_request_model=\"m1\"}",
            &[("gen_ai_provider_name", "meter")],
        ),
        (
            "gen_ai_server_time_per_output_token_seconds_count{gen_ai_request_model=\"m1\"}",
            &[("gen_ai_provider_name", "meter")],
        ),
        (
            "gen_ai_client_token_usage_sum{gen_ai_request_model=\"m1\",gen_ai_token_type=\"output\"}",
            &[("gen_ai_provider_name", "meter")],
        ),
        ("aep_server_open_streams", &[]),
        ("aep_server_errors_total{code=\"model_unavailable\"}", &[]),
        (
            "mcp_server_operation_duration_seconds_count{gen_ai_tool_name=\"double\"}",
            &[("mcp_method_name", "tools/call")],
        ),
        (
            "count(count by (gen_ai_request_model) (gen_ai_server_request_duration_seconds_count))",
            &[],
        ),
    ];
    let deadline = Instant::now() + Duration::from_secs(60);
    for (query, labels) in expected {
        let result = loop {
            let result = prometheus.query(&http, query).await;
            if !result.is_empty() {
                break result;
            }
            assert!(
                Instant::now() < deadline,
                "Prometheus returned no series for {query}"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        };
        assert_eq!(result.len(), 1, "{query}: {result:?}");
        let metric = &result[0]["metric"];
        for (label, value) in labels {
            assert_eq!(metric[label], *value, "{query}: {result:?}");
        }
        if !query.starts_with("count(") {
            assert_eq!(metric["job"], "aep", "{result:?}");
        } else {
            // Bounded: MODEL_LABELS names and `other`.
            assert_eq!(
                result[0]["value"][1],
                (aep_sdk::server::MODEL_LABELS + 1).to_string(),
                "{result:?}"
            );
        }
    }
    // The scrape target is healthy.
    let body: Value = http
        .get(format!("{}/targets", prometheus.api))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["data"]["activeTargets"][0]["health"], "up", "{body}");
}
