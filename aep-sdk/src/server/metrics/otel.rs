//! The same instruments over OTLP: when the `otel` feature is built in and an OTLP
//! metrics endpoint is configured (see [`crate::telemetry`]), every sample recorded into
//! the Prometheus registry is also recorded into an OpenTelemetry meter with the
//! conventions' dotted names and attributes, and the SDK's periodic reader exports it.
//! The attribute values are the same bounded labels (shared strings: no copy per
//! sample).

use std::sync::Arc;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter, ObservableGauge};

use super::bounded::Label;
use super::{ChatLabels, McpLabels};

/// The OpenTelemetry instruments.
pub(crate) struct OtelInstruments {
    http: Histogram<f64>,
    chat_duration: Histogram<f64>,
    first_token: Histogram<f64>,
    per_output_token: Histogram<f64>,
    tokens: Histogram<u64>,
    errors: Counter<u64>,
    mcp: Histogram<f64>,
    _open_streams: ObservableGauge<i64>,
}

fn value(label: &Label) -> opentelemetry::Value {
    opentelemetry::Value::from(label.shared())
}

fn chat_attributes(labels: &ChatLabels) -> [KeyValue; 3] {
    [
        KeyValue::new("gen_ai.operation.name", "chat"),
        KeyValue::new("gen_ai.provider.name", value(&labels.gen_ai_provider_name)),
        KeyValue::new("gen_ai.request.model", value(&labels.gen_ai_request_model)),
    ]
}

impl OtelInstruments {
    /// The instruments on `meter`; the open-stream gauge reads `stream_count` when the
    /// reader collects.
    pub(crate) fn new(meter: &Meter, stream_count: Arc<dyn Fn() -> usize + Send + Sync>) -> Self {
        Self {
            http: meter
                .f64_histogram("http.server.request.duration")
                .with_unit("s")
                .with_description("Duration of HTTP server requests, until the response head")
                .with_boundaries(super::HTTP_BUCKETS.to_vec())
                .build(),
            chat_duration: meter
                .f64_histogram("gen_ai.server.request.duration")
                .with_unit("s")
                .with_description("Duration of chat requests, until the last update of a stream")
                .with_boundaries(super::REQUEST_BUCKETS.to_vec())
                .build(),
            first_token: meter
                .f64_histogram("gen_ai.server.time_to_first_token")
                .with_unit("s")
                .with_description("Time from a streamed chat request to its first update")
                .with_boundaries(super::FIRST_TOKEN_BUCKETS.to_vec())
                .build(),
            per_output_token: meter
                .f64_histogram("gen_ai.server.time_per_output_token")
                .with_unit("s")
                .with_description("Time per output token after the first, of successful streams")
                .with_boundaries(super::PER_TOKEN_BUCKETS.to_vec())
                .build(),
            tokens: meter
                .u64_histogram("gen_ai.client.token.usage")
                .with_unit("{token}")
                .with_description("Tokens of chat requests as the model server reported them")
                .with_boundaries(super::TOKEN_BUCKETS.to_vec())
                .build(),
            errors: meter
                .u64_counter("aep.server.errors")
                .with_description("AEP errors answered, including terminal error updates of streams")
                .build(),
            mcp: meter
                .f64_histogram("mcp.server.operation.duration")
                .with_unit("s")
                .with_description("Duration of MCP requests handled by the co-hosted servers")
                .with_boundaries(super::MCP_BUCKETS.to_vec())
                .build(),
            _open_streams: meter
                .i64_observable_gauge("aep.server.open_streams")
                .with_description("Chat streams open right now")
                .with_callback(move |gauge| {
                    gauge.observe(i64::try_from(stream_count()).unwrap_or(i64::MAX), &[]);
                })
                .build(),
        }
    }

    pub(crate) fn http(&self, method: &'static str, route: &Label, status: u16, seconds: f64) {
        self.http.record(
            seconds,
            &[
                KeyValue::new("http.request.method", method),
                KeyValue::new("http.route", value(route)),
                KeyValue::new("http.response.status_code", i64::from(status)),
            ],
        );
    }

    pub(crate) fn chat_duration(&self, labels: &ChatLabels, seconds: f64) {
        self.chat_duration.record(seconds, &chat_attributes(labels));
    }

    pub(crate) fn first_token(&self, labels: &ChatLabels, seconds: f64) {
        self.first_token.record(seconds, &chat_attributes(labels));
    }

    pub(crate) fn per_output_token(&self, labels: &ChatLabels, seconds: f64) {
        self.per_output_token.record(seconds, &chat_attributes(labels));
    }

    pub(crate) fn tokens(&self, labels: &ChatLabels, token_type: &'static str, count: u64) {
        let [operation, provider, model] = chat_attributes(labels);
        self.tokens.record(
            count,
            &[
                operation,
                provider,
                model,
                KeyValue::new("gen_ai.token.type", token_type),
            ],
        );
    }

    pub(crate) fn error(&self, code: &'static str) {
        self.errors.add(1, &[KeyValue::new("error.type", code)]);
    }

    pub(crate) fn mcp(&self, labels: &McpLabels, seconds: f64) {
        match &labels.gen_ai_tool_name {
            Some(tool) => self.mcp.record(
                seconds,
                &[
                    KeyValue::new("mcp.method.name", labels.mcp_method_name),
                    KeyValue::new("gen_ai.tool.name", value(tool)),
                ],
            ),
            None => self.mcp.record(
                seconds,
                &[KeyValue::new("mcp.method.name", labels.mcp_method_name)],
            ),
        }
    }
}
