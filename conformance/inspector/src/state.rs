//! [`Inspector`]: what every request of the server shares.

use std::time::Duration;

use crate::limits::SIGN_IN_TIMEOUT;
use crate::oauth::SignIns;
use crate::store::Connections;

/// The Inspector's state: the open connections, the sign-ins, and the URLs given on the
/// command line (the page connects to them when it loads).
#[derive(Debug)]
pub struct Inspector {
    /// The open connections.
    pub connections: Connections,
    /// The OAuth sign-ins, pending and done.
    pub sign_ins: SignIns,
    /// Bound on each trip through an authorization server's pages (default
    /// [`SIGN_IN_TIMEOUT`], at most 135 s).
    pub sign_in_timeout: Duration,
    /// Extension URLs to open connected (`aep-inspector URL...`).
    pub startup_urls: Vec<String>,
}

impl Inspector {
    /// An Inspector that opens `startup_urls` when the page loads.
    pub fn new(startup_urls: Vec<String>) -> Self {
        Self {
            connections: Connections::default(),
            sign_ins: SignIns::default(),
            sign_in_timeout: SIGN_IN_TIMEOUT,
            startup_urls,
        }
    }
}

impl Default for Inspector {
    fn default() -> Self {
        Self::new(Vec::new())
    }
}
