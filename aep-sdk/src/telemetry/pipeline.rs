//! The exporters and providers, set up once from the environment, and the W3C trace
//! context going in and out of `tracing` spans.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use opentelemetry::metrics::{Meter, MeterProvider as _};
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_http::{HeaderExtractor, HeaderInjector};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::registry::LookupSpan;

use super::config::{Settings, capture_content_from_env};
use super::http_client::ReqwestExporterClient;

/// What was set up.
struct Pipeline {
    tracer_provider: Option<SdkTracerProvider>,
    meter_provider: Option<SdkMeterProvider>,
    meter: Option<Meter>,
    capture_content: bool,
    problems: Vec<String>,
}

static PIPELINE: OnceLock<Pipeline> = OnceLock::new();
/// Set once the tracer provider exists: the one check a request makes.
static TRACES_ON: AtomicBool = AtomicBool::new(false);

pub(crate) fn traces_on() -> bool {
    TRACES_ON.load(Ordering::Relaxed)
}

pub(crate) fn metrics_on() -> bool {
    pipeline().meter.is_some()
}

/// The meter the metrics instruments mirror into, when metrics are exported.
pub(crate) fn meter() -> Option<&'static Meter> {
    pipeline().meter.as_ref()
}

/// Whether message content may be recorded (the GenAI conventions' opt-in).
pub(crate) fn capture_content() -> bool {
    PIPELINE.get().is_some_and(|p| p.capture_content)
}

/// Why export stays off although an endpoint is set (an unsupported protocol, say);
/// empty when all is well. [`crate::server::init_tracing`] logs these as warnings.
pub fn warnings() -> &'static [String] {
    &pipeline().problems
}

fn pipeline() -> &'static Pipeline {
    PIPELINE.get_or_init(|| {
        let pipeline = build(Settings::from_env());
        TRACES_ON.store(pipeline.tracer_provider.is_some(), Ordering::Relaxed);
        pipeline
    })
}

/// `service.name`: `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` when they say, else
/// the executable's name (rather than the SDK's `unknown_service`).
fn resource() -> Resource {
    let detected = Resource::builder().build();
    let named = detected
        .get(&opentelemetry::Key::from_static_str("service.name"))
        .is_some_and(|name| !name.as_str().starts_with("unknown_service"));
    if named {
        return detected;
    }
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "aep-extension".to_owned());
    Resource::builder().with_service_name(exe).build()
}

fn build(settings: Settings) -> Pipeline {
    let mut problems = settings.problems;
    let mut pipeline = Pipeline {
        tracer_provider: None,
        meter_provider: None,
        meter: None,
        capture_content: capture_content_from_env(),
        problems: Vec::new(),
    };
    if !settings.traces && !settings.metrics {
        pipeline.problems = problems;
        return pipeline;
    }
    let client = match ReqwestExporterClient::new(settings.timeout) {
        Ok(client) => client,
        Err(problem) => {
            problems.push(problem);
            pipeline.problems = problems;
            return pipeline;
        }
    };
    let resource = resource();
    if settings.traces {
        match opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_http_client(client.clone())
            .build()
        {
            Ok(exporter) => {
                pipeline.tracer_provider = Some(
                    SdkTracerProvider::builder()
                        .with_batch_exporter(exporter)
                        .with_resource(resource.clone())
                        .build(),
                );
            }
            Err(error) => problems.push(format!("cannot export spans over OTLP: {error}")),
        }
    }
    if settings.metrics {
        match opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_http_client(client)
            .build()
        {
            Ok(exporter) => {
                let provider = SdkMeterProvider::builder()
                    .with_reader(PeriodicReader::builder(exporter).build())
                    .with_resource(resource)
                    .build();
                pipeline.meter = Some(provider.meter("aep-sdk"));
                pipeline.meter_provider = Some(provider);
            }
            Err(error) => problems.push(format!("cannot export metrics over OTLP: {error}")),
        }
    }
    pipeline.problems = problems;
    pipeline
}

/// Only spans, never events: a log line's message could quote a request, and spans
/// carry only the attributes this crate (or the extension) sets on purpose. Spans of the
/// HTTP and MCP libraries underneath stay out; ours describe those requests.
fn exported(meta: &tracing::Metadata<'_>) -> bool {
    const LIBRARIES: [&str; 8] = [
        "rmcp",
        "hyper",
        "h2",
        "reqwest",
        "tower",
        "axum",
        "tonic",
        "opentelemetry",
    ];
    meta.is_span()
        && *meta.level() <= tracing::Level::INFO
        && !LIBRARIES.iter().any(|lib| {
            meta.target()
                .strip_prefix(lib)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with("::") || rest.starts_with('_'))
        })
}

/// The `tracing` layer that turns spans into OpenTelemetry spans, when an OTLP endpoint
/// for traces is configured (see [the module](super)); `None` otherwise. The first call
/// sets up the exporters from the environment. Add it to your own subscriber:
///
/// ```no_run
/// use tracing_subscriber::prelude::*;
///
/// tracing_subscriber::registry()
///     .with(tracing_subscriber::fmt::layer())
///     .with(aep_sdk::telemetry::layer())
///     .init();
/// ```
///
/// Only spans at `INFO` or above go out, never events, and none of the HTTP or MCP
/// libraries' own spans.
pub fn layer<S>() -> Option<Box<dyn Layer<S> + Send + Sync + 'static>>
where
    S: Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
{
    let provider = pipeline().tracer_provider.as_ref()?;
    let tracer = provider.tracer("aep-sdk");
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_location(false)
        .with_threads(false)
        .with_level(false)
        .with_target(false)
        .with_tracked_inactivity(false)
        .with_filter(filter_fn(exported));
    Some(Box::new(layer))
}

pub(crate) fn inject(span: &tracing::Span, headers: &mut http::HeaderMap) {
    let context = span.context();
    TraceContextPropagator::new().inject_context(&context, &mut HeaderInjector(headers));
}

/// A JSON object as a carrier: an MCP request's `_meta` (SEP-414).
struct JsonCarrier<'a>(&'a mut serde_json::Map<String, serde_json::Value>);

impl opentelemetry::propagation::Injector for JsonCarrier<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), serde_json::Value::String(value));
    }
}

struct JsonReader<'a>(&'a serde_json::Map<String, serde_json::Value>);

impl opentelemetry::propagation::Extractor for JsonReader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(serde_json::Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

pub(crate) fn inject_json(span: &tracing::Span, meta: &mut serde_json::Map<String, serde_json::Value>) {
    let context = span.context();
    TraceContextPropagator::new().inject_context(&context, &mut JsonCarrier(meta));
}

/// Makes `span` a child of the trace context in `meta`; `false` when it holds none.
pub(crate) fn extract_json_into(
    span: &tracing::Span,
    meta: &serde_json::Map<String, serde_json::Value>,
) -> bool {
    if !meta.get("traceparent").is_some_and(serde_json::Value::is_string) {
        return false;
    }
    let context = TraceContextPropagator::new().extract(&JsonReader(meta));
    span.set_parent(context).is_ok()
}

pub(crate) fn extract_into(span: &tracing::Span, headers: &http::HeaderMap) {
    if !headers.contains_key("traceparent") {
        return;
    }
    let context = TraceContextPropagator::new().extract(&HeaderExtractor(headers));
    let _ = span.set_parent(context);
}

pub(crate) fn shutdown() {
    let Some(pipeline) = PIPELINE.get() else {
        return;
    };
    if let Some(provider) = &pipeline.tracer_provider {
        let _ = provider.force_flush();
        let _ = provider.shutdown();
    }
    if let Some(provider) = &pipeline.meter_provider {
        let _ = provider.force_flush();
        let _ = provider.shutdown();
    }
    TRACES_ON.store(false, Ordering::Relaxed);
}
