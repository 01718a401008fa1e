//! OpenTelemetry end to end, with real processes: `aep-host chat` -> `aep-ollama` -> the
//! fake Ollama, and `aep-host chat` -> `aep-openai` / `aep-llamacpp` -> the fake
//! OpenAI-compatible server, the binaries pointed by the standard `OTEL_*` variables at
//! an OTLP/HTTP receiver in this test, which decodes what they export with the official
//! protobuf definitions (`opentelemetry-proto`). One trace must hold the host's spans,
//! the extension's HTTP server span and its client span of the request to the model
//! server, with the GenAI attributes and token usage; the fake upstream must have got
//! that trace's `traceparent`; no prompt text may appear in anything exported. A tool
//! call continues the host's trace through MCP `_meta`, and a tool's own failure
//! (`isError: true`) marks both sides' `tools/call` spans. Without the variables nothing
//! is exported and no exporter thread starts.
//!
//! The extensions are run from beside `aep-host` in the target directory: `cargo test
//! --workspace` builds them; a scoped run needs `cargo build -p aep-ollama -p
//! aep-utilities -p aep-openai-compatible` first.

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
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
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

/// The `service.name` of an exported resource ("" when it has none).
fn service_name(resource: Option<&Resource>) -> String {
    resource
        .and_then(|r| string_attribute(&r.attributes, "service.name"))
        .unwrap_or_default()
}

async fn traces(State(shared): State<Shared>, body: Bytes) -> Vec<u8> {
    let request = ExportTraceServiceRequest::decode(body.clone()).expect("OTLP traces decode");
    let mut received = shared.lock().unwrap();
    received.bodies.push(("traces".into(), body));
    for resource_spans in request.resource_spans {
        let service = service_name(resource_spans.resource.as_ref());
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
        let service = service_name(resource_metrics.resource.as_ref());
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
    sibling_binary("aep-ollama", "aep-ollama")
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

/// A binary built beside `aep-host` in the target directory.
fn sibling_binary(name: &str, package: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_BIN_EXE_aep-host")).with_file_name(name);
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo build -p {package}` (cargo test --workspace does)",
        path.display()
    );
    path
}

/// Starts an extension (`command`, to which `--listen` is added) and waits until it
/// answers.
async fn start_listening(mut command: Command, configure: impl FnOnce(&mut Command)) -> (Running, String) {
    let listen = format!("127.0.0.1:{}", free_port());
    command.args(["--listen", &listen]);
    configure(&mut command);
    let program = command.get_program().to_string_lossy().into_owned();
    let running = Running(
        command
            .spawn()
            .unwrap_or_else(|e| panic!("{program} starts: {e}")),
    );
    let url = format!("http://{listen}");
    let client = aep_sdk::client::Client::new(&url).unwrap();
    let started = Instant::now();
    while client.health().await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{program} never answered"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (running, url)
}

/// Starts `aep-ollama` in front of `fake` and waits until it answers.
async fn start_extension(fake: &FakeOllama, configure: impl FnOnce(&mut Command)) -> (Running, String) {
    let mut command = clean(aep_ollama_binary());
    command.env("OLLAMA_HOST", fake.base_url());
    start_listening(command, configure).await
}

/// `aep-host chat` with `model` (`extension/provider/model`) of the extension `id` at
/// `url`; returns its stdout.
async fn host_chat_with(id: &str, model: &str, url: &str, configure: impl FnOnce(&mut Command)) -> String {
    let mut command = clean(env!("CARGO_BIN_EXE_aep-host"));
    command
        .args([
            "--extension",
            &format!("{id}={url}"),
            "chat",
            "-m",
            model,
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

/// `aep-host chat` against the `aep-ollama` at `url`; returns its stdout.
async fn host_chat(url: &str, configure: impl FnOnce(&mut Command)) -> String {
    let model = format!(
        "{}/{}/llama3.2",
        aep_ollama::EXTENSION_ID,
        aep_ollama::PROVIDER_ID
    );
    host_chat_with(aep_ollama::EXTENSION_ID, &model, url, configure).await
}

/// Whether the span's status is ERROR.
fn failed(span: &Span) -> bool {
    span.status
        .as_ref()
        .is_some_and(|status| status.code == StatusCode::Error as i32)
}

fn contains(body: &[u8], text: &str) -> bool {
    body.windows(text.len()).any(|w| w == text.as_bytes())
}

/// None of `secrets` is in any body either process exported, and no span carries a
/// message-content attribute (`gen_ai.input.*`, `gen_ai.output.*`).
fn assert_nothing_exported_holds(received: &Shared, spans: &[(String, Span)], secrets: &[&str], label: &str) {
    let bodies = received.lock().unwrap().bodies.clone();
    assert!(!bodies.is_empty(), "{label}: nothing was exported");
    for (kind, body) in &bodies {
        for secret in secrets {
            assert!(!contains(body, secret), "{label}: {secret:?} in exported {kind}");
        }
    }
    for (_, span) in spans {
        assert!(
            span.attributes
                .iter()
                .all(|kv| !kv.key.starts_with("gen_ai.input") && !kv.key.starts_with("gen_ai.output")),
            "{label}: {}: {:?}",
            span.name,
            span.attributes
        );
    }
}

/// The first span `service` exported with this name (and this kind, if given).
fn span(received: &Shared, service: &str, kind: Option<SpanKind>, name: &str) -> Option<Span> {
    received
        .lock()
        .unwrap()
        .spans
        .iter()
        .find(|(s, span)| s == service && span.name == name && kind.is_none_or(|k| span.kind == k as i32))
        .map(|(_, span)| span.clone())
}

/// `aep-host -e aep.utilities=URL call TOOL ARGUMENTS`, exporting to the receiver.
async fn host_call(receiver: SocketAddr, url: &str, tool: &str, arguments: &str) -> std::process::Output {
    let mut host = clean(env!("CARGO_BIN_EXE_aep-host"));
    otel_env(&mut host, receiver, "aep-host");
    host.args(["-e", &format!("aep.utilities={url}"), "call", tool, arguments])
        .stdout(Stdio::piped());
    tokio::task::spawn_blocking(move || host.output().unwrap())
        .await
        .unwrap()
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

    // Raw protobuf bodies, so nothing is missed by the decoding above.
    assert_nothing_exported_holds(&received, &spans, &[PROMPT], "aep-ollama");
    for (_, span) in &spans {
        assert!(
            span.events.is_empty(),
            "log events are not exported: {:?}",
            span.events
        );
    }
    drop(extension);
}

/// One of the OpenAI-compatible binaries, as the OpenAI-compatible trace test runs it.
struct Compatible {
    binary: &'static str,
    extension_id: &'static str,
    provider: &'static str,
    /// Flags beyond `--endpoint`.
    args: &'static [&'static str],
}

/// What the OpenAI-compatible extensions' spans must show, for `aep-openai` (provider
/// `openai`) and `aep-llamacpp` (provider `llamacpp`: the configured provider id, since
/// the conventions' `openai` names OpenAI itself): host -> extension -> the fake
/// upstream in one trace, the upstream got the client span's `traceparent`, the GenAI
/// attributes and token usage on that span, for `/chat/stream` (through `aep-host chat`)
/// and `/chat` (a request carrying a `traceparent` of its own); no prompt text exported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_trace_runs_from_the_host_through_the_openai_compatible_extensions_to_their_upstream() {
    use aep_openai_compatible::flavor::{
        LLAMACPP_EXTENSION_ID, LLAMACPP_PROVIDER_ID, OPENAI_EXTENSION_ID, OPENAI_PROVIDER_ID,
    };
    let targets = [
        Compatible {
            binary: "aep-openai",
            extension_id: OPENAI_EXTENSION_ID,
            provider: OPENAI_PROVIDER_ID,
            args: &[],
        },
        Compatible {
            binary: "aep-llamacpp",
            extension_id: LLAMACPP_EXTENSION_ID,
            provider: LLAMACPP_PROVIDER_ID,
            // The drop-in keeps the reference's body (no usage chunk) unless asked.
            args: &["--include-usage"],
        },
    ];
    for target in targets {
        openai_compatible_trace(&target).await;
    }
}

async fn openai_compatible_trace(target: &Compatible) {
    let service = target.binary;
    let (addr, received) = receiver("127.0.0.1:0").await.unwrap();
    let fake = fake_openai::Fake::start().await;
    let mut command = clean(sibling_binary(target.binary, "aep-openai-compatible"));
    command.args(["--endpoint", &fake.base_url]).args(target.args);
    let (extension, url) = start_listening(command, |c| otel_env(c, addr, service)).await;

    // `/chat/stream`, through the host.
    let model = format!("{}/{}/smollm2", target.extension_id, target.provider);
    let answer = host_chat_with(target.extension_id, &model, &url, |c| {
        otel_env(c, addr, "aep-host")
    })
    .await;
    assert!(
        answer.contains(PROMPT),
        "{service}: the fake echoes the prompt: {answer}"
    );

    // `/chat`, from a caller whose trace the request's traceparent names.
    let caller_trace = "5bd66ef5095369c7b0d1f8f4bd33716a";
    let caller_span = "c532cb4098ac3dd2";
    let request =
        aep_sdk::protocol::ChatRequest::new("smollm2", vec![aep_sdk::protocol::Message::user(PROMPT)]);
    let response = reqwest::Client::new()
        .post(format!("{url}/aep/model-providers/{}/chat", target.provider))
        .header("traceparent", format!("00-{caller_trace}-{caller_span}-01"))
        .json(&request)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{service}: {:?}", response.text().await);

    let spans = || received.lock().unwrap().spans.clone();
    let by = |from: &'static str, kind: SpanKind, name: &'static str| {
        move |(s, span): &(String, Span)| s == from && span.kind == kind as i32 && span.name == name
    };
    const STREAM_ROUTE: &str = "POST /aep/model-providers/{id}/chat/stream";
    const CHAT_ROUTE: &str = "POST /aep/model-providers/{id}/chat";
    eventually("the spans of both processes", || {
        let spans = spans();
        spans
            .iter()
            .any(by("aep-host", SpanKind::Internal, "aep-host chat"))
            && spans.iter().any(by("aep-host", SpanKind::Client, "chat smollm2"))
            && spans.iter().any(by(service, SpanKind::Server, STREAM_ROUTE))
            && spans.iter().any(by(service, SpanKind::Server, CHAT_ROUTE))
            && spans
                .iter()
                .filter(|s| by(service, SpanKind::Internal, "chat smollm2")(s))
                .count()
                == 2
            && spans
                .iter()
                .filter(|s| by(service, SpanKind::Client, "chat smollm2")(s))
                .count()
                == 2
    })
    .await;
    let spans = spans();
    let find = |from, kind, name, parent: &[u8]| {
        spans
            .iter()
            .find(|s| by(from, kind, name)(s) && (parent.is_empty() || s.1.parent_span_id == parent))
            .map(|(_, span)| span.clone())
            .unwrap_or_else(|| panic!("{service}: no {kind:?} span {name} under {}", hex(parent)))
    };
    let root = find("aep-host", SpanKind::Internal, "aep-host chat", &[]);
    let host_call = find("aep-host", SpanKind::Client, "chat smollm2", &root.span_id);
    let server = find(service, SpanKind::Server, STREAM_ROUTE, &host_call.span_id);
    let chat = find(service, SpanKind::Internal, "chat smollm2", &server.span_id);
    let upstream = find(service, SpanKind::Client, "chat smollm2", &chat.span_id);
    let once_server = find(service, SpanKind::Server, CHAT_ROUTE, &[]);
    let once_chat = find(service, SpanKind::Internal, "chat smollm2", &once_server.span_id);
    let once_upstream = find(service, SpanKind::Client, "chat smollm2", &once_chat.span_id);

    // One trace, parent by parent (the finds above): host root -> host client ->
    // extension server -> extension chat -> request upstream.
    let trace = hex(&root.trace_id);
    assert!(root.parent_span_id.is_empty(), "the host's span is the root");
    for span in [&host_call, &server, &chat, &upstream] {
        assert_eq!(hex(&span.trace_id), trace, "{service}: {}", span.name);
    }
    // The `/chat` continued its caller's trace.
    assert_eq!(hex(&once_server.parent_span_id), caller_span, "{service}");
    for span in [&once_server, &once_chat, &once_upstream] {
        assert_eq!(hex(&span.trace_id), caller_trace, "{service}: {}", span.name);
    }

    // The upstream got each request's traceparent, naming its client span as parent.
    assert_eq!(
        fake.traceparents(),
        vec![
            Some(format!("00-{trace}-{}-01", hex(&upstream.span_id))),
            Some(format!("00-{caller_trace}-{}-01", hex(&once_upstream.span_id))),
        ],
        "{service}: W3C traceparent of each chat request"
    );

    // The client spans of the requests upstream: GenAI attributes, the server, usage.
    let words = i64::try_from(PROMPT.split_inclusive(' ').count()).unwrap();
    for span in [&upstream, &once_upstream] {
        let what = format!("{service}: {} ({:?})", span.name, SpanKind::try_from(span.kind));
        assert_eq!(
            text(span, "gen_ai.operation.name").as_deref(),
            Some("chat"),
            "{what}"
        );
        assert_eq!(
            text(span, "gen_ai.provider.name").as_deref(),
            Some(target.provider),
            "{what}"
        );
        assert_eq!(
            text(span, "gen_ai.request.model").as_deref(),
            Some("smollm2"),
            "{what}"
        );
        assert_eq!(
            text(span, "gen_ai.response.model").as_deref(),
            Some("smollm2"),
            "{what}"
        );
        assert_eq!(
            strings(span, "gen_ai.response.finish_reasons"),
            Some(vec!["stop".to_owned()]),
            "{what}"
        );
        // The fake counts 3 prompt tokens and one per word of its echo.
        assert_eq!(int(span, "gen_ai.usage.input_tokens"), Some(3), "{what}");
        assert_eq!(int(span, "gen_ai.usage.output_tokens"), Some(words), "{what}");
        assert_eq!(
            text(span, "server.address").as_deref(),
            Some("127.0.0.1"),
            "{what}"
        );
        let port = fake.base_url.rsplit(':').next().unwrap().parse::<i64>().unwrap();
        assert_eq!(int(span, "server.port"), Some(port), "{what}");
        assert_eq!(
            text(span, "http.request.method").as_deref(),
            Some("POST"),
            "{what}"
        );
        assert_eq!(text(span, "error.type"), None, "{what}");
    }
    for span in [&chat, &once_chat, &host_call] {
        assert_eq!(
            text(span, "gen_ai.provider.name").as_deref(),
            Some(target.provider),
            "{service}: {}",
            span.name
        );
    }

    assert_nothing_exported_holds(&received, &spans, &[PROMPT], service);
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
    let mut command = clean(sibling_binary("aep-utilities", "aep-utilities"));
    otel_env(&mut command, addr, "aep-utilities");
    let (_utilities, url) = start_listening(command, |_| {}).await;

    let argument = "tool-argument-that-must-stay-private-91c2";
    let output = host_call(addr, &url, "hash.compute", &format!(r#"{{"text":"{argument}"}}"#)).await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let find =
        |service: &str, kind: SpanKind| span(&received, service, Some(kind), "tools/call hash_compute");
    let root = || span(&received, "aep-host", None, "aep-host call");
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
        assert!(!failed(span), "{:?}", span.status);
    }
    // The host's command span is the caller's parent.
    assert_eq!(caller.parent_span_id, root().unwrap().span_id);

    // A tool's own failure (a result with isError: true, here JSON that does not parse)
    // is an error on both sides' spans: error.type `tool_error`, status ERROR.
    let broken = "{not json 4e1d";
    let output = host_call(
        addr,
        &url,
        "json.compact",
        &serde_json::json!({ "json": broken }).to_string(),
    )
    .await;
    assert!(
        !output.status.success(),
        "a tool error fails the command: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    let compact =
        |service: &str, kind: SpanKind| span(&received, service, Some(kind), "tools/call json_compact");
    eventually("the failed tool call's spans on both sides", || {
        compact("aep-host", SpanKind::Client).is_some()
            && compact("aep-utilities", SpanKind::Server).is_some()
    })
    .await;
    let caller = compact("aep-host", SpanKind::Client).unwrap();
    let tool = compact("aep-utilities", SpanKind::Server).unwrap();
    assert_eq!(tool.parent_span_id, caller.span_id);
    for span in [&caller, &tool] {
        assert_eq!(
            text(span, "error.type").as_deref(),
            Some("tool_error"),
            "{:?}",
            SpanKind::try_from(span.kind)
        );
        assert!(
            failed(span),
            "{:?}: {:?}",
            SpanKind::try_from(span.kind),
            span.status
        );
    }

    // The arguments are in nothing exported.
    let bodies = received.lock().unwrap().bodies.clone();
    assert!(!bodies.is_empty());
    for (kind, body) in &bodies {
        for secret in [argument, broken] {
            assert!(!contains(body, secret), "tool argument in exported {kind}");
        }
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

/// `aep-host gateway` continues its callers' traces. An OpenAI client's `traceparent`:
/// the gateway's `POST /v1/chat/completions` server span is its child, the gateway's AEP
/// call a child of that, then `aep-ollama`'s server span, and the request to Ollama
/// carries the same trace. An MCP caller's `_meta` traceparent: the gateway's
/// `tools/call` span, its pooled call, and the utilities' server span, in one trace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_continues_an_openai_clients_trace_to_the_model_and_an_mcp_callers_to_the_tool() {
    let (addr, received) = receiver("127.0.0.1:0").await.unwrap();
    let fake = FakeOllama::start().await;
    let (_ollama, ollama_url) = start_extension(&fake, |c| otel_env(c, addr, "aep-ollama")).await;
    let mut utilities = clean(sibling_binary("aep-utilities", "aep-utilities"));
    otel_env(&mut utilities, addr, "aep-utilities");
    let (_utilities, utilities_url) = start_listening(utilities, |_| {}).await;
    let mut gateway = clean(env!("CARGO_BIN_EXE_aep-host"));
    gateway.arg("gateway");
    let (_gateway, gateway_url) = start_listening(gateway, |c| {
        otel_env(c, addr, "aep-gateway");
        c.args([&ollama_url, &utilities_url]);
    })
    .await;
    let http = reqwest::Client::new();
    let models: serde_json::Value = http
        .get(format!("{gateway_url}/v1/models"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let model = models["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["id"].as_str())
        .find(|id| id.starts_with(&format!("{}/llama3.2", aep_ollama::PROVIDER_ID)))
        .unwrap_or_else(|| panic!("no llama3.2 in {models}"))
        .to_owned();
    let upstream_model = model.split_once('/').unwrap().1.to_owned();

    // The OpenAI client's trace.
    let (trace, parent) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    let response = http
        .post(format!("{gateway_url}/v1/chat/completions"))
        .header("traceparent", format!("00-{trace}-{parent}-01"))
        .json(&serde_json::json!({"model": model, "messages": [{"role": "user", "content": PROMPT}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let chat_name = format!("chat {upstream_model}");
    let aep_server = |(s, span): &(String, Span)| {
        s == "aep-ollama"
            && span.kind == SpanKind::Server as i32
            && span.name.starts_with("POST /aep/model-providers/")
    };
    eventually("the chat's spans in the gateway and the extension", || {
        span(
            &received,
            "aep-gateway",
            Some(SpanKind::Server),
            "POST /v1/chat/completions",
        )
        .is_some()
            && span(&received, "aep-gateway", Some(SpanKind::Client), &chat_name).is_some()
            && received.lock().unwrap().spans.iter().any(aep_server)
            && span(&received, "aep-ollama", Some(SpanKind::Client), &chat_name).is_some()
    })
    .await;
    let served = span(
        &received,
        "aep-gateway",
        Some(SpanKind::Server),
        "POST /v1/chat/completions",
    )
    .unwrap();
    let called = span(&received, "aep-gateway", Some(SpanKind::Client), &chat_name).unwrap();
    let extension = received
        .lock()
        .unwrap()
        .spans
        .iter()
        .find(|s| aep_server(s))
        .map(|(_, span)| span.clone())
        .unwrap();
    let upstream = span(&received, "aep-ollama", Some(SpanKind::Client), &chat_name).unwrap();
    for span in [&served, &called, &extension, &upstream] {
        assert_eq!(hex(&span.trace_id), trace, "{}", span.name);
    }
    assert_eq!(
        hex(&served.parent_span_id),
        parent,
        "the OpenAI client's span is the parent"
    );
    assert_eq!(called.parent_span_id, served.span_id);
    assert_eq!(extension.parent_span_id, called.span_id);
    let chats: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/chat")
        .collect();
    let traceparent = chats[0].header("traceparent").expect("Ollama got a traceparent");
    assert!(traceparent.starts_with(&format!("00-{trace}-")), "{traceparent}");

    // An MCP caller's trace, in `_meta`.
    let (trace, parent) = ("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331");
    use rmcp::ServiceExt;
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(format!("{gateway_url}/mcp"));
    let client = rmcp::model::ClientConfig::default()
        .serve(transport)
        .await
        .expect("MCP initialize");
    let mut meta = rmcp::model::MetaObject::new();
    meta.0
        .insert("traceparent".to_owned(), format!("00-{trace}-{parent}-01").into());
    let mut params = rmcp::model::CallToolRequestParams::new("hash.compute")
        .with_arguments(serde_json::json!({"text": "abc"}).as_object().unwrap().clone());
    params.meta = Some(rmcp::model::RequestMetaObject(meta));
    let result = client.call_tool(params).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    eventually("the tool call's spans in the gateway and the extension", || {
        span(
            &received,
            "aep-gateway",
            Some(SpanKind::Server),
            "tools/call hash.compute",
        )
        .is_some()
            && span(
                &received,
                "aep-gateway",
                Some(SpanKind::Client),
                "tools/call hash_compute",
            )
            .is_some()
            && span(
                &received,
                "aep-utilities",
                Some(SpanKind::Server),
                "tools/call hash_compute",
            )
            .is_some()
    })
    .await;
    let served = span(
        &received,
        "aep-gateway",
        Some(SpanKind::Server),
        "tools/call hash.compute",
    )
    .unwrap();
    let called = span(
        &received,
        "aep-gateway",
        Some(SpanKind::Client),
        "tools/call hash_compute",
    )
    .unwrap();
    let tool = span(
        &received,
        "aep-utilities",
        Some(SpanKind::Server),
        "tools/call hash_compute",
    )
    .unwrap();
    for span in [&served, &called, &tool] {
        assert_eq!(hex(&span.trace_id), trace, "{}", span.name);
    }
    assert_eq!(
        hex(&served.parent_span_id),
        parent,
        "the MCP caller's span is the parent"
    );
    assert_eq!(called.parent_span_id, served.span_id);
    assert_eq!(tool.parent_span_id, called.span_id);
    let _ = client.cancel().await;
}
