//! The rmcp client handler of a pooled connection: it answers nothing, and turns
//! `notifications/tools/list_changed` into a new tool-list generation.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::ClientHandler;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{MaybeSendFuture, NotificationContext, RoleClient};

/// Shared between a server's slot and its connection's handler.
#[derive(Debug, Default)]
pub(crate) struct Signals {
    /// Bumped whenever the cached `tools/list` must not be trusted any more.
    pub(crate) generation: AtomicU64,
    /// `notifications/tools/list_changed` received.
    pub(crate) list_changed: AtomicU64,
}

pub(crate) struct Listener {
    pub(crate) signals: Arc<Signals>,
    pub(crate) info: ClientConfig,
}

impl Listener {
    pub(crate) fn new(signals: Arc<Signals>, protocol: rmcp::model::ProtocolVersion) -> Self {
        let implementation = Implementation::new("aep-host", env!("CARGO_PKG_VERSION"));
        let info =
            ClientConfig::new(ClientCapabilities::default(), implementation).with_protocol_version(protocol);
        Self { signals, info }
    }
}

impl ClientHandler for Listener {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.signals.list_changed.fetch_add(1, Ordering::SeqCst);
        self.signals.generation.fetch_add(1, Ordering::SeqCst);
        tracing::debug!("MCP server says its tool list changed");
        std::future::ready(())
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}
