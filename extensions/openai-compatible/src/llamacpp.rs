//! `aep-llamacpp`: drop-in for `Agentstration.Extensions.LlamaCpp`.

use aep_sdk::config::OptionSetDecl;
use aep_sdk::prelude::*;

use crate::upstream::Upstream;

pub use crate::flavor::{LLAMACPP_EXTENSION_ID as EXTENSION_ID, LLAMACPP_PROVIDER_ID as PROVIDER_ID};

/// The llama.cpp extension.
#[derive(Debug)]
pub struct LlamaCppExtension(pub Upstream);

#[aep_extension(
    id = EXTENSION_ID,
    name = "llama.cpp",
    version = "1.0.0",
    description = "Agentstration AEP model-provider extension for a local llama.cpp server."
)]
impl LlamaCppExtension {
    /// Chat through llama-server's `/v1/chat/completions`, streamed.
    #[model_provider(
        id = "llamacpp",
        display_name = "llama.cpp",
        chat,
        streaming,
        tools,
        thinking,
        structured_output,
        vision = false,
        model_discovery
    )]
    async fn chat(&self, request: ChatRequest, ctx: RequestContext) -> Result<ChatStream, AepError> {
        self.0.chat(request, &ctx).await
    }

    /// `/chat`: the answer in one piece (`stream: false` upstream, usage included).
    #[chat(provider = "llamacpp")]
    async fn chat_once(&self, request: ChatRequest, ctx: RequestContext) -> Result<ChatResponse, AepError> {
        self.0.chat_once(request, &ctx).await
    }

    /// `/v1/models`, with one capability list from `/props`.
    #[models(provider = "llamacpp")]
    async fn models(&self) -> Result<Vec<ModelDescriptor>, AepError> {
        self.0.models().await
    }

    /// llama-server's `/health`: available, loading (503), unavailable or unreachable.
    #[health(provider = "llamacpp")]
    async fn health(&self) -> Result<Health, AepError> {
        Ok(self.0.health().await)
    }

    /// `io.agentstration.llamacpp/model-profile` 1.0.0, the reference schema.
    #[option_set]
    fn model_profile(&self) -> OptionSetDecl {
        crate::profile::llamacpp()
    }
}
