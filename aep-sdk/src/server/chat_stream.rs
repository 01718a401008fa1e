//! [`ChatStream`], what a model provider answers with, and [`chat_stream!`](crate::chat_stream),
//! the way to write one: `yield` updates from a block of ordinary async code.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;

use crate::AepError;
use crate::protocol::{ChatResponse, ChatUpdate, FinishReason};

/// The updates of one streamed answer. The first update with a `finish_reason` ends it;
/// an `Err` ends it with a terminal `finishReason: "error"` update; a stream that simply
/// ends finishes with `stop`. Dropping it (the client went away) drops the work inside.
///
/// Make one with [`chat_stream!`](crate::chat_stream), [`ChatStream::new`] from any
/// stream, [`ChatStream::from_updates`] from updates at hand, or `From` a
/// [`ChatResponse`] (one update and a finish).
///
/// ```
/// use aep_sdk::prelude::*;
///
/// let stream = ChatStream::from_updates([ChatUpdate::text("hel"), ChatUpdate::text("lo")]);
/// # let _ = stream;
/// let stream = ChatStream::new(futures::stream::iter([Ok(ChatUpdate::text("hi"))]));
/// # let _ = stream;
/// ```
pub struct ChatStream {
    inner: Pin<Box<dyn Stream<Item = Result<ChatUpdate, AepError>> + Send + 'static>>,
}

impl ChatStream {
    /// Any stream of updates.
    pub fn new(stream: impl Stream<Item = Result<ChatUpdate, AepError>> + Send + 'static) -> Self {
        Self {
            inner: Box::pin(stream),
        }
    }

    /// Updates that are already at hand.
    pub fn from_updates(updates: impl IntoIterator<Item = ChatUpdate, IntoIter: Send + 'static>) -> Self {
        Self::new(futures::stream::iter(updates.into_iter().map(Ok)))
    }
}

impl std::fmt::Debug for ChatStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatStream").finish_non_exhaustive()
    }
}

impl Stream for ChatStream {
    type Item = Result<ChatUpdate, AepError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl From<Pin<Box<dyn Stream<Item = Result<ChatUpdate, AepError>> + Send + 'static>>> for ChatStream {
    fn from(inner: Pin<Box<dyn Stream<Item = Result<ChatUpdate, AepError>> + Send + 'static>>) -> Self {
        Self { inner }
    }
}

impl From<Vec<ChatUpdate>> for ChatStream {
    fn from(updates: Vec<ChatUpdate>) -> Self {
        Self::from_updates(updates)
    }
}

/// A whole answer as a stream: its contents in one update, then the terminal update with
/// its finish reason (`stop` when it has none), model and usage.
impl From<ChatResponse> for ChatStream {
    fn from(response: ChatResponse) -> Self {
        let mut updates = Vec::with_capacity(response.messages.len() + 1);
        for message in response.messages {
            updates.push(ChatUpdate {
                contents: message.contents,
                role: Some(message.role),
                model: response.model.clone(),
                ..ChatUpdate::default()
            });
        }
        updates.push(ChatUpdate {
            model: response.model,
            usage: response.usage,
            ..ChatUpdate::finish(response.finish_reason.unwrap_or(FinishReason::Stop))
        });
        Self::from_updates(updates)
    }
}

/// Writes a [`ChatStream`] as a block of async code that `yield`s updates: `async-stream`'s
/// `try_stream!` shaped for providers. `?` ends the stream with a terminal error update
/// (its error converts into an [`AepError`] through `From`: give other errors one with
/// `map_err`, e.g. `AepError::internal`); ending the block without a terminal update
/// means `finishReason: "stop"`; dropping the stream (the client went away) cancels the
/// work inside it at its next `.await`.
///
/// ```
/// use aep_sdk::prelude::*;
///
/// fn words(text: String) -> ChatStream {
///     chat_stream! {
///         for word in text.split_inclusive(' ') {
///             tokio::task::yield_now().await;
///             yield ChatUpdate::text(word).with_model("words-1");
///         }
///     }
/// }
/// # let _ = words("a b".into());
/// ```
#[macro_export]
macro_rules! chat_stream {
    ($($body:tt)*) => {
        $crate::server::ChatStream::new($crate::__private::async_stream::try_stream! {
            $($body)*
        })
    };
}
