//! What `js/oidc_provider.mjs` is started with: resource scopes, token lifetimes and the
//! pre-registered clients, serialised to the JSON object the script reads from
//! `AEP_OIDC_CONFIG` (an environment variable, so client secrets stay out of `ps`).

use std::time::Duration;

use serde_json::{Value, json};

/// The JWT access tokens' signing algorithm (the server always publishes both keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SigningAlg {
    /// RSA 2048, oidc-provider's default.
    #[default]
    Rs256,
    /// ECDSA P-256.
    Es256,
}

/// The configuration of one oidc-provider run. `Default`: scopes `mcp files:read
/// files:write tools:call`, access tokens for an hour, no pre-registered client, JWT
/// tokens for every resource, RS256.
#[derive(Debug, Clone)]
pub struct OidcOptions {
    /// The scopes a resource server grants (any resource URL is a resource server).
    pub scopes: Vec<String>,
    /// Lifetime of every access token (whole seconds; at least 1).
    pub access_token_ttl: Duration,
    /// Lifetime of refresh tokens (`None`: oidc-provider's 14 days).
    pub refresh_token_ttl: Option<Duration>,
    /// Clients that exist from the start.
    pub clients: Vec<OidcClient>,
    /// Resources whose tokens are opaque instead of JWTs: oidc-provider introspects only
    /// opaque tokens (it refuses a JWT at its introspection endpoint).
    pub opaque_resources: Vec<String>,
    /// The resource of a request that names none (`None`: such a token has no audience).
    pub default_resource: Option<String>,
    /// Refresh tokens for every client allowed the `refresh_token` grant, not only when
    /// `offline_access` was granted (oidc-provider's rule; MCP clients seldom ask for it).
    pub refresh_without_offline_access: bool,
    /// How JWT access tokens are signed.
    pub signing_alg: SigningAlg,
    /// The port to listen on (`None`: any free one). A fixed port is how a test restarts
    /// "the same" issuer with new keys.
    pub port: Option<u16>,
}

impl Default for OidcOptions {
    fn default() -> Self {
        Self {
            scopes: ["mcp", "files:read", "files:write", "tools:call"]
                .map(str::to_owned)
                .to_vec(),
            access_token_ttl: Duration::from_secs(3600),
            refresh_token_ttl: None,
            clients: Vec::new(),
            opaque_resources: Vec::new(),
            default_resource: None,
            refresh_without_offline_access: false,
            signing_alg: SigningAlg::Rs256,
            port: None,
        }
    }
}

impl OidcOptions {
    /// The JSON object `oidc_provider.mjs` reads.
    pub fn to_json(&self) -> Value {
        let seconds = |d: Duration| d.as_secs().max(1);
        json!({
            "scopes": self.scopes,
            "accessTokenTtl": seconds(self.access_token_ttl),
            "refreshTokenTtl": self.refresh_token_ttl.map(seconds),
            "clients": self.clients.iter().map(|c| &c.metadata).collect::<Vec<_>>(),
            "opaqueResources": self.opaque_resources,
            "defaultResource": self.default_resource,
            "refreshWithoutOfflineAccess": self.refresh_without_offline_access,
            "signingAlg": match self.signing_alg {
                SigningAlg::Rs256 => "RS256",
                SigningAlg::Es256 => "ES256",
            },
        })
    }
}

/// A client as oidc-provider knows it: its metadata (RFC 7591 names, `client_id` and
/// `client_secret` included). `Debug` leaves the secret out.
#[derive(Clone)]
pub struct OidcClient {
    /// The client metadata, snake_case.
    pub metadata: Value,
}

impl std::fmt::Debug for OidcClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcClient")
            .field("client_id", &self.id())
            .field("auth_method", &self.auth_method())
            .finish_non_exhaustive()
    }
}

impl OidcClient {
    /// A confidential client for the client credentials grant (`client_secret_basic`).
    pub fn client_credentials(id: &str, secret: &str) -> Self {
        Self::from_metadata(json!({
            "client_id": id,
            "client_secret": secret,
            "grant_types": ["client_credentials"],
            "response_types": [],
            "token_endpoint_auth_method": "client_secret_basic",
        }))
    }

    /// A resource server's client: no grant, only introspection (`client_secret_basic`).
    pub fn introspector(id: &str, secret: &str) -> Self {
        Self::from_metadata(json!({
            "client_id": id,
            "client_secret": secret,
            "grant_types": [],
            "response_types": [],
            "token_endpoint_auth_method": "client_secret_basic",
        }))
    }

    /// A public native client (no secret, PKCE required) for the authorization code and
    /// refresh grants, redirected to `redirect_uri`; any port of a loopback
    /// `redirect_uri` matches (RFC 8252 section 7.3).
    pub fn public_native(id: &str, redirect_uri: &str) -> Self {
        Self::from_metadata(json!({
            "client_id": id,
            "application_type": "native",
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }))
    }

    /// Any client metadata (a registration response, or one built by hand).
    pub fn from_metadata(metadata: Value) -> Self {
        Self { metadata }
    }

    /// `client_id`.
    pub fn id(&self) -> &str {
        self.metadata["client_id"].as_str().unwrap_or_default()
    }

    /// `client_secret`, when it has one.
    pub fn secret(&self) -> Option<&str> {
        self.metadata["client_secret"].as_str()
    }

    /// `token_endpoint_auth_method` (oidc-provider's default: `client_secret_basic`).
    pub fn auth_method(&self) -> &str {
        self.metadata["token_endpoint_auth_method"]
            .as_str()
            .unwrap_or("client_secret_basic")
    }

    /// The first registered `redirect_uris` entry.
    pub fn redirect_uri(&self) -> Option<&str> {
        self.metadata["redirect_uris"][0].as_str()
    }
}
