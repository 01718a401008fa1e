//! The visit through the page: the host's OAuth client hands over each authorization
//! request; the page is given its URL (the session's status), and the redirect that comes
//! back to the Inspector's callback with the same `state` is handed back, or, past the
//! bound, the trip expires.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aep_host::oauth::{AuthorizationRequest, Visit};
use aep_host::{ErrorCode, HostError};
use futures::future::BoxFuture;
use tokio::sync::oneshot;
use url::Url;

use super::session::{Progress, Status, Trip};

/// A trip waiting for its redirect.
pub(crate) struct Waiter {
    /// The session it belongs to.
    pub(crate) session: String,
    /// Its number in the session.
    pub(crate) trip: usize,
    /// The redirect URI it was sent with.
    pub(crate) redirect_uri: Url,
    /// The session's progress (the callback watches it for the next step).
    pub(crate) progress: Arc<Progress>,
    back: oneshot::Sender<Url>,
}

impl Waiter {
    /// Hands the redirect to the host's client, which checks it and exchanges the code.
    pub(crate) fn deliver(self, redirect: Url) {
        self.progress.set(Status::Working);
        let _ = self.back.send(redirect);
    }
}

/// The trips waiting for their redirect, by `state`.
#[derive(Default)]
pub(crate) struct Visits(Mutex<HashMap<String, Waiter>>);

impl std::fmt::Debug for Visits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The states are the redirects' keys: not shown.
        f.write_str("Visits")
    }
}

impl Visits {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Waiter>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The trip waiting for the redirect carrying `state`, taken (a state serves once).
    pub(crate) fn take(&self, state: &str) -> Option<Waiter> {
        self.lock().remove(state)
    }

    /// Drops the trips of session `id` (signed out, replaced).
    pub(crate) fn forget_session(&self, id: &str) {
        self.lock().retain(|_, waiter| waiter.session != id);
    }
}

/// The [`Visit`] of one session: registers the trip, shows it to the page, waits.
pub(crate) struct PageVisit {
    pub(crate) session: String,
    pub(crate) progress: Arc<Progress>,
    pub(crate) visits: Arc<Visits>,
    pub(crate) bound: Duration,
}

fn failed(message: String) -> HostError {
    HostError::new(ErrorCode::AuthorizationFailed, message)
}

impl Visit for PageVisit {
    fn visit(&self, request: AuthorizationRequest) -> BoxFuture<'static, aep_host::error::Result<Url>> {
        let state = request
            .url
            .query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        let (back, came_back) = oneshot::channel();
        let trip = self.progress.next_trip();
        self.visits.lock().insert(
            state.clone(),
            Waiter {
                session: self.session.clone(),
                trip,
                redirect_uri: request.redirect_uri.clone(),
                progress: self.progress.clone(),
                back,
            },
        );
        self.progress.set(Status::Waiting(Trip {
            number: trip,
            url: request.url.clone(),
            resource: request.resource.clone(),
            issuer: request.issuer.clone(),
            deadline: Instant::now() + self.bound,
        }));
        let (visits, progress, bound) = (self.visits.clone(), self.progress.clone(), self.bound);
        Box::pin(async move {
            match tokio::time::timeout(bound, came_back).await {
                Ok(Ok(redirect)) => Ok(redirect),
                Ok(Err(_)) => Err(failed(format!("the sign-in to {} was dropped", request.resource))),
                Err(_) => {
                    visits.take(&state);
                    progress.set_expired();
                    Err(failed(format!(
                        "nobody came back from the authorization server {} within {} s to sign in to {}: \
                         the sign-in expired, start it again",
                        request.issuer,
                        bound.as_secs(),
                        request.resource
                    )))
                }
            }
        })
    }
}
