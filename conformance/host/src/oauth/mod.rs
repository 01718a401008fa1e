//! The host's OAuth 2.1 client (MCP authorization, 2025-11-25 and the 2025-03-26
//! fallbacks), used by the MCP pool and by the canonical AEP client alike: when a
//! protected resource answers 401, the host signs in and sends the request again.
//!
//! - [`discovery`]: protected resource metadata (RFC 9728: the challenge's
//!   `resource_metadata`, the path form, the root), authorization server metadata
//!   (RFC 8414 and OpenID Connect with path insertion), and the 2025-03-26 fallbacks;
//! - [`registration`]: a pre-registered client, a Client ID Metadata Document URL, or
//!   dynamic registration (RFC 7591), with `client_secret_basic`, `client_secret_post`
//!   or `none` at the token endpoint;
//! - authorization code with PKCE S256 ([`Authorize`]: a browser and a loopback
//!   listener, headless redirect following, or your own [`Visit`]), the RFC 8707
//!   `resource` in every authorization and token request, refresh tokens, and client
//!   credentials ([`Grant`]);
//! - scope: the options', else the challenge's, else `scopes_supported`, else none;
//!   step-up on 403 `insufficient_scope`, bounded ([`MAX_CHALLENGES`] per request, and
//!   never for scopes the token already has);
//! - [`TokenStore`]: tokens in memory, or in a file only its owner can read; tokens
//!   and secrets ([`Secret`]) are never printed or logged.
//! - behind a forwarding proxy ([`OAuthOptions::through_proxy`], the Inspector's
//!   recording proxy), the resource signed in to is the one the proxy stands for.
//!
//! Sign in with client credentials, or with the authorization code and a function of
//! your own that takes the authorization URL to the redirect:
//!
//! ```no_run
//! # async fn run() -> Result<(), aep_host::HostError> {
//! use aep_host::oauth::{Authorize, AuthorizationRequest, OAuthOptions, Secret, SignIn};
//! use url::Url;
//!
//! let mcp = Url::parse("http://127.0.0.1:8711/mcp").unwrap();
//! let machine = SignIn::new(&mcp, OAuthOptions::client_credentials("host", Secret::new("s3cret")))?;
//! let token = machine.sign_in(None).await?;
//!
//! let redirect = Url::parse("http://127.0.0.1:9/callback").unwrap();
//! let visit = |request: AuthorizationRequest| async move {
//!     // Log in through the server's pages here; return the URL it redirects to.
//!     aep_host::oauth::follow_redirects(&request, std::time::Duration::from_secs(10)).await
//! };
//! let person = SignIn::new(&mcp, OAuthOptions::authorization_code(Authorize::custom(redirect, visit)))?;
//! let token = person.sign_in(None).await?;
//! # Ok(()) }
//! ```

mod aep;
mod auth_method;
pub mod challenge;
mod code;
pub mod discovery;
mod listener;
pub mod metadata;
mod options;
mod pkce;
pub mod registration;
mod secret;
mod settings;
mod sign_in;
mod store;
mod token;
mod transport;
mod visit;

pub use aep_sdk::client::MAX_CHALLENGES;
pub use auth_method::AuthMethod;
pub use options::{CLIENT_NAME, Grant, OAuthOptions};
pub use secret::Secret;
pub use settings::OAuthSettings;
pub use sign_in::SignIn;
pub use store::{StoredClient, StoredToken, TokenStore};
pub use transport::OAuthHttpClient;
pub use visit::{AuthorizationRequest, Authorize, HEADLESS_REDIRECT_URI, Visit, follow_redirects};
