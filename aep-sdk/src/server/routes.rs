//! The AEP routes: discovery, health and model providers (spec sections 1 and 3).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Request;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use futures::FutureExt;
use http::{StatusCode, header};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::body::BodyLimits;
use super::extract::{AepPath, json_body};
use super::metrics::{ChatTimer, Metrics};
use super::provider::{DynProvider, RequestContext};
use super::sse;
use crate::AepError;
use crate::caller::Caller;
use crate::error::codes;
use crate::protocol::{ChatRequest, Health, ModelProviderDescriptor, ProtocolVersion, paths};
use crate::telemetry::conventions::route_template;
use crate::telemetry::{ChatSpan, Traced};

/// A provider as the router holds it.
#[derive(Clone)]
pub(crate) struct Registered {
    pub(crate) descriptor: Arc<ModelProviderDescriptor>,
    pub(crate) provider: Arc<dyn DynProvider>,
}

/// Validates a chat request beyond its JSON shape, before the provider runs; may attach
/// typed values to the context (the configuration layer plugs in here).
pub(crate) type RequestCheck = Arc<
    dyn Fn(&ChatRequest, &ModelProviderDescriptor, &mut RequestContext) -> Result<(), AepError> + Send + Sync,
>;

pub(crate) struct Shared {
    pub(crate) manifests: Vec<(ProtocolVersion, Bytes)>,
    pub(crate) provider_list: Bytes,
    pub(crate) providers: Vec<Registered>,
    pub(crate) keep_alive: Duration,
    pub(crate) shutdown: CancellationToken,
    pub(crate) checks: Vec<RequestCheck>,
    pub(crate) open_streams: sse::OpenStreams,
    pub(crate) limits: BodyLimits,
}

impl Shared {
    fn provider(&self, id: &str) -> Result<&Registered, AepError> {
        self.index_of(id).map(|index| &self.providers[index])
    }

    fn index_of(&self, id: &str) -> Result<usize, AepError> {
        self.providers
            .iter()
            .position(|p| p.descriptor.id.eq_ignore_ascii_case(id))
            .ok_or_else(|| AepError::unknown_provider(id))
    }

    /// Runs the request checks and builds the provider's context.
    fn prepare(
        &self,
        request: &ChatRequest,
        registered: &Registered,
        headers: http::HeaderMap,
        caller: Option<Caller>,
        cancellation: CancellationToken,
    ) -> Result<RequestContext, AepError> {
        if request.model.trim().is_empty() {
            return Err(AepError::invalid_request("'model' must not be empty").with_target("model"));
        }
        if request.messages.is_empty() {
            return Err(
                AepError::invalid_request("'messages' must hold at least one message")
                    .with_target("messages"),
            );
        }
        let mut ctx = RequestContext {
            cancellation,
            caller,
            headers,
            descriptor: registered.descriptor.clone(),
            extensions: http::Extensions::new(),
        };
        for check in &self.checks {
            check(request, &registered.descriptor, &mut ctx)?;
        }
        Ok(ctx)
    }
}

type AppState = State<Arc<Shared>>;

/// The AEP routes; with `metrics`, chat requests are timed.
pub(crate) fn router(shared: Arc<Shared>, metrics: Option<Arc<Metrics>>) -> Router {
    let mut router = Router::new();
    for version in ProtocolVersion::ALL {
        router = router.route(
            version.discovery_path(),
            get(move |s: AppState| discovery(s, version)),
        );
    }
    let base = paths::MODEL_PROVIDERS;
    let chat_template = format!("{base}/{{id}}/chat");
    let stream_template = format!("{base}/{{id}}/chat/stream");
    // Each provider's chat routes by their literal path: no path parameter to capture,
    // decode and look up on the hot path. The `{id}` routes below take the other
    // spellings (ids match case-insensitively) and unknown ids. Metrics and spans name
    // both by the template (`route_template`); the metrics' label is looked up once, here.
    for (index, registered) in shared.providers.iter().enumerate() {
        let id = &registered.descriptor.id;
        if !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
        {
            continue;
        }
        let (chat_path, stream_path) = (format!("{base}/{id}/chat"), format!("{base}/{id}/chat/stream"));
        if let Some(metrics) = &metrics {
            metrics.alias_route(&chat_path, &route_template(&chat_path));
            metrics.alias_route(&stream_path, &route_template(&stream_path));
        }
        router = router
            .route(&chat_path, at_provider(chat, index, metrics.clone()))
            .route(&stream_path, at_provider(chat_stream, index, metrics.clone()));
    }
    router
        .route(paths::HEALTH, get(health))
        .route(base, get(list_providers))
        .route(&format!("{base}/{{id}}/health"), get(provider_health))
        .route(&format!("{base}/{{id}}/models"), get(models))
        .route(&chat_template, by_id(chat, metrics.clone()))
        .route(&stream_template, by_id(chat_stream, metrics))
        .with_state(shared)
}

/// `chat` or `chat_stream`: what serves a provider's request.
trait ChatHandler<Fut>:
    Fn(Arc<Shared>, usize, Request, Option<Arc<Metrics>>) -> Fut + Clone + Send + Sync + 'static
{
}

impl<F, Fut> ChatHandler<Fut> for F where
    F: Fn(Arc<Shared>, usize, Request, Option<Arc<Metrics>>) -> Fut + Clone + Send + Sync + 'static
{
}

type ChatRoute = axum::routing::MethodRouter<Arc<Shared>>;

/// `handler` for the provider at `index`, on its literal path.
fn at_provider<F, Fut>(handler: F, index: usize, metrics: Option<Arc<Metrics>>) -> ChatRoute
where
    F: ChatHandler<Fut>,
    Fut: Future<Output = Result<Response, AepError>> + Send + 'static,
{
    post(move |State(shared): AppState, request: Request| handler(shared, index, request, metrics.clone()))
}

/// `handler` for the provider the path's `{id}` names (without case).
fn by_id<F, Fut>(handler: F, metrics: Option<Arc<Metrics>>) -> ChatRoute
where
    F: ChatHandler<Fut>,
    Fut: Future<Output = Result<Response, AepError>> + Send + 'static,
{
    post(
        move |State(shared): AppState, AepPath(id): AepPath, request: Request| {
            let (handler, metrics) = (handler.clone(), metrics.clone());
            async move {
                let index = shared.index_of(&id)?;
                handler(shared, index, request, metrics).await
            }
        },
    )
}

fn json_bytes(bytes: Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], bytes).into_response()
}

async fn discovery(State(shared): AppState, version: ProtocolVersion) -> Response {
    let bytes = shared
        .manifests
        .iter()
        .find(|(v, _)| *v == version)
        .map(|(_, b)| b.clone());
    bytes
        .map(json_bytes)
        .unwrap_or_else(|| AepError::internal("manifest missing").into_response())
}

async fn health() -> Response {
    json_bytes(Bytes::from_static(br#"{"status":"available"}"#))
}

async fn list_providers(State(shared): AppState) -> Response {
    json_bytes(shared.provider_list.clone())
}

fn plain_context(registered: &Registered, request: Request) -> RequestContext {
    let parts = request.into_parts().0;
    RequestContext {
        cancellation: CancellationToken::new(),
        caller: parts.extensions.get::<Caller>().cloned(),
        headers: parts.headers,
        descriptor: registered.descriptor.clone(),
        extensions: http::Extensions::new(),
    }
}

/// Runs a provider call; a panic in it becomes a 500 AEP error and the server keeps
/// serving.
async fn guarded<T>(call: impl Future<Output = Result<T, AepError>>) -> Result<T, AepError> {
    match AssertUnwindSafe(call).catch_unwind().await {
        Ok(result) => result,
        Err(_panic) => {
            tracing::error!("a model provider panicked");
            Err(AepError::internal("the model provider failed unexpectedly"))
        }
    }
}

async fn provider_health(
    State(shared): AppState,
    AepPath(id): AepPath,
    request: Request,
) -> Result<Response, AepError> {
    let registered = shared.provider(&id)?;
    let ctx = plain_context(registered, request);
    let health = match guarded(registered.provider.health(ctx)).await {
        Ok(health) => health,
        Err(error) => Health::unavailable(error.message().to_owned()),
    };
    Ok(axum::Json(health).into_response())
}

async fn models(
    State(shared): AppState,
    AepPath(id): AepPath,
    request: Request,
) -> Result<Response, AepError> {
    let registered = shared.provider(&id)?;
    let ctx = plain_context(registered, request);
    let models = guarded(registered.provider.models(ctx)).await?;
    Ok(axum::Json(models).into_response())
}

/// The provider, its context (cancelled when the returned guard drops) and the request.
async fn open_chat(
    shared: &Shared,
    index: usize,
    request: Request,
) -> Result<(Registered, RequestContext, ChatRequest, DropGuard), AepError> {
    let registered = shared.providers[index].clone();
    let (parts, body) = request.into_parts();
    // Only what the context needs is kept across the read, not the whole head.
    let caller = parts.extensions.get::<Caller>().cloned();
    let headers = parts.headers;
    let chat: ChatRequest = json_body(&headers, body, shared.limits).await?;
    let cancellation = CancellationToken::new();
    let guard = cancellation.clone().drop_guard();
    let ctx = shared.prepare(&chat, &registered, headers, caller, cancellation)?;
    Ok((registered, ctx, chat, guard))
}

/// The clock of a chat request, when metrics are on.
fn timer(
    metrics: Option<Arc<Metrics>>,
    registered: &Registered,
    chat: &ChatRequest,
    start: Instant,
) -> Option<ChatTimer> {
    metrics.map(|m| ChatTimer::new(&m, &registered.descriptor.id, &chat.model, start))
}

async fn chat(
    shared: Arc<Shared>,
    index: usize,
    request: Request,
    metrics: Option<Arc<Metrics>>,
) -> Result<Response, AepError> {
    let start = Instant::now();
    // The guard lives as long as this future: a client that goes away cancels the provider.
    let (registered, ctx, chat, _guard) = open_chat(&shared, index, request).await?;
    // Records the duration when this future ends, answered or dropped.
    let mut timer = timer(metrics, &registered, &chat, start);
    // The traced path is boxed: its state would otherwise enlarge this future, which
    // each layer around the route moves.
    let response = if crate::telemetry::enabled() {
        Box::pin(traced_chat(registered, chat, ctx)).await?
    } else {
        guarded(registered.provider.chat(chat, ctx)).await?
    };
    if let Some(timer) = &mut timer {
        timer.answered(response.usage.as_ref());
    }
    Ok(axum::Json(response).into_response())
}

async fn chat_stream(
    shared: Arc<Shared>,
    index: usize,
    request: Request,
    metrics: Option<Arc<Metrics>>,
) -> Result<Response, AepError> {
    let start = Instant::now();
    let (registered, ctx, chat, guard) = open_chat(&shared, index, request).await?;
    let timer = timer(metrics, &registered, &chat, start);
    let stream = if crate::telemetry::enabled() {
        Box::pin(traced_stream(&registered, chat, ctx)).await?
    } else {
        guarded(registered.provider.chat_stream(chat, ctx)).await?
    };
    Ok(sse::response(
        stream,
        shared.keep_alive,
        shared.shutdown.clone(),
        guard,
        &shared.open_streams,
        timer,
    ))
}

/// `/chat` inside its GenAI span (only when spans are exported).
async fn traced_chat(
    registered: Registered,
    chat: ChatRequest,
    ctx: RequestContext,
) -> Result<crate::protocol::ChatResponse, AepError> {
    use tracing::Instrument;
    let span = ChatSpan::for_request("internal", &registered.descriptor.id, &chat);
    let answer = guarded(registered.provider.chat(chat, ctx))
        .instrument(span.span())
        .await;
    match &answer {
        Ok(response) => span.response(response),
        Err(error) => span.error(error.code()),
    }
    answer
}

/// `/chat/stream`'s provider stream inside its GenAI span, which ends with the stream
/// (only when spans are exported).
async fn traced_stream(
    registered: &Registered,
    chat: ChatRequest,
    ctx: RequestContext,
) -> Result<super::ChatStream, AepError> {
    use tracing::Instrument;
    let span = ChatSpan::for_request("internal", &registered.descriptor.id, &chat);
    let opened = guarded(registered.provider.chat_stream(chat, ctx))
        .instrument(span.span())
        .await;
    match opened {
        Ok(stream) => Ok(super::ChatStream::new(Traced::new(stream, span))),
        Err(error) => {
            span.error(error.code());
            Err(error)
        }
    }
}

/// 404 for every unknown route, as an AEP error.
pub(crate) async fn not_found(uri: http::Uri) -> AepError {
    AepError::new(
        StatusCode::NOT_FOUND,
        codes::NOT_FOUND,
        format!("no AEP route at '{}'", uri.path()),
    )
}

/// 405 for a known route with the wrong method, as an AEP error.
pub(crate) async fn method_not_allowed(method: http::Method, uri: http::Uri) -> AepError {
    AepError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        codes::METHOD_NOT_ALLOWED,
        format!("method {method} is not allowed on '{}'", uri.path()),
    )
}
