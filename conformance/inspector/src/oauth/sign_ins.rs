//! [`SignIns`]: the sign-in sessions by id (one per extension: a new one replaces the
//! last), and the trips waiting for their redirect.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aep_host::oauth::{Authorize, OAuthOptions, Secret, TokenStore};
use axum::http::StatusCode;
use serde::Deserialize;
use url::Url;

use super::flow;
use super::session::{Progress, Session, Status};
use super::visit::{PageVisit, Visits};
use crate::error::{ApiError, codes};
use crate::limits::{REQUEST_TIMEOUT, SIGN_IN_STEP_TIMEOUT};
use crate::probe;
use crate::target::parse_target;

/// The name the Inspector registers under (dynamic client registration).
const CLIENT_NAME: &str = "AEP Inspector";

/// What the page sends to start a sign-in.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StartRequest {
    /// The extension's base URL.
    pub url: String,
    /// `"2026-08-01"` (default) or `"1.0"`: the revision its manifest is read with.
    #[serde(default)]
    pub revision: Option<String>,
    /// A pre-registered client id (blank: dynamic registration).
    #[serde(default)]
    pub client_id: Option<String>,
    /// That client's secret, if it has one (kept server-side, never answered).
    #[serde(default)]
    pub client_secret: Option<String>,
    /// The scope to ask for (blank: the extension's).
    #[serde(default)]
    pub scope: Option<String>,
}

fn given(value: &Option<String>) -> Option<String> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

/// The sign-ins.
#[derive(Debug, Default)]
pub struct SignIns {
    next: AtomicU64,
    sessions: Mutex<BTreeMap<String, Arc<Session>>>,
    visits: Arc<Visits>,
}

impl SignIns {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<Session>>> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts signing in to `request.url`, redirecting to `redirect_uri`, each trip
    /// bounded by `bound`. Answers once the first trip's URL is known (bounded by
    /// [`SIGN_IN_STEP_TIMEOUT`]), or with why it cannot start (the authorization server
    /// is down, refuses the registration, ...). Once started, it replaces the earlier
    /// sign-ins to the same extension (ended, their tokens forgotten): answers their ids
    /// too, for the caller to close their connections.
    pub async fn start(
        &self,
        request: &StartRequest,
        redirect_uri: Url,
        bound: Duration,
    ) -> Result<(Arc<Session>, Vec<String>), ApiError> {
        let (base, revision) = parse_target(&request.url, request.revision.as_deref())?;
        let id = format!("s{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let progress = Progress::new();
        let visit = PageVisit {
            session: id.clone(),
            progress: progress.clone(),
            visits: self.visits.clone(),
            // The host bounds a visit by ten of its request bounds: ours ends first, saying why.
            bound: bound.min(REQUEST_TIMEOUT * 9),
        };
        let session = Arc::new(Session {
            id: id.clone(),
            base,
            revision,
            options: options(request, Authorize::custom(redirect_uri.clone(), visit)),
            redirect_uri,
            progress: progress.clone(),
            task: Mutex::default(),
        });
        let challenge = base_challenge(&session).await;
        self.lock().insert(id.clone(), session.clone());
        let mut watch = progress.status.subscribe();
        let task = tokio::spawn(flow::run(session.clone(), challenge));
        *session.task.lock().unwrap_or_else(|p| p.into_inner()) = Some(task);
        let started = tokio::time::timeout(
            SIGN_IN_STEP_TIMEOUT,
            watch.wait_for(|s| !matches!(s, Status::Starting)),
        )
        .await;
        let failure = match started {
            Ok(Ok(status)) => match &*status {
                Status::Failed(error) => Some(error.clone()),
                _ => None,
            },
            Ok(Err(_)) => Some(ApiError::bad_request("the sign-in ended before it started")),
            Err(_) => Some(ApiError::upstream(
                codes::TIMED_OUT,
                format!(
                    "signing in to {}: the authorization server was not found and ready within {} s",
                    session.base,
                    SIGN_IN_STEP_TIMEOUT.as_secs()
                ),
            )),
        };
        if let Some(error) = failure {
            if let Some(session) = self.lock().remove(&id) {
                self.end(&session, "abandoned");
            }
            return Err(error);
        }
        let replaced = self.replace(&session);
        Ok((session, replaced))
    }

    /// Ends the other sessions of `session`'s extension; their ids.
    fn replace(&self, session: &Session) -> Vec<String> {
        let old: Vec<Arc<Session>> = {
            let mut sessions = self.lock();
            let ids: Vec<String> = sessions
                .values()
                .filter(|s| s.base == session.base && s.id != session.id)
                .map(|s| s.id.clone())
                .collect();
            ids.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        for old in &old {
            self.end(old, "replaced by a new sign-in");
        }
        old.iter().map(|s| s.id.clone()).collect()
    }

    /// The session `id`, or `sign_in_not_found`.
    pub fn get(&self, id: &str) -> Result<Arc<Session>, ApiError> {
        self.lock().get(id).cloned().ok_or_else(|| not_found(id))
    }

    /// The signed-in session of the extension at `base`, if there is one.
    pub fn signed_in_for(&self, base: &Url) -> Option<Arc<Session>> {
        self.lock()
            .values()
            .find(|s| &s.base == base && s.signed_in())
            .cloned()
    }

    /// Signs out of session `id`: its flow stops, its tokens are forgotten. The caller
    /// closes the connections that use it.
    pub fn sign_out(&self, id: &str) -> Result<Arc<Session>, ApiError> {
        let session = self.lock().remove(id).ok_or_else(|| not_found(id))?;
        self.end(&session, "signed out of");
        Ok(session)
    }

    /// The trips waiting for their redirect.
    pub(crate) fn visits(&self) -> &Visits {
        &self.visits
    }

    fn end(&self, session: &Session, why: &str) {
        session.forget_tokens();
        session.cancel(why);
        self.visits.forget_session(&session.id);
    }
}

/// The options of a sign-in through `authorize`: the client given (else dynamic
/// registration as [`CLIENT_NAME`]), the scope given, tokens in memory.
fn options(request: &StartRequest, authorize: Authorize) -> OAuthOptions {
    let mut options = OAuthOptions::authorization_code(authorize).with_store(TokenStore::memory());
    options.client_name = CLIENT_NAME.to_owned();
    options.request_timeout = REQUEST_TIMEOUT;
    if let Some(client_id) = given(&request.client_id) {
        options = options.with_client(client_id, given(&request.client_secret).map(Secret::new));
    }
    if let Some(scope) = given(&request.scope) {
        options = options.with_scope(scope);
    }
    options
}

/// The `WWW-Authenticate` the extension's discovery route answers without a token.
async fn base_challenge(session: &Session) -> Option<String> {
    let http = reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .ok()?;
    let url = probe::join(&session.base, session.revision.discovery_path());
    let response = http.get(url).send().await.ok()?;
    flow::challenge_of(&response)
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        codes::SIGN_IN_NOT_FOUND,
        format!("no sign-in '{id}': it was signed out of or replaced; sign in again"),
    )
}
