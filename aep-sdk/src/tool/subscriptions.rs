//! [`Subscriptions`]: clients subscribe to resources (`resources/subscribe`), the
//! extension says when one changed, and each subscribed session gets
//! `notifications/resources/updated`.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{Peer, RoleServer};

/// The URIs one MCP session subscribed to.
pub(crate) type SessionSubscriptions = Arc<Mutex<HashSet<String>>>;

/// A session that subscribed to something, and what.
type Subscriber = (Peer<RoleServer>, SessionSubscriptions);

/// A handle that tells subscribed clients a resource changed.
///
/// Give one to the servers (`#[aep_extension(subscriptions = field)]` or
/// [`ToolServer::subscriptions`](super::ToolServer::subscriptions)) and keep a clone:
/// the servers then advertise `resources.subscribe`, accept `resources/subscribe` and
/// `resources/unsubscribe` for URIs they serve, and [`Subscriptions::updated`] notifies
/// every session subscribed to a URI.
///
/// ```
/// use aep_sdk::tool::Subscriptions;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let subscriptions = Subscriptions::new();
/// // Nobody subscribed yet: nobody to tell.
/// assert_eq!(subscriptions.updated("notes://1").await, 0);
/// # });
/// ```
#[derive(Debug, Clone, Default)]
pub struct Subscriptions {
    sessions: Arc<Mutex<Vec<Subscriber>>>,
}

impl Subscriptions {
    /// A handle with no subscribers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sends `notifications/resources/updated` for `uri` to every session subscribed to
    /// it; returns how many were told.
    pub async fn updated(&self, uri: &str) -> usize {
        let subscribed: Vec<Peer<RoleServer>> = {
            let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
            sessions.retain(|(peer, _)| !peer.is_transport_closed());
            sessions
                .iter()
                .filter(|(_, uris)| uris.lock().unwrap_or_else(|e| e.into_inner()).contains(uri))
                .map(|(peer, _)| peer.clone())
                .collect()
        };
        let mut told = 0;
        for peer in subscribed {
            let param = ResourceUpdatedNotificationParam::new(uri);
            if peer.notify_resource_updated(param).await.is_ok() {
                told += 1;
            }
        }
        told
    }

    /// Remembers a session's subscriptions (once, at its first subscribe).
    pub(crate) fn register(&self, peer: Peer<RoleServer>, uris: &SessionSubscriptions) {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|(peer, _)| !peer.is_transport_closed());
        if !sessions.iter().any(|(_, known)| Arc::ptr_eq(known, uris)) {
            sessions.push((peer, uris.clone()));
        }
    }
}
