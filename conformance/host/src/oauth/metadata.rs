//! The metadata documents discovery reads: protected resource metadata (RFC 9728) and
//! authorization server metadata (RFC 8414, OpenID Connect Discovery). Unknown members
//! are ignored.

use serde::Deserialize;
use url::Url;

/// `/.well-known/oauth-protected-resource` (RFC 9728 section 2).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ResourceMetadata {
    /// The resource identifier (required by RFC 9728).
    #[serde(default)]
    pub resource: Option<String>,
    /// Issuer identifiers of the authorization servers that hand out its tokens.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// The scopes the resource knows (the client's fallback for scope selection).
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
}

/// Authorization server metadata (RFC 8414 section 2; an OpenID provider's
/// configuration has the same members).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ServerMetadata {
    /// The issuer identifier.
    #[serde(default)]
    pub issuer: Option<String>,
    /// Where a person authorizes (authorization code grant).
    #[serde(default)]
    pub authorization_endpoint: Option<Url>,
    /// Where codes, refresh tokens and client credentials become tokens.
    #[serde(default)]
    pub token_endpoint: Option<Url>,
    /// Dynamic client registration (RFC 7591).
    #[serde(default)]
    pub registration_endpoint: Option<Url>,
    /// Scopes the server knows.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// `client_secret_basic`, `client_secret_post`, `none`, ... (RFC 8414: basic when absent).
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// PKCE methods; the client needs `S256`.
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Grant types (RFC 8414: `authorization_code` and `implicit` when absent).
    #[serde(default)]
    pub grant_types_supported: Option<Vec<String>>,
    /// Whether a URL may be the client id (Client ID Metadata Documents).
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// Whether the authorization response carries `iss` (RFC 9207).
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
}

impl ServerMetadata {
    /// The 2025-03-26 fallback for a server without metadata: `/authorize`, `/token`
    /// and `/register` at the root of `base`.
    pub fn defaults(base: &Url) -> Self {
        let at = |path: &str| base.join(path).ok();
        Self {
            authorization_endpoint: at("/authorize"),
            token_endpoint: at("/token"),
            registration_endpoint: at("/register"),
            ..Self::default()
        }
    }

    /// Whether the server says it supports `grant` (RFC 8414 defaults when silent).
    pub fn supports_grant(&self, grant: &str) -> bool {
        match &self.grant_types_supported {
            Some(grants) => grants.iter().any(|g| g == grant),
            None => matches!(grant, "authorization_code" | "implicit"),
        }
    }
}
