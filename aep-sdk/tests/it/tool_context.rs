//! What a tool can do through its `ToolContext`, seen by a real MCP client (rmcp's):
//! progress notifications with the client's token, in order; log messages that honour
//! `logging/setLevel`; the request's HTTP headers; and a tool past its `timeout` answers
//! a tool error, its token tripped and its work dropped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aep_sdk::prelude::*;
use aep_sdk::testing::{eventually, spawn};
use aep_sdk::tool::LogLevel;
use rmcp::model::{CallToolRequestParams, ClientConfig, ProgressNotificationParam};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::service::{NotificationContext, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

#[derive(Clone, Default)]
struct Work {
    token: Arc<Mutex<Option<CancellationToken>>>,
    dropped: Arc<AtomicBool>,
}

/// Marks the work dropped.
struct Flag(Arc<AtomicBool>);

impl Drop for Flag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[aep_extension(id = "t.work", name = "Work", version = "1.0.0")]
impl Work {
    /// Counts to `n`, reporting progress at each step.
    #[tool]
    async fn count_slowly(&self, n: u32, ctx: ToolContext) -> String {
        for i in 1..=n {
            tokio::time::sleep(Duration::from_millis(5)).await;
            ctx.progress(f64::from(i), Some(f64::from(n)), Some(&format!("step {i}")))
                .await;
        }
        format!("counted to {n}")
    }

    /// Logs one message at each of four levels.
    #[tool]
    async fn chatty(&self, ctx: ToolContext) -> String {
        for (level, text) in [
            (LogLevel::Debug, "debug"),
            (LogLevel::Info, "info"),
            (LogLevel::Warning, "warning"),
            (LogLevel::Error, "error"),
        ] {
            ctx.log(level, text).await;
        }
        "logged".to_owned()
    }

    /// The request's `x-acme-tenant` header.
    #[tool]
    async fn tenant(&self, ctx: ToolContext) -> String {
        let headers = ctx.headers().expect("the HTTP headers");
        headers
            .get("x-acme-tenant")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("none")
            .to_owned()
    }

    /// Six steps of 50 ms, each reported: longer than its 150 ms bound, which progress
    /// restarts.
    #[tool(timeout = "150ms", timeout_resets_on_progress)]
    async fn patient(&self, ctx: ToolContext) -> String {
        for i in 0..6 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.progress(f64::from(i), None, None).await;
        }
        "done".to_owned()
    }

    /// The same work, but progress does not restart its bound.
    #[tool(timeout = "150ms")]
    async fn impatient(&self, ctx: ToolContext) -> String {
        for i in 0..6 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.progress(f64::from(i), None, None).await;
        }
        "done".to_owned()
    }

    /// Sleeps ten seconds; no bound of its own.
    #[tool]
    async fn sleeper(&self) -> String {
        tokio::time::sleep(Duration::from_secs(10)).await;
        "woke".to_owned()
    }

    /// Runs until cancelled (no bound), then records that it saw the cancellation.
    #[tool]
    async fn until_cancelled(&self, ctx: ToolContext) -> String {
        *self.token.lock().unwrap() = Some(ctx.cancellation().clone());
        ctx.cancellation().cancelled().await;
        self.dropped.store(true, Ordering::SeqCst);
        "cancelled".to_owned()
    }

    /// Runs until cancelled; bounded to 200 ms.
    #[tool(timeout = "200ms")]
    async fn forever(&self, ctx: ToolContext) -> String {
        *self.token.lock().unwrap() = Some(ctx.cancellation().clone());
        let _work = Flag(self.dropped.clone());
        std::future::pending::<()>().await;
        unreachable!()
    }
}

#[derive(Clone, Default)]
struct Collect {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    logs: Arc<Mutex<Vec<Value>>>,
}

#[allow(deprecated)] // MCP logging (SEP-2577) is deprecated in rmcp, still spoken by clients.
impl ClientHandler for Collect {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params.data);
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.clone())
        .collect()
}

#[tokio::test]
#[allow(deprecated)]
async fn progress_logging_headers_and_timeouts_reach_a_real_client() {
    let work = Work::default();
    let server = spawn(work.clone().into_extension().unwrap().router()).await;
    let collect = Collect::default();
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let client = collect.clone().serve(transport).await.unwrap();
    assert!(
        client.peer_info().unwrap().capabilities.logging.is_some(),
        "logging is advertised"
    );

    // Progress: one notification per step, in order, with the call's token.
    let result = client
        .call_tool(
            CallToolRequestParams::new("count_slowly")
                .with_arguments(json!({"n": 5}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(text(&result), "counted to 5");
    eventually("five progress notifications", || {
        collect.progress.lock().unwrap().len() == 5
    })
    .await;
    let progress = collect.progress.lock().unwrap().clone();
    let steps: Vec<f64> = progress.iter().map(|p| p.progress).collect();
    assert_eq!(steps, [1.0, 2.0, 3.0, 4.0, 5.0]);
    assert!(
        progress
            .iter()
            .all(|p| p.progress_token == progress[0].progress_token && p.total == Some(5.0))
    );
    assert_eq!(progress[4].message.as_deref(), Some("step 5"));

    // Logging: `info` and above until the client sets a level, then only at or above it.
    client
        .call_tool(CallToolRequestParams::new("chatty"))
        .await
        .unwrap();
    eventually("three log messages", || collect.logs.lock().unwrap().len() == 3).await;
    assert_eq!(
        *collect.logs.lock().unwrap(),
        [json!("info"), json!("warning"), json!("error")]
    );
    collect.logs.lock().unwrap().clear();
    client
        .set_level(rmcp::model::SetLevelRequestParams::new(
            rmcp::model::LoggingLevel::Warning,
        ))
        .await
        .unwrap();
    client
        .call_tool(CallToolRequestParams::new("chatty"))
        .await
        .unwrap();
    eventually("two log messages", || collect.logs.lock().unwrap().len() == 2).await;
    assert_eq!(*collect.logs.lock().unwrap(), [json!("warning"), json!("error")]);

    // The level is the session's: a second client still gets `info` and above.
    let other = Collect::default();
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let second = other.clone().serve(transport).await.unwrap();
    second
        .call_tool(CallToolRequestParams::new("chatty"))
        .await
        .unwrap();
    eventually("the second session's three log messages", || {
        other.logs.lock().unwrap().len() == 3
    })
    .await;
    second.cancel().await.unwrap();

    // A tool past its timeout: a tool error saying so, its token tripped, its work dropped.
    let result = client
        .call_tool(CallToolRequestParams::new("forever"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).contains("did not finish within 200 ms"),
        "{}",
        text(&result)
    );
    let token = work.token.lock().unwrap().clone().expect("the tool ran");
    assert!(token.is_cancelled(), "the tool's cancellation token trips");
    assert!(work.dropped.load(Ordering::SeqCst), "the tool's work is dropped");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_tool_sees_the_requests_headers() {
    let server = spawn(Work::default().into_extension().unwrap().router()).await;
    let http = reqwest::Client::builder()
        .default_headers(reqwest::header::HeaderMap::from_iter([(
            reqwest::header::HeaderName::from_static("x-acme-tenant"),
            reqwest::header::HeaderValue::from_static("blue"),
        )]))
        .build()
        .unwrap();
    let config = rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
        format!("{}/mcp", server.base_url),
    );
    let transport = StreamableHttpClientTransport::with_client(http, config);
    let client = ClientConfig::default().serve(transport).await.unwrap();
    let result = client
        .call_tool(CallToolRequestParams::new("tenant"))
        .await
        .unwrap();
    assert_eq!(text(&result), "blue");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn progress_restarts_a_timeout_only_when_the_tool_says_so_and_the_server_default_applies() {
    let server = spawn(Work::default().into_extension().unwrap().router()).await;
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let client = ClientConfig::default().serve(transport).await.unwrap();
    let patient = client
        .call_tool(CallToolRequestParams::new("patient"))
        .await
        .unwrap();
    assert_eq!(
        (patient.is_error, text(&patient)),
        (Some(false), "done".to_owned())
    );
    let impatient = client
        .call_tool(CallToolRequestParams::new("impatient"))
        .await
        .unwrap();
    assert_eq!(impatient.is_error, Some(true), "{}", text(&impatient));

    client.cancel().await.unwrap();

    // The extension's default (`tool_timeout`, `--tool-timeout`) bounds a tool without
    // its own, in that extension only.
    let bounded = Work::default()
        .extension_builder()
        .tool_timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let server = spawn(bounded.router()).await;
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let client = ClientConfig::default().serve(transport).await.unwrap();
    let sleeper = client
        .call_tool(CallToolRequestParams::new("sleeper"))
        .await
        .unwrap();
    assert_eq!(sleeper.is_error, Some(true));
    assert!(text(&sleeper).contains("within 100 ms"), "{}", text(&sleeper));
    client.cancel().await.unwrap();

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        serve: aep_sdk::server::ServeArgs,
    }
    let cli = <Cli as clap::Parser>::try_parse_from(["ext", "--tool-timeout", "30s"]).unwrap();
    assert_eq!(cli.serve.tool_timeout, Some(Duration::from_secs(30)));

    // The flag, applied as `serve` applies it, bounds the served extension's tools.
    let cli = <Cli as clap::Parser>::try_parse_from(["ext", "--tool-timeout", "150ms"]).unwrap();
    let configured = Work::default()
        .extension_builder()
        .serve_args(&cli.serve)
        .build()
        .unwrap();
    let server = spawn(configured.router()).await;
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let client = ClientConfig::default().serve(transport).await.unwrap();
    let sleeper = client
        .call_tool(CallToolRequestParams::new("sleeper"))
        .await
        .unwrap();
    assert!(text(&sleeper).contains("within 150 ms"), "{}", text(&sleeper));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_that_cancels_a_call_trips_the_tools_token() {
    let work = Work::default();
    let server = spawn(work.clone().into_extension().unwrap().router()).await;
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let client = ClientConfig::default().serve(transport).await.unwrap();
    let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::Request::new(
        CallToolRequestParams::new("until_cancelled"),
    ));
    let handle = client
        .send_cancellable_request(request, rmcp::service::PeerRequestOptions::no_options())
        .await
        .unwrap();
    eventually("the tool runs", || work.token.lock().unwrap().is_some()).await;
    // `notifications/cancelled` for the request.
    handle.cancel(Some("the user gave up".into())).await.unwrap();
    eventually("the tool sees its token trip", || {
        work.dropped.load(Ordering::SeqCst)
    })
    .await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_that_goes_away_mid_call_trips_the_tools_token() {
    let work = Work::default();
    let server = spawn(work.clone().into_extension().unwrap().router()).await;
    let url = format!("{}/mcp", server.base_url);
    let http = reqwest::Client::new();
    let post = |session: Option<&str>, body: Value| {
        let mut request = http
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .json(&body);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send()
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let answer = post(None, initialize).await.unwrap();
    let session = answer.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    drop(answer.text().await.unwrap());
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(Some(&session), initialized).await.unwrap();
    let call =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "until_cancelled"}});
    let answer = post(Some(&session), call).await.unwrap();
    assert_eq!(answer.status(), 200);
    eventually("the tool runs", || work.token.lock().unwrap().is_some()).await;
    // The client goes away: its connection (and the call's response stream) closes, and
    // it ends its session.
    drop(answer);
    let deleted = http
        .delete(&url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success());
    // At once, not after rmcp's five-second drain of a closed session.
    let started = std::time::Instant::now();
    let token = work.token.lock().unwrap().clone().unwrap();
    tokio::time::timeout(Duration::from_secs(3), token.cancelled())
        .await
        .expect("the tool's token trips within 3 s");
    eprintln!("the token tripped {:?} after the DELETE", started.elapsed());
}

#[tokio::test]
#[allow(deprecated)]
async fn a_request_may_ask_for_its_own_log_level_and_a_2026_request_that_does_not_gets_none() {
    let server = spawn(Work::default().into_extension().unwrap().router()).await;
    let collect = Collect::default();
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let client = collect.clone().serve(transport).await.unwrap();
    let call = |meta: Value| {
        let mut params = CallToolRequestParams::new("chatty");
        params.meta = Some(serde_json::from_value(meta).unwrap());
        client.call_tool(params)
    };
    // The session is at `info`; this request asks for `debug`: all four arrive.
    call(json!({"io.modelcontextprotocol/logLevel": "debug"}))
        .await
        .unwrap();
    eventually("four log messages", || collect.logs.lock().unwrap().len() == 4).await;
    client.cancel().await.unwrap();
    // A client of the 2026-07-28 revision (no session, no `logging/setLevel`): a request
    // without a level of its own gets no log messages, one asking for `error` gets one.
    let modern = Collect::default();
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
    };
    let client = modern
        .clone()
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .unwrap();
    let call = |meta: Value| {
        let mut params = CallToolRequestParams::new("chatty");
        params.meta = Some(serde_json::from_value(meta).unwrap());
        client.call_tool(params)
    };
    call(json!({})).await.unwrap();
    call(json!({"io.modelcontextprotocol/logLevel": "error"}))
        .await
        .unwrap();
    let collect = modern;
    eventually("one log message", || !collect.logs.lock().unwrap().is_empty()).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(*collect.logs.lock().unwrap(), [json!("error")]);
    client.cancel().await.unwrap();
}
