//! The model-provider trait, its request context, and the fold that turns a stream
//! into one answer.

use std::future::Future;
use std::sync::Arc;

use futures::{StreamExt, future::BoxFuture};
use http::{HeaderMap, StatusCode};
use tokio_util::sync::CancellationToken;

use super::ChatStream;
use crate::AepError;
use crate::caller::Caller;
use crate::protocol::{
    ChatRequest, ChatResponse, ChatUpdate, Content, ContentKind, FinishReason, Health, Message,
    ModelDescriptor, ModelProviderDescriptor, Role,
};

/// What a provider knows about the request besides its body.
///
/// Dropping the connection cancels [`RequestContext::cancellation`]; the server also
/// drops the provider's stream, so work tied to the stream stops by itself.
#[derive(Debug, Clone)]
pub struct RequestContext {
    pub(crate) cancellation: CancellationToken,
    pub(crate) caller: Option<Caller>,
    pub(crate) headers: HeaderMap,
    pub(crate) descriptor: Arc<ModelProviderDescriptor>,
    pub(crate) extensions: http::Extensions,
}

impl RequestContext {
    /// A context for calling a provider directly (tests, in-process hosts).
    pub fn new(descriptor: ModelProviderDescriptor) -> Self {
        Self {
            cancellation: CancellationToken::new(),
            caller: None,
            headers: HeaderMap::new(),
            descriptor: Arc::new(descriptor),
            extensions: http::Extensions::new(),
        }
    }

    /// Cancelled when the client goes away or the server shuts down.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// Who the server's bearer authentication accepted the request as; `None` when it
    /// requires no token.
    pub fn caller(&self) -> Option<&Caller> {
        self.caller.as_ref()
    }

    /// Request headers (never logged by the SDK).
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The descriptor of the provider being called.
    pub fn descriptor(&self) -> &ModelProviderDescriptor {
        &self.descriptor
    }

    /// Typed values attached by the runtime (e.g. validated native options).
    pub fn extensions(&self) -> &http::Extensions {
        &self.extensions
    }

    /// Mutable access to the attached values.
    pub fn extensions_mut(&mut self) -> &mut http::Extensions {
        &mut self.extensions
    }

    /// The request's `options.nativeOptions`, validated against its option set version
    /// (see [`crate::config`]); `None` when the request carries none.
    #[cfg(feature = "config")]
    pub fn native_options_envelope(&self) -> Option<&crate::protocol::VersionedOptions> {
        self.extensions
            .get::<crate::config::ValidatedOptions>()
            .map(|v| &*v.0)
    }

    /// The validated native option values (a JSON object); `None` when the request
    /// carries none.
    #[cfg(feature = "config")]
    pub fn native_options_json(&self) -> Option<&serde_json::Value> {
        self.native_options_envelope().map(|v| &v.values)
    }

    /// The validated native option values as a `T`: present when the request's option
    /// set version was declared with
    /// [`OptionSetDecl::version_from_type::<T>`](crate::config::OptionSetDecl::version_from_type)
    /// or [`OptionSetDecl::version_typed::<T>`](crate::config::OptionSetDecl::version_typed).
    #[cfg(feature = "config")]
    pub fn native_options<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.extensions
            .get::<crate::config::TypedOptions<T>>()
            .map(|t| &*t.0)
    }
}

/// A model provider: streaming first. Implement [`ModelProvider::chat_stream`]; the
/// non-streaming `/chat` folds that stream into one [`ChatResponse`] unless you
/// override [`ModelProvider::chat`].
///
/// Most extensions do not implement this by hand: `#[model_provider]` inside
/// `#[aep_extension]` does it for an annotated method.
///
/// ```
/// use aep_sdk::prelude::*;
/// use aep_sdk::server::{ChatStream, ModelProvider, RequestContext};
///
/// struct Hello;
///
/// impl ModelProvider for Hello {
///     async fn chat_stream(&self, _request: ChatRequest, _ctx: RequestContext) -> Result<ChatStream, AepError> {
///         Ok(chat_stream! {
///             yield ChatUpdate::text("hello");
///         })
///     }
/// }
/// ```
pub trait ModelProvider: Send + Sync + 'static {
    /// Answers a chat as a stream of updates.
    fn chat_stream(
        &self,
        request: ChatRequest,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<ChatStream, AepError>> + Send;

    /// Answers a chat in one piece. Defaults to folding [`ModelProvider::chat_stream`].
    fn chat(
        &self,
        request: ChatRequest,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<ChatResponse, AepError>> + Send {
        async move { collect_stream(self.chat_stream(request, ctx).await?).await }
    }

    /// Lists models. Defaults to the descriptor's static `models`.
    fn models(
        &self,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<Vec<ModelDescriptor>, AepError>> + Send {
        async move { Ok(ctx.descriptor().models.clone().unwrap_or_default()) }
    }

    /// Reports health. Defaults to available.
    fn health(&self, ctx: RequestContext) -> impl Future<Output = Result<Health, AepError>> + Send {
        let _ = ctx;
        async { Ok(Health::available()) }
    }
}

/// Object-safe form of [`ModelProvider`], what the router stores.
pub(crate) trait DynProvider: Send + Sync {
    fn chat_stream(
        &self,
        request: ChatRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'_, Result<ChatStream, AepError>>;
    fn chat(
        &self,
        request: ChatRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'_, Result<ChatResponse, AepError>>;
    fn models(&self, ctx: RequestContext) -> BoxFuture<'_, Result<Vec<ModelDescriptor>, AepError>>;
    fn health(&self, ctx: RequestContext) -> BoxFuture<'_, Result<Health, AepError>>;
}

impl<P: ModelProvider> DynProvider for P {
    fn chat_stream(
        &self,
        request: ChatRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'_, Result<ChatStream, AepError>> {
        Box::pin(ModelProvider::chat_stream(self, request, ctx))
    }
    fn chat(
        &self,
        request: ChatRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'_, Result<ChatResponse, AepError>> {
        Box::pin(ModelProvider::chat(self, request, ctx))
    }
    fn models(&self, ctx: RequestContext) -> BoxFuture<'_, Result<Vec<ModelDescriptor>, AepError>> {
        Box::pin(ModelProvider::models(self, ctx))
    }
    fn health(&self, ctx: RequestContext) -> BoxFuture<'_, Result<Health, AepError>> {
        Box::pin(ModelProvider::health(self, ctx))
    }
}

/// Folds a stream into one [`ChatResponse`]: consecutive text deltas are joined, as are
/// reasoning deltas; tool calls and other contents are kept in order; `model`,
/// `finishReason` and `usage` come from the updates that carry them. The first terminal
/// update ends the fold; a stream that ends without one finishes with `stop`, as the
/// streamed answer does; a terminal error update or an `Err` item becomes the error.
pub async fn collect_stream(mut stream: ChatStream) -> Result<ChatResponse, AepError> {
    let mut folded = Fold::default();
    while let Some(item) = stream.next().await {
        let update = item?;
        if let Some(error) = update.error.clone() {
            return Err(AepError::from_body(StatusCode::BAD_GATEWAY, error));
        }
        let terminal = update.is_terminal();
        folded.push(update);
        if terminal {
            return Ok(folded.finish());
        }
    }
    // Ending without a terminal update is a normal finish: `/chat/stream` sends
    // `finishReason: "stop"` then (see `sse`), and both routes must agree.
    folded.response.finish_reason = Some(FinishReason::Stop);
    Ok(folded.finish())
}

#[derive(Default)]
struct Fold {
    role: Option<Role>,
    contents: Vec<Content>,
    response: ChatResponse,
}

impl Fold {
    fn push(&mut self, update: ChatUpdate) {
        self.role = self.role.or(update.role);
        if update.model.is_some() {
            self.response.model = update.model;
        }
        if update.usage.is_some() {
            self.response.usage = update.usage;
        }
        self.response.finish_reason = update.finish_reason.or(self.response.finish_reason);
        for content in update.contents {
            self.append(content);
        }
    }

    fn append(&mut self, content: Content) {
        if let Some(last) = self.contents.last_mut() {
            if let (ContentKind::Text, ContentKind::Text) = (last.kind, content.kind)
                && let (Some(text), Some(delta)) = (last.text.as_mut(), content.text.as_deref())
            {
                text.push_str(delta);
                return;
            }
            if let (Some(_), Some(delta)) = (last.as_reasoning(), content.as_reasoning()) {
                let joined = format!("{}{delta}", last.as_reasoning().unwrap_or_default());
                *last = Content::reasoning(joined);
                return;
            }
        }
        self.contents.push(content);
    }

    fn finish(mut self) -> ChatResponse {
        let message = Message::new(self.role.unwrap_or(Role::Assistant), self.contents);
        self.response.messages = vec![message];
        self.response
    }
}
