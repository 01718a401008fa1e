//! A chat through the upstream: map the request, send it, turn its chunks into a
//! [`ChatStream`] ([`start`]), or, for `/chat`, ask for the answer in one piece as the
//! reference does ([`once`]: servers such as llama-cpp-python report usage only there).
//! Dropping the stream or the `/chat` future drops the upstream request, which closes
//! its socket.
//!
//! Each upstream request is a GenAI client span `chat {model}` (when spans are exported;
//! see [`aep_sdk::telemetry`]) whose `traceparent` the upstream gets: `gen_ai.provider.name`
//! is the flavour's provider id (`llamacpp`, `localai`, `openai`; the conventions name no
//! value for an OpenAI-compatible server that is not OpenAI), with `server.address`/`port`,
//! the response model, finish reason, token usage, and `error.type` (the AEP error code)
//! when it fails. The span ends with the stream.

use std::time::Duration;

use aep_sdk::AepError;
use aep_sdk::chat_stream;
use aep_sdk::protocol::{ChatRequest, ChatResponse};
use aep_sdk::server::ChatStream;
use aep_sdk::telemetry::ChatSpan;
use futures::FutureExt;
use futures::future::BoxFuture;
use tracing::Instrument;

use crate::client::{Event, EventReader, UpstreamClient, UpstreamError};
use crate::flavor::Flavor;
use crate::map::{self, RequestSettings, StreamMapper};

/// The client span of one request to `client`'s upstream (empty unless spans are
/// exported).
fn client_span(client: &UpstreamClient, model: &str) -> ChatSpan {
    let span = ChatSpan::client(client.flavor().provider_id(), model);
    if span.is_recording() {
        span.http_target("POST", &client.chat_url());
    }
    span
}

/// An upstream failure as the AEP error it answers, marked on the span.
fn failed(span: &ChatSpan, flavor: Flavor, error: UpstreamError) -> AepError {
    if let UpstreamError::Http { status, .. } = &error {
        span.http_status(*status);
    }
    let error = error.into_aep(flavor);
    span.error(error.code());
    error
}

/// How long the finish update waits for `[DONE]` or a usage chunk before it is sent
/// anyway (an upstream that keeps the connection open after finishing).
pub const FINISH_GRACE: Duration = Duration::from_secs(2);

/// Starts a chat. Waits up to `start_wait` for the upstream's answer headers so that
/// errors it reports at once (unknown model, bad request, overloaded) are answered with
/// their HTTP status; past that the stream starts anyway (SSE keep-alives flow while a
/// model loads) and a later failure ends it with a terminal error update.
pub async fn start(
    client: &UpstreamClient,
    request: ChatRequest,
    native: Option<&serde_json::Value>,
    settings: RequestSettings,
    start_wait: Duration,
) -> Result<ChatStream, AepError> {
    let flavor = settings.flavor;
    let body = map::chat_body(&request, native, settings)?;
    tracing::debug!(model = %request.model, messages = request.messages.len(), tools = request.tools.len(), "chat");
    // Ends with the stream; the upstream gets its traceparent.
    let span = client_span(client, &request.model);
    let client = client.clone();
    // Boxed: polled here first, then moved into the stream.
    let mut pending: BoxFuture<'static, Result<EventReader, UpstreamError>> =
        async move { client.chat_stream(&body).await }
            .instrument(span.span())
            .boxed();
    let started = match tokio::time::timeout(start_wait, &mut pending).await {
        Ok(result) => Some(result.map_err(|e| failed(&span, flavor, e))?),
        Err(_) => None,
    };
    let mut mapper = StreamMapper::new(request.model);
    Ok(chat_stream! {
        let mut reader = match started {
            Some(reader) => reader,
            None => pending.await.map_err(|e| failed(&span, flavor, e))?,
        };
        loop {
            let event = if mapper.holding() {
                // The answer is complete; only [DONE] or usage may follow.
                match tokio::time::timeout(FINISH_GRACE, reader.next_event()).await {
                    Ok(Ok(Some(event))) => Some(event),
                    _ => None,
                }
            } else {
                reader.next_event().await.map_err(|e| failed(&span, flavor, e))?
            };
            match event {
                Some(Event::Chunk(chunk)) => {
                    for update in mapper.chunk(&chunk).map_err(|e| failed(&span, flavor, e))? {
                        span.update(&update);
                        let terminal = update.is_terminal();
                        yield update;
                        if terminal {
                            return;
                        }
                    }
                }
                None | Some(Event::Done) => {
                    let finish = mapper.take_finish().ok_or_else(|| failed(&span, flavor, UpstreamError::Truncated))?;
                    span.update(&finish);
                    yield finish;
                    return;
                }
            }
        }
    })
}

/// A chat answered in one piece (`stream: false` upstream).
pub async fn once(
    client: &UpstreamClient,
    request: ChatRequest,
    native: Option<&serde_json::Value>,
    settings: RequestSettings,
) -> Result<ChatResponse, AepError> {
    let flavor = settings.flavor;
    let body = map::chat_body(
        &request,
        native,
        RequestSettings {
            stream: false,
            ..settings
        },
    )?;
    let span = client_span(client, &request.model);
    let answer = client
        .chat_once(&body)
        .instrument(span.span())
        .await
        .map_err(|e| failed(&span, flavor, e))?;
    let response = map::chat_response(&answer, &request.model).map_err(|e| failed(&span, flavor, e))?;
    span.response(&response);
    Ok(response)
}
