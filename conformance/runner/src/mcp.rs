//! The MCP side: one entry per declared server, with its resolved endpoint, a raw
//! reachability probe, a session client (2025-11-25, `initialize`), a stateless client
//! (2026-07-28, `server/discover`), the tool, resource, template and prompt lists, and
//! the tool calls made, each obtained once. Every client records the
//! `notifications/progress` it receives.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::Method;
use reqwest::header;
use rmcp::ClientHandler;
use rmcp::model::{
    CallToolResult, ClientCapabilities, ClientConfig, Implementation, JsonRpcMessage,
    ProgressNotificationParam, ProgressToken, Prompt, ProtocolVersion as McpVersion, Resource,
    ResourceTemplate, ServerCapabilities, ServerNotification, Tool,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService, RxJsonRpcMessage};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use url::Url;

use aep_sdk::client::WireOrder;

use crate::http::{Http, essence, is_json_type};

/// A connected MCP client.
pub(crate) type McpClient = RunningService<RoleClient, Recorder>;

/// The client handler: answers nothing, and keeps every `notifications/progress` in the
/// order the server sent them (its transport records them, [`Recorder::wire_order`]: rmcp
/// runs handlers on tasks of their own, in no fixed order).
pub(crate) struct Recorder {
    info: ClientConfig,
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl Recorder {
    fn new(info: ClientConfig) -> Self {
        Self {
            info,
            progress: Arc::default(),
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Vec<ProgressNotificationParam>> {
        self.progress.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many progress notifications arrived so far.
    pub(crate) fn progress_count(&self) -> usize {
        self.seen().len()
    }

    /// The progress notifications from position `from` on.
    pub(crate) fn progress_since(&self, from: usize) -> Vec<ProgressNotificationParam> {
        self.seen().get(from..).map(<[_]>::to_vec).unwrap_or_default()
    }

    /// The transport around `transport` that records its progress notifications here.
    fn wire_order<T>(
        &self,
        transport: T,
    ) -> WireOrder<T, impl FnMut(&RxJsonRpcMessage<RoleClient>) + Send + 'static> {
        let progress = self.progress.clone();
        WireOrder::new(transport, move |message: &RxJsonRpcMessage<RoleClient>| {
            if let JsonRpcMessage::Notification(n) = message
                && let ServerNotification::ProgressNotification(p) = &n.notification
            {
                progress
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(p.params.clone());
            }
        })
    }

    /// Waits (at most `bound`) until no progress notification has arrived for 50 ms: a
    /// server may send a call's progress on its session's stream, and that may trail the
    /// answer sent on the call's own.
    pub(crate) async fn settle(&self, bound: Duration) {
        let deadline = tokio::time::Instant::now() + bound;
        let mut last = self.progress_count();
        loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let now = self.progress_count();
            if now == last || tokio::time::Instant::now() >= deadline {
                return;
            }
            last = now;
        }
    }
}

impl ClientHandler for Recorder {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}

/// One `tools/call` made (or not) by the suite, kept for the checks that judge it.
pub(crate) struct ToolCall {
    /// `server/tool`.
    pub(crate) label: String,
    pub(crate) tool: Tool,
    pub(crate) outcome: CallOutcome,
}

/// What came of one tool.
pub(crate) enum CallOutcome {
    /// Not called, and why.
    Skipped(String),
    /// Called with `arguments` (clipped for reports) and the request's `progressToken`
    /// (none when the request could not be sent).
    Called {
        arguments: String,
        token: Option<ProgressToken>,
        result: Result<Box<CallToolResult>, String>,
        /// The `notifications/progress` that arrived while it ran.
        progress: Vec<ProgressNotificationParam>,
    },
}

/// One declared MCP server and what was learnt about it.
pub(crate) struct McpServer {
    pub(crate) id: String,
    /// The endpoint resolved against the base URL, or why it cannot be.
    pub(crate) endpoint: Result<Url, String>,
    pub(crate) reachable: Option<Result<(), String>>,
    pub(crate) session: Option<Result<McpClient, String>>,
    pub(crate) stateless: Option<Result<McpClient, String>>,
    pub(crate) tools: Option<Result<Vec<Tool>, String>>,
    pub(crate) resources: Option<Result<Vec<Resource>, String>>,
    pub(crate) templates: Option<Result<Vec<ResourceTemplate>, String>>,
    pub(crate) prompts: Option<Result<Vec<Prompt>, String>>,
    pub(crate) calls: Option<Vec<ToolCall>>,
}

/// A list request bounded by `timeout`, its failure worded.
async fn listed<T>(
    method: &str,
    timeout: Duration,
    request: impl Future<Output = Result<Vec<T>, rmcp::ServiceError>>,
) -> Result<Vec<T>, String> {
    match tokio::time::timeout(timeout, request).await {
        Ok(Ok(items)) => Ok(items),
        Ok(Err(error)) => Err(format!("{method} failed: {error}")),
        Err(_) => Err(format!("{method} did not answer within {timeout:?}")),
    }
}

/// A browser origin no extension should accept.
pub(crate) const FOREIGN_ORIGIN: &str = "https://aep-conformance.invalid";

fn initialize_body() -> serde_json::Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": McpVersion::V_2025_11_25.as_str(),
            "capabilities": {},
            "clientInfo": {"name": "aep-conformance", "version": env!("CARGO_PKG_VERSION")}
        }
    })
}

/// A raw `initialize` POST (optionally from a browser `origin`); returns the status and
/// content type. Only the head is read (an SSE answer may stay open), and a session it
/// opened is deleted again.
async fn post_initialize(
    http: &Http,
    url: &Url,
    origin: Option<&str>,
) -> Result<(reqwest::StatusCode, String), String> {
    let mut request = http
        .request(Method::POST, url.as_str())
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream")
        .json(&initialize_body());
    if let Some(origin) = origin {
        request = request.header(header::ORIGIN, origin);
    }
    let response = tokio::time::timeout(http.timeout, request.send())
        .await
        .map_err(|_| format!("{url}: no answer within {:?}", http.timeout))?
        .map_err(|e| crate::http::describe_error(url.as_str(), &e))?;
    let status = response.status();
    let content_type = essence(response.headers());
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    drop(response);
    if let Some(session) = session {
        let delete = http
            .request(Method::DELETE, url.as_str())
            .header("mcp-session-id", session)
            .send();
        let _ = tokio::time::timeout(Duration::from_secs(2), delete).await;
    }
    Ok((status, content_type))
}

fn client_info(version: McpVersion) -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("aep-conformance", env!("CARGO_PKG_VERSION")),
    )
    .with_protocol_version(version)
}

impl McpServer {
    pub(crate) fn new(id: String, endpoint: Result<Url, String>) -> Self {
        Self {
            id,
            endpoint,
            reachable: None,
            session: None,
            stateless: None,
            tools: None,
            resources: None,
            templates: None,
            prompts: None,
            calls: None,
        }
    }

    /// A raw Streamable HTTP POST of `initialize`: the endpoint must answer 2xx with JSON
    /// or an event stream. A session it opens is deleted again.
    pub(crate) async fn reachable(&mut self, http: &Http) -> Result<(), String> {
        if let Some(cached) = &self.reachable {
            return cached.clone();
        }
        let result = self.probe(http).await;
        self.reachable = Some(result.clone());
        result
    }

    /// A raw `initialize` from a foreign browser `Origin` must be refused with 403 (the
    /// MCP specification's DNS-rebinding rule).
    pub(crate) async fn refuses_foreign_origin(&self, http: &Http) -> Result<(), String> {
        let url = self.endpoint.clone()?;
        let (status, _) = post_initialize(http, &url, Some(FOREIGN_ORIGIN)).await?;
        if status.as_u16() == 403 {
            return Ok(());
        }
        Err(format!(
            "POST {url} (initialize) with Origin {FOREIGN_ORIGIN} answered HTTP {}, not 403",
            status.as_u16()
        ))
    }

    async fn probe(&self, http: &Http) -> Result<(), String> {
        let url = self.endpoint.clone()?;
        let (status, content_type) = post_initialize(http, &url, None).await?;
        if !status.is_success() {
            return Err(format!(
                "POST {url} (initialize) answered HTTP {}",
                status.as_u16()
            ));
        }
        if !is_json_type(&content_type) && content_type != "text/event-stream" {
            return Err(format!(
                "POST {url} (initialize) answered content-type '{content_type}', not application/json or text/event-stream"
            ));
        }
        Ok(())
    }

    fn transport(&self, http: &Http, url: &Url) -> StreamableHttpClientTransport<reqwest::Client> {
        let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str().to_owned());
        if let Some(token) = &http.token {
            config = config.auth_header(token.clone());
        }
        StreamableHttpClientTransport::from_config(config)
    }

    async fn connect(
        &self,
        http: &Http,
        lifecycle: ClientLifecycleMode,
        version: McpVersion,
    ) -> Result<McpClient, String> {
        let url = self.endpoint.clone()?;
        let recorder = Recorder::new(client_info(version));
        let transport = recorder.wire_order(self.transport(http, &url));
        match tokio::time::timeout(http.timeout, recorder.serve_with_lifecycle(transport, lifecycle)).await {
            Ok(Ok(client)) => Ok(client),
            Ok(Err(error)) => Err(format!("{url}: {error}")),
            Err(_) => Err(format!("{url}: no handshake within {:?}", http.timeout)),
        }
    }

    /// The session client (revision 2025-11-25, `initialize`).
    pub(crate) async fn session(&mut self, http: &Http) -> Result<&McpClient, String> {
        if self.session.is_none() {
            let result = self
                .connect(http, ClientLifecycleMode::Initialize, McpVersion::V_2025_11_25)
                .await
                .and_then(|client| match client.peer_info() {
                    Some(info) if info.protocol_version.has_initialize() => Ok(client),
                    Some(info) => Err(format!(
                        "initialize negotiated revision {}, which has no initialize",
                        info.protocol_version
                    )),
                    None => Err("initialize returned no server information".to_owned()),
                });
            self.session = Some(result);
        }
        match self.session.as_ref() {
            Some(Ok(client)) => Ok(client),
            Some(Err(error)) => Err(error.clone()),
            None => Err("no session".to_owned()),
        }
    }

    /// The stateless client (revision 2026-07-28, `server/discover`).
    pub(crate) async fn stateless(&mut self, http: &Http) -> Result<&McpClient, String> {
        if self.stateless.is_none() {
            let lifecycle = ClientLifecycleMode::Discover {
                preferred_versions: vec![McpVersion::V_2026_07_28],
            };
            let result = self.connect(http, lifecycle, McpVersion::V_2026_07_28).await;
            self.stateless = Some(result);
        }
        match self.stateless.as_ref() {
            Some(Ok(client)) => Ok(client),
            Some(Err(error)) => Err(error.clone()),
            None => Err("no client".to_owned()),
        }
    }

    /// The session client, or the stateless one when the session client cannot connect.
    pub(crate) async fn connected(&mut self, http: &Http) -> Result<&McpClient, String> {
        if let Err(session_error) = self.session(http).await {
            return self
                .stateless(http)
                .await
                .map_err(|e| format!("no MCP client connects: {session_error}; {e}"));
        }
        self.session(http).await
    }

    /// `tools/list` (all pages) through the session client, or the stateless one when
    /// the session client cannot connect.
    pub(crate) async fn tools(&mut self, http: &Http) -> Result<Vec<Tool>, String> {
        if let Some(cached) = &self.tools {
            return cached.clone();
        }
        let timeout = http.timeout;
        let result = match self.connected(http).await {
            Err(error) => Err(error),
            Ok(client) => listed("tools/list", timeout, client.list_all_tools()).await,
        };
        self.tools = Some(result.clone());
        result
    }

    /// The capabilities the connected client's server advertised (`initialize` or
    /// `server/discover` result).
    pub(crate) fn capabilities(&self) -> Option<ServerCapabilities> {
        self.caller()
            .and_then(|client| client.peer_info())
            .map(|info| info.capabilities.clone())
    }

    /// `resources/list` (all pages), once.
    pub(crate) async fn resources(&mut self, http: &Http) -> Result<Vec<Resource>, String> {
        if let Some(cached) = &self.resources {
            return cached.clone();
        }
        let timeout = http.timeout;
        let result = match self.connected(http).await {
            Err(error) => Err(error),
            Ok(client) => listed("resources/list", timeout, client.list_all_resources()).await,
        };
        self.resources = Some(result.clone());
        result
    }

    /// `resources/templates/list` (all pages), once.
    pub(crate) async fn templates(&mut self, http: &Http) -> Result<Vec<ResourceTemplate>, String> {
        if let Some(cached) = &self.templates {
            return cached.clone();
        }
        let timeout = http.timeout;
        let result = match self.connected(http).await {
            Err(error) => Err(error),
            Ok(client) => {
                listed(
                    "resources/templates/list",
                    timeout,
                    client.list_all_resource_templates(),
                )
                .await
            }
        };
        self.templates = Some(result.clone());
        result
    }

    /// `prompts/list` (all pages), once.
    pub(crate) async fn prompts(&mut self, http: &Http) -> Result<Vec<Prompt>, String> {
        if let Some(cached) = &self.prompts {
            return cached.clone();
        }
        let timeout = http.timeout;
        let result = match self.connected(http).await {
            Err(error) => Err(error),
            Ok(client) => listed("prompts/list", timeout, client.list_all_prompts()).await,
        };
        self.prompts = Some(result.clone());
        result
    }

    /// The client to call tools with (session first).
    pub(crate) fn caller(&self) -> Option<&McpClient> {
        match (&self.session, &self.stateless) {
            (Some(Ok(client)), _) | (_, Some(Ok(client))) => Some(client),
            _ => None,
        }
    }

    /// Ends the clients' sessions, each within two seconds.
    pub(crate) async fn close(self) {
        for client in [self.session, self.stateless].into_iter().flatten().flatten() {
            let _ = tokio::time::timeout(Duration::from_secs(2), client.cancel()).await;
        }
    }
}
