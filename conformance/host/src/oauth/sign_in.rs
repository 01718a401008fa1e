//! [`SignIn`]: the OAuth 2.1 client of one protected resource. It hands out the current
//! access token (refreshing it when it has expired), and reacts to refusals: a 401 runs
//! discovery, client identification and the grant; a 403 `insufficient_scope` asks for
//! the union of the scopes held and those required (step-up), unless the token already
//! has them all, in which case signing in again would not help and it says so.

use std::sync::Arc;

use url::Url;

use super::challenge::{Challenge, split_scopes};
use super::code;
use super::discovery::{Discovery, canonical, discover, failed};
use super::options::{Grant, OAuthOptions, OFFLINE_ACCESS};
use super::registration;
use super::secret::Secret;
use super::store::StoredToken;
use super::token;
use super::visit::Authorize;
use crate::error::{HostError, Result};

/// A token this close to its expiry (seconds) counts as expired.
const EXPIRY_SKEW: u64 = 30;

/// Signs in to one protected resource (an MCP server's URL, an extension's base URL).
/// Cheap to clone; clones share the token.
#[derive(Clone)]
pub struct SignIn {
    inner: Arc<Inner>,
}

struct Inner {
    target: Url,
    options: OAuthOptions,
    http: reqwest::Client,
    // Held through a sign-in: concurrent refusals wait for it, then see the new token.
    state: tokio::sync::Mutex<State>,
    // Why the last reaction to a refusal failed (for the MCP pool's error message).
    failure: std::sync::Mutex<Option<HostError>>,
}

#[derive(Default)]
struct State {
    loaded: bool,
    token: Option<StoredToken>,
    // The scopes of the last authorization (the base of a step-up).
    requested: Vec<String>,
    // A refresh already answered a refusal; the next one needs a new authorization.
    refreshed_on_refusal: bool,
}

enum Effective<'a> {
    Code(&'a Authorize),
    ClientCredentials,
}

impl std::fmt::Debug for SignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignIn")
            .field("target", &self.inner.target.as_str())
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl SignIn {
    /// A client for the resource at `target` (behind a proxy: the resource it stands
    /// for, [`OAuthOptions::resource_of`]); nothing is sent yet.
    pub fn new(target: &Url, options: OAuthOptions) -> Result<Self> {
        let target = options.resource_of(target);
        let http = reqwest::Client::builder()
            .timeout(options.request_timeout)
            .connect_timeout(options.request_timeout)
            .redirect(reqwest::redirect::Policy::limited(3))
            .build()
            .map_err(|e| failed(format!("HTTP client: {e}")))?;
        Ok(Self {
            inner: Arc::new(Inner {
                target,
                options,
                http,
                state: tokio::sync::Mutex::default(),
                failure: std::sync::Mutex::default(),
            }),
        })
    }

    /// The protected resource.
    pub fn target(&self) -> &Url {
        &self.inner.target
    }

    /// The options.
    pub fn options(&self) -> &OAuthOptions {
        &self.inner.options
    }

    /// A bound on one sign-in, for callers that bound requests which may include one:
    /// discovery, registration and the token request (at most ten requests to the
    /// authorization server), plus the person's time in browser mode.
    pub fn bound(&self) -> std::time::Duration {
        let requests = self.inner.options.request_timeout * 10;
        match &self.inner.options.grant {
            Grant::AuthorizationCode(Authorize::Browser { timeout, .. }) => requests + *timeout,
            _ => requests,
        }
    }

    /// The access token to send now: the one in hand (or in the store), refreshed first
    /// when it has expired; `None` when there is none (the request goes without, and its
    /// 401 starts a sign-in).
    pub async fn access_token(&self) -> Option<Secret> {
        let mut state = self.inner.state.lock().await;
        self.load(&mut state);
        let token = state.token.as_ref()?;
        if !expired(token) {
            return Some(token.access_token.clone());
        }
        if token.refresh_token.is_some() {
            match self.refresh(&mut state).await {
                Ok(()) => return state.token.as_ref().map(|t| t.access_token.clone()),
                Err(error) => tracing::info!(target = %self.inner.target, "token refresh failed: {error}"),
            }
        }
        state.token = None;
        None
    }

    /// The scopes of the token in hand (granted, or asked for when the server did not say).
    pub async fn scopes(&self) -> Vec<String> {
        let mut state = self.inner.state.lock().await;
        self.load(&mut state);
        state.token.as_ref().map(|t| t.scopes.clone()).unwrap_or_default()
    }

    /// Signs in now, as after a 401 carrying `www_authenticate` (`None`: discovery from
    /// the well-known locations alone), and returns the new access token.
    pub async fn sign_in(&self, www_authenticate: Option<&str>) -> Result<Secret> {
        let challenge = www_authenticate.and_then(Challenge::parse);
        let mut state = self.inner.state.lock().await;
        self.authorize(&mut state, challenge.as_ref(), None).await?;
        Ok(state.token.as_ref().expect("signed in").access_token.clone())
    }

    /// Refreshes the token in hand now (it must have a refresh token).
    pub async fn refresh_now(&self) -> Result<Secret> {
        let mut state = self.inner.state.lock().await;
        self.load(&mut state);
        self.refresh(&mut state).await?;
        Ok(state.token.as_ref().expect("refreshed").access_token.clone())
    }

    /// Forgets the token, here and in the store.
    pub async fn sign_out(&self) -> Result<()> {
        let mut state = self.inner.state.lock().await;
        self.load(&mut state);
        if let Some(token) = state.token.take() {
            self.inner.options.store.forget(&token.resource)?;
        }
        Ok(())
    }

    /// A request carrying `sent` was refused with `status` (401, or 403 with
    /// `www_authenticate`). `Ok(())`: a new token is ready, send the request again.
    /// `Err`: why not (signing in failed, or would not help).
    pub async fn challenged(
        &self,
        status: u16,
        www_authenticate: Option<&str>,
        sent: Option<&str>,
    ) -> Result<()> {
        let outcome = self.react(status, www_authenticate, sent).await;
        if let Err(error) = &outcome {
            *lock(&self.inner.failure) = Some(error.clone());
        }
        outcome
    }

    /// Why the last [`Self::challenged`] failed, once.
    pub fn take_failure(&self) -> Option<HostError> {
        lock(&self.inner.failure).take()
    }

    async fn react(&self, status: u16, www_authenticate: Option<&str>, sent: Option<&str>) -> Result<()> {
        let mut state = self.inner.state.lock().await;
        self.load(&mut state);
        let current = state.token.as_ref().map(|t| t.access_token.expose());
        if current.is_some() && current != sent {
            // Another request signed in meanwhile.
            return Ok(());
        }
        let challenge = www_authenticate.and_then(Challenge::parse);
        let target = &self.inner.target;
        if status == 403 {
            let Some(challenge) = challenge.filter(Challenge::is_insufficient_scope) else {
                return Err(failed(format!(
                    "{target} refused the token (HTTP 403) without asking for more scope: \
                     signing in again would not help"
                )));
            };
            let mut held = state.requested.clone();
            for scope in state.token.iter().flat_map(|t| t.scopes.iter()) {
                if !held.contains(scope) {
                    held.push(scope.clone());
                }
            }
            let required = challenge.scopes();
            if state.token.is_some() && required.iter().all(|s| held.contains(s)) {
                return Err(failed(format!(
                    "{target} asks for scope '{}' (insufficient_scope), which the token already has: \
                     signing in again would not help",
                    required.join(" ")
                )));
            }
            for scope in required {
                if !held.contains(&scope) {
                    held.push(scope);
                }
            }
            return self.authorize(&mut state, Some(&challenge), Some(held)).await;
        }
        let refreshable = state.token.as_ref().is_some_and(|t| t.refresh_token.is_some());
        if sent.is_some() && refreshable && !state.refreshed_on_refusal {
            match self.refresh(&mut state).await {
                Ok(()) => {
                    state.refreshed_on_refusal = true;
                    return Ok(());
                }
                Err(error) => tracing::info!(%target, "token refresh failed, signing in again: {error}"),
            }
        }
        self.authorize(&mut state, challenge.as_ref(), None).await
    }

    fn load(&self, state: &mut State) {
        if state.loaded {
            return;
        }
        state.loaded = true;
        match self.inner.options.store.token(&canonical(&self.inner.target)) {
            Ok(token) => state.token = token,
            Err(error) => tracing::warn!("{error}"),
        }
    }

    async fn refresh(&self, state: &mut State) -> Result<()> {
        let Some(token) = state.token.clone() else {
            return Err(failed(format!("no token for {} to refresh", self.inner.target)));
        };
        let Some(refresh_token) = &token.refresh_token else {
            return Err(failed(format!(
                "the token for {} has no refresh token",
                self.inner.target
            )));
        };
        let form = vec![
            ("refresh_token", refresh_token.expose().to_owned()),
            ("resource", token.resource.clone()),
        ];
        let granted = token::request(
            &self.inner.http,
            &token.token_endpoint,
            &token.client,
            "refresh_token",
            form,
        )
        .await?;
        let scopes = granted.scopes.clone().unwrap_or_else(|| token.scopes.clone());
        let renewed = StoredToken {
            access_token: granted.access_token,
            // Servers may keep the refresh token (no rotation).
            refresh_token: granted.refresh_token.or(token.refresh_token.clone()),
            expires_at: granted.expires_at,
            scopes,
            ..token
        };
        self.keep(state, renewed);
        Ok(())
    }

    async fn authorize(
        &self,
        state: &mut State,
        challenge: Option<&Challenge>,
        scopes: Option<Vec<String>>,
    ) -> Result<()> {
        let inner = &self.inner;
        let options = &inner.options;
        let discovery = discover(&inner.http, &inner.target, challenge).await?;
        let mut scopes = scopes.unwrap_or_else(|| select_scopes(options, challenge, &discovery));
        let token_endpoint = discovery.metadata.token_endpoint.clone().ok_or_else(|| {
            failed(format!(
                "the authorization server {} names no token_endpoint",
                discovery.issuer
            ))
        })?;
        let (client, granted) = match effective_grant(options, &discovery)? {
            Effective::ClientCredentials => {
                let client = registration::preregistered(options, &discovery)?
                    .filter(|c| c.client_secret.is_some())
                    .ok_or_else(|| {
                        failed(
                            "client credentials need a pre-registered client id and secret \
                             (--oauth-client-id, --oauth-client-secret-file)"
                                .to_owned(),
                        )
                    })?;
                let mut form = vec![("resource", discovery.resource.clone())];
                if !scopes.is_empty() {
                    form.push(("scope", scopes.join(" ")));
                }
                let granted =
                    token::request(&inner.http, &token_endpoint, &client, "client_credentials", form).await?;
                (client, granted)
            }
            Effective::Code(authorize) => {
                let mut offered = discovery.metadata.scopes_supported.iter().flatten();
                if offered.any(|s| s == OFFLINE_ACCESS) && !scopes.iter().any(|s| s == OFFLINE_ACCESS) {
                    scopes.push(OFFLINE_ACCESS.to_owned());
                }
                code::grant(
                    &inner.http,
                    options,
                    authorize,
                    &discovery,
                    &token_endpoint,
                    &scopes,
                )
                .await?
            }
        };
        let token = StoredToken {
            access_token: granted.access_token,
            refresh_token: granted.refresh_token,
            expires_at: granted.expires_at,
            scopes: granted.scopes.unwrap_or_else(|| scopes.clone()),
            resource: discovery.resource.clone(),
            issuer: discovery.issuer.clone(),
            token_endpoint,
            client,
        };
        self.keep(state, token);
        state.requested = scopes;
        state.refreshed_on_refusal = false;
        Ok(())
    }

    fn keep(&self, state: &mut State, token: StoredToken) {
        // A store that cannot be written costs the next run a sign-in, not this one.
        if let Err(error) = self.inner.options.store.save_token(token.clone()) {
            tracing::warn!("{error}");
        }
        state.token = Some(token);
    }
}

fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

fn expired(token: &StoredToken) -> bool {
    token
        .expires_at
        .is_some_and(|at| at <= token::now().saturating_add(EXPIRY_SKEW))
}

/// The options' scope, else the challenge's, else the resource's `scopes_supported`,
/// else none (MCP authorization, scope selection strategy).
fn select_scopes(
    options: &OAuthOptions,
    challenge: Option<&Challenge>,
    discovery: &Discovery,
) -> Vec<String> {
    if let Some(scope) = &options.scope {
        return split_scopes(scope);
    }
    if let Some(scopes) = challenge.map(Challenge::scopes).filter(|s| !s.is_empty()) {
        return scopes;
    }
    discovery.resource_scopes.clone().unwrap_or_default()
}

/// The options' grant, except that an authorization server offering only client
/// credentials gets them when the options carry a client id and secret; one offering no
/// authorization code grant is not sent a doomed request.
fn effective_grant<'a>(options: &'a OAuthOptions, discovery: &Discovery) -> Result<Effective<'a>> {
    match &options.grant {
        Grant::ClientCredentials => Ok(Effective::ClientCredentials),
        Grant::AuthorizationCode(authorize) => {
            let metadata = &discovery.metadata;
            if metadata.supports_grant("authorization_code") {
                return Ok(Effective::Code(authorize));
            }
            if metadata.supports_grant("client_credentials")
                && options.client_id.is_some()
                && options.client_secret.is_some()
            {
                return Ok(Effective::ClientCredentials);
            }
            Err(failed(format!(
                "the authorization server {} offers no authorization_code grant (it offers: {}); \
                 for client credentials give a client id and secret (--oauth-client-id, \
                 --oauth-client-secret-file)",
                discovery.issuer,
                metadata
                    .grant_types_supported
                    .as_deref()
                    .unwrap_or_default()
                    .join(", ")
            )))
        }
    }
}
