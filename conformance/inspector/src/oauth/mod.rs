//! Signing in to an extension that is an OAuth 2.1 protected resource: the Inspector is
//! the OAuth client, with a redirect of its own (`GET /oauth/callback` on its origin).
//!
//! The host's client ([`aep_host::oauth::SignIn`]) does the protocol: discovery (the 401's
//! `resource_metadata`, RFC 9728 and 8414), a configured client id or dynamic
//! registration (the exact callback URI), PKCE S256, `state`, the `resource` indicator
//! (RFC 8707), the code's exchange. The Inspector supplies the visit (`visit.rs`): it gives
//! the page the authorization URL to open in a popup and waits, bounded, for the
//! authorization server to send the browser back to [`crate::callback`]. One [`Session`] signs in
//! to the AEP routes first, then reads the manifest and signs in to each MCP server that
//! asks for a token, each its own resource and token, one registration for all
//! (`flow.rs`); the popup is sent from one trip to the next. Tokens stay in the session's
//! memory token store: the page only ever sees the sign-in's state and the scopes.
//! [`SignIns`] keeps the sessions; a connection to a signed-in extension uses its tokens,
//! and signing out forgets them and closes those connections.

mod flow;
mod session;
mod sign_ins;
mod visit;

pub use session::{Resource, Session, Status, Trip};
pub use sign_ins::{SignIns, StartRequest};
