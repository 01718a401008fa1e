//! [`Inspector`]: what every request of the server shares.

use crate::store::Connections;

/// The Inspector's state: the open connections and the URLs given on the command line
/// (the page connects to them when it loads).
#[derive(Debug, Default)]
pub struct Inspector {
    /// The open connections.
    pub connections: Connections,
    /// Extension URLs to open connected (`aep-inspector URL...`).
    pub startup_urls: Vec<String>,
}

impl Inspector {
    /// An Inspector that opens `startup_urls` when the page loads.
    pub fn new(startup_urls: Vec<String>) -> Self {
        Self {
            connections: Connections::default(),
            startup_urls,
        }
    }
}
