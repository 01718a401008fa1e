//! The rmcp client handler of a pooled connection: it turns
//! `notifications/tools/list_changed` into a new tool-list generation (and tells the
//! pool's subscribers) and answers
//! `elicitation/create` by the pool's [`ElicitationPolicy`] (without one it declares no
//! `elicitation` capability and rmcp declines). Progress and log messages are relayed
//! before the handler, as the transport receives them ([`relay_in_wire_order`]), where
//! their order is still the server's.

// Logging: deprecated by rmcp for the 2026-07-28 revision, relayed for 2025-11-25 clients.
#![allow(deprecated)]

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, Implementation,
    JsonRpcMessage, ServerNotification,
};
use rmcp::service::{MaybeSendFuture, NotificationContext, RequestContext, RoleClient, RxJsonRpcMessage};
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

/// What the connection's transport ([`aep_sdk::client::WireOrder`]) shows each message
/// from the server at `url` to: progress and log messages go to the relayed calls in the
/// order the server sent them (rmcp runs its handlers on tasks of their own, in no fixed
/// order), and before the call's answer that followed them.
pub(crate) fn relay_in_wire_order(
    signals: Arc<Signals>,
    url: Url,
) -> impl FnMut(&RxJsonRpcMessage<RoleClient>) + Send + 'static {
    move |message| {
        let JsonRpcMessage::Notification(notification) = message else {
            return;
        };
        match &notification.notification {
            ServerNotification::ProgressNotification(n) => signals.relays.progress(&n.params),
            ServerNotification::LoggingMessageNotification(n) => {
                let received = signals.relays.log(&n.params);
                if received == 0 {
                    tracing::debug!(%url, level = ?n.params.level, "MCP log message with no relayed call in flight");
                }
            }
            _ => {}
        }
    }
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
