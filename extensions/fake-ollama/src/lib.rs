//! # fake-ollama
//!
//! An in-process stand-in for Ollama's native HTTP API, for tests and
//! benchmarks of code that talks to Ollama (such as the Ollama AEP
//! extension). It listens on `127.0.0.1:<random port>` and answers like
//! Ollama does — the framing, the error texts and statuses, the defaults —
//! and lets a test script the model's answers, inject faults and inspect
//! what was received, including whether (and when) the client hung up.
//!
//! ```no_run
//! # async fn demo() {
//! use fake_ollama::{FakeOllama, Reply, ToolCall};
//! use serde_json::json;
//!
//! let fake = FakeOllama::start().await;
//! fake.enqueue(Reply::text("Hello there!").thinking("Greet back."));
//! fake.enqueue(Reply::tool_calls(vec![ToolCall::new("get_weather", json!({"city": "Paris"}))]));
//! // ... point the code under test at fake.base_url() ...
//! let sent = fake.last_chat();
//! # let _ = sent;
//! # }
//! ```
//!
//! ## What it serves
//!
//! | route | answer |
//! |---|---|
//! | `GET /` | `Ollama is running` (text/plain) |
//! | `GET /api/version` | `{"version":"0.12.0"}` (see [`Builder::version`]) |
//! | `GET /api/tags` | the model list ([`ModelSpec`]) |
//! | `GET /api/ps` | `{"models":[]}` |
//! | `POST /api/show` | details, `model_info`, `capabilities`; unknown → 404 `model 'x:latest' not found` |
//! | `POST /api/chat` | see below |
//! | anything else | 404 `404 page not found` (text/plain, like gin) |
//!
//! ## `/api/chat`, as Ollama does it
//!
//! * `stream` defaults to **true**. Streaming answers are
//!   `application/x-ndjson`, one compact JSON object per line, each followed
//!   by `\n`. The status line and headers leave only together with the first
//!   chunk, so a slow load ([`Reply::load_delay`]) means no headers at all.
//! * Chunks: `{"model","created_at","message":{"role":"assistant","content":..},"done":false}`
//!   — `content` always present, `thinking`, `images`, `tool_calls` only when
//!   non-empty. The last line has `done: true`, `done_reason` and the
//!   non-zero counters among `total_duration`, `load_duration`,
//!   `prompt_eval_count`, `prompt_eval_duration`, `eval_count`,
//!   `eval_duration` (zeros are omitted).
//! * `stream: false`: one `application/json; charset=utf-8` object, content
//!   and thinking concatenated, all tool calls, the last chunk's counters.
//! * `messages: []` → one object with `done_reason: "load"` (`"unload"` with
//!   `keep_alive: 0`).
//! * Validation, in Ollama's order: body decoding (400, Go's messages:
//!   `missing request body`, type errors, `illegal base64 data at input byte
//!   4` for a `data:` URL image, a non-object tool-call `arguments`, a
//!   `keep_alive` string without unit such as `"300"`, a bad `think`), then
//!   `model is required` / `invalid model name` (400), unknown model (404
//!   `model 'x' not found`, name as sent), `think` on a model without the
//!   `thinking` capability (400 `"m" does not support thinking`; `think:
//!   false` is accepted), a model without `completion` (400 `"m" does not
//!   support chat`), `tools` on a model without `tools` (400
//!   `registry.ollama.ai/library/m:latest does not support tools`), option
//!   types (500 `option "stop" must be of type array`; unknown keys ignored).
//! * Thinking-capable models think when `think` is omitted; `think: false`
//!   removes thinking chunks. Thinking chunks come before content.
//! * Without a script, the reply echoes the last user message's content
//!   (word by word), preceded on thinking models by the thinking
//!   `The user said: <content>`. With `format` set, the echo is the JSON
//!   text `{"echo":"<content>"}`. A positive `options.num_predict` caps the
//!   echo at that many chunks with `done_reason: "length"`.
//!
//! ## Scripts, faults, recording
//!
//! * [`FakeOllama::enqueue`] queues [`Reply`]s for the next chats (one per
//!   generating request), [`FakeOllama::set_default_reply`] replaces the
//!   echo.
//! * [`FakeOllama::fail_next`] / [`FakeOllama::fail_always`] inject a
//!   [`Fault`]: hang, slow, connection drop mid-stream, malformed line,
//!   `{"error":..}` line after a 200, HTTP error before the first byte.
//! * [`FakeOllama::requests`], [`FakeOllama::last_chat`],
//!   [`FakeOllama::show_calls`] tell what arrived;
//!   [`FakeOllama::wait_for_disconnect`] reports a client that closed its
//!   connection before its answer was complete;
//!   [`FakeOllama::open_chat_responses`] counts chat answers in flight.
//!
//! Every wait inside the server is bounded: a hang ends after
//! [`Builder::hang_limit`] (default 120 s) at the latest.
//!
//! Modules depend one way: `wire`, `models`, `faults`, `script`, `validate`, `record` and
//! `reply` (answers and stop-aware waits) are leaves or use only leaves; `chat` (the
//! `/api/chat` endpoint) uses them; `routes` (the entry point) dispatches to `chat`.

#![warn(missing_docs)]

mod chat;
pub mod faults;
pub mod models;
pub mod record;
mod reply;
mod routes;
pub mod script;
mod validate;
mod wire;

use std::collections::VecDeque;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

pub use faults::Fault;
pub use models::{ModelName, ModelSpec, capability};
pub use record::{Disconnect, RecordedRequest};
pub use script::{Chunk, Counters, Pacing, Reply, ToolCall, ToolCallId};

/// The Ollama version reported by default.
pub const DEFAULT_VERSION: &str = "0.12.0";

/// State shared by the server tasks and the [`FakeOllama`] handle.
pub(crate) struct Shared {
    pub(crate) models: RwLock<Vec<ModelSpec>>,
    pub(crate) version: String,
    pub(crate) replies: Mutex<VecDeque<Reply>>,
    pub(crate) default_reply: Mutex<Option<Reply>>,
    pub(crate) faults: Mutex<faults::FaultRules>,
    pub(crate) rec: Arc<record::Recorder>,
    pub(crate) kill: watch::Sender<bool>,
    pub(crate) hang_limit: Duration,
    pub(crate) max_body: usize,
    pub(crate) id_state: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    pub(crate) fn find_model(&self, name: &ModelName) -> Option<ModelSpec> {
        self.models
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|m| ModelName::parse(&m.name).same_as(name))
            .cloned()
    }
}

/// Configuration for [`FakeOllama`]; start with [`FakeOllama::builder`].
#[derive(Debug, Clone)]
pub struct Builder {
    models: Vec<ModelSpec>,
    version: String,
    hang_limit: Duration,
    max_body: usize,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            models: ModelSpec::defaults(),
            version: DEFAULT_VERSION.into(),
            hang_limit: Duration::from_secs(120),
            max_body: 64 * 1024 * 1024,
        }
    }
}

impl Builder {
    /// Replaces the model catalogue (default: [`ModelSpec::defaults`]).
    pub fn models(mut self, models: Vec<ModelSpec>) -> Self {
        self.models = models;
        self
    }

    /// Adds one model to the catalogue.
    pub fn model(mut self, model: ModelSpec) -> Self {
        self.models.push(model);
        self
    }

    /// The version reported by `/api/version` (default `0.12.0`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// Upper bound of [`Fault::Hang`] and [`Fault::StallAfter`] (default
    /// 120 s); afterwards the connection is closed without an answer.
    pub fn hang_limit(mut self, limit: Duration) -> Self {
        self.hang_limit = limit;
        self
    }

    /// Largest accepted request body (default 64 MiB; larger → 413).
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// Binds `127.0.0.1:0` and serves.
    pub async fn try_start(self) -> io::Result<FakeOllama> {
        let (kill, _) = watch::channel(false);
        let shared = Arc::new(Shared {
            models: RwLock::new(self.models),
            version: self.version,
            replies: Mutex::new(VecDeque::new()),
            default_reply: Mutex::new(None),
            faults: Mutex::new(faults::FaultRules::default()),
            rec: Arc::new(record::Recorder::default()),
            kill,
            hang_limit: self.hang_limit,
            max_body: self.max_body,
            id_state: AtomicU64::new(0x9E37_79B9_7F4A_7C15),
        });
        let listener = tokio::net::TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let mut fake = FakeOllama {
            addr,
            shared,
            shutdown: None,
            task: None,
        };
        fake.serve(listener);
        Ok(fake)
    }

    /// Like [`Builder::try_start`], panicking if loopback cannot be bound
    /// (a broken test environment).
    pub async fn start(self) -> FakeOllama {
        match self.try_start().await {
            Ok(f) => f,
            Err(e) => panic!("fake-ollama: cannot bind 127.0.0.1:0: {e}"),
        }
    }
}

/// A running fake Ollama server. Dropping it stops the server (in-flight
/// answers are cut).
pub struct FakeOllama {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for FakeOllama {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeOllama")
            .field("addr", &self.addr)
            .field("running", &self.is_running())
            .finish()
    }
}

impl FakeOllama {
    /// Starts a server with the default catalogue on `127.0.0.1:0`.
    ///
    /// # Panics
    /// If loopback cannot be bound.
    pub async fn start() -> FakeOllama {
        Builder::default().start().await
    }

    /// A [`Builder`] for a customised server.
    pub fn builder() -> Builder {
        Builder::default()
    }

    fn serve(&mut self, listener: tokio::net::TcpListener) {
        let (tx, rx) = oneshot::channel::<()>();
        let app = routes::router(self.shared.clone());
        let task = tokio::spawn(async move {
            // As Ollama (Go's net/http) does: no Nagle delay on its small NDJSON writes.
            let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let server = axum::serve(listener, app).with_graceful_shutdown(async move {
                let _ = rx.await;
            });
            if let Err(e) = server.await {
                tracing::warn!("fake-ollama: server error: {e}");
            }
        });
        self.shutdown = Some(tx);
        self.task = Some(task);
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// A loopback URL where nothing listens (a port bound and released
    /// just now): connecting is refused, like an Ollama that is not running.
    pub fn unused_url() -> String {
        match std::net::TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.local_addr())
        {
            Ok(a) => format!("http://{a}"),
            // Port 9 (discard) is essentially never served on loopback.
            Err(_) => "http://127.0.0.1:9".to_string(),
        }
    }

    /// Whether the server is serving (not stopped).
    pub fn is_running(&self) -> bool {
        self.task.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Stops serving: in-flight answers are cut (connections closed
    /// abruptly), the port is released, further connections are refused.
    /// Recordings stay readable. Waits at most 2 s.
    pub async fn stop(&mut self) {
        self.shared.kill.send_replace(true);
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(Duration::from_secs(2), &mut task)
                .await
                .is_err()
        {
            task.abort();
        }
    }

    /// Serves again on the same address after [`FakeOllama::stop`] (an
    /// Ollama that comes back). Scripts, faults and recordings are kept.
    pub async fn restart(&mut self) -> io::Result<()> {
        if self.is_running() {
            return Ok(());
        }
        let listener = tokio::net::TcpListener::bind(self.addr).await?;
        self.shared.kill.send_replace(false);
        self.serve(listener);
        Ok(())
    }

    // ---- models -------------------------------------------------------

    /// The current catalogue.
    pub fn models(&self) -> Vec<ModelSpec> {
        self.shared
            .models
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Replaces the catalogue.
    pub fn set_models(&self, models: Vec<ModelSpec>) {
        *self.shared.models.write().unwrap_or_else(|e| e.into_inner()) = models;
    }

    /// Adds (or replaces, by name) one model.
    pub fn add_model(&self, model: ModelSpec) {
        let mut g = self.shared.models.write().unwrap_or_else(|e| e.into_inner());
        let name = ModelName::parse(&model.name);
        g.retain(|m| !ModelName::parse(&m.name).same_as(&name));
        g.push(model);
    }

    /// Removes a model (as if `ollama rm`).
    pub fn remove_model(&self, name: &str) {
        let name = ModelName::parse(name);
        self.shared
            .models
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|m| !ModelName::parse(&m.name).same_as(&name));
    }

    // ---- scripting ----------------------------------------------------

    /// Queues a reply for the next generating `/api/chat` request (requests
    /// rejected by validation, and `messages: []` loads, consume none).
    pub fn enqueue(&self, reply: Reply) {
        lock(&self.shared.replies).push_back(reply);
    }

    /// Replies still queued.
    pub fn pending_replies(&self) -> usize {
        lock(&self.shared.replies).len()
    }

    /// The reply used when the queue is empty (`None`: echo the last user
    /// message).
    pub fn set_default_reply(&self, reply: Option<Reply>) {
        *lock(&self.shared.default_reply) = reply;
    }

    // ---- faults -------------------------------------------------------

    /// Injects `fault` into the next `/api/chat` request.
    pub fn fail_next(&self, fault: Fault) {
        self.fail_next_on("/api/chat", fault);
    }

    /// Injects `fault` into the next request to `path` (only
    /// [`Fault::Hang`] and [`Fault::HttpError`] act outside `/api/chat`).
    pub fn fail_next_on(&self, path: &str, fault: Fault) {
        lock(&self.shared.faults).push_once(path, fault);
    }

    /// Injects `fault` into every `/api/chat` request until
    /// [`FakeOllama::clear_faults`] (one-shot faults take precedence).
    pub fn fail_always(&self, fault: Fault) {
        self.fail_always_on("/api/chat", fault);
    }

    /// Injects `fault` into every request to `path`.
    pub fn fail_always_on(&self, path: &str, fault: Fault) {
        lock(&self.shared.faults).push_always(path, fault);
    }

    /// Removes all pending and permanent faults.
    pub fn clear_faults(&self) {
        lock(&self.shared.faults).clear();
    }

    // ---- recording ----------------------------------------------------

    /// Every request received, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.rec.requests()
    }

    /// Bodies (parsed JSON) of the `/api/chat` requests, in order.
    pub fn chat_requests(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == "/api/chat")
            .filter_map(|r| r.body)
            .collect()
    }

    /// Body of the last `/api/chat` request.
    pub fn last_chat(&self) -> Option<Value> {
        self.chat_requests().pop()
    }

    /// Requests received for `path`.
    pub fn request_count(&self, path: &str) -> usize {
        self.shared.rec.count_where(|r| r.path == path)
    }

    /// `/api/show` calls for `model` (name forms are unified: `m`,
    /// `m:latest` and `registry.ollama.ai/library/m:latest` count together).
    pub fn show_calls(&self, model: &str) -> usize {
        self.shared.rec.show_calls(&models::canonical(model))
    }

    /// Forgets recorded requests, disconnects and show counters.
    pub fn clear_requests(&self) {
        self.shared.rec.clear();
    }

    /// `/api/chat` answers in flight (from arrival until the answer is
    /// complete or the client is gone).
    pub fn open_chat_responses(&self) -> usize {
        self.shared.rec.open_chat()
    }

    /// Waits (at most `timeout`) until exactly `n` chat answers are in
    /// flight; returns whether that happened.
    pub async fn wait_for_open_chat_responses(&self, n: usize, timeout: Duration) -> bool {
        self.shared.rec.wait_for_open_chat(n, timeout).await
    }

    /// Waits (at most `timeout`) until `n` requests to `path` have arrived.
    pub async fn wait_for_requests(&self, path: &str, n: usize, timeout: Duration) -> bool {
        self.shared.rec.wait_for_requests(path, n, timeout).await
    }

    /// All client disconnects seen so far (clients that closed the
    /// connection before their answer was complete).
    pub fn disconnects(&self) -> Vec<Disconnect> {
        self.shared.rec.disconnects()
    }

    /// Waits (at most `timeout`) for a client disconnect and returns it.
    /// Each disconnect is returned once: successive calls walk through them
    /// in order. Compare [`Disconnect::at`] with your own `Instant` to assert
    /// how fast a proxy closed its upstream connection.
    pub async fn wait_for_disconnect(&self, timeout: Duration) -> Option<Disconnect> {
        self.shared.rec.wait_for_disconnect(timeout).await
    }
}

impl Drop for FakeOllama {
    fn drop(&mut self) {
        self.shared.kill.send_replace(true);
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}
