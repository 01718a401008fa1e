//! [`OAuth`]: what the resource server accepts, as configured.

use std::fmt;
use std::time::Duration;

/// Accept OAuth 2.1 access tokens from trusted authorization servers on every route
/// (the extension becomes a resource server, as the MCP authorization specification
/// asks of an MCP server).
///
/// - Each issuer's metadata (RFC 8414, else OpenID Connect Discovery) and keys (JWKS)
///   are fetched when first needed and cached; HTTPS is required except for loopback
///   issuers, and metadata naming another issuer is refused.
/// - JWT access tokens (RFC 9068) are verified locally: an asymmetric algorithm
///   (RS/PS 256-512, ES256, ES384, EdDSA; never `none` or HMAC), `iss` a configured
///   issuer, `aud` the resource requested, `exp`/`nbf` with [`OAuth::leeway`]. Opaque
///   tokens are introspected (RFC 7662) when [`OAuth::introspection`] is set.
/// - Each MCP endpoint is its own resource (its canonical URL, e.g.
///   `https://ext.example/mcp`); the AEP routes' resource is the public base URL
///   ([`OAuth::public_url`]). Protected resource metadata (RFC 9728) is served for each
///   at `/.well-known/oauth-protected-resource[/<mcp path>]`, and a 401 names it.
/// - Verified tokens are cached by digest until they expire.
///
/// A static [`BearerAuth`](crate::server::BearerAuth) token keeps working beside it.
///
/// ```
/// use std::time::Duration;
/// use aep_sdk::server::{Extension, OAuth};
///
/// let oauth = OAuth::issuer("https://login.example.com/realms/agents")
///     .public_url("https://tools.example.com")
///     .leeway(Duration::from_secs(30));
/// let built = Extension::builder("acme.tools", "Tools", "1.0.0")
///     .oauth(oauth)
///     .build();
/// # #[cfg(feature = "oauth")]
/// let extension = built.unwrap();
/// # #[cfg(feature = "oauth")]
/// # let _ = extension;
/// # #[cfg(not(feature = "oauth"))]
/// # assert!(built.err().unwrap().to_string().contains("oauth"), "without the feature, build() names it");
/// ```
#[derive(Clone)]
pub struct OAuth {
    pub(crate) issuers: Vec<String>,
    pub(crate) public_url: Option<String>,
    pub(crate) audiences: Vec<String>,
    pub(crate) leeway: Duration,
    pub(crate) introspection: Option<(String, String)>,
    pub(crate) introspection_endpoint: Option<String>,
    pub(crate) fetch_timeout: Duration,
    pub(crate) key_refetch_interval: Duration,
    pub(crate) resource_name: Option<String>,
    pub(crate) public_discovery: bool,
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("issuers", &self.issuers)
            .field("public_url", &self.public_url)
            .field("audiences", &self.audiences)
            .field("leeway", &self.leeway)
            .field(
                "introspection_client",
                &self.introspection.as_ref().map(|(id, _)| id),
            )
            .field("introspection_endpoint", &self.introspection_endpoint)
            .field("fetch_timeout", &self.fetch_timeout)
            .finish_non_exhaustive()
    }
}

impl Default for OAuth {
    fn default() -> Self {
        Self {
            issuers: Vec::new(),
            public_url: None,
            audiences: Vec::new(),
            leeway: Duration::from_secs(60),
            introspection: None,
            introspection_endpoint: None,
            fetch_timeout: Duration::from_secs(5),
            key_refetch_interval: Duration::from_secs(30),
            resource_name: None,
            public_discovery: false,
        }
    }
}

impl OAuth {
    /// Trusts tokens of `issuer` (its issuer identifier, e.g.
    /// `https://login.example.com`).
    pub fn issuer(issuer: impl Into<String>) -> Self {
        Self::default().also_issuer(issuer)
    }

    /// Trusts tokens of one more issuer.
    pub fn also_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuers.push(issuer.into());
        self
    }

    /// The external base URL clients use (behind a proxy, say); resource identifiers
    /// are derived from it. Default: the address the extension listens on.
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into());
        self
    }

    /// Also accepts tokens whose `aud` names `audience` (on every resource).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// Clock skew allowed on `exp` and `nbf` (default 60 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Introspects opaque tokens (RFC 7662) as client `client_id` with `client_secret`
    /// (HTTP Basic), at the first issuer's `introspection_endpoint` unless
    /// [`OAuth::introspection_endpoint`] names one.
    pub fn introspection(mut self, client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        self.introspection = Some((client_id.into(), client_secret.into()));
        self
    }

    /// The introspection endpoint, when the metadata does not name it.
    pub fn introspection_endpoint(mut self, url: impl Into<String>) -> Self {
        self.introspection_endpoint = Some(url.into());
        self
    }

    /// Bound on each request to an authorization server (default 5 s).
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch_timeout = timeout;
        self
    }

    /// How often a token signed with an unknown key may make the key set be fetched
    /// again (default 30 s).
    pub fn key_refetch_interval(mut self, interval: Duration) -> Self {
        self.key_refetch_interval = interval;
        self
    }

    /// Leaves the two discovery routes public (the rest still needs a token).
    pub fn public_discovery(mut self, public: bool) -> Self {
        self.public_discovery = public;
        self
    }

    /// `resource_name` of the protected resource metadata (default: the extension's name).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }
}
