//! Fixture servers: a model extension with a slow, a stalling and a thinking provider
//! (counting how many of its streams were dropped), an extension whose health never
//! answers (timing its dropped requests), and servers that are not AEP.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aep_sdk::config::OptionSetDecl;
use aep_sdk::prelude::*;
use aep_sdk::server::BearerAuth;
use aep_sdk::testing::{TestServer, spawn};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::{Value, json};

/// Counts streams dropped before they finished.
struct DropGuard(Arc<AtomicUsize>);

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A model extension for the playground's tests.
#[derive(Clone, Default)]
pub struct Models {
    /// Streams of `stall` and `drip` that ended (finished or dropped).
    pub ended: Arc<AtomicUsize>,
}

#[aep_extension(id = "test.models", name = "Test models", version = "0.1.0")]
impl Models {
    /// Ten words, 40 ms apart.
    #[model_provider(id = "drip", models = ["drip-1"])]
    async fn drip(&self, _request: ChatRequest) -> Result<ChatStream, AepError> {
        let ended = self.ended.clone();
        Ok(chat_stream! {
            let _guard = DropGuard(ended);
            for i in 0..10 {
                tokio::time::sleep(Duration::from_millis(40)).await;
                yield ChatUpdate::text(format!("w{i} "));
            }
            yield ChatUpdate::finish(FinishReason::Stop).with_usage(Usage::new(3, 10));
        })
    }

    /// One word, then nothing for an hour.
    #[model_provider(id = "stall", models = ["stall-1"])]
    async fn stall(&self, _request: ChatRequest) -> Result<ChatStream, AepError> {
        let ended = self.ended.clone();
        Ok(chat_stream! {
            let _guard = DropGuard(ended);
            yield ChatUpdate::text("first ");
            tokio::time::sleep(Duration::from_secs(3600)).await;
            yield ChatUpdate::text("never");
        })
    }

    /// Reasoning, then text, then a tool call.
    #[model_provider(id = "thinker", models = ["think-1"], thinking, tools)]
    async fn thinker(&self, _request: ChatRequest) -> Result<ChatStream, AepError> {
        Ok(chat_stream! {
            yield ChatUpdate::reasoning("Let me think. ");
            yield ChatUpdate::reasoning("Done thinking.");
            yield ChatUpdate::text("The answer is 42.");
            yield ChatUpdate::tool_call("call-1", "hash_compute", serde_json::json!({"text": "42"}));
            yield ChatUpdate::finish(FinishReason::ToolCalls).with_usage(Usage::new(5, 7));
        })
    }
}

/// The option set of [`Models`]' `drip` provider: version `1` (deprecated, `temp`) and
/// version `2` (preferred: `temperature` 0..2 required, `mode` fast or careful), and a
/// migration 1 -> 2 that renames `temp` and sets `mode` to `careful`.
pub const DRIP_SET: &str = "test.models/drip-profile";

fn drip_set() -> OptionSetDecl {
    OptionSetDecl::new(DRIP_SET, "drip")
        .version(
            "1",
            json!({"type": "object", "properties": {"temp": {"type": "number"}}, "additionalProperties": false}),
        )
        .deprecated("1")
        .version(
            "2",
            json!({
                "type": "object",
                "properties": {
                    "temperature": {"type": "number", "minimum": 0, "maximum": 2},
                    "mode": {"type": "string", "enum": ["fast", "careful"]}
                },
                "required": ["temperature"],
                "additionalProperties": false
            }),
        )
        .preferred("2")
        .migration("1", "2", |values: Value| async move {
            let temp = values.get("temp").cloned().unwrap_or(json!(0.7));
            Ok::<_, String>(json!({"temperature": temp, "mode": "careful"}))
        })
}

/// [`Models`] (with [`DRIP_SET`]) on a loopback port, with its drop counter.
pub async fn models() -> (TestServer, Arc<AtomicUsize>) {
    let models = Models::default();
    let ended = models.ended.clone();
    let extension = models.extension_builder().option_set(drip_set()).build().unwrap();
    (spawn(extension.router()).await, ended)
}

/// The utilities extension requiring `Authorization: Bearer <token>`.
pub async fn utilities_with_token(token: &str) -> TestServer {
    let extension = aep_utilities::Utilities
        .extension_builder()
        .bearer_auth(BearerAuth::new(token))
        .build()
        .unwrap();
    spawn(extension.router()).await
}

/// A web server that is not an AEP extension: JSON on `/`, 404 elsewhere.
pub async fn not_aep() -> TestServer {
    let router = axum::Router::new()
        .route(
            "/",
            get(|| async { axum::Json(serde_json::json!({"hello": "world"})) }),
        )
        .fallback(|| async { (StatusCode::NOT_FOUND, "Not Found") });
    spawn(router).await
}

/// A server answering every path with an HTML error page, as a proxy in front of a
/// dead extension does.
pub async fn html_error_page() -> TestServer {
    let router = axum::Router::new().fallback(|| async {
        (
            StatusCode::BAD_GATEWAY,
            [(header::CONTENT_TYPE, "text/html")],
            "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>",
        )
            .into_response()
    });
    spawn(router).await
}

/// A server whose manifest breaks the rules: a tool mapped to an undeclared MCP server,
/// and two tools with one id.
pub async fn invalid_manifest() -> TestServer {
    let manifest = manifest(
        "test.broken",
        "Broken",
        json!([
            {"id": "t", "displayName": "T", "mcp": {"server": "nowhere", "tool": "t"}},
            {"id": "t", "displayName": "T again", "mcp": {"server": "nowhere", "tool": "u"}}
        ]),
    );
    spawn(serving(manifest)).await
}

/// The manifest of extension `id` (named `name`, version 1.0.0) with health and these
/// tool contributions, as written by hand (not checked).
fn manifest(id: &str, name: &str, tools: Value) -> Value {
    json!({
        "protocolVersion": "2026-08-01",
        "extension": {"id": id, "name": name, "version": "1.0.0"},
        "capabilities": {"aep.health": {"version": "1.0", "endpoint": "/aep/health"}, "aep.tools": {"version": "1.0"}},
        "contributions": {"modelProviders": [], "tools": tools}
    })
}

/// A router serving `manifest` at `/.well-known/aep`.
fn serving(manifest: Value) -> axum::Router {
    axum::Router::new().route(
        "/.well-known/aep",
        get(move || {
            let manifest = manifest.clone();
            async move { axum::Json(manifest) }
        }),
    )
}

/// How long each dropped request had waited.
type Waits = Arc<Mutex<Vec<Duration>>>;

/// Records, when dropped, how long since it was made.
struct Waited(Instant, Waits);

impl Drop for Waited {
    fn drop(&mut self) {
        self.1.lock().unwrap().push(self.0.elapsed());
    }
}

/// An extension ("Slow health", no contributions, a valid manifest) whose `/aep/health`
/// never answers. `GET /_test/dropped` (a route of the fixture, not of AEP) answers how
/// long each health request had waited when it was dropped, in ms: a page's cancel drops
/// it within seconds, the Inspector's own bound after 15 s.
pub async fn slow_health() -> TestServer {
    let waits = Waits::default();
    let manifest = json!({
        "protocolVersion": "2026-08-01",
        "extension": {"id": "test.slow-health", "name": "Slow health", "version": "1.0.0"},
        "capabilities": {"aep.health": {"version": "1.0", "endpoint": "/aep/health"}},
        "contributions": {"modelProviders": [], "tools": []}
    });
    let health = {
        let waits = waits.clone();
        move || {
            let waited = Waited(Instant::now(), waits.clone());
            async move {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                drop(waited);
                axum::Json(json!({"status": "available"}))
            }
        }
    };
    let dropped = move || {
        let waited: Vec<u128> = waits.lock().unwrap().iter().map(Duration::as_millis).collect();
        async move { axum::Json(json!(waited)) }
    };
    let router = serving(manifest)
        .route("/aep/health", get(health))
        .route("/_test/dropped", get(dropped));
    spawn(router).await
}

/// A port nothing listens on.
pub async fn unreachable_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

/// A customer of [`Orders`]' `order.place`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Customer {
    /// Full name.
    pub name: String,
    /// Where to write (optional).
    pub email: Option<String>,
}

/// One line of an order.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Line {
    /// Article number.
    pub sku: String,
    /// How many.
    pub quantity: u32,
}

/// What `order.place` answers: the order as it understood it.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Placed {
    /// The customer as given.
    pub customer: Customer,
    /// Number of lines.
    pub lines: usize,
    /// Sum of the quantities.
    pub quantity: u32,
    /// The tags, when given.
    pub tags: Option<Vec<String>>,
    /// The note, when given (an empty one is kept apart from none).
    pub note: Option<String>,
    /// Sum of the weights, when given.
    pub weight: Option<f64>,
}

/// An extension with one tool whose input has a nested object, an array of objects and
/// optional arrays of strings and numbers (for the tool explorer's sub-forms).
#[derive(Debug, Clone, Default)]
pub struct Orders;

#[aep_extension(id = "test.orders", name = "Orders", version = "0.1.0", mcp_server = "orders")]
impl Orders {
    /// Place an order.
    #[tool(name = "order_place", id = "order.place", display_name = "Place an order")]
    async fn order_place(
        &self,
        /// Who orders.
        customer: Customer,
        /// What is ordered.
        items: Vec<Line>,
        /// Labels for the order.
        tags: Option<Vec<String>>,
        /// A note for the packer.
        note: Option<String>,
        /// Weight of each parcel, in kg.
        weights: Option<Vec<f64>>,
    ) -> Placed {
        Placed {
            lines: items.len(),
            quantity: items.iter().map(|l| l.quantity).sum(),
            customer,
            tags,
            note,
            weight: weights.map(|w| w.iter().sum()),
        }
    }
}

/// [`Orders`] on a loopback port.
pub async fn orders() -> TestServer {
    spawn(Orders.into_extension().unwrap().router()).await
}

/// The utilities extension behind a manifest that fails validation (two tool
/// contributions with one id) but declares its MCP server as it is.
pub async fn utilities_with_invalid_manifest() -> TestServer {
    let mut manifest = manifest(
        "test.half-broken",
        "Half broken",
        json!([
            {"id": "stats", "displayName": "Stats", "mcp": {"server": "utilities", "tool": "text_stats"}},
            {"id": "stats", "displayName": "Case", "mcp": {"server": "utilities", "tool": "text_case"}}
        ]),
    );
    manifest["mcp"] = json!({"servers": [{"id": "utilities", "endpoint": "/mcp"}]});
    let utilities = aep_utilities::Utilities.into_extension().unwrap().router();
    spawn(serving(manifest).fallback_service(utilities)).await
}
