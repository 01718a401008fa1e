//! Static bearer tokens: each accepted under a configured identity.

use std::fmt;
use std::sync::Arc;

use subtle::ConstantTimeEq;

use crate::caller::Caller;

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

/// One accepted token: the caller it stands for, and its bytes.
type Token = (Caller, Box<[u8]>);

impl fmt::Debug for BearerAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let identities: Vec<&str> = self.tokens.iter().map(|(caller, _)| caller.identity()).collect();
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
        tokens.push((Caller::new(identity.into()), token.into().into_bytes().into()));
        self.tokens = tokens.into();
        self
    }

    /// Leaves the two discovery routes public (the rest still needs the token).
    pub fn public_discovery(mut self, public: bool) -> Self {
        self.public_discovery = public;
        self
    }

    pub(crate) fn discovery_is_public(&self) -> bool {
        self.public_discovery
    }

    /// The caller `presented` stands for, if it is one of the tokens.
    pub(crate) fn caller_for(&self, presented: &[u8]) -> Option<Caller> {
        // Every token is compared, so the time taken does not say which one matched;
        // constant time for equal lengths (the length is not secret enough to hide).
        let mut caller = None;
        for (candidate, token) in self.tokens.iter() {
            if bool::from(presented.ct_eq(token)) && caller.is_none() {
                caller = Some(candidate.clone());
            }
        }
        caller
    }
}
