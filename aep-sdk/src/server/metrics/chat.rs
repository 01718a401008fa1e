//! Timing one chat request: `gen_ai_server_request_duration_seconds` when it ends (the
//! answer is built, the stream's terminal update is written, or the client went away);
//! for streams, `gen_ai_server_time_to_first_token_seconds` at the first update and, when
//! the stream ended normally with at least two output tokens,
//! `gen_ai_server_time_per_output_token_seconds`; and `gen_ai_client_token_usage` of the
//! usage the answer reports.

use std::sync::Arc;
use std::time::Instant;

use super::{ChatLabels, Metrics, TokenLabels};
use crate::protocol::{ChatUpdate, Usage};

/// The clock of one chat request; records its duration when dropped.
pub(crate) struct ChatTimer {
    metrics: Arc<Metrics>,
    labels: ChatLabels,
    start: Instant,
    /// When the stream's first update was written.
    first: Option<Instant>,
    usage: Option<Usage>,
    failed: bool,
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
            first: None,
            usage: None,
            failed: false,
        }
    }

    /// A stream's update is written: the first one records the time to it; the usage it
    /// reports (the terminal one's, usually) is kept.
    pub(crate) fn update(&mut self, update: &ChatUpdate) {
        if self.first.is_none() {
            let now = Instant::now();
            self.first = Some(now);
            let seconds = now.duration_since(self.start).as_secs_f64();
            self.metrics
                .first_token
                .get_or_create(&self.labels)
                .observe(seconds);
            #[cfg(feature = "otel")]
            if let Some(otel) = &self.metrics.otel {
                otel.first_token(&self.labels, seconds);
            }
        }
        if let Some(usage) = &update.usage {
            self.usage = Some(*usage);
        }
    }

    /// A whole answer is built, reporting `usage`.
    pub(crate) fn answered(&mut self, usage: Option<&Usage>) {
        self.usage = usage.copied();
    }

    /// A stream ended with an error update of `code`.
    pub(crate) fn error(&mut self, code: &str) {
        self.failed = true;
        self.metrics.error(crate::error::codes::bounded(code));
    }

    fn tokens(&self, token_type: &'static str, count: u64) {
        let labels = TokenLabels {
            gen_ai_provider_name: self.labels.gen_ai_provider_name.clone(),
            gen_ai_request_model: self.labels.gen_ai_request_model.clone(),
            gen_ai_token_type: token_type,
        };
        self.metrics.tokens.get_or_create(&labels).observe(count as f64);
        #[cfg(feature = "otel")]
        if let Some(otel) = &self.metrics.otel {
            otel.tokens(&self.labels, token_type, count);
        }
    }
}

impl Drop for ChatTimer {
    fn drop(&mut self) {
        let end = Instant::now();
        let seconds = end.duration_since(self.start).as_secs_f64();
        self.metrics
            .chat_duration
            .get_or_create(&self.labels)
            .observe(seconds);
        #[cfg(feature = "otel")]
        if let Some(otel) = &self.metrics.otel {
            otel.chat_duration(&self.labels, seconds);
        }
        let Some(usage) = self.usage.take() else {
            return;
        };
        if let Some(input) = usage.input_tokens {
            self.tokens("input", input);
        }
        if let Some(output) = usage.output_tokens {
            self.tokens("output", output);
            if let (Some(first), false, 2..) = (self.first, self.failed, output) {
                let per_token = end.duration_since(first).as_secs_f64() / (output - 1) as f64;
                self.metrics
                    .per_output_token
                    .get_or_create(&self.labels)
                    .observe(per_token);
                #[cfg(feature = "otel")]
                if let Some(otel) = &self.metrics.otel {
                    otel.per_output_token(&self.labels, per_token);
                }
            }
        }
    }
}
