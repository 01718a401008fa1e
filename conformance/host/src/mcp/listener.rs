//! The rmcp client handler of a pooled connection: it turns
//! `notifications/tools/list_changed` into a new tool-list generation, and answers
//! `elicitation/create` by the pool's [`ElicitationPolicy`] (without one it declares no
//! `elicitation` capability and rmcp declines).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, Implementation,
};
use rmcp::service::{MaybeSendFuture, NotificationContext, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData};

use super::ElicitationPolicy;

/// Shared between a server's slot and its connection's handler.
#[derive(Debug, Default)]
pub(crate) struct Signals {
    /// Bumped whenever the cached `tools/list` must not be trusted any more.
    pub(crate) generation: AtomicU64,
    /// `notifications/tools/list_changed` received.
    pub(crate) list_changed: AtomicU64,
    /// `elicitation/create` requests answered by the policy.
    pub(crate) elicitations: AtomicU64,
}

pub(crate) struct Listener {
    pub(crate) signals: Arc<Signals>,
    pub(crate) info: ClientConfig,
    elicitation: Option<ElicitationPolicy>,
}

impl Listener {
    pub(crate) fn new(
        signals: Arc<Signals>,
        protocol: rmcp::model::ProtocolVersion,
        elicitation: Option<ElicitationPolicy>,
    ) -> Self {
        let implementation = Implementation::new("aep-host", env!("CARGO_PKG_VERSION"));
        let mut capabilities = ClientCapabilities::default();
        if let Some(policy) = elicitation {
            policy.declare(&mut capabilities);
        }
        let info = ClientConfig::new(capabilities, implementation).with_protocol_version(protocol);
        Self {
            signals,
            info,
            elicitation,
        }
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

    fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> impl Future<Output = Result<ElicitResult, ErrorData>> + MaybeSendFuture + '_ {
        let answer = match self.elicitation {
            Some(policy) => {
                self.signals.elicitations.fetch_add(1, Ordering::SeqCst);
                policy.answer(&request)
            }
            // What rmcp's default handler answers; the capability was not declared.
            None => ElicitResult::new(ElicitationAction::Decline),
        };
        tracing::debug!(action = ?answer.action, "answered an MCP elicitation");
        std::future::ready(Ok(answer))
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}
