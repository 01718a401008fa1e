//! Test support: servers on 127.0.0.1:0, a request-counting layer, a switchable router
//! (a "restarted" server at the same URL), a TCP gate (an outage), a manifest stand-in,
//! and an MCP server whose tool list changes.
#![allow(dead_code)] // each test binary uses a different subset

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use aep_host::catalog::Catalog;
use aep_host::mcp::McpPool;
use aep_host::registry::Registry;
use aep_sdk::server::AepExtension;
use aep_sdk::testing::{TestServer, spawn};
use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tower::ServiceExt;

/// Requests seen by a server, by key: `mcp:<JSON-RPC method>` (`mcp:initialize`,
/// `mcp:tools/list`, `mcp:tools/call`, ...), `mcp:GET`, `mcp:DELETE`, or
/// `http:<METHOD> <path>` for everything else.
#[derive(Debug, Default)]
pub struct Counts(Mutex<HashMap<String, usize>>);

impl Counts {
    pub fn get(&self, key: &str) -> usize {
        self.0.lock().unwrap().get(key).copied().unwrap_or(0)
    }

    fn add(&self, key: String) {
        *self.0.lock().unwrap().entry(key).or_default() += 1;
    }

    pub fn snapshot(&self) -> HashMap<String, usize> {
        self.0.lock().unwrap().clone()
    }
}

/// Wraps `router` with a layer that counts requests into `counts`.
pub fn counting(router: Router, counts: Arc<Counts>) -> Router {
    router.layer(middleware::from_fn(move |request: Request, next: Next| {
        let counts = counts.clone();
        async move { count(counts, request, next).await }
    }))
}

async fn count(counts: Arc<Counts>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    if !path.ends_with("/mcp") {
        counts.add(format!("http:{} {path}", request.method()));
        return next.run(request).await;
    }
    if request.method() != axum::http::Method::POST {
        counts.add(format!("mcp:{}", request.method()));
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, 16 * 1024 * 1024).await.unwrap_or_default();
    let messages = match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Array(batch)) => batch,
        Ok(one) => vec![one],
        Err(_) => Vec::new(),
    };
    for message in &messages {
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            counts.add(format!("mcp:{method}"));
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// The utilities extension's router.
pub fn utilities_router() -> Router {
    aep_utilities::Utilities
        .into_extension()
        .expect("valid declaration")
        .router()
}

/// The utilities extension on a loopback port, its requests counted.
pub async fn utilities() -> (TestServer, Arc<Counts>) {
    let counts = Arc::new(Counts::default());
    let server = spawn(counting(utilities_router(), counts.clone())).await;
    (server, counts)
}

/// A router that forwards to a replaceable inner router: replacing it is a server
/// restart at the same URL (new MCP session manager, old sessions unknown).
#[derive(Clone)]
pub struct Switch(Arc<RwLock<Router>>);

impl Switch {
    pub fn new(inner: Router) -> Self {
        Self(Arc::new(RwLock::new(inner)))
    }

    pub fn replace(&self, inner: Router) {
        *self.0.write().unwrap() = inner;
    }

    pub fn router(&self) -> Router {
        let inner = self.0.clone();
        Router::new().fallback_service(tower::service_fn(move |request: Request| {
            let router = inner.read().unwrap().clone();
            async move { router.oneshot(request).await }
        }))
    }
}

/// A TCP forwarder in front of `backend`: `down()` cuts every connection and refuses
/// new ones (an outage), `up()` lets them through again.
pub struct Gate {
    pub addr: SocketAddr,
    up: Arc<std::sync::atomic::AtomicBool>,
    connections: Arc<Mutex<Vec<JoinHandle<()>>>>,
    accept: JoinHandle<()>,
}

impl Gate {
    pub async fn start(backend: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let up = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let connections: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let (flag, list) = (up.clone(), connections.clone());
        let accept = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !flag.load(std::sync::atomic::Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let task = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(backend).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                list.lock().unwrap().push(task);
            }
        });
        Self {
            addr,
            up,
            connections,
            accept,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn down(&self) {
        self.up.store(false, std::sync::atomic::Ordering::SeqCst);
        for task in self.connections.lock().unwrap().drain(..) {
            task.abort();
        }
    }

    pub fn up(&self) {
        self.up.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.accept.abort();
        for task in self.connections.lock().unwrap().drain(..) {
            task.abort();
        }
    }
}

/// Serves `manifest` (with its `protocolVersion` as given) at both discovery routes;
/// everything else goes to `rest` (e.g. the utilities router, for its `/mcp`).
pub fn manifest_router(manifest: Value, rest: Option<Router>) -> Router {
    let document = Arc::new(manifest);
    let serve = move || {
        let document = document.clone();
        async move { axum::Json((*document).clone()) }
    };
    let router = Router::new()
        .route("/.well-known/aep", axum::routing::get(serve.clone()))
        .route("/.well-known/agentstration", axum::routing::get(serve));
    match rest {
        Some(rest) => router.fallback_service(rest),
        None => router,
    }
}

/// A hand-written manifest: one MCP server `utilities` at `/mcp`, the given tool
/// contributions.
pub fn manifest_with_tools(id: &str, version: &str, tools: Value) -> Value {
    serde_json::json!({
        "protocolVersion": version,
        "extension": {"id": id, "name": "Hand-written", "version": "1.0.0"},
        "capabilities": {"aep.health": {"version": "1.0", "endpoint": "/aep/health"}, "aep.tools": {"version": "1.0"}},
        "contributions": {"modelProviders": [], "tools": tools},
        "mcp": {"servers": [{"id": "utilities", "endpoint": "/mcp"}]}
    })
}

/// A loopback URL where nothing listens.
pub async fn dead_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

/// A catalog over `registry` with a fresh pool.
pub fn catalog(registry: Registry) -> Catalog {
    Catalog::new(Arc::new(registry), McpPool::new())
}

/// Waits (bounded) until `condition` holds.
pub async fn eventually(what: &str, mut condition: impl FnMut() -> bool) {
    for _ in 0..200 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("timed out waiting for {what}");
}

/// Lowercase hex SHA-256, as the utilities extension computes it.
pub fn sha256(text: &str) -> String {
    aep_utilities::sha256_hex(text)
}

pub mod dynamic;
pub mod run;
