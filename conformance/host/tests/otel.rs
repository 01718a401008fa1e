//! OpenTelemetry end to end, with real processes: `aep-host chat` -> `aep-ollama` -> the
//! fake Ollama, both binaries pointed by the standard `OTEL_*` variables at an OTLP/HTTP
//! receiver in this test, which decodes what they export with the official protobuf
//! definitions (`opentelemetry-proto`). One trace must hold the host's spans, the
//! extension's HTTP server span and its client span of the request to Ollama, with the
//! GenAI attributes and token usage; the fake Ollama must have got that trace's
//! `traceparent`; no prompt text may appear in anything exported. Without the variables
//! nothing is exported and no exporter thread starts.
//!
//! `aep-ollama` is run from beside `aep-host` in the target directory: `cargo test
//! --workspace` builds it; a scoped run needs `cargo build -p aep-ollama` first.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aep_sdk::testing::eventually;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use fake_ollama::FakeOllama;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message;

/// Text that must never leave either process in telemetry.
/// (Several words, so the fake Ollama streams several tokens.)
const PROMPT: &str = "private prompt text 7f3a stays home";

/// What the receiver got: every raw body, and the spans with their service's name.
#[derive(Default)]
struct Received {
    bodies: Vec<(String, Bytes)>,
    spans: Vec<(String, Span)>,
    metric_names: Vec<(String, String)>,
}

type Shared = Arc<Mutex<Received>>;

fn string_attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| match &kv.value {
            Some(AnyValue {
                value: Some(any_value::Value::StringValue(s)),
            }) => Some(s.clone()),
            _ => None,
        })
}

fn attribute<'a>(span: &'a Span, key: &str) -> Option<&'a any_value::Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| v.value.as_ref())
}

fn text(span: &Span, key: &str) -> Option<String> {
    match attribute(span, key) {
        Some(any_value::Value::StringValue(s)) => Some(s.clone()),
        _ => None,
    }
}

fn int(span: &Span, key: &str) -> Option<i64> {
    match attribute(span, key) {
        Some(any_value::Value::IntValue(i)) => Some(*i),
        _ => None,
    }
}

fn strings(span: &Span, key: &str) -> Option<Vec<String>> {
    match attribute(span, key) {
        Some(any_value::Value::ArrayValue(array)) => Some(
            array
                .values
                .iter()
                .filter_map(|v| match &v.value {
                    Some(any_value::Value::StringValue(s)) => Some(s.clone()),
                    _ => None,
                })
                .collect(),
        ),
        _ => None,
    }
}

async fn traces(State(shared): State<Shared>, body: Bytes) -> Vec<u8> {
    let request = ExportTraceServiceRequest::decode(body.clone()).expect("OTLP traces decode");
    let mut received = shared.lock().unwrap();
    received.bodies.push(("traces".into(), body));
    for resource_spans in request.resource_spans {
        let service = resource_spans
            .resource
            .as_ref()
            .and_then(|r| string_attribute(&r.attributes, "service.name"))
            .unwrap_or_default();
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                received.spans.push((service.clone(), span));
            }
        }
    }
    ExportTraceServiceResponse::default().encode_to_vec()
}

async fn metrics(State(shared): State<Shared>, body: Bytes) -> Vec<u8> {
    let request = ExportMetricsServiceRequest::decode(body.clone()).expect("OTLP metrics decode");
    let mut received = shared.lock().unwrap();
    received.bodies.push(("metrics".into(), body));
    for resource_metrics in request.resource_metrics {
        let service = resource_metrics
            .resource
            .as_ref()
            .and_then(|r| string_attribute(&r.attributes, "service.name"))
            .unwrap_or_default();
        for scope in resource_metrics.scope_metrics {
            for metric in scope.metrics {
                received.metric_names.push((service.clone(), metric.name));
            }
        }
    }
    Vec::new()
}

/// An OTLP/HTTP receiver on `addr` (`127.0.0.1:0` for any port).
async fn receiver(addr: &str) -> std::io::Result<(SocketAddr, Shared)> {
    let shared = Shared::default();
    let router = Router::new()
        .route("/v1/traces", post(traces))
        .route("/v1/metrics", post(metrics))
        .with_state(shared.clone());
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok((addr, shared))
}

/// Kills the child when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn aep_ollama_binary() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_BIN_EXE_aep-host")).with_file_name("aep-ollama");
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo build -p aep-ollama` (cargo test --workspace does)",
        path.display()
    );
    path
}

/// A command without any OTEL_* variable of the test's own environment.
fn clean(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(program);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("OTEL_") {
            command.env_remove(name);
        }
    }
    command
        .env_remove("AEP_HOST_CONFIG")
        .env_remove("OLLAMA_HOST")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

fn otel_env(command: &mut Command, receiver: SocketAddr, service: &str) {
    command
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{receiver}"))
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
        .env("OTEL_SERVICE_NAME", service)
        .env("OTEL_TRACES_SAMPLER", "always_on")
        .env("OTEL_BSP_SCHEDULE_DELAY", "50")
        .env("OTEL_METRIC_EXPORT_INTERVAL", "200");
}

/// Starts `aep-ollama` in front of `fake` and waits until it answers.
async fn start_extension(fake: &FakeOllama, configure: impl FnOnce(&mut Command)) -> (Running, String) {
    let listen = format!("127.0.0.1:{}", free_port());
    let mut command = clean(aep_ollama_binary());
    command
        .args(["--listen", &listen])
        .env("OLLAMA_HOST", fake.base_url());
    configure(&mut command);
    let running = Running(command.spawn().expect("aep-ollama starts"));
    let url = format!("http://{listen}");
    let client = aep_sdk::client::Client::new(&url).unwrap();
    let started = Instant::now();
    while client.health().await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "aep-ollama never answered"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (running, url)
}

/// `aep-host chat` against the extension at `url`; returns its stdout.
async fn host_chat(url: &str, configure: impl FnOnce(&mut Command)) -> String {
    let mut command = clean(env!("CARGO_BIN_EXE_aep-host"));
    command
        .args([
            "--extension",
            &format!("{}={url}", aep_ollama::EXTENSION_ID),
            "chat",
            "-m",
            &format!(
                "{}/{}/llama3.2",
                aep_ollama::EXTENSION_ID,
                aep_ollama::PROVIDER_ID
            ),
            "--",
            PROMPT,
        ])
        .stdout(Stdio::piped());
    configure(&mut command);
    let output = tokio::task::spawn_blocking(move || command.output().expect("aep-host runs"))
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "aep-host chat failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The names of the threads of process `pid` (Linux).
fn threads(pid: u32) -> Vec<String> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|name| name.trim().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_trace_runs_from_the_host_through_aep_ollama_to_ollama_without_prompt_text() {
    let (addr, received) = receiver("127.0.0.1:0").await.unwrap();
    let fake = FakeOllama::start().await;
    let (extension, url) = start_extension(&fake, |c| otel_env(c, addr, "aep-ollama")).await;
    // The exporters run on threads of their own.
    let names = threads(extension.0.id());
    assert!(
        names.iter().any(|n| n.starts_with("OpenTelemetry")),
        "no exporter thread in {names:?}"
    );

    let answer = host_chat(&url, |c| otel_env(c, addr, "aep-host")).await;
    assert!(answer.contains(PROMPT), "the fake echoes the prompt: {answer}");

    // The host flushed before it exited; the extension within its batch delay.
    let spans = || received.lock().unwrap().spans.clone();
    let by = |service: &'static str, kind: SpanKind, name: &'static str| {
        move |(s, span): &(String, Span)| s == service && span.kind == kind as i32 && span.name == name
    };
    eventually("the spans of both processes", || {
        let spans = spans();
        spans
            .iter()
            .any(by("aep-host", SpanKind::Internal, "aep-host chat"))
            && spans
                .iter()
                .any(by("aep-host", SpanKind::Client, "chat llama3.2"))
            && spans.iter().any(by(
                "aep-ollama",
                SpanKind::Server,
                "POST /aep/model-providers/{id}/chat/stream",
            ))
            && spans
                .iter()
                .any(by("aep-ollama", SpanKind::Internal, "chat llama3.2"))
            && spans
                .iter()
                .any(by("aep-ollama", SpanKind::Client, "chat llama3.2"))
    })
    .await;
    let spans = spans();
    let find = |service, kind, name| {
        spans
            .iter()
            .find(|s| by(service, kind, name)(s))
            .map(|(_, span)| span.clone())
            .unwrap()
    };
    let root = find("aep-host", SpanKind::Internal, "aep-host chat");
    let host_call = find("aep-host", SpanKind::Client, "chat llama3.2");
    let server = find(
        "aep-ollama",
        SpanKind::Server,
        "POST /aep/model-providers/{id}/chat/stream",
    );
    let chat = find("aep-ollama", SpanKind::Internal, "chat llama3.2");
    let upstream = find("aep-ollama", SpanKind::Client, "chat llama3.2");

    // One trace, parent by parent: host root -> host client -> extension server ->
    // extension chat -> request to Ollama.
    let trace = root.trace_id.clone();
    assert_eq!(trace.len(), 16);
    for span in [&host_call, &server, &chat, &upstream] {
        assert_eq!(hex(&span.trace_id), hex(&trace), "{}", span.name);
    }
    assert!(root.parent_span_id.is_empty(), "the host's span is the root");
    assert_eq!(host_call.parent_span_id, root.span_id);
    assert_eq!(
        server.parent_span_id, host_call.span_id,
        "the extension continued the host's traceparent"
    );
    assert_eq!(chat.parent_span_id, server.span_id);
    assert_eq!(upstream.parent_span_id, chat.span_id);

    // The fake Ollama got that trace's traceparent, naming the client span as parent.
    let chats: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/chat")
        .collect();
    assert_eq!(chats.len(), 1);
    let traceparent = chats[0].header("traceparent").expect("Ollama got a traceparent");
    assert_eq!(
        traceparent,
        format!("00-{}-{}-01", hex(&trace), hex(&upstream.span_id)),
        "W3C traceparent"
    );

    // HTTP server span: route template, method, status.
    assert_eq!(text(&server, "http.request.method").as_deref(), Some("POST"));
    assert_eq!(
        text(&server, "http.route").as_deref(),
        Some("/aep/model-providers/{id}/chat/stream")
    );
    assert_eq!(
        int(&server, "http.response.status_code"),
        Some(200),
        "{:?}",
        server.attributes
    );

    // GenAI attributes and token usage: on the extension's chat span, on its request to
    // Ollama and on the host's call.
    for (span, provider) in [(&chat, "ollama"), (&upstream, "ollama"), (&host_call, "ollama")] {
        let what = format!("{} ({:?})", span.name, SpanKind::try_from(span.kind));
        assert_eq!(
            text(span, "gen_ai.operation.name").as_deref(),
            Some("chat"),
            "{what}"
        );
        assert_eq!(
            text(span, "gen_ai.provider.name").as_deref(),
            Some(provider),
            "{what}"
        );
        assert_eq!(
            text(span, "gen_ai.request.model").as_deref(),
            Some("llama3.2"),
            "{what}"
        );
        assert_eq!(
            strings(span, "gen_ai.response.finish_reasons"),
            Some(vec!["stop".to_owned()]),
            "{what}"
        );
        let input = int(span, "gen_ai.usage.input_tokens").unwrap_or_else(|| panic!("{what}: input tokens"));
        let output =
            int(span, "gen_ai.usage.output_tokens").unwrap_or_else(|| panic!("{what}: output tokens"));
        assert!(input > 0 && output > 0, "{what}: {input} {output}");
    }
    assert_eq!(text(&upstream, "server.address").as_deref(), Some("127.0.0.1"));
    assert_eq!(int(&upstream, "server.port"), Some(i64::from(fake.addr().port())));

    // The extension's metrics went out over OTLP too, under the conventions' names.
    let metric_names = || {
        received
            .lock()
            .unwrap()
            .metric_names
            .iter()
            .filter(|(service, _)| service == "aep-ollama")
            .map(|(_, name)| name.clone())
            .collect::<std::collections::BTreeSet<_>>()
    };
    let instruments = [
        "http.server.request.duration",
        "gen_ai.server.request.duration",
        "gen_ai.server.time_to_first_token",
        "gen_ai.server.time_per_output_token",
        "gen_ai.client.token.usage",
        "aep.server.open_streams",
    ];
    eventually("the extension's instruments over OTLP", || {
        let names = metric_names();
        instruments.iter().all(|i| names.contains(*i))
    })
    .await;

    // No prompt text in anything either process exported (raw protobuf bodies, so
    // nothing is missed by the decoding above), and no message attribute.
    let bodies = received.lock().unwrap().bodies.clone();
    assert!(!bodies.is_empty());
    for (kind, body) in &bodies {
        assert!(
            !body.windows(PROMPT.len()).any(|w| w == PROMPT.as_bytes()),
            "prompt text in exported {kind}"
        );
    }
    for (_, span) in &spans {
        assert!(
            span.attributes
                .iter()
                .all(|kv| !kv.key.starts_with("gen_ai.input") && !kv.key.starts_with("gen_ai.output")),
            "{}: {:?}",
            span.name,
            span.attributes
        );
        assert!(
            span.events.is_empty(),
            "log events are not exported: {:?}",
            span.events
        );
    }
    drop(extension);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_otel_variables_nothing_is_exported_and_no_exporter_starts() {
    // Where an exporter would send by default (localhost:4318), if it started anyway.
    let default_port = receiver("127.0.0.1:4318").await.ok();
    let (addr, received) = receiver("127.0.0.1:0").await.unwrap();
    let fake = FakeOllama::start().await;
    // The service name and sampler alone do not turn export on.
    let only_names = |c: &mut Command| {
        c.env("OTEL_SERVICE_NAME", "quiet")
            .env("OTEL_TRACES_SAMPLER", "always_on");
    };
    let (extension, url) = start_extension(&fake, only_names).await;
    let answer = host_chat(&url, only_names).await;
    assert!(answer.contains(PROMPT), "{answer}");
    // Ollama gets no traceparent.
    let chats: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/chat")
        .collect();
    assert_eq!(chats.len(), 1);
    assert_eq!(chats[0].header("traceparent"), None);
    // No exporter thread: neither the SDK's batch processor or metric reader nor ours.
    let names = threads(extension.0.id());
    assert!(!names.is_empty(), "threads of the extension readable");
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("OpenTelemetry") || n.starts_with("aep-otlp")),
        "{names:?}"
    );
    // And a grpc protocol is refused with a warning, exporting nothing either.
    let mut command = clean(env!("CARGO_BIN_EXE_aep-host"));
    otel_env(&mut command, addr, "aep-host");
    command
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .args(["discover", &url]);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("OTLP protocol 'grpc' is not supported"),
        "{stderr}"
    );

    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(received.lock().unwrap().bodies.len(), 0, "nothing exported");
    if let Some((_, default)) = default_port {
        assert_eq!(
            default.lock().unwrap().bodies.len(),
            0,
            "nothing sent to localhost:4318"
        );
    }
    drop(extension);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn message_content_is_recorded_only_with_the_conventions_opt_in() {
    let (addr, received) = receiver("127.0.0.1:0").await.unwrap();
    let fake = FakeOllama::start().await;
    let (extension, url) = start_extension(&fake, |c| {
        otel_env(c, addr, "aep-ollama");
        c.env("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true");
    })
    .await;
    // The host is not opted in: its spans stay without content.
    host_chat(&url, |c| otel_env(c, addr, "aep-host")).await;
    let chat = || {
        received
            .lock()
            .unwrap()
            .spans
            .iter()
            .find(|(s, span)| s == "aep-ollama" && span.kind == SpanKind::Internal as i32)
            .map(|(_, span)| span.clone())
    };
    eventually("the extension's chat span", || chat().is_some()).await;
    let messages = text(&chat().unwrap(), "gen_ai.input.messages").expect("opted in: the input messages");
    assert!(messages.contains(PROMPT), "{messages}");
    eventually("the host's spans", || {
        received
            .lock()
            .unwrap()
            .spans
            .iter()
            .any(|(s, _)| s == "aep-host")
    })
    .await;
    for (service, span) in received.lock().unwrap().spans.iter() {
        if service == "aep-host" {
            assert!(text(span, "gen_ai.input.messages").is_none(), "{}", span.name);
        }
    }
    drop(extension);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_continues_the_hosts_trace_through_mcp_meta() {
    let (addr, received) = receiver("127.0.0.1:0").await.unwrap();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_aep-host")).with_file_name("aep-utilities");
    assert!(
        binary.exists(),
        "{} is missing: build it with `cargo build -p aep-utilities` (cargo test --workspace does)",
        binary.display()
    );
    let listen = format!("127.0.0.1:{}", free_port());
    let mut command = clean(binary);
    command.args(["--listen", &listen]);
    otel_env(&mut command, addr, "aep-utilities");
    let _utilities = Running(command.spawn().expect("aep-utilities starts"));
    let url = format!("http://{listen}");
    let client = aep_sdk::client::Client::new(&url).unwrap();
    let started = Instant::now();
    while client.health().await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "aep-utilities never answered"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let argument = "tool-argument-that-must-stay-private-91c2";
    let mut host = clean(env!("CARGO_BIN_EXE_aep-host"));
    otel_env(&mut host, addr, "aep-host");
    host.args([
        "-e",
        &format!("aep.utilities={url}"),
        "call",
        "hash.compute",
        &format!(r#"{{"text":"{argument}"}}"#),
    ])
    .stdout(Stdio::piped());
    let output = tokio::task::spawn_blocking(move || host.output().unwrap())
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let find = |service: &str, kind: SpanKind| {
        received
            .lock()
            .unwrap()
            .spans
            .iter()
            .find(|(s, span)| {
                s == service && span.kind == kind as i32 && span.name == "tools/call hash_compute"
            })
            .map(|(_, span)| span.clone())
    };
    let root = || {
        received
            .lock()
            .unwrap()
            .spans
            .iter()
            .find(|(s, span)| s == "aep-host" && span.name == "aep-host call")
            .map(|(_, span)| span.clone())
    };
    let both = || {
        find("aep-host", SpanKind::Client).is_some()
            && find("aep-utilities", SpanKind::Server).is_some()
            && root().is_some()
    };
    let waited = Instant::now();
    while !both() && waited.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        both(),
        "the tool call's spans on both sides; got {:?}",
        received
            .lock()
            .unwrap()
            .spans
            .iter()
            .map(|(s, span)| (s.clone(), span.name.clone(), span.kind))
            .collect::<Vec<_>>()
    );
    let caller = find("aep-host", SpanKind::Client).unwrap();
    let tool = find("aep-utilities", SpanKind::Server).unwrap();
    assert_eq!(hex(&tool.trace_id), hex(&caller.trace_id), "one trace");
    assert_eq!(
        tool.parent_span_id, caller.span_id,
        "the server continued the _meta traceparent"
    );
    for span in [&caller, &tool] {
        assert_eq!(text(span, "mcp.method.name").as_deref(), Some("tools/call"));
        // The MCP tool's name (the AEP tool resource is hash.compute).
        assert_eq!(text(span, "gen_ai.tool.name").as_deref(), Some("hash_compute"));
        assert_eq!(
            text(span, "gen_ai.operation.name").as_deref(),
            Some("execute_tool")
        );
        assert_eq!(text(span, "error.type"), None);
    }
    // The host's command span is the caller's parent.
    assert_eq!(caller.parent_span_id, root().unwrap().span_id);
    // The argument is in nothing exported.
    for (kind, body) in received.lock().unwrap().bodies.iter() {
        assert!(
            !body.windows(argument.len()).any(|w| w == argument.as_bytes()),
            "tool argument in exported {kind}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_shutdown_flushes_what_the_batch_still_holds() {
    let (addr, received) = receiver("127.0.0.1:0").await.unwrap();
    let fake = FakeOllama::start().await;
    // A batch delay far longer than the test: only the shutdown flush can send the spans.
    let (mut extension, url) = start_extension(&fake, |c| {
        otel_env(c, addr, "aep-ollama");
        c.env("OTEL_BSP_SCHEDULE_DELAY", "600000")
            .env("OTEL_METRIC_EXPORT_INTERVAL", "600000")
            .env("AEP_SHUTDOWN_GRACE_SECS", "1");
    })
    .await;
    host_chat(&url, |_| {}).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let from_extension = |received: &Shared| {
        received
            .lock()
            .unwrap()
            .spans
            .iter()
            .filter(|(s, _)| s == "aep-ollama")
            .count()
    };
    assert_eq!(from_extension(&received), 0, "nothing before the batch is due");
    let pid = extension.0.id().to_string();
    let status = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(status.success());
    let child = &mut extension.0;
    let started = Instant::now();
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "aep-ollama did not exit on SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(exit.success(), "{exit:?}");
    assert!(
        from_extension(&received) >= 3,
        "the server, chat and Ollama spans were flushed"
    );
    let metrics = received.lock().unwrap().metric_names.len();
    assert!(metrics > 0, "the metrics were flushed too");
}
