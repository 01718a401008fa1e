//! Who may call the extension: static bearer tokens ([`BearerAuth`]), OAuth 2.1 access
//! tokens from trusted authorization servers ([`OAuth`]), or both; and which scopes each
//! request needs ([`McpScopes`](crate::tool::McpScopes), provider and default scopes).
//!
//! One middleware checks every AEP and MCP route. A request is accepted with a
//! [`Caller`] in its extensions (never its token: the `Authorization` header is removed
//! before any handler sees it, so no provider can pass it upstream), or refused:
//!
//! - 401 with `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` (plus
//!   `error="invalid_token"` and a description when a token was sent);
//! - 403 `insufficient_scope` naming the scopes to ask for, before the handler runs
//!   (on MCP endpoints, once the request body says which tool, resource or prompt);
//! - 503 `authorization_unavailable` when a token cannot be checked because its
//!   authorization server cannot be reached.
//!
//! The bodies are AEP errors, or JSON-RPC errors on MCP endpoints. The protected
//! resource metadata documents need no token. No token or claim value is logged.

mod bearer;
mod challenge;
mod oauth;
mod scopes;
// The OAuth resource server (feature `oauth`): it fetches issuer metadata, keys and
// introspection answers and checks JWTs.
#[cfg(feature = "oauth")]
mod fetch;
#[cfg(feature = "oauth")]
mod introspect;
#[cfg(feature = "oauth")]
mod issuer;
#[cfg(feature = "oauth")]
mod jwt;
#[cfg(feature = "oauth")]
mod metadata;
#[cfg(feature = "oauth")]
mod resource_server;
#[cfg(feature = "oauth")]
mod token;

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderMap, header};

pub use bearer::BearerAuth;
use challenge::Family;
pub use oauth::OAuth;
#[cfg(feature = "oauth")]
use resource_server::ResourceServer;
pub(crate) use scopes::ScopePolicy;
use scopes::missing;
#[cfg(feature = "oauth")]
use token::Refusal;

use crate::Error;
use crate::caller::Caller;
use crate::protocol::ProtocolVersion;

/// The checks of one router.
#[derive(Clone)]
pub(crate) struct Gate {
    bearer: Option<BearerAuth>,
    #[cfg(feature = "oauth")]
    oauth: Option<Arc<ResourceServer>>,
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    scopes: Arc<ScopePolicy>,
    mcp_paths: Arc<[String]>,
    public_discovery: bool,
    /// Routes that need no credential (health probes).
    public_paths: Arc<[String]>,
}

impl Gate {
    /// The gate for these settings; `None` when the extension requires no credential.
    /// `public` is the base URL resources are named after unless `oauth` names one.
    pub(crate) fn new(
        bearer: Option<&BearerAuth>,
        oauth: Option<&OAuth>,
        scopes: ScopePolicy,
        mcp_paths: Vec<String>,
        public_paths: &[String],
        public: &str,
        name: &str,
    ) -> Result<Option<Self>, Error> {
        if bearer.is_none() && oauth.is_none() {
            return Ok(None);
        }
        #[cfg(feature = "oauth")]
        let server = oauth
            .map(|o| ResourceServer::new(o, public, &mcp_paths, name))
            .transpose()?;
        #[cfg(not(feature = "oauth"))]
        if oauth.is_some() {
            let _ = (public, name);
            return Err(Error::Config(
                "OAuth access tokens need aep-sdk's `oauth` feature: add `features = [\"oauth\"]` to the aep-sdk dependency".into(),
            ));
        }
        let public_discovery =
            bearer.is_some_and(BearerAuth::discovery_is_public) || oauth.is_some_and(|o| o.public_discovery);
        Ok(Some(Self {
            bearer: bearer.cloned(),
            #[cfg(feature = "oauth")]
            oauth: server,
            scopes: Arc::new(scopes),
            mcp_paths: mcp_paths.into(),
            public_discovery,
            public_paths: public_paths.into(),
        }))
    }

    /// A gate that refuses every request.
    pub(crate) fn closed() -> Self {
        Self {
            bearer: None,
            #[cfg(feature = "oauth")]
            oauth: None,
            scopes: Arc::default(),
            mcp_paths: Arc::new([]),
            public_discovery: false,
            public_paths: Arc::new([]),
        }
    }

    /// The protected resource metadata routes (with OAuth only).
    pub(crate) fn metadata_routes(&self) -> Option<Router> {
        #[cfg(feature = "oauth")]
        return self
            .oauth
            .as_ref()
            .map(|server| metadata::routes(server, &self.scopes));
        #[cfg(not(feature = "oauth"))]
        None
    }

    fn family(&self, path: &str) -> Family {
        if self.mcp_paths.iter().any(|p| p == path) {
            Family::Mcp
        } else {
            Family::Aep
        }
    }
}

/// The token of `Authorization: Bearer <token>` (the scheme without case, RFC 7235).
fn bearer_token(headers: &HeaderMap) -> Option<&[u8]> {
    let value = headers.get(header::AUTHORIZATION)?.as_bytes();
    let (scheme, token) = value.split_at_checked(7)?;
    scheme.eq_ignore_ascii_case(b"bearer ").then_some(token)
}

/// The request goes on as `caller`, without its credential.
async fn accept(mut request: Request, caller: Caller, next: Next) -> Response {
    request.headers_mut().remove(header::AUTHORIZATION);
    request.extensions_mut().insert(caller);
    next.run(request).await
}

pub(crate) async fn require(State(gate): State<Gate>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if gate.public_paths.iter().any(|p| p == path) {
        return next.run(request).await;
    }
    let family = gate.family(path);
    let token = bearer_token(request.headers());
    if let (Some(bearer), Some(token)) = (&gate.bearer, token)
        && let Some(caller) = bearer.caller_for(token)
    {
        return accept(request, caller, next).await;
    }
    #[cfg(feature = "oauth")]
    if let Some(server) = &gate.oauth {
        return require_oauth(&gate, server, family, request, next).await;
    }
    if gate.public_discovery && is_discovery(path) {
        return next.run(request).await;
    }
    challenge::unauthorized(family, None, &[], None)
}

/// The OAuth half of [`require`]: a token no static bearer token matched.
#[cfg(feature = "oauth")]
async fn require_oauth(
    gate: &Gate,
    server: &ResourceServer,
    family: Family,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    let token = bearer_token(request.headers());
    if path.starts_with(resource_server::WELL_KNOWN) || (gate.public_discovery && is_discovery(path)) {
        return next.run(request).await;
    }
    let resource = server.resource_for(path);
    let needed = match family {
        Family::Aep => gate.scopes.for_aep(path),
        // A POST's needs depend on its body, read by the MCP mount; the challenge
        // names the default.
        Family::Mcp => &gate.scopes.default,
    };
    let Some(token) = token else {
        return challenge::unauthorized(family, Some(&resource.metadata_url), needed, None);
    };
    let token = token.trim_ascii();
    if token.is_empty() {
        let reason = "the Authorization header holds no token";
        return challenge::unauthorized(family, Some(&resource.metadata_url), needed, Some(reason));
    }
    let caller = match server.authenticate(token, resource).await {
        Ok(caller) => caller,
        Err(Refusal::Invalid(reason)) => {
            tracing::debug!(%path, "refused an access token");
            return challenge::unauthorized(family, Some(&resource.metadata_url), needed, Some(&reason));
        }
        Err(Refusal::Unavailable(reason)) => return challenge::unavailable(family, &reason),
    };
    let mut request = request;
    if family == Family::Mcp && request.method() == http::Method::POST {
        if gate.scopes.restricts() {
            request.extensions_mut().insert(McpScopeCheck {
                caller: caller.clone(),
                scopes: gate.scopes.clone(),
                metadata_url: resource.metadata_url.clone().into(),
            });
        }
    } else {
        let lacking = missing(&caller, needed);
        if !lacking.is_empty() {
            let ask = union(caller.scopes(), needed);
            return challenge::insufficient_scope(family, &resource.metadata_url, &ask, &lacking);
        }
    }
    accept(request, caller, next).await
}

fn is_discovery(path: &str) -> bool {
    ProtocolVersion::ALL.iter().any(|v| v.discovery_path() == path)
}

/// `granted` then what of `needed` is not in it: what a client steps up to, losing
/// nothing it had (the MCP specification's recommended approach).
fn union(granted: &[String], needed: &[String]) -> Vec<String> {
    let mut all = granted.to_vec();
    all.extend(needed.iter().filter(|s| !granted.contains(s)).cloned());
    all
}

/// The scope check of one MCP POST, done by the mount once the body is read (the
/// middleware cannot see which tool a request calls).
#[derive(Clone)]
pub(crate) struct McpScopeCheck {
    caller: Caller,
    scopes: Arc<ScopePolicy>,
    metadata_url: Arc<str>,
}

impl McpScopeCheck {
    /// The 403 to answer when the caller lacks a scope `body` needs at `path`.
    pub(crate) fn refusal(&self, path: &str, body: &[u8]) -> Option<Response> {
        let needed = self.scopes.for_mcp(path, body);
        let lacking = missing(&self.caller, &needed);
        if lacking.is_empty() {
            return None;
        }
        let ask = union(self.caller.scopes(), &needed);
        Some(challenge::insufficient_scope(
            Family::Mcp,
            &self.metadata_url,
            &ask,
            &lacking,
        ))
    }
}
