//! GenAI spans (OpenTelemetry semantic conventions for generative AI): one per chat
//! request, named `chat {model}`, with `gen_ai.operation.name`, `gen_ai.provider.name`,
//! `gen_ai.request.model`, `gen_ai.response.model`, `gen_ai.response.finish_reasons` and
//! `gen_ai.usage.input_tokens`/`output_tokens`; `error.type` when it fails. Message
//! content goes in (`gen_ai.input.messages`) only with
//! `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use tracing::Span;
use tracing::field::Empty;

use crate::AepError;
use crate::protocol::{ChatRequest, ChatResponse, ChatUpdate, FinishReason, Usage};

/// An OTel integer attribute: `tracing-opentelemetry` writes `u64` fields as strings.
fn int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// The conventions' spelling of a finish reason.
fn finish_reason(reason: FinishReason) -> &'static str {
    match reason {
        FinishReason::Stop => "stop",
        FinishReason::Length => "length",
        FinishReason::ToolCalls => "tool_calls",
        FinishReason::ContentFilter => "content_filter",
        FinishReason::Error => "error",
        FinishReason::Other => "other",
    }
}

/// The span of one chat call: the server's handling of an AEP chat request, a client's
/// call to an extension, or an extension's call to its model server. Empty (every
/// method does nothing, nothing is allocated) when spans are not exported, so it can
/// be made unconditionally.
///
/// ```
/// use aep_sdk::telemetry::ChatSpan;
///
/// let mut span = ChatSpan::client("ollama", "llama3.2");
/// let mut headers = http::HeaderMap::new();
/// span.inject(&mut headers); // traceparent of this span, when exported
/// span.usage(Some(12), Some(30));
/// span.finish_reason("stop");
/// ```
#[derive(Debug, Default)]
pub struct ChatSpan {
    span: Option<Span>,
}

impl ChatSpan {
    fn new(kind: &'static str, provider: &str, model: &str) -> Self {
        if !super::enabled() {
            return Self { span: None };
        }
        let span = tracing::info_span!(
            target: super::TARGET,
            "gen_ai.chat",
            otel.name = format!("chat {model}"),
            otel.kind = kind,
            otel.status_code = Empty,
            gen_ai.operation.name = "chat",
            gen_ai.provider.name = provider,
            gen_ai.request.model = model,
            gen_ai.response.model = Empty,
            gen_ai.usage.input_tokens = Empty,
            gen_ai.usage.output_tokens = Empty,
            gen_ai.input.messages = Empty,
            "error.type" = Empty,
            server.address = Empty,
            server.port = Empty,
            http.request.method = Empty,
            http.response.status_code = Empty,
        );
        Self { span: Some(span) }
    }

    /// A client span (`otel.kind = client`): a call to a model server or extension.
    pub fn client(provider: &str, model: &str) -> Self {
        Self::new("client", provider, model)
    }

    /// An internal span: the chat a server handles (its HTTP server span is the parent).
    pub fn internal(provider: &str, model: &str) -> Self {
        Self::new("internal", provider, model)
    }

    /// The span for a request: the input messages are recorded when the opt-in says so.
    pub(crate) fn for_request(kind: &'static str, provider: &str, request: &ChatRequest) -> Self {
        let this = Self::new(kind, provider, &request.model);
        #[cfg(feature = "otel")]
        if let Some(span) = &this.span
            && super::pipeline::capture_content()
            && let Ok(messages) = serde_json::to_string(&request.messages)
        {
            span.record("gen_ai.input.messages", messages);
        }
        this
    }

    /// The `tracing` span (disabled when spans are not exported): instrument the
    /// request's future with it so that its own calls are children.
    pub fn span(&self) -> Span {
        self.span.clone().unwrap_or_else(Span::none)
    }

    /// Whether this span records anything.
    pub fn is_recording(&self) -> bool {
        self.span.is_some()
    }

    /// Writes this span's W3C `traceparent` and `tracestate` into `headers`.
    pub fn inject(&self, headers: &mut http::HeaderMap) {
        #[cfg(feature = "otel")]
        if let Some(span) = &self.span {
            super::pipeline::inject(span, headers);
        }
        #[cfg(not(feature = "otel"))]
        let _ = headers;
    }

    /// The server the call goes to (`server.address`, `server.port`) and its HTTP method.
    pub fn http_target(&self, method: &str, url: &url::Url) {
        if let Some(span) = &self.span {
            span.record("http.request.method", method);
            if let Some(host) = url.host_str() {
                span.record("server.address", host);
            }
            if let Some(port) = url.port_or_known_default() {
                span.record("server.port", i64::from(port));
            }
        }
    }

    /// The HTTP status the call got.
    pub fn http_status(&self, status: u16) {
        if let Some(span) = &self.span {
            span.record("http.response.status_code", i64::from(status));
        }
    }

    /// Token counts (`gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`).
    pub fn usage(&self, input: Option<u64>, output: Option<u64>) {
        if let Some(span) = &self.span {
            if let Some(input) = input {
                span.record("gen_ai.usage.input_tokens", int(input));
            }
            if let Some(output) = output {
                span.record("gen_ai.usage.output_tokens", int(output));
            }
        }
    }

    /// The model that answered (`gen_ai.response.model`).
    pub fn response_model(&self, model: &str) {
        if let Some(span) = &self.span {
            span.record("gen_ai.response.model", model);
        }
    }

    /// Why the answer ended (`gen_ai.response.finish_reasons`, a string array), in the
    /// conventions' spelling (`stop`, `length`, `tool_calls`, ...).
    pub fn finish_reason(&self, reason: &str) {
        #[cfg(feature = "otel")]
        if let Some(span) = &self.span {
            use tracing_opentelemetry::OpenTelemetrySpanExt;
            let reasons = opentelemetry::Array::String(vec![reason.to_owned().into()]);
            span.set_attribute(
                "gen_ai.response.finish_reasons",
                opentelemetry::Value::Array(reasons),
            );
        }
        #[cfg(not(feature = "otel"))]
        let _ = reason;
    }

    /// The call failed: `error.type` (an AEP error code, an HTTP status, ...) and an
    /// error status.
    pub fn error(&self, error_type: &str) {
        if let Some(span) = &self.span {
            span.record("error.type", error_type);
            span.record("otel.status_code", "ERROR");
        }
    }

    fn record_usage(&self, usage: Option<&Usage>) {
        if let Some(usage) = usage {
            self.usage(usage.input_tokens, usage.output_tokens);
        }
    }

    /// Records what an update says: the model, and on the terminal one the finish
    /// reason, usage and error code.
    pub fn update(&self, update: &ChatUpdate) {
        if self.span.is_none() {
            return;
        }
        if let Some(model) = &update.model {
            self.response_model(model);
        }
        self.record_usage(update.usage.as_ref());
        if let Some(reason) = update.finish_reason {
            self.finish_reason(finish_reason(reason));
            if reason == FinishReason::Error {
                self.error(update.error.as_ref().map_or("error", |e| e.code.as_str()));
            }
        }
    }

    /// Records a whole answer.
    pub fn response(&self, response: &ChatResponse) {
        if self.span.is_none() {
            return;
        }
        if let Some(model) = &response.model {
            self.response_model(model);
        }
        self.record_usage(response.usage.as_ref());
        self.finish_reason(finish_reason(
            response.finish_reason.unwrap_or(FinishReason::Stop),
        ));
    }
}

/// A provider's stream inside its chat span: polled in the span (the provider's upstream
/// calls become its children), recording each update, ending with the stream.
pub(crate) struct Traced<S> {
    inner: S,
    chat: ChatSpan,
    done: bool,
}

impl<S> Traced<S> {
    pub(crate) fn new(inner: S, chat: ChatSpan) -> Self {
        Self {
            inner,
            chat,
            done: false,
        }
    }
}

impl<S: Stream<Item = Result<ChatUpdate, AepError>> + Unpin> Stream for Traced<S> {
    type Item = Result<ChatUpdate, AepError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let span = this.chat.span();
        let _entered = span.enter();
        let item = Pin::new(&mut this.inner).poll_next(cx);
        match &item {
            Poll::Ready(Some(Ok(update))) => {
                this.chat.update(update);
                this.done |= update.is_terminal();
            }
            Poll::Ready(Some(Err(error))) => {
                this.chat.error(error.code());
                this.done = true;
            }
            Poll::Ready(None) if !this.done => {
                this.chat.finish_reason("stop");
                this.done = true;
            }
            _ => {}
        }
        item
    }
}

impl<S> Drop for Traced<S> {
    fn drop(&mut self) {
        if !self.done {
            // The client went away (or the server shut down) before the answer ended.
            self.chat.error("cancelled");
        }
    }
}
