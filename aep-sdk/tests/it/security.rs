//! Security guarantees: bearer-token authentication on every AEP and MCP route, the MCP
//! endpoints' Host/Origin checks (DNS rebinding; browsers and CORS: `browser_access.rs`), bounds on slow clients, and request
//! tracing that never records credentials.

use std::time::Duration;

use aep_sdk::client::Client;
use aep_sdk::prelude::*;
use aep_sdk::server::{BearerAuth, ConnectionLimits, Extension, McpAccess};
use aep_sdk::testing::spawn;
use rmcp::ServiceExt;
use rmcp::model::ClientConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common;

use common::capture::Capture;

const TOKEN: &str = "s3cret-token-7f1d";

#[derive(Clone, Default)]
struct Guarded;

#[aep_extension(id = "t.guarded", name = "Guarded", version = "1.0.0")]
impl Guarded {
    /// Say hello.
    #[tool]
    async fn hello(&self, name: String) -> String {
        format!("hello {name}")
    }

    #[model_provider(id = "echo")]
    async fn echo(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let text = request.last_user_text().unwrap_or_default();
        Ok(ChatStream::new(futures::stream::iter([
            Ok(ChatUpdate::text(text)),
            Ok(ChatUpdate::finish(FinishReason::Stop)),
        ])))
    }
}

fn guarded(public_discovery: bool) -> Extension {
    Guarded
        .extension_builder()
        .bearer_auth(BearerAuth::new(TOKEN).public_discovery(public_discovery))
        .build()
        .unwrap()
}

fn hello() -> ChatRequest {
    ChatRequest::new("m", vec![Message::user("hi")])
}

async fn status_and_body(request: reqwest::RequestBuilder) -> (u16, Option<String>, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    (
        status,
        challenge,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

#[tokio::test]
async fn every_route_needs_the_token() {
    let server = spawn(guarded(false).router()).await;
    let http = reqwest::Client::new();
    let base = &server.base_url;
    let requests = [
        http.get(format!("{base}/.well-known/aep")),
        http.get(format!("{base}/.well-known/agentstration")),
        http.get(format!("{base}/aep/health")),
        http.get(format!("{base}/aep/model-providers")),
        http.get(format!("{base}/aep/model-providers/echo/models")),
        http.post(format!("{base}/aep/model-providers/echo/chat"))
            .json(&hello()),
        http.post(format!("{base}/aep/model-providers/echo/chat/stream"))
            .json(&hello()),
        http.post(format!("{base}/mcp"))
            .header("accept", "application/json, text/event-stream")
            .body("{}"),
        http.get(format!("{base}/no/such/route")),
        http.get(format!("{base}/aep/health")).bearer_auth("wrong-token"),
        http.get(format!("{base}/aep/health"))
            .header("authorization", format!("Basic {TOKEN}")),
        http.get(format!("{base}/aep/health"))
            .bearer_auth(&TOKEN[..TOKEN.len() - 1]),
    ];
    for request in requests {
        let mcp = request
            .try_clone()
            .and_then(|r| r.build().ok())
            .is_some_and(|r| r.url().path() == "/mcp");
        let (status, challenge, body) = status_and_body(request).await;
        assert_eq!(status, 401, "{body}");
        assert_eq!(challenge.as_deref(), Some("Bearer"));
        // Each family's own error body: JSON-RPC on the MCP endpoint, AEP elsewhere.
        if mcp {
            assert_eq!(
                (&body["jsonrpc"], &body["error"]["code"]),
                (&"2.0".into(), &(-32600).into())
            );
        } else {
            assert_eq!(body["error"]["code"], "unauthorized");
        }
        assert_eq!(body["error"]["message"], "missing or invalid bearer token");
        assert!(!body.to_string().contains(TOKEN));
    }

    let client = Client::builder(base).bearer_token(TOKEN).build().unwrap();
    assert!(
        !format!("{client:?}").contains(TOKEN),
        "Debug never shows the token"
    );
    let manifest = client.discover().await.unwrap();
    assert!(
        !serde_json::to_string(&manifest).unwrap().contains(TOKEN),
        "the token is not in the manifest"
    );
    assert_eq!(client.chat("echo", &hello()).await.unwrap().all_text(), "hi");
    let error = Client::new(base).unwrap().discover().await.unwrap_err();
    assert_eq!(error.remote_code(), Some("unauthorized"));
    assert!(!error.to_string().contains(TOKEN));

    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("{base}/mcp")).auth_header(TOKEN),
    );
    let mcp = ClientConfig::default()
        .serve(transport)
        .await
        .expect("MCP with the token");
    assert_eq!(mcp.list_all_tools().await.unwrap().len(), 1);
    mcp.cancel().await.unwrap();
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("{base}/mcp")),
    );
    assert!(
        ClientConfig::default().serve(transport).await.is_err(),
        "MCP without the token is refused"
    );
}

#[tokio::test]
async fn discovery_may_stay_public() {
    let server = spawn(guarded(true).router()).await;
    let anonymous = Client::new(&server.base_url).unwrap();
    assert_eq!(anonymous.discover().await.unwrap().extension.id, "t.guarded");
    assert_eq!(
        anonymous.health().await.unwrap_err().remote_code(),
        Some("unauthorized")
    );
    assert_eq!(
        anonymous.chat("echo", &hello()).await.unwrap_err().remote_code(),
        Some("unauthorized")
    );
}

async fn mcp_post(base: &str, headers: &[(&str, &str)]) -> u16 {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut request = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn mcp_endpoints_reject_foreign_hosts_and_origins() {
    let server = spawn(Guarded.into_extension().unwrap().router()).await;
    let base = &server.base_url;
    assert_eq!(mcp_post(base, &[]).await, 200, "loopback without Origin is fine");
    assert_eq!(mcp_post(base, &[("origin", "https://evil.example")]).await, 403);
    assert_eq!(
        mcp_post(base, &[("host", "evil.example")]).await,
        403,
        "DNS rebinding"
    );

    let access = McpAccess {
        allowed_hosts: vec!["extensions.internal".into()],
        allowed_origins: vec!["https://app.example".into()],
        ..McpAccess::default()
    };
    let server = spawn(
        Guarded
            .extension_builder()
            .mcp_access(access)
            .build()
            .unwrap()
            .router(),
    )
    .await;
    let base = &server.base_url;
    assert_eq!(mcp_post(base, &[("host", "extensions.internal")]).await, 200);
    assert_eq!(
        mcp_post(
            base,
            &[("host", "extensions.internal"), ("origin", "https://app.example")]
        )
        .await,
        200
    );
    assert_eq!(
        mcp_post(
            base,
            &[
                ("host", "extensions.internal"),
                ("origin", "https://evil.example")
            ]
        )
        .await,
        403
    );
    assert_eq!(
        mcp_post(base, &[("host", "127.0.0.1")]).await,
        403,
        "only the configured hosts"
    );
}

async fn serve_with_limits(extension: Extension, limits: ConnectionLimits) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(extension.serve_listener(listener, std::future::pending(), limits));
    addr
}

/// Reads until the server closes the connection; returns what it sent.
async fn read_to_close(stream: &mut tokio::net::TcpStream) -> String {
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    assert!(
        read.is_ok(),
        "the server must close the connection within the bound"
    );
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn slow_headers_are_cut_off() {
    let limits = ConnectionLimits {
        header_read_timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let addr = serve_with_limits(Guarded.into_extension().unwrap(), limits).await;
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /aep/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .unwrap();
    let answer = read_to_close(&mut stream).await;
    assert!(!answer.contains("200 OK"), "{answer}");
    // The server still serves others.
    let client = Client::new(&format!("http://{addr}")).unwrap();
    assert!(client.health().await.is_ok());
}

#[tokio::test]
async fn silent_connections_are_closed() {
    let limits = ConnectionLimits {
        header_read_timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let addr = serve_with_limits(Guarded.into_extension().unwrap(), limits).await;
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    // Not a single byte: the server closes the connection within the bound anyway.
    let answer = read_to_close(&mut stream).await;
    assert!(answer.is_empty(), "{answer}");
}

#[tokio::test]
async fn stalled_bodies_get_408() {
    let extension = Guarded
        .extension_builder()
        .body_read_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let server = spawn(extension.router()).await;
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let head = "POST /aep/model-providers/echo/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{\"model\":";
    stream.write_all(head.as_bytes()).await.unwrap();
    let answer = read_to_close(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains(r#""code":"invalid_request""#), "{answer}");
}

#[tokio::test(flavor = "current_thread")]
async fn tracing_never_records_credentials() {
    let capture = Capture::default();
    let _guard = tracing::subscriber::set_default(capture.subscriber());

    let server = spawn(guarded(false).router()).await;
    let http = reqwest::Client::new();
    let body = r#"{"model":"m","messages":[{"role":"user","contents":[{"kind":"text","text":"x"}]}],"metadata":{"password":"hunter2","apiKey":"sk-live-123"}}"#;
    for token in [TOKEN, "wrong-token-abc"] {
        let _ = http
            .post(format!("{}/aep/model-providers/echo/chat", server.base_url))
            .bearer_auth(token)
            .header("cookie", "session=cookie-value-42")
            .header("x-api-key", "key-value-99")
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap()
            .text()
            .await;
    }
    let logs = capture.text();
    assert!(
        logs.contains("/aep/model-providers/echo/chat"),
        "requests are traced: {logs}"
    );
    for secret in [
        TOKEN,
        "wrong-token-abc",
        "cookie-value-42",
        "key-value-99",
        "hunter2",
        "sk-live-123",
    ] {
        assert!(!logs.contains(secret), "'{secret}' leaked into the logs:\n{logs}");
    }
}
