//! # aep-ollama
//!
//! An AEP model-provider extension for [Ollama](https://ollama.com), written with
//! the SDK's `#[aep_extension]` macro. It is a drop-in replacement for the
//! reference C# extension: extension id `Agentstration.Extensions.Ollama`, model
//! provider `ollama`, option set `io.agentstration.ollama/model-profile` 1.0.0 with
//! the reference schema (same digest).
//!
//! It speaks Ollama's native API: `/api/chat` (always streamed as NDJSON; `/chat`
//! folds the stream), `/api/tags` and `/api/show` (model discovery, cached),
//! `/api/version` (health).
//!
//! - [`config`]: flags and environment (`--ollama-url` / `OLLAMA_HOST`, timeouts).
//! - [`ollama`]: the small typed Ollama client (wire types, NDJSON reader, errors).
//! - [`map`]: AEP <-> Ollama mapping, pure functions.
//! - [`profile`]: the native option set and its typed values.
//!
//! ```no_run
//! use aep_ollama::{OllamaExtension, config::OllamaConfig};
//! use aep_sdk::server::AepExtension;
//!
//! # async fn run() -> Result<(), aep_sdk::Error> {
//! let extension = OllamaExtension::new(OllamaConfig::default())?;
//! extension.serve().await
//! # }
//! ```
#![warn(missing_docs)]

pub mod chat;
pub mod config;
pub mod error;
pub mod map;
pub mod models;
pub mod ollama;
pub mod profile;

use aep_sdk::config::OptionSetDecl;
use aep_sdk::prelude::*;

use crate::config::OllamaConfig;
use crate::models::ModelCatalog;
use crate::ollama::{OllamaClient, OllamaError};
use crate::profile::ModelProfile;

/// The extension id of the reference extension.
pub const EXTENSION_ID: &str = "Agentstration.Extensions.Ollama";
/// The model provider id.
pub const PROVIDER_ID: &str = "ollama";

/// The Ollama extension: its configuration, its Ollama client and its model cache.
#[derive(Debug)]
pub struct OllamaExtension {
    config: OllamaConfig,
    client: OllamaClient,
    catalog: ModelCatalog,
}

impl OllamaExtension {
    /// An extension talking to the Ollama described by `config`.
    pub fn new(config: OllamaConfig) -> Result<Self, aep_sdk::Error> {
        Ok(Self {
            client: OllamaClient::new(&config)?,
            config,
            catalog: ModelCatalog::default(),
        })
    }

    /// Its configuration.
    pub fn config(&self) -> &OllamaConfig {
        &self.config
    }

    /// Its Ollama client.
    pub fn client(&self) -> &OllamaClient {
        &self.client
    }
}

#[aep_extension(
    id = "Agentstration.Extensions.Ollama",
    name = "Ollama",
    description = "Agentstration AEP model-provider extension for Ollama."
)]
impl OllamaExtension {
    /// Chat through Ollama's `/api/chat`, streamed.
    #[model_provider(
        id = "ollama",
        display_name = "Ollama",
        chat,
        streaming,
        tools,
        thinking,
        structured_output,
        vision,
        model_discovery
    )]
    async fn ollama_chat(&self, request: ChatRequest, ctx: RequestContext) -> Result<ChatStream, AepError> {
        let profile = ctx.native_options::<ModelProfile>();
        chat::start(&self.client, request, profile, self.config.stream_start_wait).await
    }

    /// The installed chat models, from `/api/tags` and (cached) `/api/show`.
    #[models(provider = "ollama")]
    async fn ollama_models(&self) -> Result<Vec<ModelDescriptor>, AepError> {
        self.catalog.list(&self.client).await
    }

    /// `/api/version` answers: available, with Ollama's version; no connection:
    /// unreachable; any other failure: unavailable, saying why.
    #[health(provider = "ollama")]
    async fn ollama_health(&self) -> Result<Health, AepError> {
        let url = self.client.base_url();
        Ok(match self.client.version().await {
            Ok(answer) => Health {
                details: Some(format!(
                    "Ollama {} at {url}",
                    answer.version.as_deref().unwrap_or("(version unknown)")
                )),
                ..Health::available()
            },
            // The reference llama.cpp and LocalAI extensions' vocabulary: `unreachable`
            // when no connection could be made, `unavailable` when Ollama answered wrong.
            Err(error @ OllamaError::Unreachable { .. }) => {
                Health::new(Availability::Unreachable, error.to_string())
            }
            Err(error) => Health::unavailable(format!("{error} (Ollama at {url})")),
        })
    }

    /// `io.agentstration.ollama/model-profile` 1.0.0, the reference schema.
    #[option_set]
    fn model_profile(&self) -> OptionSetDecl {
        profile::option_set()
    }
}
