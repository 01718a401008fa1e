//! `aep-openai`: any other Chat Completions server (vLLM, LM Studio, OpenAI,
//! llama-cpp-python). It has no native option set; per-model capabilities come from
//! `/v1/models` and `--model-capabilities`.

use aep_sdk::prelude::*;

use crate::upstream::Upstream;

pub use crate::flavor::{OPENAI_EXTENSION_ID as EXTENSION_ID, OPENAI_PROVIDER_ID as PROVIDER_ID};

/// The OpenAI-compatible extension.
#[derive(Debug)]
pub struct OpenAiExtension(pub Upstream);

#[aep_extension(
    id = EXTENSION_ID,
    name = "OpenAI-compatible",
    description = "AEP model-provider extension for any OpenAI Chat Completions server."
)]
impl OpenAiExtension {
    /// Chat through `/v1/chat/completions`, streamed, with the usage chunk.
    #[model_provider(
        id = "openai",
        display_name = "OpenAI-compatible",
        chat,
        streaming,
        tools,
        thinking,
        structured_output,
        vision,
        model_discovery
    )]
    async fn chat(&self, request: ChatRequest, ctx: RequestContext) -> Result<ChatStream, AepError> {
        self.0.chat(request, &ctx).await
    }

    /// `/chat`: the answer in one piece (`stream: false` upstream, usage included).
    #[chat(provider = "openai")]
    async fn chat_once(&self, request: ChatRequest, ctx: RequestContext) -> Result<ChatResponse, AepError> {
        self.0.chat_once(request, &ctx).await
    }

    /// `/v1/models`, each with the configured capabilities.
    #[models(provider = "openai")]
    async fn models(&self) -> Result<Vec<ModelDescriptor>, AepError> {
        self.0.models().await
    }

    /// `/v1/models` answering: available; 503: loading; another status: unavailable
    /// (a refused key says so); no connection: unreachable.
    #[health(provider = "openai")]
    async fn health(&self) -> Result<Health, AepError> {
        Ok(self.0.health().await)
    }
}
