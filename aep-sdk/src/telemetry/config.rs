//! What the standard `OTEL_*` environment variables ask for. Only OTLP over HTTP with
//! protobuf is built in; anything else is reported and leaves that signal off.

use std::time::Duration;

/// The environment, read once at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Settings {
    /// Spans are exported (an endpoint for traces is set and nothing turns them off).
    pub(crate) traces: bool,
    /// Metrics are exported.
    pub(crate) metrics: bool,
    /// Timeout of one export request (`OTEL_EXPORTER_OTLP_TIMEOUT`, milliseconds).
    pub(crate) timeout: Duration,
    /// Why a signal that has an endpoint stays off, to log once a subscriber is installed.
    pub(crate) problems: Vec<String>,
}

fn set(var: &str, env: &impl Fn(&str) -> Option<String>) -> bool {
    env(var).is_some_and(|v| !v.trim().is_empty())
}

fn truthy(var: &str, env: &impl Fn(&str) -> Option<String>) -> bool {
    env(var).is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// Checks the protocol a signal would use (its own variable, else the generic one).
fn protocol_ok(signal_var: &str, env: &impl Fn(&str) -> Option<String>, problems: &mut Vec<String>) -> bool {
    let value = env(signal_var).or_else(|| env("OTEL_EXPORTER_OTLP_PROTOCOL"));
    match value.as_deref().map(str::trim) {
        None | Some("") | Some("http/protobuf") => true,
        Some(other) => {
            problems.push(format!(
                "OTLP protocol '{other}' is not supported (only http/protobuf is built in): \
                 set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"
            ));
            false
        }
    }
}

impl Settings {
    /// Reads the settings through `env` (the process environment in production).
    pub(crate) fn read(env: impl Fn(&str) -> Option<String>) -> Self {
        let mut problems = Vec::new();
        let disabled = truthy("OTEL_SDK_DISABLED", &env);
        let generic = set("OTEL_EXPORTER_OTLP_ENDPOINT", &env);
        let exporter_none = |var: &str| env(var).is_some_and(|v| v.trim().eq_ignore_ascii_case("none"));
        let mut traces = !disabled
            && !exporter_none("OTEL_TRACES_EXPORTER")
            && (generic || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", &env));
        let mut metrics = !disabled
            && !exporter_none("OTEL_METRICS_EXPORTER")
            && (generic || set("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", &env));
        if traces {
            traces = protocol_ok("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", &env, &mut problems);
        }
        if metrics {
            metrics = protocol_ok("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", &env, &mut problems);
        }
        problems.dedup();
        let timeout = env("OTEL_EXPORTER_OTLP_TIMEOUT")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(Duration::from_secs(10), Duration::from_millis);
        Self {
            traces,
            metrics,
            timeout,
            problems,
        }
    }

    /// From the process environment.
    pub(crate) fn from_env() -> Self {
        Self::read(|var| std::env::var(var).ok())
    }
}

/// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`: the GenAI conventions'
/// opt-in to recording message content in spans.
pub(crate) fn capture_content_from_env() -> bool {
    truthy("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", &|v| {
        std::env::var(v).ok()
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn read(vars: &[(&str, &str)]) -> Settings {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Settings::read(|var| map.get(var).cloned())
    }

    #[test]
    fn nothing_is_exported_without_an_endpoint() {
        let settings = read(&[("OTEL_SERVICE_NAME", "x"), ("OTEL_TRACES_SAMPLER", "always_on")]);
        assert!(!settings.traces && !settings.metrics);
        assert!(settings.problems.is_empty());
        assert!(!read(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]).traces);
    }

    #[test]
    fn the_generic_endpoint_turns_on_both_signals_and_a_signal_endpoint_one() {
        let both = read(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")]);
        assert!(both.traces && both.metrics);
        let traces = read(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c/v1/traces")]);
        assert!(traces.traces && !traces.metrics);
        let metrics = read(&[("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://c/v1/metrics")]);
        assert!(!metrics.traces && metrics.metrics);
    }

    #[test]
    fn disabled_sdk_and_none_exporters_win() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
        let off = read(&[endpoint, ("OTEL_SDK_DISABLED", "TRUE")]);
        assert!(!off.traces && !off.metrics);
        let no_traces = read(&[endpoint, ("OTEL_TRACES_EXPORTER", "none")]);
        assert!(!no_traces.traces && no_traces.metrics);
    }

    #[test]
    fn a_protocol_other_than_http_protobuf_is_reported_and_leaves_export_off() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317");
        let grpc = read(&[endpoint, ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]);
        assert!(!grpc.traces && !grpc.metrics);
        assert_eq!(grpc.problems.len(), 1, "{:?}", grpc.problems);
        assert!(
            grpc.problems[0].contains("'grpc' is not supported"),
            "{:?}",
            grpc.problems
        );
        let ok = read(&[endpoint, ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")]);
        assert!(ok.traces && ok.metrics && ok.problems.is_empty());
        // A signal's own variable wins over the generic one.
        let mixed = read(&[
            endpoint,
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf"),
        ]);
        assert!(mixed.traces && !mixed.metrics);
    }

    #[test]
    fn the_export_timeout_is_in_milliseconds() {
        assert_eq!(
            read(&[("OTEL_EXPORTER_OTLP_TIMEOUT", "2500")]).timeout,
            Duration::from_millis(2500)
        );
        assert_eq!(read(&[]).timeout, Duration::from_secs(10));
    }
}
