//! Timing MCP operations: the server runtime puts an [`McpTiming`] in each request's
//! extensions when metrics are on; the handler reports each operation's method, tool and
//! duration to it. Without one nothing is measured.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::service::{RequestContext, RoleServer};

type Record = dyn Fn(&'static str, Option<&str>, Duration) + Send + Sync;

/// Where operation durations go: `(method, tool of a tools/call, duration)`.
#[derive(Clone)]
pub(crate) struct McpTiming(Arc<Record>);

impl McpTiming {
    pub(crate) fn new(record: impl Fn(&'static str, Option<&str>, Duration) + Send + Sync + 'static) -> Self {
        Self(Arc::new(record))
    }

    /// Records one operation.
    pub(crate) fn record(&self, method: &'static str, tool: Option<&str>, duration: Duration) {
        (self.0)(method, tool, duration);
    }
}

/// One operation's clock; records when finished or dropped (an early return).
pub(crate) struct Operation {
    timing: Option<McpTiming>,
    method: &'static str,
    start: Instant,
}

impl Operation {
    /// Starts timing `method` if the request carries an [`McpTiming`].
    pub(crate) fn start(context: &RequestContext<RoleServer>, method: &'static str) -> Self {
        let timing = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|head| head.extensions.get::<McpTiming>())
            .cloned();
        Self {
            timing,
            method,
            start: Instant::now(),
        }
    }

    /// Records the operation, with the tool it called.
    pub(crate) fn finish(mut self, tool: Option<&str>) {
        if let Some(timing) = self.timing.take() {
            timing.record(self.method, tool, self.start.elapsed());
        }
    }
}

impl Drop for Operation {
    fn drop(&mut self) {
        if let Some(timing) = self.timing.take() {
            timing.record(self.method, None, self.start.elapsed());
        }
    }
}
