//! Model-provider descriptors and health (spec section 3).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One model provider as listed in the manifest and at `GET /aep/model-providers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelProviderDescriptor {
    /// Provider id; matched case-insensitively in routes.
    pub id: String,
    /// Name shown to people.
    pub display_name: String,
    /// What the provider supports.
    pub capabilities: ProviderCapabilities,
    /// Statically known models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models: Option<Vec<ModelDescriptor>>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl ModelProviderDescriptor {
    /// A provider with chat and streaming and nothing else.
    pub fn new(id: impl Into<String>, display_name: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            display_name: display_name.into(),
            capabilities: ProviderCapabilities::default(),
            models: None,
            metadata: None,
        }
    }
}

/// `capabilities` of a model provider. Missing members take the reference's defaults
/// (chat and streaming on, everything else off).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ProviderCapabilities {
    /// Non-streaming chat.
    pub chat: bool,
    /// Streamed chat.
    pub streaming: bool,
    /// Function calling.
    pub tools: bool,
    /// Reasoning output.
    pub thinking: bool,
    /// `responseFormat` honoured.
    pub structured_output: bool,
    /// Image input.
    pub vision: bool,
    /// `GET .../models` lists models dynamically.
    pub model_discovery: bool,
}

impl Default for ProviderCapabilities {
    fn default() -> Self {
        Self {
            chat: true,
            streaming: true,
            tools: false,
            thinking: false,
            structured_output: false,
            vision: false,
            model_discovery: false,
        }
    }
}

/// One model a provider serves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelDescriptor {
    /// Model id as sent in `ChatRequest.model`.
    pub id: String,
    /// Name shown to people.
    pub display_name: String,
    /// Free-form capability names (`tools`, `vision`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    /// String metadata (family, size, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
}

impl ModelDescriptor {
    /// A model whose display name is its id.
    pub fn new(id: impl Into<String>) -> Self {
        let id = id.into();
        Self {
            display_name: id.clone(),
            id,
            capabilities: None,
            metadata: None,
        }
    }
}

/// `{"status": "available"|"unavailable", "details"?: "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    /// Availability.
    pub status: Availability,
    /// Why, when unavailable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
}

impl Health {
    /// `{"status":"available"}`.
    pub fn available() -> Self {
        Self {
            status: Availability::Available,
            details: None,
        }
    }

    /// `{"status":"unavailable","details":...}`.
    pub fn unavailable(details: impl Into<String>) -> Self {
        Self {
            status: Availability::Unavailable,
            details: Some(details.into()),
        }
    }
}

/// Health status value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Availability {
    /// Serving.
    Available,
    /// Not serving; see `details`.
    Unavailable,
}
