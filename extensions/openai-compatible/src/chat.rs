//! A chat through the upstream: map the request, send it, turn its chunks into a
//! [`ChatStream`] ([`start`]), or, for `/chat`, ask for the answer in one piece as the
//! reference does ([`once`]: servers such as llama-cpp-python report usage only there).
//! Dropping the stream or the `/chat` future drops the upstream request, which closes
//! its socket.

use std::time::Duration;

use aep_sdk::AepError;
use aep_sdk::chat_stream;
use aep_sdk::protocol::{ChatRequest, ChatResponse};
use aep_sdk::server::ChatStream;
use futures::FutureExt;
use futures::future::BoxFuture;

use crate::client::{Event, EventReader, UpstreamClient, UpstreamError};
use crate::map::{self, RequestSettings, StreamMapper};

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
    let client = client.clone();
    // Boxed: polled here first, then moved into the stream.
    let mut pending: BoxFuture<'static, Result<EventReader, UpstreamError>> =
        async move { client.chat_stream(&body).await }.boxed();
    let started = match tokio::time::timeout(start_wait, &mut pending).await {
        Ok(result) => Some(result.map_err(|e| e.into_aep(flavor))?),
        Err(_) => None,
    };
    let mut mapper = StreamMapper::new(request.model);
    Ok(chat_stream! {
        let mut reader = match started {
            Some(reader) => reader,
            None => pending.await.map_err(|e| e.into_aep(flavor))?,
        };
        loop {
            let event = if mapper.holding() {
                // The answer is complete; only [DONE] or usage may follow.
                match tokio::time::timeout(FINISH_GRACE, reader.next_event()).await {
                    Ok(Ok(Some(event))) => Some(event),
                    _ => None,
                }
            } else {
                reader.next_event().await.map_err(|e| e.into_aep(flavor))?
            };
            match event {
                Some(Event::Chunk(chunk)) => {
                    for update in mapper.chunk(&chunk).map_err(|e| e.into_aep(flavor))? {
                        let terminal = update.is_terminal();
                        yield update;
                        if terminal {
                            return;
                        }
                    }
                }
                None | Some(Event::Done) => {
                    let finish = mapper.take_finish().ok_or_else(|| UpstreamError::Truncated.into_aep(flavor))?;
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
    let answer = client.chat_once(&body).await.map_err(|e| e.into_aep(flavor))?;
    map::chat_response(&answer, &request.model).map_err(|e| e.into_aep(flavor))
}
