//! The three kinds of upstream this crate fronts, and everything that differs between
//! them: identity, the texts of errors, the probes, what the request body carries.

/// `Agentstration.Extensions.LlamaCpp`, the reference's extension id.
pub const LLAMACPP_EXTENSION_ID: &str = "Agentstration.Extensions.LlamaCpp";
/// The reference llama.cpp provider id.
pub const LLAMACPP_PROVIDER_ID: &str = "llamacpp";
/// `Agentstration.Extensions.LocalAI`, the reference's extension id.
pub const LOCALAI_EXTENSION_ID: &str = "Agentstration.Extensions.LocalAI";
/// The reference LocalAI provider id.
pub const LOCALAI_PROVIDER_ID: &str = "localai";
/// `aep-openai`'s extension id.
pub const OPENAI_EXTENSION_ID: &str = "aep.openai-compatible";
/// `aep-openai`'s provider id.
pub const OPENAI_PROVIDER_ID: &str = "openai";

/// Which server is upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// llama.cpp's `llama-server` (drop-in for `Agentstration.Extensions.LlamaCpp`).
    LlamaCpp,
    /// LocalAI (drop-in for `Agentstration.Extensions.LocalAI`).
    LocalAi,
    /// Any other Chat Completions server: vLLM, LM Studio, OpenAI, llama-cpp-python.
    OpenAi,
}

impl Flavor {
    /// The extension id.
    pub fn extension_id(self) -> &'static str {
        match self {
            Flavor::LlamaCpp => LLAMACPP_EXTENSION_ID,
            Flavor::LocalAi => LOCALAI_EXTENSION_ID,
            Flavor::OpenAi => OPENAI_EXTENSION_ID,
        }
    }

    /// The model provider id.
    pub fn provider_id(self) -> &'static str {
        match self {
            Flavor::LlamaCpp => LLAMACPP_PROVIDER_ID,
            Flavor::LocalAi => LOCALAI_PROVIDER_ID,
            Flavor::OpenAi => OPENAI_PROVIDER_ID,
        }
    }

    /// How errors name the upstream: `llama.cpp is unreachable.`
    pub fn upstream_name(self) -> &'static str {
        match self {
            Flavor::LlamaCpp => "llama.cpp",
            Flavor::LocalAi => "LocalAI",
            Flavor::OpenAi => "The OpenAI-compatible server",
        }
    }

    /// The health probe's path, relative to the endpoint.
    pub fn health_path(self) -> &'static str {
        match self {
            Flavor::LlamaCpp => "health",
            Flavor::LocalAi => "readyz",
            Flavor::OpenAi => "v1/models",
        }
    }

    /// Whether `options.topK` is sent (`top_k` is not part of OpenAI's own API, which
    /// refuses unknown members).
    pub fn sends_top_k(self) -> bool {
        !matches!(self, Flavor::OpenAi)
    }

    /// Whether `additionalOptions.reasoning_enabled` becomes
    /// `chat_template_kwargs.enable_thinking` (llama.cpp's Jinja templates read it).
    pub fn maps_thinking_switch(self) -> bool {
        matches!(self, Flavor::LlamaCpp)
    }

    /// Whether image contents are sent (as `image_url` parts). The drop-ins advertise
    /// `vision: false` and drop them, as the reference does.
    pub fn sends_images(self) -> bool {
        matches!(self, Flavor::OpenAi)
    }
}
