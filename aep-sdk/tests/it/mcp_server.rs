//! The co-hosted MCP server's behaviour towards clients: a tool sees the request's
//! `_meta` through its `ToolContext` (the progress token and any client metadata, as sent
//! by a real MCP client, rmcp's, and by a raw JSON-RPC request), and a session DELETE is
//! answered 200. The official Python client's view of the same is in
//! `conformance/peers`.

use aep_sdk::prelude::*;
use aep_sdk::testing::spawn;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig, RequestMetaObject};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

#[derive(Clone, Default)]
struct Meta;

#[aep_extension(id = "t.meta", name = "Meta", version = "1.0.0")]
impl Meta {
    /// Echoes the request's `_meta` and progress token.
    #[tool(read_only)]
    async fn show_meta(&self, ctx: ToolContext) -> Value {
        json!({
            "meta": ctx.meta().cloned().map(Value::Object),
            "progressToken": ctx.progress_token().cloned(),
        })
    }
}

fn structured(result: &rmcp::model::CallToolResult) -> Value {
    let content = result.structured_content.clone().expect("a structured result");
    content.get("result").cloned().unwrap_or(content)
}

#[tokio::test]
async fn tool_context_carries_the_requests_meta() {
    let server = spawn(Meta.into_extension().unwrap().router()).await;
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let client = ClientConfig::default().serve(transport).await.unwrap();

    let mut meta = RequestMetaObject::default();
    meta.0.0.insert("acme/trace".into(), json!("abc"));
    let mut params = CallToolRequestParams::new("show_meta");
    params.meta = Some(meta);
    let result = client.call_tool(params).await.unwrap();
    let seen = structured(&result);
    // rmcp's client numbers its requests' progress tokens itself (replacing ours).
    assert!(!seen["progressToken"].is_null(), "{seen}");
    assert_eq!(seen["progressToken"], seen["meta"]["progressToken"], "{seen}");
    assert_eq!(seen["meta"]["acme/trace"], "abc", "{seen}");
    client.cancel().await.unwrap();

    // Raw JSON-RPC: exactly what was sent, and nothing when nothing was.
    let session = initialize(&server.base_url).await;
    let seen = raw_call(
        &server.base_url,
        &session,
        json!({"progressToken": 42, "client": "raw"}),
    )
    .await;
    assert_eq!(seen["progressToken"], 42, "{seen}");
    assert_eq!(seen["meta"]["client"], "raw", "{seen}");
    let seen = raw_call(&server.base_url, &session, Value::Null).await;
    assert_eq!(seen, json!({"meta": null, "progressToken": null}));
}

async fn raw_call(base: &str, session: &str, meta: Value) -> Value {
    let mut params = json!({"name": "show_meta", "arguments": {}});
    if !meta.is_null() {
        params["_meta"] = meta;
    }
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params});
    let text = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .json(&body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let data = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .find(|d| d.contains("\"result\""))
        .unwrap_or_else(|| panic!("no result in {text}"));
    let answer: Value = serde_json::from_str(data).unwrap();
    answer["result"]["structuredContent"].clone()
}

/// A raw session: initialize, then the initialized notification; returns the session id.
async fn initialize(base: &str) -> String {
    let http = reqwest::Client::new();
    let response = http
        .post(format!("{base}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}))
        .send()
        .await
        .unwrap();
    let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let _ = response.text().await;
    http.post(format!("{base}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .json(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .send()
        .await
        .unwrap();
    session
}

#[tokio::test]
async fn session_delete_is_answered_200_and_ends_the_session() {
    let server = spawn(Meta.into_extension().unwrap().router()).await;
    let base = &server.base_url;
    let session = initialize(base).await;
    let deleted = reqwest::Client::new()
        .delete(format!("{base}/mcp"))
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    let after = raw_status(base, &session).await;
    assert_eq!(after, 404, "the session is gone");
}

async fn raw_status(base: &str, session: &str) -> u16 {
    reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .json(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}
