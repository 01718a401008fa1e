//! rig -> AEP: a rig provider served as the AEP model provider `rig` of the extension
//! `aep.rig`, written with the SDK's `#[aep_extension]` macro.
//!
//! - `/chat/stream`: rig's streamed reply (`Model::stream`); text and reasoning deltas
//!   as they arrive, each tool call whole once rig finished it, then the terminal update
//!   with the finish reason, usage and model rig folded. Errors rig reports before the
//!   first event (within `--stream-start-wait`) are answered with their HTTP status;
//!   later ones, a truncated reply (`ProviderError::Truncated`) included, end the
//!   stream with a terminal `finishReason: "error"` update, never with a success.
//! - `/chat`: rig's unary reply (`Model::call`, the provider's non-streamed API).
//! - `/models`: the `--model`s. With any listed, only those are served (others answer
//!   404 `model_unavailable`); with none, every model id goes to the provider.
//! - `/health`: `available`, naming the provider and its base URL (it is not probed).
//!
//! Cancellation: the SDK drops the stream when the client goes away; the stream owns
//! rig's `Streamed`, which owns the provider's HTTP response, so the request to the
//! provider is dropped with it.

use std::time::Duration;

use aep_sdk::prelude::*;
use futures::StreamExt;
use rig_core::streaming::Item;

use crate::map::error::aep_error;
use crate::map::reply::{Updates, to_aep_response};
use crate::map::request::to_rig_request;
use crate::providers::Upstream;

/// The extension id.
pub const EXTENSION_ID: &str = "aep.rig";
/// The model provider id.
pub const PROVIDER_ID: &str = "rig";

/// The default of [`RigExtension::stream_start_wait`].
pub const STREAM_START_WAIT: Duration = Duration::from_secs(2);

/// A rig provider as an AEP extension.
#[derive(Debug, Clone)]
pub struct RigExtension {
    upstream: Upstream,
    models: Vec<String>,
    stream_start_wait: Duration,
}

impl RigExtension {
    /// Serves `upstream`; `models` are the ones listed and served (none: any).
    pub fn new(upstream: Upstream, models: Vec<String>) -> Self {
        Self {
            upstream,
            models,
            stream_start_wait: STREAM_START_WAIT,
        }
    }

    /// How long `/chat/stream` waits for rig's first event before it starts its SSE
    /// answer (errors reported sooner keep their HTTP status).
    pub fn stream_start_wait(mut self, wait: Duration) -> Self {
        self.stream_start_wait = wait;
        self
    }

    /// The served models (`--model`), as `/models` and the manifest list them.
    pub fn model_descriptors(&self) -> Vec<ModelDescriptor> {
        self.models
            .iter()
            .map(|id| ModelDescriptor {
                capabilities: Some(vec!["chat".to_owned(), "streaming".to_owned()]),
                ..ModelDescriptor::new(id.clone())
            })
            .collect()
    }

    /// The extension, its manifest listing [`RigExtension::model_descriptors`].
    pub fn build(self) -> Result<aep_sdk::server::Extension, aep_sdk::Error> {
        let models = self.model_descriptors();
        self.extension_builder()
            .provider_models(PROVIDER_ID, models)
            .build()
    }

    /// The provider served.
    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    fn check_model(&self, model: &str) -> Result<(), AepError> {
        if model.is_empty() {
            return Err(AepError::invalid_request("model is empty").with_target("model"));
        }
        if !self.models.is_empty() && !self.models.iter().any(|m| m == model) {
            return Err(AepError::model_unavailable(format!(
                "model '{model}' is not served here; the models are {}",
                self.models.join(", ")
            ))
            .with_target("model"));
        }
        Ok(())
    }

    async fn stream(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        self.check_model(&request.model)?;
        let rig_request = to_rig_request(&request)?;
        let upstream = self.upstream.describe();
        tracing::debug!(model = %request.model, messages = request.messages.len(), tools = request.tools.len(), %upstream, "chat");
        let model = self.upstream.completion_model(&request.model);
        let mut stream = model.stream(rig_request).map_err(|e| aep_error(e, &upstream))?;
        // Nothing is sent until the stream is polled: the first poll opens the request.
        let first = match tokio::time::timeout(self.stream_start_wait, stream.next()).await {
            Ok(Some(Err(error))) => return Err(aep_error(error, &upstream)),
            Ok(item) => Some(item),
            Err(_) => None,
        };
        Ok(chat_stream! {
            let mut updates = Updates::default();
            let mut first = first;
            loop {
                let item = match first.take() {
                    Some(item) => item,
                    None => stream.next().await,
                };
                match item {
                    None => break,
                    Some(Err(error)) => Err(aep_error(error, &upstream))?,
                    Some(Ok(Item::Event(event))) => {
                        if let Some(update) = updates.event(event) {
                            yield update;
                        }
                    }
                    Some(Ok(Item::Unknown(_))) => {}
                }
            }
            let response = stream.finish().await.map_err(|e| aep_error(e, &upstream))?;
            yield Updates::finish(&response)?;
        })
    }

    async fn once(&self, request: ChatRequest) -> Result<ChatResponse, AepError> {
        self.check_model(&request.model)?;
        let rig_request = to_rig_request(&request)?;
        let upstream = self.upstream.describe();
        let model = self.upstream.completion_model(&request.model);
        let response = model
            .call(rig_request)
            .await
            .map_err(|e| aep_error(e, &upstream))?;
        to_aep_response(&response, &request.model)
    }
}

#[aep_extension(
    id = "aep.rig",
    name = "rig",
    description = "AEP model-provider extension serving a rig provider (OpenAI, Anthropic, Gemini, Cohere, Ollama and the OpenAI-shaped vendors rig knows)."
)]
impl RigExtension {
    /// Chat through the rig provider, streamed.
    #[model_provider(
        id = "rig",
        display_name = "rig",
        chat,
        streaming,
        tools,
        thinking,
        structured_output,
        vision,
        model_discovery
    )]
    async fn chat(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        self.stream(request).await
    }

    /// `/chat`: rig's unary reply (the provider's non-streamed API).
    #[chat(provider = "rig")]
    async fn chat_once(&self, request: ChatRequest) -> Result<ChatResponse, AepError> {
        self.once(request).await
    }

    /// The `--model`s.
    #[models(provider = "rig")]
    async fn models(&self) -> Result<Vec<ModelDescriptor>, AepError> {
        Ok(self.model_descriptors())
    }

    /// The provider probed: reachable, loading (503) or unreachable.
    #[health(provider = "rig")]
    async fn health(&self) -> Result<Health, AepError> {
        Ok(self.upstream.probe(self.stream_start_wait).await)
    }
}
