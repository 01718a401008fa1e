//! [`OAuthOptions`]: how the host signs in to one protected resource (an extension's AEP
//! routes, an MCP server): who the client is, which grant, which scope, where tokens go.

use std::fmt;
use std::time::Duration;

use url::Url;

use super::secret::Secret;
use super::store::TokenStore;
use super::visit::Authorize;

/// The name the host registers under (dynamic client registration).
pub const CLIENT_NAME: &str = "aep-host";

/// The scope a client asks for when it wants a refresh token (SEP-2207), added when the
/// authorization server lists it.
pub(crate) const OFFLINE_ACCESS: &str = "offline_access";

/// How the host gets tokens.
#[derive(Clone, Debug)]
pub enum Grant {
    /// Authorization code with PKCE: a person (or [`Authorize::Headless`], or your own
    /// [`Visit`](super::Visit)) goes through the authorization endpoint. When the
    /// authorization server offers only `client_credentials` and the options carry a
    /// client id and secret, that grant is used instead.
    AuthorizationCode(Authorize),
    /// Client credentials (machine to machine): needs a pre-registered client id and
    /// secret ([`OAuthOptions::client_credentials`]).
    ClientCredentials,
}

/// Sign-in settings; cheap to clone (the token store is shared by clones).
#[derive(Clone)]
pub struct OAuthOptions {
    /// A pre-registered client id. Without one: a Client ID Metadata Document URL when
    /// the server supports them and [`Self::client_metadata_url`] is set, else dynamic
    /// client registration (RFC 7591).
    pub client_id: Option<String>,
    /// The pre-registered client's secret (then `client_secret_basic` or
    /// `client_secret_post`, as the server's metadata allows).
    pub client_secret: Option<Secret>,
    /// This client's metadata document URL, used as its client id where supported.
    pub client_metadata_url: Option<Url>,
    /// The client name sent with dynamic registration (default [`CLIENT_NAME`]).
    pub client_name: String,
    /// The scope to ask for (space-separated). Without: the challenge's `scope`, else the
    /// resource metadata's `scopes_supported`, else none.
    pub scope: Option<String>,
    /// The grant.
    pub grant: Grant,
    /// Where tokens (and dynamically registered clients) are kept.
    pub store: TokenStore,
    /// Bound on each request to the authorization server and for metadata (default 10 s).
    pub request_timeout: Duration,
    /// Requests reach the resources through a forwarding proxy (the AEP Inspector's
    /// recording proxy): a URL under the first base stands for the resource at the same
    /// place under the second, and that resource is the one signed in to (discovery, the
    /// `resource` indicator, the token store), so its tokens are the ones it accepts.
    /// Default: none ([`Self::through_proxy`]).
    pub proxied: Option<(Url, Url)>,
}

impl fmt::Debug for OAuthOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The secret's own Debug is redacted; said again here for the reader.
        f.debug_struct("OAuthOptions")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret)
            .field(
                "client_metadata_url",
                &self.client_metadata_url.as_ref().map(Url::as_str),
            )
            .field("scope", &self.scope)
            .field("grant", &self.grant)
            .field("store", &self.store)
            .field(
                "proxied",
                &self.proxied.as_ref().map(|(p, r)| (p.as_str(), r.as_str())),
            )
            .finish_non_exhaustive()
    }
}

impl OAuthOptions {
    /// Authorization code with PKCE through `authorize`, tokens in memory.
    pub fn authorization_code(authorize: Authorize) -> Self {
        Self {
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            client_name: CLIENT_NAME.to_owned(),
            scope: None,
            grant: Grant::AuthorizationCode(authorize),
            store: TokenStore::memory(),
            request_timeout: Duration::from_secs(10),
            proxied: None,
        }
    }

    /// Client credentials with a pre-registered client, tokens in memory.
    pub fn client_credentials(client_id: impl Into<String>, client_secret: Secret) -> Self {
        Self {
            grant: Grant::ClientCredentials,
            ..Self::authorization_code(Authorize::headless())
        }
        .with_client(client_id, Some(client_secret))
    }

    /// A pre-registered client.
    pub fn with_client(mut self, client_id: impl Into<String>, client_secret: Option<Secret>) -> Self {
        self.client_id = Some(client_id.into());
        self.client_secret = client_secret;
        self
    }

    /// The scope to ask for (space-separated).
    pub fn with_scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = Some(scope.into());
        self
    }

    /// This client's metadata document URL (Client ID Metadata Documents).
    pub fn with_client_metadata_url(mut self, url: Url) -> Self {
        self.client_metadata_url = Some(url);
        self
    }

    /// Where tokens are kept.
    pub fn with_store(mut self, store: TokenStore) -> Self {
        self.store = store;
        self
    }

    /// Requests go through a proxy whose base `proxy` stands for `resource` (see
    /// [`Self::proxied`]).
    pub fn through_proxy(mut self, proxy: Url, resource: Url) -> Self {
        self.proxied = Some((proxy, resource));
        self
    }

    /// The protected resource that requests to `url` reach: `url` itself, or, under the
    /// [`Self::proxied`] base, the same place under the resource's base.
    pub fn resource_of(&self, url: &Url) -> Url {
        let Some((proxy, resource)) = &self.proxied else {
            return url.clone();
        };
        let proxy = proxy.as_str().trim_end_matches('/');
        let mapped = url
            .as_str()
            .strip_prefix(proxy)
            .filter(|rest| rest.is_empty() || rest.starts_with(['/', '?']))
            .and_then(|rest| Url::parse(&format!("{}{rest}", resource.as_str().trim_end_matches('/'))).ok());
        mapped.unwrap_or_else(|| url.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxied_url_stands_for_the_resource_at_the_same_place() {
        let url = |s: &str| Url::parse(s).unwrap();
        let options = OAuthOptions::authorization_code(Authorize::headless())
            .through_proxy(url("http://127.0.0.1:1/_p/"), url("http://127.0.0.1:2/"));
        let of = |s: &str| options.resource_of(&url(s)).to_string();
        assert_eq!(of("http://127.0.0.1:1/_p/mcp"), "http://127.0.0.1:2/mcp");
        assert_eq!(of("http://127.0.0.1:1/_p/"), "http://127.0.0.1:2/");
        // Not under the proxy's base: as it is.
        assert_eq!(of("http://127.0.0.1:1/_px/mcp"), "http://127.0.0.1:1/_px/mcp");
        assert_eq!(of("http://127.0.0.1:3/mcp"), "http://127.0.0.1:3/mcp");
    }
}
