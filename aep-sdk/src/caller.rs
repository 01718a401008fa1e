//! [`Caller`]: who the server's authentication accepted for a request.

use std::fmt;
use std::sync::Arc;

/// The identity a request was accepted as: the name its bearer token is registered
/// under ([`BearerAuth`](crate::server::BearerAuth)), never the token itself.
///
/// A provider reads it from
/// [`RequestContext::caller`](crate::server::RequestContext::caller), a tool, resource
/// or prompt from [`ToolContext::caller`](crate::tool::ToolContext::caller); both are
/// `None` when the server requires no token.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Caller {
    identity: Arc<str>,
}

impl Caller {
    pub(crate) fn new(identity: Arc<str>) -> Self {
        Self { identity }
    }

    /// The identity's name.
    pub fn identity(&self) -> &str {
        &self.identity
    }
}

impl fmt::Debug for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Caller").field(&self.identity).finish()
    }
}

impl fmt::Display for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.identity)
    }
}
