//! Browsers: pages on this machine reach the MCP and AEP endpoints of an extension
//! listening on loopback (preflight and request, CORS headers), foreign origins get 403
//! with a JSON-RPC or AEP error body, and a non-loopback listener accepts only the
//! origins it was given. Every request goes over a real socket to `serve_listener`, the
//! path `Extension::serve` takes.

use std::net::SocketAddr;

use aep_sdk::prelude::*;
use aep_sdk::server::{BearerAuth, ConnectionLimits, ExtensionBuilder, McpAccess};
use reqwest::{Method, RequestBuilder};
use serde_json::Value;

#[derive(Clone, Default)]
struct Page;

#[aep_extension(id = "t.browser", name = "Browser", version = "1.0.0")]
impl Page {
    /// Say hello.
    #[tool(read_only)]
    async fn hello(&self, name: String) -> String {
        format!("hello {name}")
    }

    #[model_provider(id = "echo")]
    async fn echo(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let text = request.last_user_text().unwrap_or_default();
        Ok(ChatStream::new(futures::stream::iter([Ok(ChatUpdate::text(
            text,
        ))])))
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const MCP_HEADERS: &str = "content-type,authorization,mcp-protocol-version,mcp-session-id,last-event-id";

/// Serves `extension` on `bind` (port 0) the way `Extension::serve` does; the URL uses
/// 127.0.0.1 whatever the bind address.
async fn serve(extension: ExtensionBuilder, bind: &str) -> String {
    let extension = extension.build().unwrap();
    let listener = tokio::net::TcpListener::bind(bind).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(extension.serve_listener(listener, std::future::pending(), ConnectionLimits::default()));
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    format!("http://{addr}")
}

fn page() -> ExtensionBuilder {
    Page.extension_builder()
}

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

impl Answer {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
    }

    fn lists(&self, name: &str, wanted: &str) -> bool {
        self.header(name)
            .split(',')
            .any(|v| v.trim().eq_ignore_ascii_case(wanted))
    }
}

async fn send(request: RequestBuilder) -> Answer {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let body = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .find(|d| !d.trim().is_empty())
        .map_or_else(
            || serde_json::from_str(&text).unwrap_or(Value::Null),
            |d| serde_json::from_str(d).unwrap(),
        );
    Answer {
        status,
        headers,
        body,
    }
}

fn preflight(base: &str, path: &str, origin: &str, method: &str, headers: &str) -> RequestBuilder {
    reqwest::Client::new()
        .request(Method::OPTIONS, format!("{base}{path}"))
        .header("origin", origin)
        .header("access-control-request-method", method)
        .header("access-control-request-headers", headers)
}

fn mcp_initialize(base: &str, origin: Option<&str>) -> RequestBuilder {
    let request = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(INITIALIZE);
    match origin {
        Some(origin) => request.header("origin", origin),
        None => request,
    }
}

fn local_origins(base: &str) -> Vec<String> {
    let port = base.rsplit(':').next().unwrap();
    vec![
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}"),
        "http://[::1]:5173".to_owned(),
        "http://localhost:3000".to_owned(),
    ]
}

#[tokio::test]
async fn pages_on_this_machine_reach_the_mcp_endpoint() {
    let base = serve(page(), "127.0.0.1:0").await;
    for origin in local_origins(&base) {
        let answer = send(preflight(&base, "/mcp", &origin, "POST", MCP_HEADERS)).await;
        assert!(
            answer.status == 200 || answer.status == 204,
            "{origin}: preflight {}",
            answer.status
        );
        assert_eq!(answer.header("access-control-allow-origin"), origin);
        assert!(answer.lists("access-control-allow-methods", "POST"), "{origin}");
        assert!(answer.lists("access-control-allow-methods", "DELETE"), "{origin}");
        for header in MCP_HEADERS.split(',') {
            assert!(
                answer.lists("access-control-allow-headers", header),
                "{origin}: {header}"
            );
        }

        let answer = send(mcp_initialize(&base, Some(&origin))).await;
        assert_eq!(answer.status, 200, "{origin}: {}", answer.body);
        assert_eq!(answer.header("access-control-allow-origin"), origin);
        assert!(answer.lists("access-control-expose-headers", "mcp-session-id"));
        assert!(!answer.header("mcp-session-id").is_empty());
        assert_eq!(
            answer.body["result"]["serverInfo"]["name"], "t.browser",
            "{}",
            answer.body
        );
    }
}

#[tokio::test]
async fn foreign_origins_get_403_with_an_error_body() {
    let base = serve(page(), "127.0.0.1:0").await;
    for origin in [
        "http://evil.example",
        "https://localhost.evil.example",
        "null",
        "http://127.0.0.2:80",
    ] {
        let answer = send(mcp_initialize(&base, Some(origin))).await;
        assert_eq!(answer.status, 403, "{origin}");
        assert_eq!(answer.body["jsonrpc"], "2.0", "{origin}: {}", answer.body);
        assert_eq!(answer.body["error"]["code"], -32600);
        assert!(answer.header("access-control-allow-origin").is_empty());

        let answer = send(preflight(&base, "/mcp", origin, "POST", "content-type")).await;
        assert_eq!(answer.status, 403, "{origin}: preflight");

        let answer = send(
            reqwest::Client::new()
                .get(format!("{base}/.well-known/aep"))
                .header("origin", origin),
        )
        .await;
        assert_eq!(answer.status, 403, "{origin}: discovery");
        assert_eq!(
            answer.body["error"]["code"], "origin_not_allowed",
            "{}",
            answer.body
        );
        assert!(
            answer.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("--allowed-origin")
        );
    }
    // Not from a browser: no Origin, no refusal, and no CORS answer to a bare OPTIONS.
    assert_eq!(send(mcp_initialize(&base, None)).await.status, 200);
    let bare =
        reqwest::Client::new().request(Method::OPTIONS, format!("{base}/aep/model-providers/echo/chat"));
    assert_eq!(send(bare).await.status, 405);
}

#[tokio::test]
async fn pages_on_this_machine_reach_the_aep_routes() {
    let base = serve(page(), "127.0.0.1:0").await;
    let origin = format!("http://localhost:{}", base.rsplit(':').next().unwrap());
    let client = reqwest::Client::new();

    let answer = send(
        client
            .get(format!("{base}/.well-known/aep"))
            .header("origin", &origin),
    )
    .await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("access-control-allow-origin"), origin);
    assert_eq!(answer.body["extension"]["id"], "t.browser");

    let path = "/aep/model-providers/echo/chat/stream";
    let answer = send(preflight(&base, path, &origin, "POST", "content-type")).await;
    assert!(answer.status == 200 || answer.status == 204);
    assert_eq!(answer.header("access-control-allow-origin"), origin);
    let chat = r#"{"model":"m","messages":[{"role":"user","contents":[{"kind":"text","text":"hi"}]}]}"#;
    let answer = send(
        client
            .post(format!("{base}{path}"))
            .header("origin", &origin)
            .header("content-type", "application/json")
            .body(chat),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.header("access-control-allow-origin"), origin);
    assert_eq!(answer.body["contents"][0]["text"], "hi");
}

#[tokio::test]
async fn preflights_need_no_token_and_errors_stay_readable() {
    let base = serve(page().bearer_auth(BearerAuth::new("t0ken")), "127.0.0.1:0").await;
    let origin = "http://localhost:3000";
    let answer = send(preflight(&base, "/mcp", origin, "POST", MCP_HEADERS)).await;
    assert!(answer.status == 200 || answer.status == 204, "{}", answer.status);
    let answer = send(mcp_initialize(&base, Some(origin))).await;
    assert_eq!(answer.status, 401);
    assert_eq!(
        answer.header("access-control-allow-origin"),
        origin,
        "the page can read the 401"
    );
    let answer = send(mcp_initialize(&base, Some(origin)).bearer_auth("t0ken")).await;
    assert_eq!(answer.status, 200);
}

#[tokio::test]
async fn other_interfaces_accept_only_listed_origins() {
    let base = serve(page(), "0.0.0.0:0").await;
    let answer = send(mcp_initialize(&base, Some("http://localhost:3000"))).await;
    assert_eq!(answer.status, 403, "no browser origin by default off loopback");

    let access = McpAccess {
        allowed_origins: vec!["https://app.example".into(), "http://localhost:*".into()],
        ..McpAccess::default()
    };
    let base = serve(page().mcp_access(access), "0.0.0.0:0").await;
    for origin in ["https://app.example", "http://localhost:3000"] {
        let answer = send(mcp_initialize(&base, Some(origin))).await;
        assert_eq!(answer.status, 200, "{origin}");
        assert_eq!(answer.header("access-control-allow-origin"), origin);
    }
    assert_eq!(
        send(mcp_initialize(&base, Some("https://app.example:8443")))
            .await
            .status,
        403
    );
}
