//! Optional bearer-token authentication for every AEP and MCP route.

use std::fmt;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use subtle::ConstantTimeEq;

use crate::AepError;
use crate::caller::Caller;
use crate::error::codes;
use crate::protocol::ProtocolVersion;

/// The bearer tokens a request may carry (`Authorization: Bearer <token>`), each under
/// the identity a request presenting it is accepted as.
///
/// A token is compared in constant time, never logged, never put in the manifest or in
/// an error message; a missing or wrong token gets the same 401 AEP error. An accepted
/// request carries its [`Caller`] (the identity, never the token) to providers and tools.
///
/// ```
/// use aep_sdk::server::BearerAuth;
///
/// let auth = BearerAuth::named("ci", "s3cret").token("alice", "0ther");
/// assert!(!format!("{auth:?}").contains("s3cret"));
/// ```
#[derive(Clone)]
pub struct BearerAuth {
    tokens: Arc<[Token]>,
    public_discovery: bool,
}

/// One accepted token: the caller identity it stands for, and its bytes.
type Token = (Arc<str>, Box<[u8]>);

impl fmt::Debug for BearerAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let identities: Vec<&str> = self.tokens.iter().map(|(name, _)| &**name).collect();
        f.debug_struct("BearerAuth")
            .field("identities", &identities)
            .field("public_discovery", &self.public_discovery)
            .finish()
    }
}

impl BearerAuth {
    /// Requires `token` on every route, discovery included; its caller identity is
    /// `bearer`.
    pub fn new(token: impl Into<String>) -> Self {
        Self::named("bearer", token)
    }

    /// Requires `token`, accepted as caller `identity`.
    pub fn named(identity: &str, token: impl Into<String>) -> Self {
        Self {
            tokens: Arc::new([]),
            public_discovery: false,
        }
        .token(identity, token)
    }

    /// Also accepts `token`, as caller `identity`.
    pub fn token(mut self, identity: &str, token: impl Into<String>) -> Self {
        let mut tokens = self.tokens.to_vec();
        tokens.push((identity.into(), token.into().into_bytes().into()));
        self.tokens = tokens.into();
        self
    }

    /// Leaves the two discovery routes public (the rest still needs the token).
    pub fn public_discovery(mut self, public: bool) -> Self {
        self.public_discovery = public;
        self
    }

    /// Whether `request` may pass, and as whom (`None` for public discovery).
    fn accepts(&self, request: &Request) -> Option<Option<Caller>> {
        let presented = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|value| value.as_bytes().strip_prefix(b"Bearer "));
        // Every token is compared, so the time taken does not say which one matched;
        // constant time for equal lengths (the length is not secret enough to hide).
        let mut caller = None;
        if let Some(presented) = presented {
            for (identity, token) in self.tokens.iter() {
                if bool::from(presented.ct_eq(token)) && caller.is_none() {
                    caller = Some(Caller::new(identity.clone()));
                }
            }
        }
        if caller.is_some() {
            return Some(caller);
        }
        let public = self.public_discovery
            && ProtocolVersion::ALL
                .iter()
                .any(|v| v.discovery_path() == request.uri().path());
        public.then_some(None)
    }
}

pub(crate) async fn require(State(auth): State<BearerAuth>, mut request: Request, next: Next) -> Response {
    if let Some(caller) = auth.accepts(&request) {
        if let Some(caller) = caller {
            request.extensions_mut().insert(caller);
        }
        return next.run(request).await;
    }
    let error = AepError::new(
        StatusCode::UNAUTHORIZED,
        codes::UNAUTHORIZED,
        "missing or invalid bearer token",
    );
    let mut response = error.into_response();
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}
