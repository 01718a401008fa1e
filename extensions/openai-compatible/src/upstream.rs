//! What the three extensions share: the configuration, the client, and the provider
//! calls that differ only by flavour.

use aep_sdk::AepError;
use aep_sdk::protocol::{ChatRequest, ChatResponse, Health, ModelDescriptor};
use aep_sdk::server::{ChatStream, RequestContext};

use crate::client::UpstreamClient;
use crate::config::UpstreamConfig;
use crate::map::RequestSettings;
use crate::{chat, health, models};

/// One upstream and how to talk to it.
#[derive(Debug)]
pub struct Upstream {
    config: UpstreamConfig,
    client: UpstreamClient,
    model_capabilities: Vec<String>,
}

impl Upstream {
    /// An upstream for `config`; `model_capabilities` are what `aep-openai` lists per model
    /// beyond `chat` and `streaming` (the other flavours probe theirs).
    pub fn new(config: UpstreamConfig, model_capabilities: Vec<String>) -> Result<Self, aep_sdk::Error> {
        Ok(Self {
            client: UpstreamClient::new(&config)?,
            config,
            model_capabilities,
        })
    }

    /// Its configuration.
    pub fn config(&self) -> &UpstreamConfig {
        &self.config
    }

    /// Its client.
    pub fn client(&self) -> &UpstreamClient {
        &self.client
    }

    fn settings(&self, stream: bool) -> RequestSettings {
        RequestSettings {
            flavor: self.config.flavor,
            include_usage: self.config.tuning.include_usage,
            stream,
        }
    }

    /// A streamed chat.
    pub async fn chat(&self, request: ChatRequest, ctx: &RequestContext) -> Result<ChatStream, AepError> {
        let wait = self.config.tuning.stream_start_wait;
        chat::start(
            &self.client,
            request,
            ctx.native_options_json(),
            self.settings(true),
            wait,
        )
        .await
    }

    /// A chat answered in one piece.
    pub async fn chat_once(
        &self,
        request: ChatRequest,
        ctx: &RequestContext,
    ) -> Result<ChatResponse, AepError> {
        chat::once(
            &self.client,
            request,
            ctx.native_options_json(),
            self.settings(false),
        )
        .await
    }

    /// The chat models.
    pub async fn models(&self) -> Result<Vec<ModelDescriptor>, AepError> {
        models::list(&self.client, &self.model_capabilities).await
    }

    /// Its health.
    pub async fn health(&self) -> Health {
        health::check(&self.client).await
    }
}

/// `GET /health` for orchestrators (Aspire polls it): `200 Healthy`, as the reference.
pub fn orchestrator_health() -> axum::Router {
    axum::Router::new().route("/health", axum::routing::get(|| async { "Healthy" }))
}
