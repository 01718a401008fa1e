//! [`ToolSwitch`]: turns tools off and on while the server runs, and tells connected
//! clients (`notifications/tools/list_changed`).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, RwLock};

use rmcp::service::{Peer, RoleServer};

/// A handle that enables and disables tools at run time.
///
/// Give one to the tool servers (`#[aep_extension(tool_switch = field)]`, or
/// [`ToolServer::switch`](super::ToolServer::switch)) and keep a clone: a disabled tool
/// leaves `tools/list` and its calls are refused, and every connected MCP session gets
/// `notifications/tools/list_changed` when the set changes. Servers with a switch
/// advertise `tools.listChanged`. Names are MCP tool names, on every server sharing it.
///
/// ```
/// use aep_sdk::tool::ToolSwitch;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let switch = ToolSwitch::new().starting_disabled(["admin_reset"]);
/// assert!(!switch.is_enabled("admin_reset"));
/// assert!(switch.enable("admin_reset").await);
/// assert!(!switch.enable("admin_reset").await); // already on: nothing changes
/// # });
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolSwitch {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    disabled: RwLock<HashSet<String>>,
    sessions: Mutex<Vec<Peer<RoleServer>>>,
}

impl ToolSwitch {
    /// A switch with every tool enabled.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same switch with `names` disabled from the start (no notification).
    pub fn starting_disabled<'a>(self, names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut disabled = self.inner.disabled.write().unwrap_or_else(|e| e.into_inner());
        disabled.extend(names.into_iter().map(str::to_owned));
        drop(disabled);
        self
    }

    /// Whether tool `name` is enabled.
    pub fn is_enabled(&self, name: &str) -> bool {
        !self
            .inner
            .disabled
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains(name)
    }

    /// Enables tool `name`; if that changed anything, notifies every connected session.
    /// Returns whether it changed.
    pub async fn enable(&self, name: &str) -> bool {
        let changed = self
            .inner
            .disabled
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(name);
        self.changed(changed).await
    }

    /// Disables tool `name`; if that changed anything, notifies every connected session.
    /// Returns whether it changed.
    pub async fn disable(&self, name: &str) -> bool {
        let changed = self
            .inner
            .disabled
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_owned());
        self.changed(changed).await
    }

    async fn changed(&self, changed: bool) -> bool {
        if changed {
            for peer in self.live_sessions() {
                // A session that went away meanwhile just misses it.
                let _ = peer.notify_tool_list_changed().await;
            }
        }
        changed
    }

    /// Remembers a session that finished its handshake, to notify it later.
    pub(crate) fn subscribe(&self, peer: Peer<RoleServer>) {
        let mut sessions = self.inner.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|p| !p.is_transport_closed());
        sessions.push(peer);
    }

    fn live_sessions(&self) -> Vec<Peer<RoleServer>> {
        let mut sessions = self.inner.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|p| !p.is_transport_closed());
        sessions.clone()
    }
}
