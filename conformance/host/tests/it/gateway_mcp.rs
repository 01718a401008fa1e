//! The gateway's MCP endpoint, `/mcp`, with an rmcp client: tools named by their AEP ids
//! (both prefixed where two extensions contribute one id) with the owning server's
//! schemas and annotations, calls forwarded with progress and log messages relayed and
//! cancellation passed on to the extension, `tools/list_changed` passed through, and the
//! failures: an unknown tool, arguments that do not match, a server that went away.

#![allow(deprecated)] // MCP logging (SEP-2577) is deprecated in rmcp, still spoken by clients.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aep_host::catalog::Catalog;
use aep_host::gateway::Gateway;
use aep_host::mcp::McpPool;
use aep_host::registry::Registry;
use aep_sdk::client::WireOrder;
use aep_sdk::prelude::*;
use aep_sdk::protocol::ProtocolVersion;
use aep_sdk::testing::{ExtensionServer, ServeOptions, serve};
use aep_sdk::tool::{LogLevel, ToolSwitch};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ErrorCode, JsonRpcMessage,
    LoggingLevel, ProgressNotificationParam, ServerNotification, ServerResult, SetLevelRequestParams, Tool,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RoleClient, RunningService, RxJsonRpcMessage};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};

/// A second extension: one tool id the utilities extension also contributes
/// (`hash.compute`), a tool that runs until cancelled, and a switch.
#[derive(Clone, Default)]
struct Second {
    switch: ToolSwitch,
    started: Arc<AtomicUsize>,
    cancelled: Arc<AtomicBool>,
}

#[aep_extension(id = "acme.second", name = "Second", tool_switch = switch)]
impl Second {
    /// Not a hash at all: says which extension answered.
    #[tool(name = "compute", id = "hash.compute")]
    async fn compute(&self, text: String) -> String {
        format!("second: {text}")
    }

    /// Reports progress and logs once, then waits until cancelled.
    #[tool(name = "wait", id = "second.wait")]
    async fn wait(&self, ctx: ToolContext) -> String {
        ctx.progress(1.0, None, Some("waiting")).await;
        ctx.log(LogLevel::Warning, "waiting for a cancellation").await;
        self.started.fetch_add(1, Ordering::SeqCst);
        ctx.cancellation().cancelled().await;
        self.cancelled.store(true, Ordering::SeqCst);
        "cancelled".to_owned()
    }

    /// Sends `n` progress notifications and `n` log messages back to back.
    #[tool(name = "burst", id = "second.burst")]
    async fn burst(&self, n: u32, ctx: ToolContext) -> String {
        for i in 1..=n {
            ctx.progress(f64::from(i), Some(f64::from(n)), None).await;
            ctx.log(LogLevel::Info, i).await;
        }
        format!("sent {n}")
    }
}

#[derive(Clone, Default)]
struct Watch {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    logs: Arc<Mutex<Vec<(LoggingLevel, Value)>>>,
    list_changed: Arc<AtomicUsize>,
}

impl Watch {
    /// Records progress and log messages as the transport receives them: rmcp runs its
    /// handlers on tasks of their own, in no fixed order.
    fn record(&self, message: &RxJsonRpcMessage<RoleClient>) {
        let JsonRpcMessage::Notification(n) = message else {
            return;
        };
        match &n.notification {
            ServerNotification::ProgressNotification(p) => {
                self.progress.lock().unwrap().push(p.params.clone())
            }
            ServerNotification::LoggingMessageNotification(l) => {
                let params = l.params.clone();
                self.logs.lock().unwrap().push((params.level, params.data));
            }
            _ => {}
        }
    }
}

impl ClientHandler for Watch {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
    }
}

struct Setup {
    utilities: ExtensionServer,
    second: Second,
    second_server: Option<ExtensionServer>,
    gateway: ExtensionServer,
}

fn setup() -> Setup {
    let utilities = serve(
        aep_utilities::Utilities.into_extension().unwrap(),
        ServeOptions::new(),
    );
    let second = Second::default();
    let second_server = serve(second.clone().into_extension().unwrap(), ServeOptions::new());
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &utilities.base_url, ProtocolVersion::LATEST)
        .unwrap();
    registry
        .register("acme.second", &second_server.base_url, ProtocolVersion::LATEST)
        .unwrap();
    let catalog = Arc::new(Catalog::new(Arc::new(registry), McpPool::new()));
    let gateway = Gateway::new(catalog).discover_tools(true).extension().unwrap();
    Setup {
        utilities,
        second,
        second_server: Some(second_server),
        gateway: serve(gateway, ServeOptions::new()),
    }
}

async fn connect(base_url: &str, watch: Watch) -> RunningService<RoleClient, Watch> {
    let transport = StreamableHttpClientTransport::from_uri(format!("{base_url}/mcp"));
    let recorder = watch.clone();
    let transport = WireOrder::new(transport, move |m: &RxJsonRpcMessage<RoleClient>| {
        recorder.record(m)
    });
    watch.serve(transport).await.expect("connected")
}

async fn eventually(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "{what} did not happen within 20 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().cloned().unwrap_or_default())
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.clone())
        .collect()
}

fn find<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools.iter().find(|t| t.name == name).unwrap_or_else(|| {
        panic!(
            "no tool {name} in {:?}",
            tools.iter().map(|t| &t.name).collect::<Vec<_>>()
        )
    })
}

#[tokio::test]
async fn tools_are_named_by_aep_id_with_the_owning_servers_schemas() {
    let s = setup();
    let client = connect(&s.gateway.base_url, Watch::default()).await;
    let info = client.peer_info().expect("initialized");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("aep-gateway")
    );
    assert_eq!(
        info.capabilities.tools.as_ref().and_then(|t| t.list_changed),
        Some(true)
    );
    let listed = client.list_all_tools().await.unwrap();
    let direct = connect(&s.utilities.base_url, Watch::default())
        .await
        .list_all_tools()
        .await
        .unwrap();

    // Named by the AEP contribution id, not the MCP name; schemas and annotations as the
    // utilities' own server lists them; the AEP display name as the title.
    let stats = find(&listed, "text.stats");
    let own = find(&direct, "text_stats");
    assert_eq!(stats.input_schema, own.input_schema);
    assert_eq!(stats.output_schema, own.output_schema);
    assert!(
        own.output_schema.is_some(),
        "text_stats declares an output schema"
    );
    assert_eq!(stats.annotations, own.annotations);
    assert_eq!(
        stats.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
    assert_eq!(stats.title.as_deref(), Some("Text statistics"));
    assert!(listed.iter().all(|t| t.name != "text_stats"), "no MCP names leak");

    // `hash.compute` is contributed by both: both are prefixed, each calls its own.
    assert!(listed.iter().all(|t| t.name != "hash.compute"));
    let ours = client
        .call_tool(call("acme.second.hash.compute", json!({"text": "abc"})))
        .await
        .unwrap();
    assert_eq!(text(&ours), "second: abc");
    let theirs = client
        .call_tool(call("aep.utilities.hash.compute", json!({"text": "abc"})))
        .await
        .unwrap();
    let expected = connect(&s.utilities.base_url, Watch::default())
        .await
        .call_tool(call("hash_compute", json!({"text": "abc"})))
        .await
        .unwrap();
    assert_eq!(theirs.content, expected.content);
    assert_eq!(theirs.structured_content, expected.structured_content);
}

#[tokio::test]
async fn progress_and_logs_are_relayed_and_cancellation_reaches_the_extension() {
    let s = setup();
    let watch = Watch::default();
    let client = connect(&s.gateway.base_url, watch.clone()).await;

    // A count with progress: every step relayed under the client's own token.
    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Debug))
        .await
        .unwrap();
    let result = client
        .call_tool(call("text.count_slowly", json!({"to": 4})))
        .await
        .unwrap();
    assert_eq!(text(&result), "counted to 4");
    eventually("four progress notifications", || {
        watch.progress.lock().unwrap().len() == 4
    })
    .await;
    let progress = watch.progress.lock().unwrap().clone();
    assert_eq!(
        progress.iter().map(|p| p.progress).collect::<Vec<_>>(),
        [1.0, 2.0, 3.0, 4.0]
    );
    assert_eq!(progress[3].total, Some(4.0));
    assert_eq!(progress[3].message.as_deref(), Some("4 of 4"));
    eventually("five log messages", || watch.logs.lock().unwrap().len() == 5).await;
    let logs = watch.logs.lock().unwrap().clone();
    assert_eq!(logs[0], (LoggingLevel::Debug, json!("step 1")));
    assert_eq!(logs[4], (LoggingLevel::Info, json!("counted to 4")));

    // The session's level filters relayed messages.
    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Warning))
        .await
        .unwrap();
    client
        .call_tool(call("text.count_slowly", json!({"to": 2})))
        .await
        .unwrap();

    // A call cancelled by the client is cancelled at the extension.
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(call("second.wait", json!({}))));
    let handle = client
        .peer()
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    eventually("the extension to start waiting", || {
        s.second.started.load(Ordering::SeqCst) == 1
    })
    .await;
    eventually("the warning relayed", || watch.logs.lock().unwrap().len() == 6).await;
    let logs = watch.logs.lock().unwrap().clone();
    assert_eq!(
        logs[5],
        (LoggingLevel::Warning, json!("waiting for a cancellation")),
        "only the warning passed the level: {logs:?}"
    );
    handle.cancel(Some("enough".to_owned())).await.unwrap();
    eventually("the extension to see the cancellation", || {
        s.second.cancelled.load(Ordering::SeqCst)
    })
    .await;
    // The session still works.
    let again = client
        .call_tool(call("text.case", json!({"text": "ok", "case": "upper"})))
        .await
        .unwrap();
    assert_eq!(text(&again), "OK");
}

/// Many notifications back to back, on runtimes with several workers (where rmcp's
/// spawned handlers run in no fixed order): they reach the client as the extension sent
/// them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_are_relayed_in_the_order_they_were_sent() {
    let s = setup();
    let watch = Watch::default();
    let client = connect(&s.gateway.base_url, watch.clone()).await;
    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Debug))
        .await
        .unwrap();
    let result = client
        .call_tool(call("second.burst", json!({"n": 200})))
        .await
        .unwrap();
    assert_eq!(text(&result), "sent 200");
    // Progress travels with the answer: all of it is there.
    let progress: Vec<f64> = watch
        .progress
        .lock()
        .unwrap()
        .iter()
        .map(|p| p.progress)
        .collect();
    assert_eq!(progress, (1..=200).map(f64::from).collect::<Vec<_>>());
    eventually("200 log messages", || watch.logs.lock().unwrap().len() == 200).await;
    let logs: Vec<Value> = watch
        .logs
        .lock()
        .unwrap()
        .iter()
        .map(|(_, data)| data.clone())
        .collect();
    assert_eq!(logs, (1..=200).map(|i| json!(i)).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_tool_list_change_reaches_the_gateways_clients() {
    let s = setup();
    let watch = Watch::default();
    let client = connect(&s.gateway.base_url, watch.clone()).await;
    let before = client.list_all_tools().await.unwrap();
    assert!(before.iter().any(|t| t.name == "second.wait"));

    assert!(s.second.switch.disable("wait").await);
    eventually("tools/list_changed through the gateway", || {
        watch.list_changed.load(Ordering::SeqCst) >= 1
    })
    .await;
    let after = client.list_all_tools().await.unwrap();
    assert!(
        after.iter().all(|t| t.name != "second.wait"),
        "the switched-off tool is gone: {:?}",
        after.iter().map(|t| &t.name).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn failures_are_mcp_errors_or_tool_errors_and_nothing_hangs() {
    let mut s = setup();
    let client = connect(&s.gateway.base_url, Watch::default()).await;
    client.list_all_tools().await.unwrap();

    // A tool the gateway does not list: JSON-RPC invalid params.
    let unknown = client
        .call_tool(call("no.such.tool", json!({})))
        .await
        .expect_err("unknown tool");
    match unknown {
        rmcp::ServiceError::McpError(data) => {
            assert_eq!(data.code, ErrorCode::INVALID_PARAMS);
            assert!(data.message.contains("no.such.tool"), "{}", data.message);
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }

    // Arguments that do not match the schema: a tool error naming the code.
    let wrong = client
        .call_tool(call("text.case", json!({"text": 5, "case": "upper"})))
        .await
        .unwrap();
    assert_eq!(wrong.is_error, Some(true));
    assert!(text(&wrong).contains("invalid_arguments"), "{}", text(&wrong));

    // The second extension goes away: its tool fails as a tool error, promptly.
    drop(s.second_server.take());
    let gone = client
        .call_tool(call("acme.second.hash.compute", json!({"text": "x"})))
        .await
        .unwrap();
    assert_eq!(gone.is_error, Some(true));
    assert!(text(&gone).contains("extension_unreachable"), "{}", text(&gone));
    assert!(
        !text(&gone).contains("127.0.0.1"),
        "no upstream URL: {}",
        text(&gone)
    );

    // The rest still answers, and the list leaves the unreachable tools out.
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "text.case"));
    assert!(tools.iter().all(|t| t.name != "second.wait"));
}

#[tokio::test]
async fn a_direct_call_result_is_passed_through_unchanged() {
    let s = setup();
    let client = connect(&s.gateway.base_url, Watch::default()).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(call(
        "text.stats",
        json!({"text": "a b\n\nc"}),
    )));
    let answer = client.peer().send_request(request).await.unwrap();
    let ServerResult::CallToolResult(result) = answer else {
        panic!("not a tool result: {answer:?}")
    };
    assert_eq!(
        result.structured_content,
        Some(json!({"characters": 6, "words": 3, "lines": 3}))
    );
}
