//! Test support: a scripted AEP model-provider extension (written with
//! `#[aep_extension]`), the utilities extension, and servers on 127.0.0.1:0.
#![allow(dead_code)] // each test binary uses a different subset

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aep_host::catalog::Catalog;
use aep_host::mcp::McpPool;
use aep_host::registry::Registry;
use aep_peers::{RunningBinary, start_binary_env};
use aep_sdk::client::Client;
use aep_sdk::prelude::*;
use aep_sdk::protocol::ProtocolVersion;
use aep_sdk::testing::{TestServer, spawn};
use serde_json::{Value, json};

/// Upper bound of any single wait in these tests.
pub const BOUND: Duration = Duration::from_secs(20);

/// The scripted model's model id.
pub const MODEL: &str = "scripted-1";

/// What the scripted providers saw and did.
#[derive(Debug, Default)]
pub struct Seen {
    /// Every request, in arrival order.
    pub requests: Mutex<Vec<ChatRequest>>,
    /// `/chat` answers given by the `#[chat]` sibling of `agent`.
    pub unary: AtomicUsize,
    /// Updates the endless provider yielded.
    pub yielded: AtomicUsize,
    /// Endless streams dropped (the client went away).
    pub dropped: AtomicUsize,
}

impl Seen {
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().unwrap().clone()
    }
}

/// The scripted extension: its state is shared with the test.
pub struct Scripted(pub Arc<Seen>);

/// Marks an endless stream dropped.
struct DropGuard(Arc<Seen>);

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.0.dropped.fetch_add(1, Ordering::SeqCst);
    }
}

fn words(text: &str) -> Vec<ChatUpdate> {
    text.split_inclusive(' ').map(ChatUpdate::text).collect()
}

impl Scripted {
    fn record(&self, request: &ChatRequest) {
        self.0.requests.lock().unwrap().push(request.clone());
    }

    /// The agent script. After a tool result: "The tool said: <result>" (", an error" when
    /// it failed), stop. Otherwise, when the last user message is a JSON object
    /// `{"tool": NAME, "arguments": {...}}` naming an offered tool: a reasoning delta, a
    /// text delta and a call of it (`call_1`), toolCalls. Otherwise: an echo of the user
    /// text, stop. Usage 11/5 on each terminal update.
    fn agent_turn(request: &ChatRequest) -> Vec<ChatUpdate> {
        let usage = Usage::new(11, 5);
        let last = request.messages.last();
        if let Some(result) = last
            .filter(|m| m.role == Role::Tool)
            .and_then(|m| m.contents.iter().find_map(|c| c.tool_result.as_ref()))
        {
            let value = match &result.result {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let error = if result.is_error { ", an error" } else { "" };
            let mut updates = words(&format!("The tool said{error}: {value}"));
            updates.push(
                ChatUpdate::finish(FinishReason::Stop)
                    .with_usage(usage)
                    .with_model(MODEL),
            );
            return updates;
        }
        let user = request.last_user_text().unwrap_or_default();
        let asked: Option<Value> = serde_json::from_str(&user).ok();
        if let Some(asked) = asked
            && let Some(tool) = asked["tool"].as_str()
            && request.tools.iter().any(|t| t.name == tool)
        {
            return vec![
                ChatUpdate::reasoning("The user wants a tool. "),
                ChatUpdate::text("Calling it."),
                ChatUpdate::tool_call("call_1", tool, asked["arguments"].clone()),
                ChatUpdate::finish(FinishReason::ToolCalls)
                    .with_usage(usage)
                    .with_model(MODEL),
            ];
        }
        let mut updates = words(&user);
        updates.push(
            ChatUpdate::finish(FinishReason::Stop)
                .with_usage(usage)
                .with_model(MODEL),
        );
        updates
    }
}

#[aep_extension(id = "test.scripted", name = "Scripted")]
impl Scripted {
    /// The agent script (see `agent_turn`).
    #[model_provider(id = "agent", tools, thinking, models = ["scripted-1"])]
    async fn agent(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        self.record(&request);
        Ok(ChatStream::from_updates(Self::agent_turn(&request)))
    }

    /// `/chat` of `agent`, counted: the same turn in one piece.
    #[chat(provider = "agent")]
    async fn agent_once(&self, request: ChatRequest) -> Result<ChatResponse, AepError> {
        self.record(&request);
        self.0.unary.fetch_add(1, Ordering::SeqCst);
        let mut contents = Vec::new();
        let mut finish = None;
        let mut usage = None;
        for update in Self::agent_turn(&request) {
            contents.extend(update.contents);
            finish = update.finish_reason.or(finish);
            usage = update.usage.or(usage);
        }
        let mut response = ChatResponse::message(Message::new(Role::Assistant, contents)).with_model(MODEL);
        response.finish_reason = finish;
        response.usage = usage;
        Ok(response)
    }

    /// Ends with the finish reason the user text names (`stop`, `length`, `toolCalls`,
    /// `contentFilter`, `other`), usage 7/3.
    #[model_provider(id = "finish", models = ["scripted-1"])]
    async fn finish(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let reason: FinishReason =
            serde_json::from_value(json!(request.last_user_text().unwrap_or_default()))
                .map_err(|e| AepError::invalid_request(e.to_string()))?;
        Ok(ChatStream::from_updates([
            ChatUpdate::text("done"),
            ChatUpdate::finish(reason).with_usage(Usage::new(7, 3)),
        ]))
    }

    /// Refuses every request before streaming: 404 `model_unavailable`.
    #[model_provider(id = "refuse", models = ["scripted-1"])]
    async fn refuse(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        Err(AepError::model_unavailable(format!(
            "no model '{}' here",
            request.model
        )))
    }

    /// One text delta, then a failure: a terminal error update `request_failed`.
    #[model_provider(id = "midway", models = ["scripted-1"])]
    async fn midway(&self, _request: ChatRequest) -> Result<ChatStream, AepError> {
        Ok(chat_stream! {
            yield ChatUpdate::text("partial ");
            Err(AepError::request_failed("the model crashed"))?;
        })
    }

    /// Text deltas every 10 ms until the stream is dropped; counts both.
    #[model_provider(id = "endless", models = ["scripted-1"])]
    async fn endless(&self, _request: ChatRequest) -> Result<ChatStream, AepError> {
        let seen = self.0.clone();
        Ok(chat_stream! {
            let _guard = DropGuard(seen.clone());
            loop {
                tokio::time::sleep(Duration::from_millis(10)).await;
                seen.yielded.fetch_add(1, Ordering::SeqCst);
                yield ChatUpdate::text("w ");
            }
        })
    }
}

/// The scripted extension on a loopback port, with its state.
pub async fn scripted() -> (TestServer, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let extension = Scripted(seen.clone())
        .into_extension()
        .expect("a valid declaration");
    (spawn(extension.router()).await, seen)
}

/// A client with the test bound.
pub fn client(base_url: &str) -> Client {
    Client::builder(base_url)
        .read_timeout(BOUND)
        .build()
        .expect("client")
}

/// The utilities extension on a loopback port.
pub async fn utilities() -> TestServer {
    let extension = aep_utilities::Utilities
        .into_extension()
        .expect("a valid declaration");
    spawn(extension.router()).await
}

/// A catalog holding the utilities extension's tools.
pub async fn catalog(utilities: &TestServer) -> Arc<Catalog> {
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &utilities.base_url, ProtocolVersion::LATEST)
        .unwrap();
    let catalog = Arc::new(Catalog::new(Arc::new(registry), McpPool::new()));
    catalog.add_extension_tools("aep.utilities").await.unwrap();
    catalog
}

/// Waits (at most [`BOUND`]) until `done` holds; panics naming `what` otherwise.
pub async fn eventually(what: &str, done: impl Fn() -> bool) {
    let waited = tokio::time::timeout(BOUND, async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "{what}: not within {BOUND:?}");
}

/// Starts `aep-rig` with `args` and `env` on a free port (see [`aep_peers::start_binary_env`]).
pub async fn start_binary(args: &[&str], env: &[(&str, &str)]) -> (RunningBinary, Client) {
    let program = std::path::Path::new(env!("CARGO_BIN_EXE_aep-rig"));
    let running = start_binary_env(program, args, env)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let client = Client::builder(&running.base_url)
        .read_timeout(BOUND)
        .build()
        .unwrap();
    (running, client)
}
