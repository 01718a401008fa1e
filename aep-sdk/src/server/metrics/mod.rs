//! Prometheus metrics: the instruments, their bounded labels and the `GET /metrics`
//! router served on its own listener (`--metrics-listen`). Off unless asked for: an
//! extension without [`ExtensionBuilder::metrics`](super::ExtensionBuilder::metrics) records
//! nothing and serves nothing.
//!
//! The instruments are the OpenTelemetry semantic conventions' (HTTP, GenAI, MCP) in
//! Prometheus spelling, so the same names can go to OTLP later:
//!
//! | series | type | labels |
//! | --- | --- | --- |
//! | `http_server_request_duration_seconds` | histogram | `http_request_method`, `http_route` (the route template), `http_response_status_code` |
//! | `gen_ai_server_request_duration_seconds` | histogram | `gen_ai_provider_name`, `gen_ai_request_model` |
//! | `gen_ai_server_time_to_first_token_seconds` | histogram | `gen_ai_provider_name`, `gen_ai_request_model` |
//! | `gen_ai_server_time_per_output_token_seconds` | histogram | `gen_ai_provider_name`, `gen_ai_request_model` |
//! | `gen_ai_client_token_usage` | histogram | `gen_ai_provider_name`, `gen_ai_request_model`, `gen_ai_token_type` (`input`, `output`) |
//! | `aep_server_open_streams` | gauge | |
//! | `aep_server_errors_total` | counter | `code` |
//! | `mcp_server_operation_duration_seconds` | histogram | `mcp_method_name`, `gen_ai_tool_name` |
//!
//! Every label is bounded: routes are templates, providers are the registered ones,
//! models the first [`MODEL_LABELS`] distinct values (then `other`), error codes the
//! spec's (then `other`), MCP methods the known ones and tool names the declared tools
//! (then `other`).
//!
//! Token usage: the conventions name no server-side token instrument, only the client's
//! `gen_ai.client.token.usage`. An extension is the GenAI client of the model server
//! behind it and the counts it answers with are that server's, so that is the instrument
//! recorded: each chat that reports usage adds its input and output counts.
//! `gen_ai_server_time_per_output_token_seconds` is recorded for streams that end
//! normally and report at least two output tokens: (end - first update) / (tokens - 1).
//!
//! With the `otel` feature and an OTLP metrics endpoint, every sample also goes to an
//! OpenTelemetry meter under the conventions' dotted names (`otel.rs`).

mod bounded;
mod chat;
mod http;
mod mcp;
#[cfg(feature = "otel")]
mod otel;
mod series;

use std::sync::Arc;

use axum::Router;
use axum::response::IntoResponse;
use axum::routing::get;
use prometheus_client::encoding::prometheus_text;
use prometheus_client::encoding::{EncodeLabel, EncodeLabelSet, LabelSetEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use bounded::{Bounded, Label};
pub(crate) use chat::ChatTimer;
pub(crate) use http::RecordRequests;
pub(crate) use mcp::timing as mcp_timing;
use series::{Keyed, Series, ptr, static_ptr};

/// How many distinct `gen_ai_request_model` values are kept before the rest count as
/// `other`.
pub const MODEL_LABELS: usize = 32;

/// Bound on distinct route templates (the router has far fewer).
const ROUTE_LABELS: usize = 256;

/// The path metrics are served at.
pub(crate) const PATH: &str = "/metrics";

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct HttpLabels {
    http_request_method: &'static str,
    http_route: Label,
    http_response_status_code: u16,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ChatLabels {
    gen_ai_provider_name: Label,
    gen_ai_request_model: Label,
}

impl Keyed for HttpLabels {
    fn key(&self) -> [usize; 3] {
        [
            static_ptr(self.http_request_method),
            ptr(&self.http_route),
            usize::from(self.http_response_status_code),
        ]
    }
}

impl Keyed for ChatLabels {
    fn key(&self) -> [usize; 3] {
        [
            ptr(&self.gen_ai_provider_name),
            ptr(&self.gen_ai_request_model),
            0,
        ]
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct TokenLabels {
    gen_ai_provider_name: Label,
    gen_ai_request_model: Label,
    gen_ai_token_type: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ErrorLabels {
    code: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct McpLabels {
    mcp_method_name: &'static str,
    gen_ai_tool_name: Option<Label>,
}

/// Written by hand: an operation without a tool has no `gen_ai_tool_name` label at all
/// (the derive would write it empty).
impl EncodeLabelSet for McpLabels {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), std::fmt::Error> {
        ("mcp_method_name", self.mcp_method_name).encode(encoder.encode_label())?;
        if let Some(tool) = &self.gen_ai_tool_name {
            ("gen_ai_tool_name", tool).encode(encoder.encode_label())?;
        }
        Ok(())
    }
}

/// The semantic conventions' advice for `http.server.request.duration`.
const HTTP_BUCKETS: [f64; 14] = [
    0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
];

/// The GenAI conventions' advice for `gen_ai.server.request.duration`.
const REQUEST_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/// The GenAI conventions' advice for `gen_ai.server.time_to_first_token`.
const FIRST_TOKEN_BUCKETS: [f64; 16] = [
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
];

/// The GenAI conventions' advice for `gen_ai.server.time_per_output_token`.
const PER_TOKEN_BUCKETS: [f64; 13] = [
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5,
];

/// The GenAI conventions' advice for `gen_ai.client.token.usage`.
const TOKEN_BUCKETS: [f64; 14] = [
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0,
    16777216.0, 67108864.0,
];

/// The MCP conventions' advice for `mcp.server.operation.duration`.
const MCP_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

fn http_buckets() -> Histogram {
    Histogram::new(HTTP_BUCKETS)
}

fn request_buckets() -> Histogram {
    Histogram::new(REQUEST_BUCKETS)
}

fn first_token_buckets() -> Histogram {
    Histogram::new(FIRST_TOKEN_BUCKETS)
}

fn per_token_buckets() -> Histogram {
    Histogram::new(PER_TOKEN_BUCKETS)
}

fn token_buckets() -> Histogram {
    Histogram::new(TOKEN_BUCKETS)
}

fn mcp_buckets() -> Histogram {
    Histogram::new(MCP_BUCKETS)
}

/// The instruments of one extension.
pub(crate) struct Metrics {
    registry: Registry,
    http: Series<HttpLabels>,
    chat_duration: Series<ChatLabels>,
    first_token: Series<ChatLabels>,
    per_output_token: Series<ChatLabels>,
    tokens: Histograms<TokenLabels>,
    errors: Family<ErrorLabels, Counter>,
    mcp: Histograms<McpLabels>,
    open_streams: Gauge,
    /// Reads the open-stream count at scrape time: nothing on the hot path.
    stream_count: Arc<dyn Fn() -> usize + Send + Sync>,
    /// The same samples over OTLP, when an OTLP metrics endpoint is configured.
    #[cfg(feature = "otel")]
    otel: Option<otel::OtelInstruments>,
    routes: Bounded,
    providers: Bounded,
    models: Bounded,
    unmatched: Label,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// The instruments, registered; `stream_count` tells how many streams are open.
    pub(crate) fn new(stream_count: impl Fn() -> usize + Send + Sync + 'static) -> Self {
        let mut registry = Registry::default();
        let http: Series<HttpLabels> = Series::new(http_buckets);
        let chat_duration: Series<ChatLabels> = Series::new(request_buckets);
        let first_token: Series<ChatLabels> = Series::new(first_token_buckets);
        let per_output_token: Series<ChatLabels> = Series::new(per_token_buckets);
        let tokens: Histograms<TokenLabels> = Family::new_with_constructor(token_buckets);
        let errors = Family::<ErrorLabels, Counter>::default();
        let mcp: Histograms<McpLabels> = Family::new_with_constructor(mcp_buckets);
        let open_streams = Gauge::default();
        registry.register(
            "http_server_request_duration_seconds",
            "Duration of HTTP server requests, until the response head",
            http.family(),
        );
        registry.register(
            "gen_ai_server_request_duration_seconds",
            "Duration of chat requests, until the last update of a stream",
            chat_duration.family(),
        );
        registry.register(
            "gen_ai_server_time_to_first_token_seconds",
            "Time from a streamed chat request to its first update",
            first_token.family(),
        );
        registry.register(
            "gen_ai_server_time_per_output_token_seconds",
            "Time per output token after the first, of streams that ended normally",
            per_output_token.family(),
        );
        registry.register(
            "gen_ai_client_token_usage",
            "Tokens of chat requests as the model server reported them, by type",
            tokens.clone(),
        );
        registry.register(
            "aep_server_errors",
            "AEP errors answered, including terminal error updates of streams, by code",
            errors.clone(),
        );
        registry.register(
            "mcp_server_operation_duration_seconds",
            "Duration of MCP requests handled by the co-hosted servers",
            mcp.clone(),
        );
        registry.register(
            "aep_server_open_streams",
            "Chat streams open right now",
            open_streams.clone(),
        );
        let stream_count: Arc<dyn Fn() -> usize + Send + Sync> = Arc::new(stream_count);
        Self {
            registry,
            http,
            chat_duration,
            first_token,
            per_output_token,
            tokens,
            errors,
            mcp,
            open_streams,
            #[cfg(feature = "otel")]
            otel: crate::telemetry::meter()
                .map(|meter| otel::OtelInstruments::new(meter, stream_count.clone())),
            stream_count,
            routes: Bounded::new(ROUTE_LABELS),
            providers: Bounded::new(ROUTE_LABELS),
            models: Bounded::new(MODEL_LABELS),
            unmatched: Label::new("unmatched"),
        }
    }

    /// Requests to the route `path` are labelled `template` (a provider's literal chat
    /// route as `/aep/model-providers/{id}/chat`).
    pub(crate) fn alias_route(&self, path: &str, template: &str) {
        self.routes.alias(path, template);
    }

    /// Counts one AEP error; `code` is already bounded (a spec code or `other`).
    pub(crate) fn error(&self, code: &'static str) {
        self.errors.get_or_create(&ErrorLabels { code }).inc();
        #[cfg(feature = "otel")]
        if let Some(otel) = &self.otel {
            otel.error(code);
        }
    }

    /// Every series in the Prometheus text format (version 0.0.4).
    pub(crate) fn encode(&self) -> String {
        let open = i64::try_from((self.stream_count)()).unwrap_or(i64::MAX);
        self.open_streams.set(open);
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_text::encode(&mut text, &self.registry);
        text
    }

    /// `GET /metrics`.
    pub(crate) fn router(self: &Arc<Self>) -> Router {
        let metrics = self.clone();
        Router::new().route(
            PATH,
            get(move || {
                let metrics = metrics.clone();
                async move {
                    (
                        [(::http::header::CONTENT_TYPE, prometheus_text::CONTENT_TYPE)],
                        metrics.encode(),
                    )
                        .into_response()
                }
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics() -> Metrics {
        Metrics::new(|| 3)
    }

    #[test]
    fn every_instrument_is_described_once_it_has_a_series() {
        let metrics = metrics();
        // Families without a series are not written at all; the gauge always is.
        assert_eq!(
            metrics.encode(),
            "# HELP aep_server_open_streams Chat streams open right now.\n\
             # TYPE aep_server_open_streams gauge\n\
             aep_server_open_streams 3\n"
        );
        let route = metrics.routes.get("/x");
        let chat = ChatLabels {
            gen_ai_provider_name: metrics.providers.get("p"),
            gen_ai_request_model: metrics.models.get("m"),
        };
        metrics
            .http
            .get_or_create(&HttpLabels {
                http_request_method: "GET",
                http_route: route,
                http_response_status_code: 200,
            })
            .observe(0.1);
        metrics.chat_duration.get_or_create(&chat).observe(0.1);
        metrics.first_token.get_or_create(&chat).observe(0.1);
        metrics.per_output_token.get_or_create(&chat).observe(0.02);
        metrics
            .tokens
            .get_or_create(&TokenLabels {
                gen_ai_provider_name: chat.gen_ai_provider_name.clone(),
                gen_ai_request_model: chat.gen_ai_request_model.clone(),
                gen_ai_token_type: "input",
            })
            .observe(12.0);
        metrics.error("timeout");
        metrics
            .mcp
            .get_or_create(&McpLabels {
                mcp_method_name: "ping",
                gen_ai_tool_name: None,
            })
            .observe(0.1);
        let text = metrics.encode();
        for (name, kind) in [
            ("http_server_request_duration_seconds", "histogram"),
            ("gen_ai_server_request_duration_seconds", "histogram"),
            ("gen_ai_server_time_to_first_token_seconds", "histogram"),
            ("gen_ai_server_time_per_output_token_seconds", "histogram"),
            ("gen_ai_client_token_usage", "histogram"),
            ("aep_server_errors_total", "counter"),
            ("mcp_server_operation_duration_seconds", "histogram"),
            ("aep_server_open_streams", "gauge"),
        ] {
            assert!(
                text.contains(&format!("# TYPE {name} {kind}\n")),
                "{name} in:\n{text}"
            );
            assert!(text.contains(&format!("# HELP {name} ")), "{name} in:\n{text}");
        }
        // The gauge is read at scrape time.
        assert!(text.contains("\naep_server_open_streams 3\n"), "{text}");
        // Text format 0.0.4, not OpenMetrics.
        assert!(!text.contains("# EOF"), "{text}");
    }

    #[test]
    fn a_histogram_sample_is_written_as_buckets_sum_and_count() {
        let metrics = metrics();
        let labels = HttpLabels {
            http_request_method: "POST",
            http_route: metrics.routes.get("/aep/model-providers/{id}/chat"),
            http_response_status_code: 200,
        };
        metrics.http.get_or_create(&labels).observe(0.02);
        let text = metrics.encode();
        let series = r#"http_request_method="POST",http_route="/aep/model-providers/{id}/chat",http_response_status_code="200""#;
        for line in [
            format!("http_server_request_duration_seconds_bucket{{{series},le=\"0.01\"}} 0\n"),
            format!("http_server_request_duration_seconds_bucket{{{series},le=\"0.025\"}} 1\n"),
            format!("http_server_request_duration_seconds_bucket{{{series},le=\"+Inf\"}} 1\n"),
            format!("http_server_request_duration_seconds_sum{{{series}}} 0.02\n"),
            format!("http_server_request_duration_seconds_count{{{series}}} 1\n"),
        ] {
            assert!(text.contains(&line), "{line} in:\n{text}");
        }
    }

    #[test]
    fn counters_end_in_total_and_label_values_are_escaped() {
        let metrics = metrics();
        metrics.error(crate::error::codes::bounded("timeout"));
        metrics.error(crate::error::codes::bounded("timeout"));
        metrics.error(crate::error::codes::bounded("my_own_code"));
        let model = metrics.models.get("a \"quoted\"\\model\n");
        let labels = ChatLabels {
            gen_ai_provider_name: metrics.providers.get("echo"),
            gen_ai_request_model: model,
        };
        metrics.chat_duration.get_or_create(&labels).observe(1.5);
        let text = metrics.encode();
        assert!(
            text.contains("\naep_server_errors_total{code=\"timeout\"} 2\n"),
            "{text}"
        );
        assert!(
            text.contains("\naep_server_errors_total{code=\"other\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains(
                r#"gen_ai_server_request_duration_seconds_count{gen_ai_provider_name="echo",gen_ai_request_model="a \"quoted\"\\model\n"} 1"#
            ),
            "{text}"
        );
    }

    #[test]
    fn a_stream_records_tokens_and_the_time_per_output_token_and_a_failed_one_no_rate() {
        use crate::protocol::{ChatUpdate, FinishReason, Usage};
        let metrics = Arc::new(metrics());
        let start = std::time::Instant::now() - std::time::Duration::from_millis(50);
        let mut timer = ChatTimer::new(&metrics, "p", "m", start);
        timer.update(&ChatUpdate::text("a"));
        std::thread::sleep(std::time::Duration::from_millis(20));
        timer.update(&ChatUpdate::finish(FinishReason::Stop).with_usage(Usage::new(7, 5)));
        drop(timer);
        let mut failed = ChatTimer::new(&metrics, "p", "m", start);
        failed.update(&ChatUpdate::text("a").with_usage(Usage::new(3, 4)));
        failed.error("internal_error");
        drop(failed);
        let mut whole = ChatTimer::new(&metrics, "p", "m", start);
        whole.answered(Some(&Usage::new(2, 9)));
        drop(whole);
        let text = metrics.encode();
        let tokens = |kind: &str| {
            format!(
                "gen_ai_client_token_usage_sum{{gen_ai_provider_name=\"p\",gen_ai_request_model=\"m\",gen_ai_token_type=\"{kind}\"}}"
            )
        };
        assert!(text.contains(&format!("\n{} 12.0\n", tokens("input"))), "{text}");
        assert!(text.contains(&format!("\n{} 18.0\n", tokens("output"))), "{text}");
        // Only the stream that ended normally: (end - first update) / (5 - 1) >= 5 ms.
        let rate = "gen_ai_server_time_per_output_token_seconds";
        assert!(
            text.contains(&format!(
                "\n{rate}_count{{gen_ai_provider_name=\"p\",gen_ai_request_model=\"m\"}} 1\n"
            )),
            "{text}"
        );
        let sum: f64 = text
            .lines()
            .find(|l| l.starts_with(&format!("{rate}_sum")))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap();
        assert!((0.005..1.0).contains(&sum), "{sum}");
        // Time to first token of both streams, none of the whole answer.
        assert!(
            text.contains("\ngen_ai_server_time_to_first_token_seconds_count{gen_ai_provider_name=\"p\",gen_ai_request_model=\"m\"} 2\n"),
            "{text}"
        );
    }

    #[test]
    fn a_call_without_a_tool_has_no_tool_label() {
        let metrics = metrics();
        let labels = McpLabels {
            mcp_method_name: "tools/list",
            gen_ai_tool_name: None,
        };
        metrics.mcp.get_or_create(&labels).observe(0.001);
        let text = metrics.encode();
        assert!(
            text.contains(
                "\nmcp_server_operation_duration_seconds_count{mcp_method_name=\"tools/list\"} 1\n"
            ),
            "{text}"
        );
    }
}
