//! The `aep-extension` template's extension (starting point `tools-and-provider`), written
//! by hand with axum and rmcp: what `aep-bench compile` builds against the generated one.
//!
//! The same surface: the AEP discovery documents and health, the `echo` model provider
//! (list, health, models, chat and its SSE stream), and an rmcp Streamable HTTP server at
//! `/mcp` with the tools `text.upper` and `text.stats`, the `usage` resource and the
//! `rewrite` prompt. What the SDK adds besides (authentication, origin checks on the AEP
//! routes, metrics, tracing, the full protocol types, request validation) is left out: a
//! hand-written server would not have it either.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::extract::{Json, Path};
use axum::http::{HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use futures::{Stream, StreamExt};
use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json as McpJson, Parameters};
use rmcp::model::{
    ListResourcesResult, PaginatedRequestParams, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ErrorData, RoleServer, ServerHandler, prompt, prompt_handler, prompt_router, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The extension's identity, as the template's `#[aep_extension]` declares it.
pub const EXTENSION_ID: &str = "bench.compile";
const EXTENSION_NAME: &str = "Compile bench";
const EXTENSION_VERSION: &str = env!("CARGO_PKG_VERSION");
const USAGE_URI: &str = "docs://bench.compile/usage";

/// Where it listens unless `--listen` or `AEP_LISTEN` says otherwise.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8710";

// --- MCP: the tools, the resource and the prompt -------------------------------------

/// The text a tool takes.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TextArgs {
    /// The text to convert.
    pub text: String,
}

/// What `text.stats` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TextStats {
    /// Unicode characters.
    pub characters: usize,
    /// Whitespace-separated words.
    pub words: usize,
}

/// The arguments of the `rewrite` prompt.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RewriteArgs {
    /// The text to rewrite.
    pub text: String,
    /// The tone, e.g. "formal" (default "plain").
    pub tone: Option<String>,
}

/// The MCP server: one per session.
#[derive(Clone)]
pub struct Mcp {
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

impl Default for Mcp {
    fn default() -> Self {
        Self {
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
        }
    }
}

#[tool_router]
impl Mcp {
    /// Turn text into upper case.
    #[tool(
        name = "text.upper",
        annotations(title = "Upper case", read_only_hint = true, idempotent_hint = true)
    )]
    async fn upper(&self, Parameters(args): Parameters<TextArgs>) -> Result<String, String> {
        if args.text.is_empty() {
            return Err("give me some text".to_owned());
        }
        Ok(args.text.to_uppercase())
    }

    /// Count the characters and words of text.
    #[tool(
        name = "text.stats",
        annotations(title = "Text statistics", read_only_hint = true, idempotent_hint = true)
    )]
    async fn stats(&self, Parameters(args): Parameters<TextArgs>) -> McpJson<TextStats> {
        McpJson(TextStats {
            characters: args.text.chars().count(),
            words: args.text.split_whitespace().count(),
        })
    }
}

#[prompt_router]
impl Mcp {
    /// Ask a model to rewrite text in a tone.
    #[prompt(name = "rewrite")]
    async fn rewrite(&self, Parameters(args): Parameters<RewriteArgs>) -> Vec<PromptMessage> {
        let tone = args.tone.as_deref().unwrap_or("plain");
        vec![PromptMessage::new_text(
            Role::User,
            format!("Rewrite this in a {tone} tone:\n\n{}", args.text),
        )]
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for Mcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let usage = Resource::new(USAGE_URI, "usage")
            .with_description("How to use this extension.")
            .with_mime_type("text/markdown");
        Ok(ListResourcesResult::with_all_items(vec![usage]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != USAGE_URI {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        }
        let text = "# Compile bench\n\nTools: `text.upper` (upper case) and `text.stats` (characters and words).";
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, USAGE_URI).with_mime_type("text/markdown")]).into())
    }
}

// --- AEP: discovery, health and the `echo` model provider -----------------------------

/// A chat request: only what the provider reads (unknown members are ignored).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<Message>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub role: String,
    #[serde(default)]
    pub contents: Vec<Content>,
}

#[derive(Debug, Deserialize)]
pub struct Content {
    pub kind: String,
    #[serde(default)]
    pub text: Option<String>,
}

impl ChatRequest {
    /// The text of the last user message.
    fn last_user_text(&self) -> String {
        let Some(message) = self.messages.iter().rev().find(|m| m.role == "user") else {
            return String::new();
        };
        message
            .contents
            .iter()
            .filter(|c| c.kind == "text")
            .filter_map(|c| c.text.as_deref())
            .collect()
    }
}

/// An AEP error answer: `{"error": {"code", "message"}}` with a status.
pub struct AepError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl AepError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }
}

impl IntoResponse for AepError {
    fn into_response(self) -> Response {
        let body = json!({ "error": { "code": self.code, "message": self.message } });
        (self.status, Json(body)).into_response()
    }
}

/// The provider `id` names, which must be `echo` (case-insensitively).
fn provider(id: &str) -> Result<(), AepError> {
    if id.eq_ignore_ascii_case("echo") {
        Ok(())
    } else {
        Err(AepError::new(
            StatusCode::NOT_FOUND,
            "provider_unavailable",
            format!("no model provider {id}"),
        ))
    }
}

/// The request body, or the 4xx an unreadable one gets.
fn chat_request(body: Result<Json<ChatRequest>, JsonRejection>) -> Result<ChatRequest, AepError> {
    body.map(|Json(request)| request)
        .map_err(|rejection| AepError::new(rejection.status(), "invalid_request", rejection.body_text()))
}

fn provider_descriptor() -> Value {
    json!({
        "id": "echo",
        "displayName": "Echo",
        "capabilities": {
            "chat": true, "streaming": true, "tools": false, "thinking": false,
            "structuredOutput": false, "vision": false, "modelDiscovery": false
        },
        "models": [models()],
        "metadata": { "deterministic": true }
    })
}

fn models() -> Value {
    json!({ "id": "echo-1", "displayName": "echo-1" })
}

fn manifest(protocol_version: &str) -> Value {
    json!({
        "protocolVersion": protocol_version,
        "extension": { "id": EXTENSION_ID, "name": EXTENSION_NAME, "version": EXTENSION_VERSION },
        "capabilities": {
            "aep.health": { "version": "1.0", "endpoint": "/aep/health" },
            "aep.model-provider": { "version": "1.0", "endpoint": "/aep/model-providers" },
            "aep.tools": { "version": "1.0" }
        },
        "contributions": {
            "modelProviders": [provider_descriptor()],
            "tools": [
                { "id": "text.upper", "displayName": "Upper case", "description": "Turn text into upper case.",
                  "mcp": { "server": EXTENSION_ID, "tool": "text.upper" } },
                { "id": "text.stats", "displayName": "Text statistics",
                  "description": "Count the characters and words of text.",
                  "mcp": { "server": EXTENSION_ID, "tool": "text.stats" } }
            ]
        },
        "mcp": { "servers": [ { "id": EXTENSION_ID, "endpoint": "/mcp" } ] }
    })
}

/// The provider's answer, word by word: what its stream yields.
fn echo(request: &ChatRequest) -> Vec<String> {
    let text = request.last_user_text();
    text.split_inclusive(' ').map(str::to_owned).collect()
}

fn update(text: &str) -> Value {
    json!({ "contents": [{ "kind": "text", "text": text }], "model": "echo-1" })
}

async fn chat(
    Path(id): Path<String>,
    body: Result<Json<ChatRequest>, JsonRejection>,
) -> Result<Json<Value>, AepError> {
    provider(&id)?;
    let text = echo(&chat_request(body)?).concat();
    Ok(Json(json!({
        "messages": [{ "role": "assistant", "contents": [{ "kind": "text", "text": text }] }],
        "model": "echo-1",
        "finishReason": "stop"
    })))
}

async fn chat_stream(
    Path(id): Path<String>,
    body: Result<Json<ChatRequest>, JsonRejection>,
) -> Result<Response, AepError> {
    provider(&id)?;
    let words = echo(&chat_request(body)?);
    let words = futures::stream::iter(words.into_iter().map(|word| update(&word)));
    // The provider ends without a terminal update: the stream finishes with `stop`.
    let finish = futures::stream::once(async { json!({ "contents": [], "finishReason": "stop" }) });
    let events: std::pin::Pin<Box<dyn Stream<Item = Result<Event, Infallible>> + Send>> =
        Box::pin(words.chain(finish).map(|update| Ok(Event::default().data(update.to_string()))));
    let mut response = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)).text(" keep-alive"))
        .into_response();
    // axum's `Sse` sets `content-type` and `cache-control: no-cache`.
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(response)
}

async fn provider_health(Path(id): Path<String>) -> Result<Json<Value>, AepError> {
    provider(&id)?;
    Ok(Json(json!({ "status": "available" })))
}

async fn provider_models(Path(id): Path<String>) -> Result<Json<Value>, AepError> {
    provider(&id)?;
    Ok(Json(json!([models()])))
}

/// Every route: AEP's and the MCP server at `/mcp`.
pub fn router() -> Router {
    let mcp = StreamableHttpService::new(
        || Ok(Mcp::default()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    Router::new()
        .route("/.well-known/agentstration", get(|| async { Json(manifest("1.0")) }))
        .route("/.well-known/aep", get(|| async { Json(manifest("2026-08-01")) }))
        .route("/aep/health", get(|| async { Json(json!({ "status": "available" })) }))
        .route("/aep/model-providers", get(|| async { Json(json!([provider_descriptor()])) }))
        .route("/aep/model-providers/{id}/health", get(provider_health))
        .route("/aep/model-providers/{id}/models", get(provider_models))
        .route("/aep/model-providers/{id}/chat", post(chat))
        .route("/aep/model-providers/{id}/chat/stream", post(chat_stream))
        .route_service("/mcp", mcp)
        .fallback(|| async { AepError::new(StatusCode::NOT_FOUND, "not_found", "no such route") })
}

/// Serves on `--listen <addr>` (or `AEP_LISTEN`, default [`DEFAULT_LISTEN`]) until
/// SIGINT or SIGTERM.
pub async fn serve() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut listen = std::env::var("AEP_LISTEN").unwrap_or_else(|_| DEFAULT_LISTEN.to_owned());
    while let Some(arg) = args.next() {
        match arg.strip_prefix("--listen") {
            Some("") => listen = args.next().unwrap_or(listen),
            Some(value) if value.starts_with('=') => listen = value[1..].to_owned(),
            _ => {
                eprintln!("usage: handwritten-extension [--listen host:port]");
                std::process::exit(2);
            }
        }
    }
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    eprintln!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, router().into_make_service())
        .with_graceful_shutdown(shutdown())
        .await
}

async fn shutdown() {
    let interrupt = tokio::signal::ctrl_c();
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("a SIGTERM handler");
    tokio::select! {
        _ = interrupt => {}
        _ = terminate.recv() => {}
    }
}
