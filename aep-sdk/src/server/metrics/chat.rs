//! Timing one chat request: `gen_ai_server_request_duration_seconds` when it ends (the
//! answer is built, the stream's terminal update is written, or the client went away)
//! and, for streams, `gen_ai_server_time_to_first_token_seconds` at the first update.

use std::sync::Arc;
use std::time::Instant;

use super::{ChatLabels, Metrics};

/// The clock of one chat request; records its duration when dropped.
pub(crate) struct ChatTimer {
    metrics: Arc<Metrics>,
    labels: ChatLabels,
    start: Instant,
    first_seen: bool,
}

impl ChatTimer {
    /// A request to `provider` (a registered id) for `model` (bounded here) that
    /// arrived at `start`.
    pub(crate) fn new(metrics: &Arc<Metrics>, provider: &str, model: &str, start: Instant) -> Self {
        Self {
            labels: ChatLabels {
                gen_ai_provider_name: metrics.providers.get(provider),
                gen_ai_request_model: metrics.models.get(model),
            },
            metrics: metrics.clone(),
            start,
            first_seen: false,
        }
    }

    /// The stream's first update is written: records the time to it, once.
    pub(crate) fn first_update(&mut self) {
        if !self.first_seen {
            self.first_seen = true;
            self.metrics
                .first_token
                .get_or_create(&self.labels)
                .observe(self.start.elapsed().as_secs_f64());
        }
    }

    /// A stream ended with an error update of `code`.
    pub(crate) fn error(&self, code: &str) {
        self.metrics.error(crate::error::codes::bounded(code));
    }
}

impl Drop for ChatTimer {
    fn drop(&mut self) {
        self.metrics
            .chat_duration
            .get_or_create(&self.labels)
            .observe(self.start.elapsed().as_secs_f64());
    }
}
