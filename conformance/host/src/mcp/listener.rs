//! The rmcp client handler of a pooled connection: it turns
//! `notifications/tools/list_changed` into a new tool-list generation (and tells the
//! pool's subscribers), relays progress and log messages to relayed calls
//! ([`super::relay`]), and answers
//! `elicitation/create` by the pool's [`ElicitationPolicy`] (without one it declares no
//! `elicitation` capability and rmcp declines).

// Logging: deprecated by rmcp for the 2026-07-28 revision, relayed for 2025-11-25 clients.
#![allow(deprecated)]

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, Implementation,
    LoggingMessageNotificationParam, ProgressNotificationParam,
};
use rmcp::service::{MaybeSendFuture, NotificationContext, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData};
use tokio::sync::broadcast;
use url::Url;

use super::ElicitationPolicy;
use super::relay::Relays;

/// Shared between a server's slot and its connection's handler.
#[derive(Debug, Default)]
pub(crate) struct Signals {
    /// Bumped whenever the cached `tools/list` must not be trusted any more.
    pub(crate) generation: AtomicU64,
    /// `notifications/tools/list_changed` received.
    pub(crate) list_changed: AtomicU64,
    /// `elicitation/create` requests answered by the policy.
    pub(crate) elicitations: AtomicU64,
    /// The relayed calls in flight on the connection.
    pub(crate) relays: Relays,
}

pub(crate) struct Listener {
    pub(crate) signals: Arc<Signals>,
    pub(crate) info: ClientConfig,
    elicitation: Option<ElicitationPolicy>,
    /// The server's URL, sent to the pool's subscribers when its tools change.
    url: Url,
    changes: broadcast::Sender<Url>,
}

impl Listener {
    pub(crate) fn new(
        signals: Arc<Signals>,
        protocol: rmcp::model::ProtocolVersion,
        elicitation: Option<ElicitationPolicy>,
        url: Url,
        changes: broadcast::Sender<Url>,
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
            url,
            changes,
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
        tracing::debug!(url = %self.url, "MCP server says its tool list changed");
        // No subscriber is no error.
        let _ = self.changes.send(self.url.clone());
        std::future::ready(())
    }

    fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.signals.relays.progress(&params);
        std::future::ready(())
    }

    fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        if self.signals.relays.log(&params) == 0 {
            tracing::debug!(url = %self.url, level = ?params.level, "MCP log message with no relayed call in flight");
        }
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
