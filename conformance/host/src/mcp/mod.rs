//! The MCP client pool: one rmcp client per server URL, reused across calls.
//!
//! - With the session-based MCP revision (2025-11-25, the default) a server sees one
//!   `initialize` for any number of calls. When the server forgets the session (HTTP
//!   404), rmcp's transport initializes a new one and retries the request; when the
//!   connection itself is lost, the pool drops the client and the next request
//!   connects again.
//! - `tools/list` is cached per server until the server sends
//!   `notifications/tools/list_changed`, the connection is replaced, or a caller forces a
//!   refresh (the catalog does so once when a tool is not found).
//! - Resources and prompts (`resources/list`, `resources/templates/list`,
//!   `resources/read`, `prompts/list`, `prompts/get`) go through the same client; a
//!   server whose `initialize` result does not advertise the capability is refused with
//!   `mcp_capability_missing` before anything is sent. They are not cached.
//! - A server's `elicitation/create` during a call is answered by the pool's
//!   [`ElicitationPolicy`] when one is set ([`PoolOptions::elicitation`]); the
//!   `elicitation` capability is declared only then.
//! - A server's requests carry a bearer token ([`McpPool::set_bearer_token`]) or go
//!   through an OAuth client ([`McpPool::set_oauth`]) that signs in when the server
//!   answers 401, steps up on 403 `insufficient_scope`, and sends the request again,
//!   mid-session if need be.
//! - Every wait is bounded ([`PoolOptions`]; with OAuth, each bound grows by the
//!   sign-in's own, [`SignIn::bound`]).

mod elicitation;
mod failure;
mod listener;
mod relay;
mod slot;
mod surface;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate,
    ServerCapabilities, Tool,
};
use tokio::sync::broadcast;
use url::Url;

pub use elicitation::{ElicitationPolicy, schema_defaults};
pub(crate) use failure::Failure;
pub use relay::{LINGER, Relay, Relayed};
use slot::{Auth, Slot};
pub use surface::Capability;

use crate::JsonObject;
use crate::error::{ErrorCode, HostError, Result};
use crate::oauth::{OAuthOptions, SignIn};

/// Which MCP revision the pool's clients speak.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum McpRevision {
    /// 2025-11-25: `initialize` once, then requests carry `Mcp-Session-Id`.
    #[default]
    Session,
    /// 2026-07-28: `server/discover`, no sessions; every request stands alone.
    Stateless,
}

/// Bounds and revision of the pool's clients.
#[derive(Debug, Clone)]
pub struct PoolOptions {
    /// MCP revision (default: session-based).
    pub revision: McpRevision,
    /// Bound on connecting and initializing (default 10 s).
    pub connect_timeout: Duration,
    /// Bound on `tools/list` (default 30 s).
    pub request_timeout: Duration,
    /// Bound on one `tools/call` (default 120 s).
    pub call_timeout: Duration,
    /// How servers' `elicitation/create` requests are answered (default: none, the
    /// capability is not declared and any request is declined).
    pub elicitation: Option<ElicitationPolicy>,
}

impl Default for PoolOptions {
    fn default() -> Self {
        Self {
            revision: McpRevision::Session,
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(120),
            elicitation: None,
        }
    }
}

/// What the pool did for one server, counted on the client side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Connections made (each one `initialize`, or `server/discover` when stateless).
    pub connects: u64,
    /// `tools/list` requests sent.
    pub tool_lists: u64,
    /// `tools/call` requests sent.
    pub calls: u64,
    /// `notifications/tools/list_changed` received.
    pub list_changed: u64,
    /// `elicitation/create` requests answered by the pool's [`ElicitationPolicy`].
    pub elicitations: u64,
}

/// One client per MCP server URL, shared by every tool of that server. Cheap to clone.
#[derive(Clone, Default)]
pub struct McpPool {
    inner: Arc<Inner>,
}

struct Inner {
    options: PoolOptions,
    servers: Mutex<HashMap<String, Arc<Slot>>>,
    // Credentials by URL prefix (an extension's base URL, a server's URL); never logged.
    credentials: Mutex<Vec<(String, Credential)>>,
    // The URL of each server that sent `notifications/tools/list_changed`.
    changes: broadcast::Sender<Url>,
}

impl Inner {
    fn new(options: PoolOptions) -> Self {
        Self {
            options,
            servers: Mutex::default(),
            credentials: Mutex::default(),
            // A subscriber that lags loses old URLs, and reads a `Lagged` it treats as
            // "something changed".
            changes: broadcast::channel(64).0,
        }
    }
}

impl Default for Inner {
    fn default() -> Self {
        Self::new(PoolOptions::default())
    }
}

enum Credential {
    Bearer(String),
    OAuth(Box<OAuthOptions>),
}

impl std::fmt::Debug for McpPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpPool")
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl McpPool {
    /// A pool with default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// A pool with `options`.
    pub fn with_options(options: PoolOptions) -> Self {
        Self {
            inner: Arc::new(Inner::new(options)),
        }
    }

    /// Sends `Authorization: Bearer <token>` to every MCP server whose URL starts with
    /// `prefix` (an extension's base URL), on connections made from now on.
    pub fn set_bearer_token(&self, prefix: &Url, token: &str) {
        self.set_credential(prefix, Credential::Bearer(token.to_owned()));
    }

    /// Signs in with OAuth (see [`crate::oauth`]) to every MCP server whose URL starts
    /// with `prefix` (an extension's base URL, or one server's URL) when it answers 401,
    /// on connections made from now on. Each server is its own protected resource; they
    /// share the options' token store.
    pub fn set_oauth(&self, prefix: &Url, options: OAuthOptions) {
        self.set_credential(prefix, Credential::OAuth(Box::new(options)));
    }

    fn set_credential(&self, prefix: &Url, credential: Credential) {
        let mut credentials = match self.inner.credentials.lock() {
            Ok(credentials) => credentials,
            Err(poisoned) => poisoned.into_inner(),
        };
        credentials.retain(|(p, _)| p != prefix.as_str());
        credentials.push((prefix.as_str().to_owned(), credential));
    }

    /// The server's authorization: the credential of the longest matching prefix.
    fn auth_for(&self, url: &Url) -> Option<Auth> {
        let credentials = match self.inner.credentials.lock() {
            Ok(credentials) => credentials,
            Err(poisoned) => poisoned.into_inner(),
        };
        let (_, credential) = credentials
            .iter()
            .filter(|(prefix, _)| url.as_str().starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())?;
        match credential {
            Credential::Bearer(token) => Some(Auth::Bearer(token.clone())),
            Credential::OAuth(options) => match SignIn::new(url, (**options).clone()) {
                Ok(sign_in) => Some(Auth::OAuth(sign_in)),
                Err(error) => {
                    tracing::warn!(%url, "no OAuth client: {error}");
                    None
                }
            },
        }
    }

    fn slot(&self, url: &Url) -> Arc<Slot> {
        let mut servers = match self.inner.servers.lock() {
            Ok(servers) => servers,
            Err(poisoned) => poisoned.into_inner(),
        };
        servers
            .entry(url.as_str().to_owned())
            .or_insert_with(|| {
                Arc::new(Slot::new(
                    url.clone(),
                    self.inner.options.clone(),
                    self.auth_for(url),
                    self.inner.changes.clone(),
                ))
            })
            .clone()
    }

    /// The server's tools, from the cache when it is still valid.
    pub async fn tools(&self, url: &Url) -> Result<Arc<[Tool]>> {
        self.slot(url).tools(false).await
    }

    /// The server's tools, listed again now.
    pub async fn refresh_tools(&self, url: &Url) -> Result<Arc<[Tool]>> {
        self.slot(url).tools(true).await
    }

    /// The tool named `name`: from the cached list, or, when it is not there, from a
    /// fresh `tools/list` (the server may have added it); `mcp_tool_not_found` otherwise.
    pub async fn find_tool(&self, url: &Url, name: &str) -> Result<Tool> {
        let slot = self.slot(url);
        if let Some(tool) = slot.tools(false).await?.iter().find(|t| t.name == name) {
            return Ok(tool.clone());
        }
        let tools = slot.tools(true).await?;
        tools.iter().find(|t| t.name == name).cloned().ok_or_else(|| {
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
            HostError::new(
                ErrorCode::McpToolNotFound,
                format!(
                    "MCP server {url} has no tool '{name}' (it lists: {})",
                    if names.is_empty() {
                        "nothing".to_owned()
                    } else {
                        names.join(", ")
                    }
                ),
            )
            .with_target(name)
        })
    }

    /// `tools/call`. A tool failure is an `Ok` result with `is_error: Some(true)`; an
    /// `Err` is a transport or protocol failure.
    pub async fn call(&self, url: &Url, name: &str, arguments: JsonObject) -> Result<CallToolResult> {
        self.call_raw(url, name, arguments, None)
            .await
            .map_err(Failure::into_error)
    }

    /// [`McpPool::call`] relayed: the server's progress and log messages during the call
    /// go to `relay.events`, and cancelling `relay.cancel` cancels the call at the server
    /// (`notifications/cancelled`). See [`Relay`] for how log messages are attributed.
    pub async fn call_relayed(
        &self,
        url: &Url,
        name: &str,
        arguments: JsonObject,
        relay: &Relay,
    ) -> Result<CallToolResult> {
        self.call_raw(url, name, arguments, Some(relay))
            .await
            .map_err(Failure::into_error)
    }

    pub(crate) async fn call_raw(
        &self,
        url: &Url,
        name: &str,
        arguments: JsonObject,
        relay: Option<&Relay>,
    ) -> Result<CallToolResult, Failure> {
        self.slot(url).call(name, arguments, relay).await
    }

    /// The URLs of servers that say their tools changed
    /// (`notifications/tools/list_changed`), from now on. Only servers the pool is
    /// connected to can say so.
    pub fn tool_changes(&self) -> broadcast::Receiver<Url> {
        self.inner.changes.subscribe()
    }

    /// The capabilities the server at `url` advertised in its `initialize` (or
    /// `server/discover`) result, connecting first when needed.
    pub async fn capabilities(&self, url: &Url) -> Result<ServerCapabilities> {
        self.slot(url).capabilities().await
    }

    /// `resources/list` (every page); `mcp_capability_missing` when the server does not
    /// advertise `resources`.
    pub async fn resources(&self, url: &Url) -> Result<Vec<Resource>> {
        self.slot(url).resources().await
    }

    /// `resources/templates/list` (every page); `mcp_capability_missing` when the server
    /// does not advertise `resources`.
    pub async fn resource_templates(&self, url: &Url) -> Result<Vec<ResourceTemplate>> {
        self.slot(url).resource_templates().await
    }

    /// `resources/read` of `uri`. An unknown URI is the server's JSON-RPC error (MCP:
    /// -32002), as `mcp_request_failed`.
    pub async fn read_resource(&self, url: &Url, uri: &str) -> Result<ReadResourceResult> {
        self.slot(url).read_resource(uri).await
    }

    /// `prompts/list` (every page); `mcp_capability_missing` when the server does not
    /// advertise `prompts`.
    pub async fn prompts(&self, url: &Url) -> Result<Vec<Prompt>> {
        self.slot(url).prompts().await
    }

    /// `prompts/get` of `name` with string `arguments`. An unknown prompt or a missing
    /// required argument is the server's JSON-RPC error (MCP: -32602), as
    /// `mcp_request_failed`.
    pub async fn get_prompt(&self, url: &Url, name: &str, arguments: JsonObject) -> Result<GetPromptResult> {
        self.slot(url).get_prompt(name, arguments).await
    }

    /// What the pool did for the server at `url`.
    pub fn stats(&self, url: &Url) -> PoolStats {
        let servers = match self.inner.servers.lock() {
            Ok(servers) => servers,
            Err(poisoned) => poisoned.into_inner(),
        };
        servers.get(url.as_str()).map(|s| s.stats()).unwrap_or_default()
    }

    /// Closes every connection (the next request reconnects).
    pub async fn close(&self) {
        let slots: Vec<Arc<Slot>> = match self.inner.servers.lock() {
            Ok(servers) => servers.values().cloned().collect(),
            Err(poisoned) => poisoned.into_inner().values().cloned().collect(),
        };
        for slot in slots {
            slot.close().await;
        }
    }
}
