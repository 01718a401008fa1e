//! The gateway's one MCP server, `/mcp`: every extension's tool contributions (and the
//! direct Tool -> MCP sources), resolved by the host's [`Catalog`], as MCP tools.
//!
//! - `tools/list` resolves the catalog's enabled tools anew (manifests and tool lists
//!   come from the host's caches, so it costs no request once they are warm); tools
//!   whose extension or server is down are left out and logged. With no `[tools]` in the
//!   configuration, extensions that could not be reached at start are asked again here.
//! - `tools/call` goes through the host's pooled MCP sessions ([`call`]), relaying
//!   progress, log messages and cancellation.
//! - `notifications/tools/list_changed` from any server the gateway uses goes to every
//!   session that finished its handshake ([`Subscribers`]).

// MCP logging: rmcp deprecates it for the 2026-07-28 revision; 2025-11-25 clients use it.
#![allow(deprecated)]

mod call;
mod listing;

use std::sync::{Arc, Mutex, OnceLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult, LoggingLevel,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, SetLevelRequestParams, ToolsCapability,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;

use super::Gateway;
use listing::Listing;

/// The MCP endpoint's path.
pub(super) const PATH: &str = "/mcp";
/// The MCP server's id in the gateway's manifest.
pub(super) const SERVER_ID: &str = "tools";

/// What every session shares.
#[derive(Debug)]
pub(super) struct Shared {
    gateway: Gateway,
    /// The last listing, for calls (a name not in it lists again once).
    last: Mutex<Arc<Listing>>,
    subscribers: Subscribers,
}

impl Shared {
    pub(super) fn new(gateway: Gateway) -> Arc<Self> {
        Arc::new(Self {
            gateway,
            last: Mutex::default(),
            subscribers: Subscribers::default(),
        })
    }

    /// Lists anew (see the module's notes) and keeps the listing for calls.
    async fn list(&self) -> Arc<Listing> {
        let catalog = self.gateway.catalog();
        if self.gateway.discovers_tools() {
            let ids: Vec<String> = catalog.registry().entries().map(|e| e.id.clone()).collect();
            for id in ids {
                if let Err(error) = catalog.add_extension_tools(&id).await {
                    tracing::debug!(extension = %id, "tools not listed: {error}");
                }
            }
        }
        let resolved = catalog.resolve_enabled().await;
        for failure in &resolved.failures {
            tracing::warn!("tool left out of the gateway's list: {failure}");
        }
        let listing = Arc::new(Listing::new(resolved.tools));
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = listing.clone();
        listing
    }

    fn last(&self) -> Arc<Listing> {
        self.last.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// One MCP session of the gateway (made per session by the mount's factory).
#[derive(Debug)]
pub(super) struct Session {
    shared: Arc<Shared>,
    /// `logging/setLevel`; `info` until then.
    level: Mutex<LoggingLevel>,
}

impl Session {
    pub(super) fn new(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            level: Mutex::new(LoggingLevel::Info),
        }
    }

    fn level(&self) -> LoggingLevel {
        *self.level.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl ServerHandler for Session {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::default();
        let mut tools = ToolsCapability::default();
        tools.list_changed = Some(true);
        capabilities.tools = Some(tools);
        capabilities.logging = Some(serde_json::Map::new());
        let mut info = Implementation::new("aep-gateway", env!("CARGO_PKG_VERSION"));
        info.title = Some("AEP gateway".to_owned());
        ServerConfig::new(capabilities)
            .with_server_info(info)
            .with_instructions("The tools of the AEP extensions registered with this gateway.")
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.shared.subscribers.add(context.peer, &self.shared);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let listing = self.shared.list().await;
        Ok(ListToolsResult::with_all_items(listing.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let mut listing = self.shared.last();
        if listing.get(name).is_none() {
            // A client that calls without listing first, or a tool added since.
            listing = self.shared.list().await;
        }
        let Some(tool) = listing.get(name) else {
            return Err(call::unknown_tool(name));
        };
        let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
        let catalog = self.shared.gateway.catalog();
        // The caller's trace continues through the call to the owning server.
        let span = aep_sdk::telemetry::mcp_tool_call(&context, name);
        let forwarded = call::forward(catalog, tool, arguments, &context, self.level());
        let result = Ok(tracing::Instrument::instrument(forwarded, span.clone())
            .await
            .into());
        aep_sdk::telemetry::mcp_tool_call_finished(&span, &result);
        result
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        *self.level.lock().unwrap_or_else(|e| e.into_inner()) = request.level;
        Ok(())
    }
}

/// The sessions told when a server's tools change: one task, started with the first
/// session, reads the pool's changes and notifies every live session.
#[derive(Debug, Default)]
struct Subscribers {
    peers: Arc<Mutex<Vec<Peer<RoleServer>>>>,
    started: OnceLock<()>,
}

impl Subscribers {
    fn add(&self, peer: Peer<RoleServer>, shared: &Shared) {
        {
            let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
            peers.retain(|p| !p.is_transport_closed());
            peers.push(peer);
        }
        self.started.get_or_init(|| {
            let mut changes = shared.gateway.catalog().pool().tool_changes();
            let peers = Arc::downgrade(&self.peers);
            tokio::spawn(async move {
                loop {
                    match changes.recv().await {
                        // Lagged: some changes were missed; one notification covers them.
                        Ok(_) | Err(RecvError::Lagged(_)) => {}
                        Err(RecvError::Closed) => return,
                    }
                    // The gateway is gone once its subscriber list is.
                    let Some(peers) = peers.upgrade() else { return };
                    let live: Vec<Peer<RoleServer>> = {
                        let mut peers = peers.lock().unwrap_or_else(|e| e.into_inner());
                        peers.retain(|p| !p.is_transport_closed());
                        peers.clone()
                    };
                    for peer in live {
                        let _ = peer.notify_tool_list_changed().await;
                    }
                }
            });
        });
    }
}
