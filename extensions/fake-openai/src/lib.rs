//! A stand-in Chat Completions server, written from the OpenAI API reference and the
//! llama.cpp / LocalAI server docs, for the faults a real server cannot be made to show.
//!
//! `POST /v1/chat/completions` streams `data:` lines ending in `data: [DONE]` (a role
//! chunk, content chunks, a finish chunk, and a `"choices": []` usage chunk when
//! `stream_options.include_usage` is set), or answers a `chat.completion` object when
//! `stream` is false (`paced` and `stall` then never answer, `empty-choices` has no
//! choice, `garbage` is not JSON). What it does is chosen by the request's `model`:
//!
//! | model | behaviour |
//! |---|---|
//! | anything else | echoes the last user message word by word |
//! | `tools` | text, then a tool call split over several chunks, finish `tool_calls` |
//! | `reasoning` | `reasoning_content` deltas, then content |
//! | `paced` | 2,000 words, one every 10 ms (for cancellation) |
//! | `paced:N:MS` | `N` words, one every `MS` ms (benchmarks; `paced:5000:0` is unpaced) |
//! | `stall` | one chunk, then silence |
//! | `malformed` | one chunk, then a `data:` line that is not JSON |
//! | `oversized` | a 2 MiB `data:` line |
//! | `reset` | one chunk, then the connection is cut |
//! | `error-event` | one chunk, then `data: {"error": ...}` |
//! | `no-finish` | one chunk, then `[DONE]` without a finish chunk |
//! | `noisy` | comments, `event:` lines and blank lines between chunks |
//! | `missing` | 404 `{"error": {"message": "model 'missing' not found", ...}}` |
//! | `loading` | 503 `{"error": {"message": "Loading model", ...}}` |
//! | `bad` | 400 with an HTML body |
//!
//! `GET /v1/models`, `/props` (llama.cpp), `/health` (llama.cpp; 503 while
//! [`Fake::set_loading`]), `/readyz` (LocalAI), `/v1/models/capabilities` (LocalAI).
//! `GET /_fake/stats` reports its counters as JSON (for an out-of-process observer).
//! With [`Fake::require_key`], every route wants `Authorization: Bearer <key>` (401).
//! Every chat body is recorded with its headers (a W3C `traceparent` included, as a
//! traced client sends it: [`Fake::traceparents`]); a stream counts as closed when its body is dropped
//! (the client went away or finished). `fake-openai --listen ADDR` runs it as a process
//! (what the benchmark does) and prints `listening on http://...`.
#![warn(missing_docs)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::StreamExt;
use serde_json::{Value, json};

/// What the stand-in saw and how it behaves.
#[derive(Default)]
pub struct Shared {
    /// Every chat body, in arrival order.
    pub requests: Mutex<Vec<Value>>,
    /// Their headers.
    pub headers: Mutex<Vec<HeaderMap>>,
    /// Streams started.
    pub streams_opened: AtomicUsize,
    /// Chat answers whose body (or, non-streamed, whose handler) was dropped.
    pub streams_closed: AtomicUsize,
    /// Chunks written by paced streams (stops growing when a stream is dropped).
    pub paced_chunks: AtomicUsize,
    /// `/health` and `/readyz` answer 503 `Loading model`.
    pub loading: AtomicBool,
    /// The bearer key every route wants, if any.
    pub key: Mutex<Option<String>>,
    /// `/v1/models/capabilities` answers 404 (a LocalAI without it).
    pub no_capabilities_route: AtomicBool,
}

/// The stand-in, serving on a loopback port until dropped.
pub struct Fake {
    /// Its state.
    pub shared: Arc<Shared>,
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    _task: tokio::task::JoinHandle<()>,
}

impl Drop for Fake {
    fn drop(&mut self) {
        self._task.abort();
    }
}

impl Fake {
    /// Serves on `127.0.0.1:0`.
    pub async fn start() -> Fake {
        Self::start_on("127.0.0.1:0").await
    }

    /// Serves on `addr`; panics when it cannot listen there (see [`Fake::try_start_on`]).
    pub async fn start_on(addr: &str) -> Fake {
        Self::try_start_on(addr)
            .await
            .expect("bind the stand-in's address")
    }

    /// Serves on `addr`, or says why it cannot listen there.
    pub async fn try_start_on(addr: &str) -> std::io::Result<Fake> {
        let shared = Arc::new(Shared::default());
        let router = Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/v1/models", get(models))
            .route("/props", get(props))
            .route("/health", get(health))
            .route("/readyz", get(health))
            .route("/v1/models/capabilities", get(capabilities))
            .route("/_fake/stats", get(stats))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let base_url = format!("http://{}", listener.local_addr()?);
        let task = tokio::spawn(async move {
            // As real servers do: no Nagle delay on the small SSE writes of a stream.
            let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let _ = axum::serve(listener, router).await;
        });
        Ok(Fake {
            shared,
            base_url,
            _task: task,
        })
    }

    /// Every chat body received.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The last chat body.
    pub fn last_request(&self) -> Value {
        self.requests().pop().expect("a recorded request")
    }

    /// The headers of every chat request received, in arrival order.
    pub fn headers(&self) -> Vec<HeaderMap> {
        self.shared.headers.lock().unwrap().clone()
    }

    /// The W3C `traceparent` header of every chat request received, in arrival order
    /// (`None` for a request without one).
    pub fn traceparents(&self) -> Vec<Option<String>> {
        self.headers()
            .iter()
            .map(|h| {
                h.get("traceparent")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            })
            .collect()
    }

    /// Makes the health routes answer 503 (or not).
    pub fn set_loading(&self, loading: bool) {
        self.shared.loading.store(loading, Ordering::SeqCst);
    }

    /// Requires `Authorization: Bearer key` on every route.
    pub fn require_key(&self, key: &str) {
        *self.shared.key.lock().unwrap() = Some(key.to_owned());
    }

    /// Chat answers closed so far.
    pub fn closed(&self) -> usize {
        self.shared.streams_closed.load(Ordering::SeqCst)
    }
}

fn error(status: StatusCode, message: &str, kind: &str) -> Response {
    let body = json!({"error": {"message": message, "type": kind, "code": status.as_u16()}});
    (status, axum::Json(body)).into_response()
}

fn unauthorized(shared: &Shared, headers: &HeaderMap) -> Option<Response> {
    let key = shared.key.lock().unwrap().clone()?;
    let sent = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
    (sent != Some(&format!("Bearer {key}"))).then(|| {
        error(
            StatusCode::UNAUTHORIZED,
            "Invalid API Key",
            "authentication_error",
        )
    })
}

fn chunk(model: &str, delta: Value, finish: Option<&str>) -> String {
    let body = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": model,
                      "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    format!("data: {body}\n\n")
}

/// `paced` (2,000 words, 10 ms apart) or `paced:N:MS`.
fn pacing(model: &str) -> (usize, Duration) {
    let mut parts = model.split(':').skip(1);
    let count = parts.next().and_then(|n| n.parse().ok()).unwrap_or(2000);
    let pause = parts.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    (count, Duration::from_millis(pause))
}

fn last_user_text(request: &Value) -> String {
    request["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_owned()
}

/// Marks the stream closed when its body is dropped.
struct CloseGuard(Arc<Shared>);

impl Drop for CloseGuard {
    fn drop(&mut self) {
        self.0.streams_closed.fetch_add(1, Ordering::SeqCst);
    }
}

enum Frame {
    Text(String),
    Pause(Duration),
    Stall,
    Reset,
}

async fn chat(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(refused) = unauthorized(&shared, &headers) {
        return refused;
    }
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return error(StatusCode::BAD_REQUEST, "invalid JSON", "invalid_request_error");
    };
    shared.requests.lock().unwrap().push(request.clone());
    shared.headers.lock().unwrap().push(headers);
    let model = request["model"].as_str().unwrap_or("").to_owned();
    match model.as_str() {
        "missing" => {
            return error(
                StatusCode::NOT_FOUND,
                "model 'missing' not found",
                "invalid_request_error",
            );
        }
        "loading" => {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "Loading model",
                "unavailable_error",
            );
        }
        "bad" => return (StatusCode::BAD_REQUEST, "<html>bad</html>").into_response(),
        _ => {}
    }
    let text = last_user_text(&request);
    let words: Vec<String> = text.split_inclusive(' ').map(str::to_owned).collect();
    let include_usage = request["stream_options"]["include_usage"] == true;
    if request["stream"] != true {
        // A `/chat` whose client goes away drops this future (and the guard).
        let _guard = CloseGuard(shared.clone());
        match model.as_str() {
            "paced" | "stall" => std::future::pending::<()>().await,
            "empty-choices" => {
                return axum::Json(json!({"id": "x", "object": "chat.completion", "choices": []}))
                    .into_response();
            }
            "garbage" => return (StatusCode::OK, "this is not JSON").into_response(),
            _ => {}
        }
        let message = match model.as_str() {
            "reasoning" => {
                json!({"role": "assistant", "reasoning_content": "Let me think.", "content": "Answer."})
            }
            _ => json!({"role": "assistant", "content": text}),
        };
        let body = json!({"id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": words.len(), "total_tokens": 3 + words.len()}});
        return axum::Json(body).into_response();
    }
    let m = model.as_str();
    let mut frames = vec![Frame::Text(chunk(
        m,
        json!({"role": "assistant", "content": ""}),
        None,
    ))];
    let first = || Frame::Text(chunk(m, json!({"content": "partial "}), None));
    let mut finish = Some("stop");
    match m {
        "tools" => {
            frames.push(Frame::Text(chunk(m, json!({"content": "hello "}), None)));
            for (i, part) in ["{\"city\":", "\"Pa", "ris\"}"].iter().enumerate() {
                let mut call = json!({"index": 0, "function": {"arguments": part}});
                if i == 0 {
                    call = json!({"index": 0, "id": "call-1", "type": "function", "function": {"name": "weather", "arguments": part}});
                }
                frames.push(Frame::Text(chunk(m, json!({"tool_calls": [call]}), None)));
            }
            frames.push(Frame::Text(chunk(m, json!({"tool_calls": [{"index": 1, "id": "call-2", "function": {"name": "time", "arguments": ""}}]}), None)));
            finish = Some("tool_calls");
        }
        "reasoning" => {
            for part in ["Let me ", "think."] {
                frames.push(Frame::Text(chunk(m, json!({"reasoning_content": part}), None)));
            }
            frames.push(Frame::Text(chunk(m, json!({"content": "Answer."}), None)));
        }
        paced if paced == "paced" || paced.starts_with("paced:") => {
            let (count, pause) = pacing(paced);
            for i in 0..count {
                if !pause.is_zero() {
                    frames.push(Frame::Pause(pause));
                }
                frames.push(Frame::Text(chunk(m, json!({"content": format!("w{i} ")}), None)));
            }
        }
        "stall" => frames.extend([first(), Frame::Stall]),
        "malformed" => frames.extend([first(), Frame::Text("data: {not json\n\n".into())]),
        "oversized" => frames.push(Frame::Text(format!(
            "data: {{\"x\":\"{}\"}}\n\n",
            "a".repeat(2 << 20)
        ))),
        "reset" => frames.extend([first(), Frame::Pause(Duration::from_millis(50)), Frame::Reset]),
        "error-event" => frames.extend([
            first(),
            Frame::Text("data: {\"error\":{\"message\":\"out of memory\"}}\n\n".into()),
        ]),
        "no-finish" => {
            frames.push(first());
            finish = None;
        }
        "noisy" => {
            for word in &words {
                frames.push(Frame::Text(": ping\n\nevent: message\n".into()));
                frames.push(Frame::Text(chunk(m, json!({"content": word}), None)));
            }
        }
        _ => {
            for word in &words {
                frames.push(Frame::Text(chunk(m, json!({"content": word}), None)));
            }
        }
    }
    if let Some(reason) = finish {
        frames.push(Frame::Text(chunk(m, json!({}), Some(reason))));
        if include_usage {
            let usage = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": m, "choices": [],
                "usage": {"prompt_tokens": 3, "completion_tokens": words.len().max(1), "total_tokens": 3 + words.len().max(1)}});
            frames.push(Frame::Text(format!("data: {usage}\n\n")));
        }
    }
    if m != "stall" && m != "reset" && m != "malformed" && m != "oversized" && m != "error-event" {
        frames.push(Frame::Text("data: [DONE]\n\n".into()));
    }
    shared.streams_opened.fetch_add(1, Ordering::SeqCst);
    let guard = CloseGuard(shared.clone());
    let paced = m == "paced" || m.starts_with("paced:");
    let counter = shared.clone();
    let stream = futures::stream::iter(frames).then(move |frame| {
        let _keep = &guard;
        let counter = counter.clone();
        async move {
            match frame {
                Frame::Text(text) => {
                    if paced {
                        counter.paced_chunks.fetch_add(1, Ordering::SeqCst);
                    }
                    Some(Ok::<_, std::io::Error>(Bytes::from(text)))
                }
                Frame::Pause(pause) => {
                    tokio::time::sleep(pause).await;
                    Some(Ok(Bytes::new()))
                }
                Frame::Stall => {
                    std::future::pending::<()>().await;
                    None
                }
                Frame::Reset => Some(Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "reset",
                ))),
            }
        }
    });
    let stream = stream
        .take_while(|item| std::future::ready(item.is_some()))
        .map(Option::unwrap)
        .filter(|item| std::future::ready(!matches!(item, Ok(bytes) if bytes.is_empty())));
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(stream))
        .unwrap()
}

async fn models(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if let Some(refused) = unauthorized(&shared, &headers) {
        return refused;
    }
    axum::Json(json!({"object": "list", "data": [
        {"id": "smollm2", "object": "model", "owned_by": "fake", "meta": {"n_ctx_train": 8192, "n_params": 134515008u64, "size": 97944576}}
    ]}))
    .into_response()
}

async fn props() -> Response {
    axum::Json(
        json!({"chat_template_caps": {"supports_tools": true, "supports_system_role": true},
                      "modalities": {"vision": false, "audio": false}}),
    )
    .into_response()
}

async fn health(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if let Some(refused) = unauthorized(&shared, &headers) {
        return refused;
    }
    if shared.loading.load(Ordering::SeqCst) {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "Loading model",
            "unavailable_error",
        );
    }
    axum::Json(json!({"status": "ok"})).into_response()
}

async fn capabilities(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if let Some(refused) = unauthorized(&shared, &headers) {
        return refused;
    }
    if shared.no_capabilities_route.load(Ordering::SeqCst) {
        return (StatusCode::NOT_FOUND, "404 page not found").into_response();
    }
    axum::Json(json!({"object": "list", "data": [
        {"id": "smollm2", "object": "model", "capabilities": ["chat", "tools", "thinking", "vision"],
         "input_modalities": ["text", "image"], "output_modalities": ["text"]},
        {"id": "embedder", "object": "model", "capabilities": ["embeddings"]}
    ]}))
    .into_response()
}

/// `GET /_fake/stats`: what an out-of-process observer (the benchmark) needs to know.
async fn stats(State(shared): State<Arc<Shared>>) -> Response {
    axum::Json(json!({
        "requests": shared.requests.lock().unwrap().len(),
        "streamsOpened": shared.streams_opened.load(Ordering::SeqCst),
        "streamsClosed": shared.streams_closed.load(Ordering::SeqCst),
    }))
    .into_response()
}
