//! # aep-openai-compatible
//!
//! AEP model-provider extensions for servers that speak OpenAI's Chat Completions API,
//! written with the SDK's `#[aep_extension]` macro, three binaries over one client:
//!
//! - `aep-llamacpp` ([`llamacpp::LlamaCppExtension`]): drop-in for the reference C#
//!   `Agentstration.Extensions.LlamaCpp` (provider `llamacpp`, option set
//!   `io.agentstration.llamacpp/model-profile` 1.0.0 with the reference digest);
//! - `aep-localai` ([`localai::LocalAiExtension`]): drop-in for
//!   `Agentstration.Extensions.LocalAI` (provider `localai`, its allow-listed option set);
//! - `aep-openai` ([`openai::OpenAiExtension`]): any other server (vLLM, LM Studio,
//!   OpenAI, llama-cpp-python), extension `aep.openai-compatible`, provider `openai`.
//!
//! Modules: [`config`] (flags and environment), [`flavor`] (what differs between the
//! three), [`client`] (the typed client: streamed chat, probes, errors), [`map`] (AEP <->
//! Chat Completions, pure functions), [`chat`], [`models`], [`health`], [`profile`]
//! (the option sets). Dependencies point one way: `flavor`, `config`, `profile` and
//! `client` are leaves or use only leaves; `map` uses them; `chat`, `models`, `health`
//! use `client` and `map`; [`upstream`] uses those; the three extensions use `upstream`.
//!
//! `async-openai` was evaluated and not used: its types follow OpenAI's own API strictly
//! (unknown members such as llama.cpp's `reasoning_content`, `chat_template_kwargs` or
//! `/props` have no place; tool-call deltas are typed so that odd upstream shapes fail
//! the whole stream), it brings its own retry and backoff policy where the reference has
//! none, and its reqwest and eventsource stack would add a second HTTP client to the
//! build. The reference's mapping needs the body as ordered JSON members, which is
//! simplest with `serde_json`.
//!
//! ```no_run
//! use aep_openai_compatible::config::UpstreamConfig;
//! use aep_openai_compatible::flavor::Flavor;
//! use aep_openai_compatible::llamacpp::LlamaCppExtension;
//! use aep_openai_compatible::upstream::Upstream;
//! use aep_sdk::server::AepExtension;
//!
//! # async fn run() -> Result<(), aep_sdk::Error> {
//! let config = UpstreamConfig::new(Flavor::LlamaCpp, "http://localhost:8080")?;
//! LlamaCppExtension(Upstream::new(config, Vec::new())?).serve().await
//! # }
//! ```
#![warn(missing_docs)]

pub mod chat;
pub mod client;
pub mod config;
pub mod error;
pub mod flavor;
pub mod health;
pub mod llamacpp;
pub mod localai;
pub mod map;
pub mod models;
pub mod openai;
pub mod profile;
pub mod upstream;

/// Builds `extension` with the orchestrators' `GET /health` route added.
pub fn build<E: aep_sdk::server::AepExtension>(
    extension: E,
) -> Result<aep_sdk::server::Extension, aep_sdk::Error> {
    extension
        .extension_builder()
        .routes(upstream::orchestrator_health())
        .build()
}

/// Serves `extension` (see [`build`]).
pub async fn serve<E: aep_sdk::server::AepExtension>(
    extension: E,
    serve: aep_sdk::server::ServeArgs,
) -> Result<(), aep_sdk::Error> {
    let served = build(extension)?.serve_with(serve).await;
    // Spans and metrics still buffered go out before the process ends.
    aep_sdk::telemetry::finish().await;
    served
}
