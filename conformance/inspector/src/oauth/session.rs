//! [`Session`]: one sign-in to one extension, from the first authorization request to
//! the tokens (kept in its token store) or the reason it failed; and what the page is
//! told about it ([`Session::describe`]), which never includes a token.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use aep_host::oauth::{AuthorizationRequest, Authorize, Grant, OAuthOptions};
use aep_sdk::protocol::ProtocolVersion;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use url::Url;

use crate::error::{ApiError, codes};

/// A resource signed in to.
#[derive(Debug, Clone, Serialize)]
pub struct Resource {
    /// Its identifier (RFC 8707): the extension's base URL, or an MCP server's URL.
    pub resource: String,
    /// What it is: `AEP routes`, or `MCP server <id>`.
    pub what: String,
    /// The scopes its token was granted.
    pub scopes: Vec<String>,
}

/// One trip through the authorization server's pages.
#[derive(Debug, Clone)]
pub struct Trip {
    /// 1 for the first resource, then one more per resource.
    pub number: usize,
    /// Where the browser goes: the authorization endpoint with every parameter.
    pub url: Url,
    /// The resource of this trip.
    pub resource: String,
    /// The authorization server.
    pub issuer: String,
    /// When the trip expires.
    pub deadline: Instant,
}

/// Where a sign-in is.
#[derive(Debug, Clone)]
pub enum Status {
    /// Discovery and registration, before the first trip.
    Starting,
    /// Waiting for the person to come back from a trip.
    Waiting(Trip),
    /// Back from a trip: exchanging the code, finding the next resource.
    Working,
    /// Every resource that asked for a token has one.
    SignedIn(Vec<Resource>),
    /// It ended without tokens.
    Failed(ApiError),
}

/// What a session's visits and its flow share: the status (watched by the callback and
/// the start), how many trips were made, and whether one expired.
#[derive(Debug)]
pub(crate) struct Progress {
    pub(crate) status: watch::Sender<Status>,
    trips: AtomicUsize,
    expired: AtomicBool,
}

impl Progress {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            status: watch::Sender::new(Status::Starting),
            trips: AtomicUsize::new(0),
            expired: AtomicBool::new(false),
        })
    }

    /// The next trip's number.
    pub(crate) fn next_trip(&self) -> usize {
        self.trips.fetch_add(1, Ordering::SeqCst) + 1
    }

    pub(crate) fn set_expired(&self) {
        self.expired.store(true, Ordering::SeqCst);
    }

    pub(crate) fn expired(&self) -> bool {
        self.expired.load(Ordering::SeqCst)
    }

    pub(crate) fn set(&self, status: Status) {
        self.status.send_replace(status);
    }
}

/// One sign-in. Shared behind an `Arc`.
#[derive(Debug)]
pub struct Session {
    /// The Inspector's id for it (`s1`, `s2`, ...).
    pub id: String,
    /// The extension's base URL.
    pub base: Url,
    /// The revision its manifest is read with.
    pub revision: ProtocolVersion,
    /// Sign-in options: the client, the scope, the visit through the page, and the token
    /// store holding this session's tokens (in memory).
    pub(crate) options: OAuthOptions,
    /// The Inspector's callback, registered and sent as `redirect_uri`.
    pub(crate) redirect_uri: Url,
    pub(crate) progress: Arc<Progress>,
    pub(crate) task: Mutex<Option<JoinHandle<()>>>,
}

impl Session {
    /// The current status.
    pub fn status(&self) -> Status {
        self.progress.status.borrow().clone()
    }

    /// Whether every resource has its token.
    pub fn signed_in(&self) -> bool {
        matches!(self.status(), Status::SignedIn(_))
    }

    /// The options a connection signs in with: this session's client and tokens, and a
    /// visit that refuses at once (a connection has no page to send a person to: a
    /// resource that wants a new sign-in, or more scope, is told to sign in again).
    pub fn connection_options(&self) -> OAuthOptions {
        let refuse = |request: AuthorizationRequest| async move {
            Err(aep_host::HostError::new(
                aep_host::ErrorCode::AuthorizationFailed,
                format!(
                    "{} asks for a new sign-in (its token was refused, or it needs more scope): \
                     sign out and sign in again",
                    request.resource
                ),
            ))
        };
        let mut options = self.options.clone();
        options.grant = Grant::AuthorizationCode(Authorize::custom(self.redirect_uri.clone(), refuse));
        options
    }

    /// Stops the flow (a visit still waiting is dropped) and says why.
    pub(crate) fn cancel(&self, why: &str) {
        if !matches!(self.status(), Status::SignedIn(_) | Status::Failed(_)) {
            self.progress.set(Status::Failed(ApiError::new(
                axum::http::StatusCode::CONFLICT,
                codes::SIGN_IN_CANCELLED,
                format!("the sign-in to {} was {why}", self.base),
            )));
        }
        if let Some(task) = self.task.lock().unwrap_or_else(|p| p.into_inner()).take() {
            task.abort();
        }
    }

    /// Forgets every token of this session.
    pub(crate) fn forget_tokens(&self) {
        if let Status::SignedIn(resources) = self.status() {
            for resource in resources {
                // A memory store: forgetting cannot fail on disk.
                let _ = self.options.store.forget(&resource.resource);
            }
        }
    }

    /// What the page is told: `{id, url, status, ...}` with `pending` (and the trip's
    /// `authorizationUrl`, `resource`, `issuer`, `trip`, `expiresInSeconds`),
    /// `signed_in` (`resources`) or `failed` (`error`). Never a token.
    pub fn describe(&self) -> Value {
        let mut out = json!({"id": self.id, "url": self.base.as_str(), "revision": self.revision.as_str()});
        match self.status() {
            Status::Starting => {
                out["status"] = json!("pending");
                out["step"] = json!("finding the authorization server");
            }
            Status::Working => {
                out["status"] = json!("pending");
                out["step"] = json!("exchanging the code, then the next resource");
            }
            Status::Waiting(trip) => {
                out["status"] = json!("pending");
                out["step"] = json!("waiting for you at the authorization server");
                out["trip"] = json!(trip.number);
                out["authorizationUrl"] = json!(trip.url.as_str());
                out["resource"] = json!(trip.resource);
                out["issuer"] = json!(trip.issuer);
                let left = trip.deadline.saturating_duration_since(Instant::now());
                out["expiresInSeconds"] = json!(left.as_secs());
            }
            Status::SignedIn(resources) => {
                out["status"] = json!("signed_in");
                out["resources"] = json!(resources);
            }
            Status::Failed(error) => {
                out["status"] = json!("failed");
                out["error"] = error.body()["error"].clone();
            }
        }
        out
    }
}
