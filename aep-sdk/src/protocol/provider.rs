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

/// `{"status": "available", "details"?: "..."}`. The status is an open string (spec
/// section 1): see [`Availability`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    /// Availability.
    pub status: Availability,
    /// What the status means right now (why unavailable, what is loading, ...).
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
        Self::new(Availability::Unavailable, details)
    }

    /// Any status with details, e.g. `Health::new(Availability::Loading, "model is loading")`.
    pub fn new(status: Availability, details: impl Into<String>) -> Self {
        Self {
            status,
            details: Some(details.into()),
        }
    }

    /// Whether the status says the extension or provider is serving (only `available`).
    pub fn is_serving(&self) -> bool {
        self.status.is_serving()
    }
}

/// Health status: an open string on the wire. The values in use are named; any other is
/// kept as [`Availability::Other`] and written back unchanged.
///
/// ```
/// use aep_sdk::protocol::{Availability, Health};
///
/// let health: Health = serde_json::from_str(r#"{"status":"warming-up"}"#).unwrap();
/// assert_eq!(health.status, Availability::Other("warming-up".into()));
/// assert!(!health.is_serving());
/// assert_eq!(serde_json::to_string(&Availability::Loading).unwrap(), r#""loading""#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Availability {
    /// `available`: serving; the only status that counts as serving.
    Available,
    /// `unavailable`: not serving; see `details`.
    Unavailable,
    /// `loading`: a model is loading (the reference llama.cpp and LocalAI extensions
    /// answer it while their backend answers 503).
    Loading,
    /// `unreachable`: the backend could not be reached.
    Unreachable,
    /// `degraded`: serving with reduced capacity or features (the reference's
    /// management layer).
    Degraded,
    /// Any other value, exactly as received.
    Other(String),
}

impl Availability {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Available => "available",
            Self::Unavailable => "unavailable",
            Self::Loading => "loading",
            Self::Unreachable => "unreachable",
            Self::Degraded => "degraded",
            Self::Other(value) => value,
        }
    }

    /// Only `available` counts as serving.
    pub fn is_serving(&self) -> bool {
        *self == Self::Available
    }
}

impl From<&str> for Availability {
    fn from(value: &str) -> Self {
        match value {
            "available" => Self::Available,
            "unavailable" => Self::Unavailable,
            "loading" => Self::Loading,
            "unreachable" => Self::Unreachable,
            "degraded" => Self::Degraded,
            other => Self::Other(other.to_owned()),
        }
    }
}

impl std::fmt::Display for Availability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Availability {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Availability {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(Self::from(&*value))
    }
}
