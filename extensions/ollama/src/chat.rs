//! A chat through Ollama: map the request, send it, turn Ollama's lines into a
//! [`ChatStream`]. `/chat` folds the same stream (the SDK's default), so both
//! framings share one path, one set of timeouts and one cancellation story:
//! dropping the stream drops the upstream request, which closes its socket.

use std::time::Duration;

use aep_sdk::AepError;
use aep_sdk::protocol::{ChatRequest, ChatUpdate};
use aep_sdk::server::ChatStream;
use futures::future::BoxFuture;

use crate::map::{self, StreamMapper};
use crate::ollama::{LineReader, OllamaClient, OllamaError};
use crate::profile::ModelProfile;

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
    let client = client.clone();
    let mut pending: BoxFuture<'static, Result<LineReader, OllamaError>> =
        Box::pin(async move { client.chat(&body).await });
    let source = match tokio::time::timeout(start_wait, &mut pending).await {
        Ok(Ok(reader)) => Source::Reading(reader),
        Ok(Err(error)) => return Err(error.into_aep()),
        Err(_) => Source::Pending(pending),
    };
    let pump = Pump {
        source,
        mapper: StreamMapper::new(request.model),
    };
    Ok(Box::pin(futures::stream::unfold(pump, |mut pump| async move {
        pump.next().await.map(|item| (item, pump))
    })))
}

enum Source {
    /// Still waiting for Ollama's status line.
    Pending(BoxFuture<'static, Result<LineReader, OllamaError>>),
    /// Reading its lines.
    Reading(LineReader),
    /// Finished (terminal update or error sent).
    Done,
}

struct Pump {
    source: Source,
    mapper: StreamMapper,
}

impl Pump {
    async fn next(&mut self) -> Option<Result<ChatUpdate, AepError>> {
        loop {
            match std::mem::replace(&mut self.source, Source::Done) {
                Source::Done => return None,
                Source::Pending(pending) => match pending.await {
                    Ok(reader) => self.source = Source::Reading(reader),
                    Err(error) => return Some(Err(error.into_aep())),
                },
                Source::Reading(mut reader) => {
                    let line = match reader.next_line().await {
                        Ok(Some(line)) => line,
                        Ok(None) => return Some(Err(OllamaError::Truncated.into_aep())),
                        Err(error) => return Some(Err(error.into_aep())),
                    };
                    match self.mapper.line(&line) {
                        Ok(Some(update)) => {
                            if !update.is_terminal() {
                                self.source = Source::Reading(reader);
                            }
                            return Some(Ok(update));
                        }
                        Ok(None) => self.source = Source::Reading(reader),
                        Err(error) => return Some(Err(error.into_aep())),
                    }
                }
            }
        }
    }
}
