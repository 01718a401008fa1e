//! `aep-localai`: drop-in for `Agentstration.Extensions.LocalAI`.

use aep_sdk::config::OptionSetDecl;
use aep_sdk::prelude::*;

use crate::upstream::Upstream;

pub use crate::flavor::{LOCALAI_EXTENSION_ID as EXTENSION_ID, LOCALAI_PROVIDER_ID as PROVIDER_ID};

/// The LocalAI extension.
#[derive(Debug)]
pub struct LocalAiExtension(pub Upstream);

#[aep_extension(
    id = EXTENSION_ID,
    name = "LocalAI",
    version = "1.0.0",
    description = "Agentstration AEP model-provider extension for a LocalAI server."
)]
impl LocalAiExtension {
    /// Chat through LocalAI's `/v1/chat/completions`, streamed.
    #[model_provider(
        id = "localai",
        display_name = "LocalAI",
        chat,
        streaming,
        tools,
        thinking,
        structured_output = false,
        vision = false,
        model_discovery
    )]
    async fn chat(&self, request: ChatRequest, ctx: RequestContext) -> Result<ChatStream, AepError> {
        self.0.chat(request, &ctx).await
    }

    /// `/chat`: the answer in one piece (`stream: false` upstream, usage included).
    #[chat(provider = "localai")]
    async fn chat_once(&self, request: ChatRequest, ctx: RequestContext) -> Result<ChatResponse, AepError> {
        self.0.chat_once(request, &ctx).await
    }

    /// `/v1/models/capabilities`: the chat models and what each reports.
    #[models(provider = "localai")]
    async fn models(&self) -> Result<Vec<ModelDescriptor>, AepError> {
        self.0.models().await
    }

    /// LocalAI's `/readyz`: available, loading (503), unavailable or unreachable.
    #[health(provider = "localai")]
    async fn health(&self) -> Result<Health, AepError> {
        Ok(self.0.health().await)
    }

    /// `io.agentstration.localai/model-profile` 1.0.0, the reference schema.
    #[option_set]
    fn model_profile(&self) -> OptionSetDecl {
        crate::profile::localai()
    }
}
