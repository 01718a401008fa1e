//! The trace: every exchange through the recording proxy (connecting, a conformance run,
//! a tool call, a resource read, both kinds of chat), each with its sender and the token
//! redacted; and the proxy itself.

use serde_json::{Value, json};

use crate::common::{Inspector, api, fixtures};
use crate::{chat, exchanges};

/// `(method, path, status, via)` of each exchange, newest first.
fn trace_lines(trace: &Value, base: &str) -> Vec<String> {
    exchanges(trace)
        .map(|x| {
            let path = x["url"].as_str().unwrap().replace(base, "");
            format!(
                "{} {} {} {}",
                x["method"].as_str().unwrap(),
                path,
                x["status"],
                x["via"].as_str().unwrap()
            )
        })
        .collect()
}

/// The newest exchange in the trace of connection `id`.
async fn newest(inspector: &Inspector, id: &str) -> Value {
    inspector.trace(id).await["exchanges"][0].clone()
}

/// The sequence number of an exchange.
fn seq(exchange: &Value) -> u64 {
    exchange["seq"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_trace_has_every_exchange_with_secrets_redacted() {
    let secret = "tr4ce-secret-token";
    let guarded = fixtures::utilities_with_token(secret).await;
    let (inspector, id) = Inspector::connected_with(json!({"url": guarded.base_url, "token": secret})).await;
    let trace = inspector.trace(&id).await;
    assert!(trace["covers"].as_str().unwrap().contains("MCP pool"), "{trace}");
    assert_eq!(trace["bypassed"], json!([]), "{trace}");
    let lines = trace_lines(&trace, &guarded.base_url);
    // Connecting: the Inspector's raw manifest fetch, then the SDK client's discovery
    // through the proxy (and the catalog's MCP session).
    assert_eq!(
        lines.last().unwrap(),
        "GET /.well-known/aep 200 inspector",
        "{lines:?}"
    );
    assert!(
        lines.contains(&"GET /.well-known/aep 200 sdk".to_owned()),
        "{lines:?}"
    );
    let before_run = seq(&trace["exchanges"][0]);

    // A conformance run: its exchanges are in the trace, after those of connecting.
    let events = inspector
        .events(&api(&id, "conformance"), json!({"only": ["1.discovery"]}))
        .await;
    let report = &events.last().unwrap().1;
    assert_eq!(report["success"], true, "{report}");
    let proxy_origin = trace["proxy"].as_str().unwrap().to_owned();
    assert!(
        !report.to_string().contains(&proxy_origin),
        "the report names the extension, not the proxy: {report}"
    );
    let trace = inspector.trace(&id).await;
    let run: Vec<&Value> = exchanges(&trace).filter(|x| seq(x) > before_run).collect();
    assert!(
        run.iter()
            .any(|x| x["url"] == format!("{}/.well-known/agentstration", guarded.base_url)),
        "{run:?}"
    );
    assert!(run.iter().all(|x| x["via"] == "runner"), "{run:?}");
    let before_call = seq(&trace["exchanges"][0]);

    // A tool call, through the host's MCP pool.
    let result = inspector
        .post_ok(
            &api(&id, "tools/call"),
            json!({"tool": "text.stats", "arguments": {"text": "traced words"}}),
        )
        .await;
    assert!(result["output"].to_string().contains("words"), "{result}");
    let (_, listed) = inspector.get(&api(&id, "tools")).await;
    let mcp_url = listed["tools"][0]["origin"]["mcpUrl"].as_str().unwrap();
    assert!(
        mcp_url.starts_with(&guarded.base_url),
        "the page is told the extension's URL, not the proxy's: {mcp_url}"
    );
    let trace = inspector.trace(&id).await;
    let call = exchanges(&trace)
        .filter(|x| seq(x) > before_call)
        .find(|x| {
            x["method"] == "POST"
                && x["requestBody"]
                    .as_str()
                    .is_some_and(|b| b.contains("tools/call") && b.contains("text_stats"))
        })
        .unwrap_or_else(|| panic!("no tools/call in the trace: {trace}"));
    assert_eq!(call["url"], format!("{}/mcp", guarded.base_url), "{call}");
    assert_eq!(call["status"], 200, "{call}");
    assert_eq!(call["via"], "mcp", "{call}");
    assert!(
        call["responseBody"].as_str().unwrap().contains("traced")
            || call["responseBody"].as_str().unwrap().starts_with("streamed"),
        "{call}"
    );

    // A resource read, through the same pool.
    inspector
        .post_ok(
            &api(&id, "mcp/resources/read"),
            json!({"server": "utilities", "uri": "docs://utilities/readme"}),
        )
        .await;
    let trace = inspector.trace(&id).await;
    assert!(
        exchanges(&trace).any(|x| x["via"] == "mcp"
            && x["requestBody"]
                .as_str()
                .is_some_and(|b| b.contains("resources/read"))),
        "no resources/read in the trace: {trace}"
    );

    for x in exchanges(&trace) {
        let headers = x["headersMs"].as_f64().expect("time to headers");
        let total = x["totalMs"].as_f64().expect("total time");
        assert!(headers >= 0.0 && total >= headers, "{x}");
        if let Some(authorization) = x["requestHeaders"]
            .as_array()
            .unwrap()
            .iter()
            .find(|pair| pair[0] == "authorization")
        {
            assert_eq!(authorization[1], "<redacted>", "{x}");
        }
    }
    let redacted = exchanges(&trace)
        .filter(|x| {
            x["requestHeaders"]
                .to_string()
                .contains("\"authorization\",\"<redacted>\"")
        })
        .count();
    assert!(redacted >= 3, "the token went with the requests: {trace}");
    assert!(!trace.to_string().contains(secret), "the token is in the trace");

    // The proxy listens on loopback, answers only to its own Host, and stops on close.
    let proxy: url::Url = trace["proxy"].as_str().unwrap().parse().unwrap();
    assert_eq!(proxy.host_str(), Some("127.0.0.1"));
    let port = proxy.port().unwrap();
    let misdirected = reqwest::Client::new()
        .get(format!("{proxy}.well-known/aep"))
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(misdirected.status(), 421);
    // A request naming no sender is forwarded as it is, and recorded as the proxy's.
    let unnamed = reqwest::Client::new()
        .get(format!("{proxy}aep/health"))
        .bearer_auth(secret)
        .send()
        .await
        .unwrap();
    assert_eq!(unnamed.status(), 200);
    let trace = inspector.trace(&id).await;
    assert_eq!(trace["exchanges"][0]["via"], "proxy", "{trace}");
    assert_eq!(
        trace["exchanges"][0]["url"],
        format!("{}/aep/health", guarded.base_url)
    );
    inspector.close(&id).await;
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err(),
        "the proxy still listens after the connection closed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chats_are_traced_both_ways() {
    let (echo, inspector, id) = Inspector::connected_to_echo().await;
    inspector
        .post_ok(&api(&id, "chat"), chat("echo", "echo-1", "not streamed"))
        .await;
    let newest = newest(&inspector, &id).await;
    assert_eq!(
        newest["url"],
        format!("{}/aep/model-providers/echo/chat", echo.base_url),
        "{newest}"
    );
    assert_eq!(newest["via"], "sdk", "{newest}");
    assert_eq!(newest["status"], 200, "{newest}");
    assert!(
        newest["requestBody"].as_str().unwrap().contains("not streamed"),
        "{newest}"
    );
    assert!(
        newest["responseBody"].as_str().unwrap().contains("not streamed"),
        "{newest}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_chat_is_traced_by_its_frame_count() {
    let (_echo, inspector, id) = Inspector::connected_to_echo().await;
    inspector
        .events(
            &api(&id, "chat/stream"),
            chat("echo", "echo-1", "hello there inspector"),
        )
        .await;
    let newest = newest(&inspector, &id).await;
    assert_eq!(newest["method"], "POST", "{newest}");
    assert_eq!(newest["status"], 200, "{newest}");
    assert_eq!(newest["responseBody"], "streamed, 4 frames", "{newest}");
    assert_eq!(newest["failure"], Value::Null, "{newest}");
}
