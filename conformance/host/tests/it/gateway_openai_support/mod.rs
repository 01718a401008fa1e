//! What the gateway's OpenAI tests share (here and, by `#[path]`, the Python SDK's test
//! in `conformance/peers/tests`): an SDK extension whose provider behaves as each test
//! needs, and a gateway over a registry, both served by the SDK's serve loop on
//! `127.0.0.1:0`.
#![allow(dead_code)] // each test binary uses a different subset

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aep_host::catalog::Catalog;
use aep_host::gateway::Gateway;
use aep_host::mcp::McpPool;
use aep_host::registry::Registry;
use aep_sdk::prelude::*;
use aep_sdk::server::BearerAuth;
use aep_sdk::testing::{ExtensionServer, ServeOptions, serve};
use serde_json::json;

/// The id of [`Scripted`].
pub const SCRIPTED: &str = "acme.scripted";

/// What the scripted provider saw.
#[derive(Debug, Default)]
pub struct Seen {
    /// Every chat request, in arrival order.
    pub requests: Mutex<Vec<ChatRequest>>,
    /// `paced` streams whose request token tripped (the client went away).
    pub cancelled: AtomicUsize,
    /// Words `paced` streams produced.
    pub ticks: AtomicUsize,
}

impl Seen {
    pub fn last(&self) -> ChatRequest {
        self.requests.lock().unwrap().last().cloned().expect("a request")
    }

    pub fn cancelled(&self) -> usize {
        self.cancelled.load(Ordering::SeqCst)
    }

    pub fn ticks(&self) -> usize {
        self.ticks.load(Ordering::SeqCst)
    }
}

/// An extension whose `scripted` provider answers by model:
///
/// | model | answer |
/// |---|---|
/// | `echo` | the last user message word by word, usage (words in, words out) |
/// | `tools` | a call of the offered `lookup` tool (`{"city": "Oslo"}`), finish `tool_calls`; after a tool result, `the tool said <result>` |
/// | `json` | `{"answer":42}` |
/// | `paced` | `tick ` every 10 ms until the client goes away |
/// | `fail-mid` | `partial `, then a failure (`request_failed`) |
/// | `limited` | 429 `rate_limited` before any update |
///
/// and whose `plain` provider (no tools, structured output or vision) echoes in one piece.
#[derive(Debug, Clone, Default)]
pub struct Scripted {
    pub seen: Arc<Seen>,
}

fn words(text: &str) -> u64 {
    text.split_whitespace().count() as u64
}

#[aep_extension(id = SCRIPTED, name = "Scripted")]
impl Scripted {
    /// Behaves as its model says (see the type).
    #[model_provider(
        id = "scripted",
        models = ["echo", "tools", "json", "paced", "fail-mid", "limited"],
        tools,
        structured_output,
        vision
    )]
    async fn scripted(&self, request: ChatRequest, ctx: RequestContext) -> Result<ChatStream, AepError> {
        self.seen.requests.lock().unwrap().push(request.clone());
        let text = request.last_user_text().unwrap_or_default();
        let usage = Usage::new(words(&text), words(&text));
        let updates = match request.model.as_str() {
            "echo" => {
                let mut updates: Vec<ChatUpdate> = text.split_inclusive(' ').map(ChatUpdate::text).collect();
                updates.push(ChatUpdate::finish(FinishReason::Stop).with_usage(usage));
                updates
            }
            "tools" => match request.messages.last().and_then(|m| m.contents.first()) {
                Some(Content {
                    tool_result: Some(result),
                    ..
                }) => {
                    let said = format!("the tool said {}", result.result.as_str().unwrap_or_default());
                    vec![
                        ChatUpdate::text(said)
                            .with_finish(FinishReason::Stop)
                            .with_usage(Usage::new(9, 4)),
                    ]
                }
                _ if request.tools.iter().any(|t| t.name == "lookup") => vec![
                    ChatUpdate::tool_call("call_lookup_1", "lookup", json!({"city": "Oslo"}))
                        .with_finish(FinishReason::ToolCalls)
                        .with_usage(Usage::new(7, 3)),
                ],
                _ => return Err(AepError::invalid_request("model 'tools' needs a 'lookup' tool")),
            },
            "json" => vec![
                ChatUpdate::text(r#"{"answer":42}"#),
                ChatUpdate::finish(FinishReason::Stop),
            ],
            "paced" => return Ok(self.paced(&ctx)),
            "fail-mid" => {
                return Ok(chat_stream! {
                    yield ChatUpdate::text("partial ");
                    Err(AepError::request_failed("the upstream broke"))?;
                });
            }
            "limited" => {
                let status = 429u16.try_into().expect("a status");
                return Err(AepError::new(status, "rate_limited", "slow down"));
            }
            other => return Err(AepError::model_unavailable(format!("no model '{other}'"))),
        };
        Ok(ChatStream::from_updates(updates))
    }

    /// Echoes the last user message in one piece.
    #[model_provider(id = "plain", models = ["plain-1"])]
    async fn plain(&self, request: ChatRequest) -> Result<ChatResponse, AepError> {
        Ok(ChatResponse::text(request.last_user_text().unwrap_or_default()))
    }
}

impl Scripted {
    fn paced(&self, ctx: &RequestContext) -> ChatStream {
        let seen = self.seen.clone();
        let token = ctx.cancellation().clone();
        tokio::spawn(async move {
            token.cancelled().await;
            seen.cancelled.fetch_add(1, Ordering::SeqCst);
        });
        let seen = self.seen.clone();
        chat_stream! {
            loop {
                tokio::time::sleep(Duration::from_millis(10)).await;
                seen.ticks.fetch_add(1, Ordering::SeqCst);
                yield ChatUpdate::text("tick ");
            }
        }
    }

    /// Served on a runtime of its own, so dropping the server ends its connections too
    /// (an extension that goes away).
    pub fn start(&self) -> ExtensionServer {
        let extension = self.clone().into_extension().expect("a valid extension");
        serve(extension, ServeOptions::new().own_runtime(1))
    }
}

/// A registry of `(id, base URL)`s.
pub fn registry(extensions: &[(&str, &str)]) -> Registry {
    let mut registry = Registry::new();
    for (id, url) in extensions {
        registry
            .register(id, url, aep_sdk::protocol::ProtocolVersion::LATEST)
            .expect("a valid registration");
    }
    registry
}

/// The gateway over `registry`, wanting `token` when one is given.
pub fn gateway(registry: Registry, token: Option<&str>) -> ExtensionServer {
    let gateway = Gateway::new(Arc::new(Catalog::new(Arc::new(registry), McpPool::new())));
    let mut builder = gateway.extension_builder();
    if let Some(token) = token {
        builder = builder.bearer_auth(BearerAuth::new(token));
    }
    serve(builder.build().expect("a valid gateway"), ServeOptions::new())
}
