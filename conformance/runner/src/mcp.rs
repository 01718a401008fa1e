//! The MCP side: one entry per declared server, with its resolved endpoint, a raw
//! reachability probe, a session client (2025-11-25, `initialize`), a stateless client
//! (2026-07-28, `server/discover`) and the tool list, each obtained once.

use std::time::Duration;

use reqwest::Method;
use reqwest::header;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion as McpVersion, Tool};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use url::Url;

use crate::http::{Http, essence, is_json_type};

/// A connected MCP client.
pub(crate) type McpClient = RunningService<RoleClient, ClientConfig>;

/// One declared MCP server and what was learnt about it.
pub(crate) struct McpServer {
    pub(crate) id: String,
    /// The endpoint resolved against the base URL, or why it cannot be.
    pub(crate) endpoint: Result<Url, String>,
    pub(crate) reachable: Option<Result<(), String>>,
    pub(crate) session: Option<Result<McpClient, String>>,
    pub(crate) stateless: Option<Result<McpClient, String>>,
    pub(crate) tools: Option<Result<Vec<Tool>, String>>,
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
        let transport = self.transport(http, &url);
        match tokio::time::timeout(
            http.timeout,
            client_info(version).serve_with_lifecycle(transport, lifecycle),
        )
        .await
        {
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

    /// `tools/list` (all pages) through the session client, or the stateless one when
    /// the session client cannot connect.
    pub(crate) async fn tools(&mut self, http: &Http) -> Result<Vec<Tool>, String> {
        if let Some(cached) = &self.tools {
            return cached.clone();
        }
        let timeout = http.timeout;
        let client = match self.session(http).await {
            Ok(client) => Ok(client),
            Err(session_error) => self
                .stateless(http)
                .await
                .map_err(|e| format!("no MCP client connects: {session_error}; {e}")),
        };
        let result = match client {
            Err(error) => Err(error),
            Ok(client) => match tokio::time::timeout(timeout, client.list_all_tools()).await {
                Ok(Ok(tools)) => Ok(tools),
                Ok(Err(error)) => Err(format!("tools/list failed: {error}")),
                Err(_) => Err(format!("tools/list did not answer within {timeout:?}")),
            },
        };
        self.tools = Some(result.clone());
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
