//! A chat through Ollama: map the request, send it, turn Ollama's lines into a
//! [`ChatStream`]. `/chat` folds the same stream (the SDK's default), so both
//! framings share one path, one set of timeouts and one cancellation story:
//! dropping the stream drops the upstream request, which closes its socket.

use std::time::Duration;

use aep_sdk::telemetry::ChatSpan;
use tracing::Instrument;

use aep_sdk::AepError;
use aep_sdk::chat_stream;
use aep_sdk::protocol::ChatRequest;
use aep_sdk::server::ChatStream;
use futures::FutureExt;
use futures::future::BoxFuture;

use crate::map::{self, StreamMapper};
use crate::ollama::{LineReader, OllamaClient, OllamaError};
use crate::profile::ModelProfile;

/// `gen_ai.provider.name` of the requests to Ollama (the conventions' value).
const PROVIDER_NAME: &str = "ollama";

/// An Ollama failure as the AEP error it answers, marked on the span.
fn failed(span: &ChatSpan, error: OllamaError) -> AepError {
    let error = error.into_aep();
    span.error(error.code());
    error
}

/// Starts a chat. Waits up to `start_wait` for Ollama's status line so that errors
/// it reports at once (unknown model, unsupported feature, busy) are answered with
/// their HTTP status; past that the stream starts anyway (so a slow model load gets
/// SSE keep-alives) and a later failure ends it with a terminal error update.
pub async fn start(
    client: &OllamaClient,
    request: ChatRequest,
    profile: Option<&ModelProfile>,
    start_wait: Duration,
) -> Result<ChatStream, AepError> {
    let body = map::chat_request(&request, profile)?;
    tracing::debug!(model = %body.model, messages = body.messages.len(), tools = body.tools.len(), "chat");
    // The client span of the request to Ollama (empty unless spans are exported); it
    // ends with the stream. Ollama gets its traceparent.
    let span = ChatSpan::client(PROVIDER_NAME, &body.model);
    span.http_target("POST", client.base_url());
    let client = client.clone();
    // Boxed: polled here first, then moved into the stream.
    let mut pending: BoxFuture<'static, Result<LineReader, OllamaError>> =
        async move { client.chat(&body).await }
            .instrument(span.span())
            .boxed();
    let started = match tokio::time::timeout(start_wait, &mut pending).await {
        Ok(result) => Some(result.map_err(|e| failed(&span, e))?),
        Err(_) => None,
    };
    let mut mapper = StreamMapper::new(request.model);
    Ok(chat_stream! {
        let mut reader = match started {
            Some(reader) => reader,
            None => pending.await.map_err(|e| failed(&span, e))?,
        };
        loop {
            let line = reader
                .next_line()
                .await
                .map_err(|e| failed(&span, e))?
                .ok_or_else(|| failed(&span, OllamaError::Truncated))?;
            // Lines that carry nothing for the client (empty deltas) map to `None`.
            if let Some(update) = mapper.line(&line).map_err(|e| failed(&span, e))? {
                span.update(&update);
                let terminal = update.is_terminal();
                yield update;
                if terminal {
                    break;
                }
            }
        }
    })
}
