//! [`Caller`]: who the server's authentication accepted for a request.

use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;

/// The claims of an OAuth access token (or of its introspection answer), as JSON.
pub type Claims = serde_json::Map<String, serde_json::Value>;

/// The identity a request was accepted as, never the credential itself.
///
/// - With a static bearer token ([`BearerAuth`](crate::server::BearerAuth)): the name the
///   token is registered under; it carries no scopes and passes every scope check (an
///   operator's credential).
/// - With an OAuth access token ([`OAuth`](crate::server::OAuth)): the token's subject,
///   client id, issuer, scopes and claims.
///
/// A provider reads it from
/// [`RequestContext::caller`](crate::server::RequestContext::caller), a tool, resource
/// or prompt from [`ToolContext::caller`](crate::tool::ToolContext::caller); both are
/// `None` when the server requires no credential. Its `Debug` shows no claim value.
#[derive(Clone, PartialEq, Eq)]
pub struct Caller {
    inner: Arc<Inner>,
}

#[derive(PartialEq, Eq)]
struct Inner {
    identity: Arc<str>,
    token: Option<TokenFacts>,
}

/// What an OAuth access token says about its bearer.
#[derive(PartialEq, Eq)]
pub(crate) struct TokenFacts {
    pub(crate) issuer: String,
    pub(crate) subject: Option<String>,
    pub(crate) client_id: Option<String>,
    pub(crate) scopes: Vec<String>,
    pub(crate) claims: Claims,
}

impl Caller {
    /// A caller known by a configured name (a static bearer token's identity).
    pub(crate) fn new(identity: Arc<str>) -> Self {
        Self {
            inner: Arc::new(Inner {
                identity,
                token: None,
            }),
        }
    }

    /// The bearer of a validated OAuth access token. Its identity is the subject, else
    /// the client id (a client-credentials token may have no subject of its own).
    #[cfg(feature = "oauth")]
    pub(crate) fn from_token(facts: TokenFacts) -> Self {
        let identity = facts
            .subject
            .as_deref()
            .or(facts.client_id.as_deref())
            .unwrap_or("anonymous")
            .into();
        Self {
            inner: Arc::new(Inner {
                identity,
                token: Some(facts),
            }),
        }
    }

    /// The identity's name: a static token's configured name, or an OAuth token's
    /// subject (else its client id).
    pub fn identity(&self) -> &str {
        &self.inner.identity
    }

    /// Whether the caller presented an OAuth access token (rather than a static token).
    pub fn is_oauth(&self) -> bool {
        self.inner.token.is_some()
    }

    /// The token's issuer (`iss`), for OAuth callers.
    pub fn issuer(&self) -> Option<&str> {
        self.inner.token.as_ref().map(|t| t.issuer.as_str())
    }

    /// The token's subject (`sub`), for OAuth callers that have one.
    pub fn subject(&self) -> Option<&str> {
        self.inner.token.as_ref()?.subject.as_deref()
    }

    /// The OAuth client the token was issued to (`client_id`, else `azp`).
    pub fn client_id(&self) -> Option<&str> {
        self.inner.token.as_ref()?.client_id.as_deref()
    }

    /// The token's scopes (from `scope` or `scp`); empty for static tokens.
    pub fn scopes(&self) -> &[String] {
        self.inner.token.as_ref().map_or(&[], |t| t.scopes.as_slice())
    }

    /// Whether the caller may do what `scope` allows: an OAuth token must grant it; a
    /// static token allows everything.
    pub fn has_scope(&self, scope: &str) -> bool {
        match &self.inner.token {
            Some(token) => token.scopes.iter().any(|s| s == scope),
            None => true,
        }
    }

    /// Every claim of the token (of its introspection answer for opaque tokens); empty
    /// for static tokens.
    pub fn claims(&self) -> &Claims {
        static EMPTY: std::sync::OnceLock<Claims> = std::sync::OnceLock::new();
        match &self.inner.token {
            Some(token) => &token.claims,
            None => EMPTY.get_or_init(Claims::new),
        }
    }

    /// Claim `name` as a `T`: `Ok(None)` when absent, an error when it has another shape.
    ///
    /// ```
    /// # fn demo(caller: &aep_sdk::caller::Caller) -> Result<(), serde_json::Error> {
    /// let tenant: Option<String> = caller.claim("tenant")?;
    /// # let _ = tenant; Ok(()) }
    /// ```
    pub fn claim<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>, serde_json::Error> {
        self.claims()
            .get(name)
            .map(|value| T::deserialize(value))
            .transpose()
    }

    /// All claims as one typed struct (e.g. your own `#[derive(Deserialize)]` with the
    /// claims you use).
    pub fn claims_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        T::deserialize(serde_json::Value::Object(self.claims().clone()))
    }
}

impl fmt::Debug for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner.token {
            // Claim values (the subject among them) are personal data: none in logs.
            Some(token) => f
                .debug_struct("Caller")
                .field("oauth", &true)
                .field("scopes", &token.scopes.len())
                .finish_non_exhaustive(),
            None => f.debug_tuple("Caller").field(&self.inner.identity).finish(),
        }
    }
}

impl fmt::Display for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.inner.identity)
    }
}
