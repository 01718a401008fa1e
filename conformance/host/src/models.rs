//! Model providers: a reference is (extension id, provider contribution id, model id);
//! chat and streamed chat go through the canonical client of the registered extension.

use std::fmt;
use std::str::FromStr;

use aep_sdk::client::{Client, UpdateStream};
use aep_sdk::protocol::{ChatRequest, ChatResponse, Manifest, ModelProviderDescriptor};

use crate::error::{ErrorCode, HostError, Result};
use crate::registry::Registry;

/// Which model to talk to: `extension/provider/model` (the model id may itself hold `/`).
///
/// ```
/// use aep_host::models::ModelRef;
///
/// let model: ModelRef = "aep.ollama/ollama/library/llama3.2".parse().unwrap();
/// assert_eq!((model.extension.as_str(), model.provider.as_str()), ("aep.ollama", "ollama"));
/// assert_eq!(model.model, "library/llama3.2");
/// assert_eq!(model.to_string(), "aep.ollama/ollama/library/llama3.2");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModelRef {
    /// Registered extension id.
    pub extension: String,
    /// Model provider contribution id (matched case-insensitively, as routes are).
    pub provider: String,
    /// Model id as sent in `ChatRequest.model`.
    pub model: String,
}

impl ModelRef {
    /// A reference from its three parts.
    pub fn new(extension: impl Into<String>, provider: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            extension: extension.into(),
            provider: provider.into(),
            model: model.into(),
        }
    }
}

impl fmt::Display for ModelRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.extension, self.provider, self.model)
    }
}

impl FromStr for ModelRef {
    type Err = HostError;

    fn from_str(text: &str) -> Result<Self> {
        let mut parts = text.splitn(3, '/');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(e), Some(p), Some(m)) if !e.is_empty() && !p.is_empty() && !m.is_empty() => {
                Ok(Self::new(e, p, m))
            }
            _ => Err(HostError::new(
                ErrorCode::ConfigurationInvalid,
                format!("a model reference reads EXTENSION/PROVIDER/MODEL, got '{text}'"),
            )),
        }
    }
}

/// The provider `reference` names, from the extension's manifest
/// (`model_provider_not_found` when it has none by that id).
pub fn provider_of<'m>(manifest: &'m Manifest, reference: &ModelRef) -> Result<&'m ModelProviderDescriptor> {
    manifest
        .contributions
        .model_providers
        .iter()
        .find(|p| p.id.eq_ignore_ascii_case(&reference.provider))
        .ok_or_else(|| {
            let known: Vec<&str> = manifest
                .contributions
                .model_providers
                .iter()
                .map(|p| p.id.as_str())
                .collect();
            HostError::new(
                ErrorCode::ModelProviderNotFound,
                format!(
                    "extension '{}' has no model provider '{}' (it has: {})",
                    reference.extension,
                    reference.provider,
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
            )
            .with_target(&reference.provider)
        })
}

/// Chat with the model of `reference`: discovery (kept by the registry) and the
/// provider check first, then `POST .../chat`.
pub async fn chat(registry: &Registry, reference: &ModelRef, request: &ChatRequest) -> Result<ChatResponse> {
    let client = checked_client(registry, reference).await?;
    Ok(client.chat(&reference.provider, request).await?)
}

/// Streamed chat with the model of `reference` (`POST .../chat/stream`). The stream
/// ends after the terminal update; dropping it cancels the model's work.
pub async fn chat_stream(
    registry: &Registry,
    reference: &ModelRef,
    request: &ChatRequest,
) -> Result<UpdateStream> {
    let client = checked_client(registry, reference).await?;
    Ok(client.chat_stream(&reference.provider, request).await?)
}

async fn checked_client<'r>(registry: &'r Registry, reference: &ModelRef) -> Result<&'r Client> {
    let entry = registry.entry(&reference.extension)?;
    let manifest = registry.manifest(&reference.extension).await?;
    provider_of(&manifest, reference)?;
    Ok(entry.client())
}
