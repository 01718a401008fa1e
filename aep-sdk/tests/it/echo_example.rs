//! Starts the echo example on port 0 and checks every route with the canonical client
//! and with a plain HTTP client (the documents as served), the SSE framing byte for
//! byte, and malformed requests sent over raw TCP. The runtime-only twin of the example
//! must answer byte for byte the same.

// The example itself is compiled once, in `common`.
use crate::common::echo;

#[path = "../../examples/echo_runtime.rs"]
#[allow(dead_code)]
mod echo_runtime;

use std::time::Duration;

use aep_sdk::client::{Client, codes};
use aep_sdk::protocol::{Availability, ChatRequest, FinishReason, Message, ProtocolVersion};
use aep_sdk::testing::{TestServer, raw, spawn};
use futures::StreamExt;
use serde_json::{Value, json};

async fn start() -> TestServer {
    spawn(echo::extension().expect("valid declaration").router()).await
}

fn hello() -> ChatRequest {
    ChatRequest::new("echo-1", vec![Message::user("hello big world")])
}

#[tokio::test]
async fn client_discovers_both_revisions_and_calls_every_route() {
    let server = start().await;
    for revision in ProtocolVersion::ALL {
        let client = Client::builder(&server.base_url)
            .revision(revision)
            .build()
            .unwrap();
        let manifest = client.discover().await.unwrap();
        assert_eq!(manifest.protocol_version, revision);
        assert_eq!(manifest.extension.id, "aep.examples.echo");
        assert_eq!(manifest.contributions.model_providers[0].id, "echo");
        assert!(manifest.mcp.is_none());
    }
    let client = Client::new(&server.base_url).unwrap();
    assert_eq!(client.health().await.unwrap().status, Availability::Available);
    let providers = client.providers().await.unwrap();
    assert_eq!(providers.len(), 1);
    assert_eq!(
        client.provider_health("echo").await.unwrap().status,
        Availability::Available
    );
    let models = client.models("echo").await.unwrap();
    assert_eq!(models[0].id, "echo-1");

    let response = client.chat("echo", &hello()).await.unwrap();
    assert_eq!(response.all_text(), "hello big world");
    assert_eq!(response.finish_reason, Some(FinishReason::Stop));
    assert_eq!(response.usage.and_then(|u| u.output_tokens), Some(3));
    assert_eq!(response.model.as_deref(), Some("echo-1"));

    let mut stream = client.chat_stream("ECHO", &hello()).await.unwrap();
    let mut text = String::new();
    let mut terminal = 0;
    while let Some(update) = stream.next().await {
        let update = update.unwrap();
        text.push_str(&update.text_delta());
        terminal += usize::from(update.is_terminal());
    }
    assert_eq!((text.as_str(), terminal), ("hello big world", 1));
}

#[tokio::test]
async fn client_rejects_an_extension_that_speaks_another_revision() {
    // Serve the V1 manifest where the client expects the 2026-08-01 one.
    let manifest = echo::extension().unwrap().manifest(ProtocolVersion::V1);
    let router = axum::Router::new().route(
        ProtocolVersion::V2026_08_01.discovery_path(),
        axum::routing::get(move || async move { axum::Json(manifest) }),
    );
    let server = spawn(router).await;
    let error = Client::new(&server.base_url)
        .unwrap()
        .discover()
        .await
        .unwrap_err();
    assert_eq!(error.code, codes::PROTOCOL_INCOMPATIBLE);
    assert!(error.message.contains("1.0"), "{error}");
}

#[tokio::test]
async fn client_reports_unreachable_and_remote_errors() {
    let unused = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let error = Client::new(&format!("http://{unused}"))
        .unwrap()
        .health()
        .await
        .unwrap_err();
    assert_eq!(error.code, codes::EXTENSION_UNREACHABLE);

    let server = start().await;
    let client = Client::new(&server.base_url).unwrap();
    let error = client.chat("nope", &hello()).await.unwrap_err();
    assert_eq!(error.code, codes::EXTENSION_REQUEST_FAILED);
    assert_eq!(error.status.map(|s| s.as_u16()), Some(404));
    assert_eq!(error.remote_code(), Some("provider_unavailable"));

    let error = Client::new("ftp://example.com").unwrap_err();
    assert_eq!(error.code, codes::ENDPOINT_INVALID);
}

#[tokio::test]
async fn raw_http_discovery_and_routes() {
    let server = start().await;
    let http = reqwest::Client::new();
    for (path, version) in [
        ("/.well-known/agentstration", "1.0"),
        ("/.well-known/aep", "2026-08-01"),
    ] {
        let response = http
            .get(format!("{}{path}", server.base_url))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "application/json");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["protocolVersion"], version);
        assert_eq!(
            body["capabilities"],
            json!({
                "aep.health": {"version": "1.0", "endpoint": "/aep/health"},
                "aep.model-provider": {"version": "1.0", "endpoint": "/aep/model-providers"}
            })
        );
        assert_eq!(
            body["contributions"]["modelProviders"][0]["capabilities"]["streaming"],
            true
        );
        assert!(body.get("mcp").is_none(), "mcp must be omitted without servers");
        assert!(body["contributions"].get("tools").is_none());
    }
    let get = |path: &str| http.get(format!("{}{path}", server.base_url)).send();
    let health: Value = get("/aep/health").await.unwrap().json().await.unwrap();
    assert_eq!(health, json!({"status": "available"}));
    let list: Value = get("/aep/model-providers").await.unwrap().json().await.unwrap();
    assert_eq!(list[0]["id"], "echo");
    let health: Value = get("/aep/model-providers/Echo/health")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health, json!({"status": "available"}));
    let models: Value = get("/aep/model-providers/echo/models")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(models, json!([{"id": "echo-1", "displayName": "echo-1"}]));
    let chat: Value = http
        .post(format!("{}/aep/model-providers/echo/chat", server.base_url))
        .json(&hello())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        chat,
        json!({
            "messages": [{"role": "assistant", "contents": [{"kind": "text", "text": "hello big world"}]}],
            "model": "echo-1",
            "finishReason": "stop",
            "usage": {"inputTokens": 3, "outputTokens": 3, "totalTokens": 6}
        })
    );
}

#[tokio::test]
async fn sse_framing_byte_for_byte() {
    let server = start().await;
    let response = reqwest::Client::new()
        .post(format!(
            "{}/aep/model-providers/echo/chat/stream",
            server.base_url
        ))
        .json(&ChatRequest::new("echo-1", vec![Message::user("hi there")]))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert_eq!(response.headers()["cache-control"], "no-cache");
    assert_eq!(response.headers()["x-accel-buffering"], "no");
    let body = response.text().await.unwrap();
    let expected = concat!(
        "data: {\"contents\":[{\"kind\":\"text\",\"text\":\"hi \"}],\"role\":\"assistant\",\"model\":\"echo-1\"}\n\n",
        "data: {\"contents\":[{\"kind\":\"text\",\"text\":\"there\"}],\"role\":\"assistant\",\"model\":\"echo-1\"}\n\n",
        "data: {\"contents\":[],\"finishReason\":\"stop\",\"usage\":{\"inputTokens\":2,\"outputTokens\":2,\"totalTokens\":4}}\n\n",
    );
    assert_eq!(body, expected);
}

/// Sends `method path` with `content_type` and `body` over raw TCP (exactly those
/// headers, nothing a client adds) and returns (status, content-type, body JSON).
async fn send_raw(
    server: &TestServer,
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> (u16, String, Value) {
    let header = content_type.map(|ct| format!("Content-Type: {ct}"));
    let headers: Vec<&str> = header.iter().map(String::as_str).collect();
    let request = raw::request(method, path, &headers, &body);
    let answer = raw::exchange(server.addr, request, Duration::from_secs(10))
        .await
        .answer();
    let ct = answer.header("content-type").unwrap_or_default().to_owned();
    let json = serde_json::from_slice(&answer.body)
        .unwrap_or_else(|_| panic!("not JSON ({}): {:?}", answer.status, answer.text()));
    (answer.status, ct, json)
}

/// (name, method, path, content type, body, status, code, target)
type Case = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    Vec<u8>,
    u16,
    &'static str,
    Option<&'static str>,
);

#[tokio::test]
async fn malformed_requests_get_aep_errors() {
    let server = start().await;
    let chat = "/aep/model-providers/echo/chat";
    let stream = "/aep/model-providers/echo/chat/stream";
    let json_ct = Some("application/json");
    let valid = serde_json::to_vec(&hello()).unwrap();
    let cases: Vec<Case> = vec![
        (
            "malformed JSON",
            "POST",
            chat,
            json_ct,
            b"{\"model\":".to_vec(),
            400,
            "invalid_request",
            None,
        ),
        (
            "not JSON at all",
            "POST",
            stream,
            json_ct,
            b"hello".to_vec(),
            400,
            "invalid_request",
            None,
        ),
        (
            "trailing garbage",
            "POST",
            chat,
            json_ct,
            [valid.clone(), b"}".to_vec()].concat(),
            400,
            "invalid_request",
            None,
        ),
        (
            "wrong type: model",
            "POST",
            chat,
            json_ct,
            br#"{"model":1,"messages":[]}"#.to_vec(),
            400,
            "invalid_request",
            Some("model"),
        ),
        (
            "wrong type: role",
            "POST",
            stream,
            json_ct,
            br#"{"model":"m","messages":[{"role":"robot","contents":[]}]}"#.to_vec(),
            400,
            "invalid_request",
            Some("messages[0].role"),
        ),
        (
            "missing model",
            "POST",
            chat,
            json_ct,
            br#"{"messages":[]}"#.to_vec(),
            400,
            "invalid_request",
            None,
        ),
        (
            "empty model",
            "POST",
            chat,
            json_ct,
            serde_json::to_vec(&ChatRequest::new("", hello().messages)).unwrap(),
            400,
            "invalid_request",
            Some("model"),
        ),
        (
            "empty messages",
            "POST",
            stream,
            json_ct,
            br#"{"model":"m","messages":[]}"#.to_vec(),
            400,
            "invalid_request",
            Some("messages"),
        ),
        (
            "wrong content type",
            "POST",
            chat,
            Some("text/plain"),
            valid.clone(),
            415,
            "invalid_request",
            None,
        ),
        (
            "no content type",
            "POST",
            stream,
            None,
            valid.clone(),
            415,
            "invalid_request",
            None,
        ),
        (
            "oversized body",
            "POST",
            chat,
            json_ct,
            vec![b' '; 17 * 1024 * 1024],
            413,
            "invalid_request",
            None,
        ),
        (
            "unknown provider",
            "POST",
            "/aep/model-providers/nope/chat",
            json_ct,
            valid.clone(),
            404,
            "provider_unavailable",
            Some("nope"),
        ),
        (
            "unknown provider health",
            "GET",
            "/aep/model-providers/nope/health",
            None,
            vec![],
            404,
            "provider_unavailable",
            Some("nope"),
        ),
        (
            "unknown route",
            "GET",
            "/aep/nothing",
            None,
            vec![],
            404,
            "not_found",
            None,
        ),
        (
            "wrong method",
            "GET",
            chat,
            None,
            vec![],
            405,
            "method_not_allowed",
            None,
        ),
        (
            "wrong method on discovery",
            "POST",
            "/.well-known/aep",
            json_ct,
            vec![],
            405,
            "method_not_allowed",
            None,
        ),
    ];
    for (name, method, path, ct, body, status, code, target) in cases {
        let (got_status, got_ct, json) = send_raw(&server, method, path, ct, body).await;
        assert_eq!(got_status, status, "{name}: {json}");
        assert_eq!(got_ct, "application/json", "{name}");
        assert_eq!(json["error"]["code"], code, "{name}: {json}");
        assert!(
            json["error"]["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{name}"
        );
        if let Some(target) = target {
            assert_eq!(json["error"]["target"], target, "{name}: {json}");
        }
    }
    // Still serving.
    let client = Client::new(&server.base_url).unwrap();
    assert_eq!(
        client.chat("echo", &hello()).await.unwrap().all_text(),
        "hello big world"
    );
}

#[tokio::test]
async fn runtime_twin_answers_byte_for_byte_the_same() {
    let with_macro = start().await;
    let by_hand = spawn(echo_runtime::extension().unwrap().router()).await;
    let http = reqwest::Client::new();
    for path in [
        "/.well-known/aep",
        "/.well-known/agentstration",
        "/aep/model-providers",
        "/aep/model-providers/echo/models",
    ] {
        let a = http
            .get(format!("{}{path}", with_macro.base_url))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let b = http
            .get(format!("{}{path}", by_hand.base_url))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(a, b, "{path}");
    }
    for path in [
        "/aep/model-providers/echo/chat",
        "/aep/model-providers/echo/chat/stream",
    ] {
        let send = |base: &str| http.post(format!("{base}{path}")).json(&hello()).send();
        let a = send(&with_macro.base_url).await.unwrap().text().await.unwrap();
        let b = send(&by_hand.base_url).await.unwrap().text().await.unwrap();
        assert_eq!(a, b, "{path}");
    }
}
