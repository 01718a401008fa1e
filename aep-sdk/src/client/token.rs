//! A per-request source of bearer tokens for the [`Client`](super::Client): the hook an
//! OAuth 2.1 client plugs into. The client asks the source for a token before every
//! request and tells it when a request is refused (401, or 403 with a `WWW-Authenticate`
//! challenge); when the source says a new token is ready, the request goes out once
//! more, at most [`MAX_CHALLENGES`] times per call.

use std::fmt;

use futures::future::BoxFuture;
use http::StatusCode;

/// Bound on the refusals one call reacts to (sign in, step up, ...), so that a server
/// that never accepts a token cannot keep the client signing in.
pub const MAX_CHALLENGES: usize = 3;

/// A refused request, as the [`TokenSource`] sees it.
#[derive(Clone, Copy)]
pub struct Challenge<'a> {
    /// 401 or 403.
    pub status: StatusCode,
    /// The answer's `WWW-Authenticate` header, when it had one (valid UTF-8 only).
    pub www_authenticate: Option<&'a str>,
    /// The token the refused request carried: when the source's current token differs,
    /// another request has already signed in and a retry is all it takes.
    pub sent_token: Option<&'a str>,
}

impl fmt::Debug for Challenge<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the token.
        f.debug_struct("Challenge")
            .field("status", &self.status)
            .field("www_authenticate", &self.www_authenticate)
            .finish_non_exhaustive()
    }
}

/// Supplies the bearer token of each request and reacts to refusals (see the module
/// documentation). Implementations must never log the tokens they hand out.
pub trait TokenSource: Send + Sync {
    /// The token for the next request; `None` sends none.
    fn token(&self) -> BoxFuture<'_, Option<String>>;

    /// A request was refused. `Ok(())`: a new token is ready, send the request again;
    /// `Err(reason)`: give up, and `reason` (for people: what to do about it) goes into
    /// the call's error.
    fn challenged<'a>(&'a self, challenge: Challenge<'a>) -> BoxFuture<'a, Result<(), String>>;
}
