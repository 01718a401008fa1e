//! The native option set `io.agentstration.ollama/model-profile` 1.0.0: the reference
//! extension's schema, published byte for byte (so with the same digest), read into
//! [`ModelProfile`].

use aep_sdk::config::OptionSetDecl;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// The option set id.
pub const OPTION_SET_ID: &str = "io.agentstration.ollama/model-profile";
/// Its only version.
pub const OPTION_SET_VERSION: &str = "1.0.0";
/// The schema as the reference publishes it (the text is what the digest is computed from).
pub const SCHEMA_TEXT: &str = include_str!("model-profile-1.0.0.json");
/// The reference's digest of [`SCHEMA_TEXT`]; `build()` fails if ours differs.
pub const SCHEMA_DIGEST: &str = "sha256:db13bcf3bc8d35fbfe870f05f23d914c78a2adb6d18ec2c5a27409854838cf11";

/// The option set declaration, bound to model provider `ollama`.
pub fn option_set() -> OptionSetDecl {
    OptionSetDecl::new(OPTION_SET_ID, crate::PROVIDER_ID)
        .version_typed::<ModelProfile>(OPTION_SET_VERSION, SCHEMA_TEXT)
        .expect_digest(OPTION_SET_VERSION, SCHEMA_DIGEST)
}

/// Validated values of the option set (the SDK checks them against the schema first;
/// values the schema admits but this type refuses, such as `think: "huge"`, are
/// answered 422 `invalid_options`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelProfile {
    /// `think`: `true`, `false` or an effort level. Omitted: Ollama's default (a
    /// thinking-capable model thinks).
    pub think: Option<ThinkSetting>,
    /// `keep_alive`: a Go duration (`"10m"`) or a number of seconds as text (`"300"`,
    /// sent to Ollama as the number 300, since Ollama refuses a unitless string).
    pub keep_alive: Option<String>,
    /// `options.num_ctx`.
    pub context_size: Option<u64>,
    /// `options.num_gpu`.
    pub num_gpu: Option<u64>,
    /// `options.num_thread`.
    pub num_thread: Option<u64>,
    /// `options.num_batch`.
    pub num_batch: Option<u64>,
    /// `options.mirostat` (0, 1 or 2).
    pub mirostat: Option<u64>,
    /// Only `chat` exists: the schema's `enum` refuses `generate` (422 `invalid_options`).
    pub endpoint_mode: Option<EndpointMode>,
    /// Merged into Ollama's `options` as is.
    pub additional_options: Option<Map<String, Value>>,
}

/// The endpoint Ollama is called through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EndpointMode {
    /// `/api/chat`.
    Chat,
}

/// `think` as the profile gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThinkSetting {
    /// `true` / `false`.
    Enabled(bool),
    /// `low`, `medium`, `high` or `max` (lower-cased).
    Level(String),
}

/// The effort levels Ollama accepts.
pub const THINK_LEVELS: [&str; 4] = ["low", "medium", "high", "max"];

impl<'de> Deserialize<'de> for ThinkSetting {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Bool(enabled) => Ok(ThinkSetting::Enabled(enabled)),
            Value::String(level) if THINK_LEVELS.contains(&level.to_ascii_lowercase().as_str()) => {
                Ok(ThinkSetting::Level(level.to_ascii_lowercase()))
            }
            other => Err(serde::de::Error::custom(format!(
                "think must be true, false, \"low\", \"medium\", \"high\" or \"max\", not {other}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schema_keeps_the_reference_digest() {
        assert_eq!(
            aep_sdk::config::schema_digest_text(SCHEMA_TEXT).as_deref(),
            Ok(SCHEMA_DIGEST)
        );
        // The same text as the SDK's fixture of the reference schema.
        let fixture = include_str!("../../../aep-sdk/tests/fixtures/ollama-model-profile-1.0.0.json");
        assert_eq!(SCHEMA_TEXT, fixture);
    }

    #[test]
    fn values_read() {
        let profile: ModelProfile = serde_json::from_value(json!({
            "think": "HIGH", "keepAlive": "10m", "contextSize": 8192, "endpointMode": "chat",
            "additionalOptions": {"repeat_penalty": 1.1}
        }))
        .expect("valid");
        assert_eq!(profile.think, Some(ThinkSetting::Level("high".into())));
        assert_eq!(profile.endpoint_mode, Some(EndpointMode::Chat));
        assert!(serde_json::from_value::<ModelProfile>(json!({"think": "huge"})).is_err());
        assert!(serde_json::from_value::<ModelProfile>(json!({"think": 1})).is_err());
        assert!(serde_json::from_value::<ModelProfile>(json!({"endpointMode": "generate"})).is_err());
    }
}
