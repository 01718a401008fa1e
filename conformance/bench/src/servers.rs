//! The servers under test: SDK extensions and the hand-written baselines that do the same
//! work, each started on a loopback port.

use std::sync::Arc;
use std::time::Duration;

use aep_sdk::prelude::*;
use aep_sdk::protocol::ChatResponse;
use axum::response::sse::{Event, Sse};
use axum::routing::post;
use axum::{Json, Router};
use futures::{Stream, StreamExt};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

/// The number of updates a request asks for, carried in `model` as `n:<count>`;
/// `hold` asks for one update and then silence until the client goes away.
pub fn updates_requested(model: &str) -> Option<usize> {
    model.strip_prefix("n:").and_then(|n| n.parse().ok())
}

/// The updates both variants produce: `"<i> "` text deltas, then `stop`.
pub fn updates(count: usize) -> impl Stream<Item = ChatUpdate> + Send + 'static {
    futures::stream::iter((0..count).map(|i| ChatUpdate::text(format!("{i} ")))).chain(futures::stream::once(
        async { ChatUpdate::finish(FinishReason::Stop) },
    ))
}

fn hold() -> impl Stream<Item = ChatUpdate> + Send + 'static {
    futures::stream::once(async { ChatUpdate::text("held ") }).chain(futures::stream::pending())
}

/// Arguments of the `add` tool.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct AddArgs {
    /// First addend.
    pub a: i64,
    /// Second addend.
    pub b: i64,
}

/// The SDK side: a macro-built extension with a streaming provider and one tool.
#[derive(Debug, Clone, Default)]
pub struct SdkBench;

#[aep_extension(id = "bench.sdk", name = "Bench", version = "1.0.0")]
impl SdkBench {
    /// Add two integers.
    #[tool]
    async fn add(&self, a: i64, b: i64) -> String {
        (a + b).to_string()
    }

    // `n:1` declared so the gateway (which offers declared and discovered models only)
    // lists it as `echo/n:1`; any `n:K` is served.
    #[model_provider(id = "echo", models = ["n:1"])]
    async fn echo(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        match updates_requested(&request.model) {
            Some(count) => Ok(ChatStream::new(updates(count).map(Ok))),
            None => Ok(ChatStream::new(hold().map(Ok))),
        }
    }
}

/// An axum handler written by hand: the same JSON in, the same SSE bytes out.
async fn baseline_stream(
    Json(request): Json<ChatRequest>,
) -> Sse<impl Stream<Item = Result<Event, std::convert::Infallible>>> {
    let updates: std::pin::Pin<Box<dyn Stream<Item = ChatUpdate> + Send>> =
        match updates_requested(&request.model) {
            Some(count) => Box::pin(updates(count)),
            None => Box::pin(hold()),
        };
    Sse::new(updates.map(|u| Ok(Event::default().data(serde_json::to_string(&u).unwrap_or_default()))))
}

async fn baseline_chat(Json(request): Json<ChatRequest>) -> Json<ChatResponse> {
    let count = updates_requested(&request.model).unwrap_or(1);
    let text: String = (0..count).map(|i| format!("{i} ")).collect();
    Json(ChatResponse {
        messages: vec![Message::assistant(text)],
        finish_reason: Some(FinishReason::Stop),
        ..Default::default()
    })
}

/// The hand-written rmcp server with the same tool.
#[derive(Clone)]
pub struct HandWritten {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl HandWritten {
    /// Add two integers.
    #[tool]
    async fn add(&self, Parameters(args): Parameters<AddArgs>) -> String {
        (args.a + args.b).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for HandWritten {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// A running server; stops when dropped.
pub struct Running {
    pub base_url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

pub async fn serve(router: Router) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("bound address");
    let task = tokio::spawn(async move {
        // One route table for every connection: `axum::serve(listener, router)` would
        // rebuild the SDK's whole table for each connection (`Router::with_state`).
        let _ = axum::serve(listener, router.into_make_service()).await;
    });
    Running {
        base_url: format!("http://{addr}"),
        task,
    }
}

/// The SDK extension (AEP routes and its MCP server at `/mcp`).
pub async fn sdk() -> Running {
    serve(SdkBench.into_extension().expect("valid declaration").router()).await
}

/// The hand-written axum routes and rmcp server at `/mcp`.
pub async fn baseline() -> Running {
    serve(baseline_router().route_service("/mcp", baseline_mcp())).await
}

/// The bare rmcp server: rmcp's Streamable HTTP service with its default settings.
pub fn baseline_mcp() -> StreamableHttpService<HandWritten, LocalSessionManager> {
    StreamableHttpService::new(
        || {
            Ok(HandWritten {
                tool_router: HandWritten::tool_router(),
            })
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    )
}

/// The hand-written AEP routes.
pub fn baseline_router() -> Router {
    Router::new()
        .route("/aep/model-providers/echo/chat/stream", post(baseline_stream))
        .route("/aep/model-providers/echo/chat", post(baseline_chat))
}

/// Serves one variant in this process until killed (the memory measurement runs it as a
/// child process so its RSS is its own). Prints the base URL on stdout.
pub async fn serve_forever(kind: &str) {
    let running = match kind {
        "sdk" => sdk().await,
        _ => baseline().await,
    };
    println!("{}", running.base_url);
    loop {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
}
