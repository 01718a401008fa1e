//! Timing MCP operations: the server runtime puts an [`McpTiming`] in each request's
//! `McpRequest` when metrics are on; the handler reports each operation's method, tool and
//! duration to it. Without one nothing is measured.

use std::sync::Arc;
use std::time::{Duration, Instant};

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
    /// Where it goes and when it started, when it is timed.
    timing: Option<(McpTiming, Instant)>,
    method: &'static str,
}

impl Operation {
    /// Starts timing `method` if there is a `timing` to report to.
    pub(crate) fn start(timing: Option<&McpTiming>, method: &'static str) -> Self {
        let timing = timing.map(|timing| (timing.clone(), Instant::now()));
        Self { timing, method }
    }

    /// Records the operation, with the tool it called.
    pub(crate) fn finish(mut self, tool: Option<&str>) {
        if let Some((timing, start)) = self.timing.take() {
            timing.record(self.method, tool, start.elapsed());
        }
    }
}

impl Drop for Operation {
    fn drop(&mut self) {
        if let Some((timing, start)) = self.timing.take() {
            timing.record(self.method, None, start.elapsed());
        }
    }
}
