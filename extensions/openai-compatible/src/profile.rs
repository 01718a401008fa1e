//! The drop-ins' native option sets, published byte for byte as the reference does (so
//! with the same digests, pinned here: `build()` fails on drift), and how their values
//! join the upstream request body.

use aep_sdk::AepError;
use aep_sdk::config::OptionSetDecl;
use serde_json::{Map, Value};

/// `io.agentstration.llamacpp/model-profile`.
pub const LLAMACPP_SET: &str = "io.agentstration.llamacpp/model-profile";
/// `io.agentstration.localai/model-profile`.
pub const LOCALAI_SET: &str = "io.agentstration.localai/model-profile";
/// The only version of each.
pub const VERSION: &str = "1.0.0";
/// The llama.cpp schema as the reference publishes it.
pub const LLAMACPP_SCHEMA: &str = include_str!("llamacpp-model-profile-1.0.0.json");
/// Its digest (shared/openai-compatible-notes.md, section 6).
pub const LLAMACPP_DIGEST: &str = "sha256:4a0a6f13c28092be55f65d5c1c03bcf4c65991d49b4cbef77b1b6478cc8900c7";
/// The LocalAI schema as the reference publishes it.
pub const LOCALAI_SCHEMA: &str = include_str!("localai-model-profile-1.0.0.json");
/// Its digest.
pub const LOCALAI_DIGEST: &str = "sha256:777cfcfe0d859075ca997418608416b3a6335ee31eecc07a780592cfda38c0cd";

/// The llama.cpp option set, bound to provider `llamacpp`.
pub fn llamacpp() -> OptionSetDecl {
    OptionSetDecl::new(LLAMACPP_SET, crate::flavor::LLAMACPP_PROVIDER_ID)
        .version(VERSION, LLAMACPP_SCHEMA)
        .expect_digest(VERSION, LLAMACPP_DIGEST)
}

/// The LocalAI option set, bound to provider `localai`.
pub fn localai() -> OptionSetDecl {
    OptionSetDecl::new(LOCALAI_SET, crate::flavor::LOCALAI_PROVIDER_ID)
        .version(VERSION, LOCALAI_SCHEMA)
        .expect_digest(VERSION, LOCALAI_DIGEST)
}

/// The body member a llama.cpp native key becomes (`minP` -> `min_p`); other keys keep
/// their name (the schema refuses them before this runs).
fn llamacpp_member(key: &str) -> &str {
    match key {
        "minP" => "min_p",
        "typicalP" => "typical_p",
        "repeatPenalty" => "repeat_penalty",
        "repeatLastN" => "repeat_last_n",
        "mirostatTau" => "mirostat_tau",
        "mirostatEta" => "mirostat_eta",
        "reasoningFormat" => "reasoning_format",
        "reasoningEffort" => "reasoning_effort",
        other => other,
    }
}

/// Applies llama.cpp native values in their order: `chatTemplateKwargs` entries merge
/// into `template_kwargs`, `additionalOptions` entries become top-level members
/// (overwriting what is there), everything else its snake_case member.
pub fn apply_llamacpp(
    values: &Map<String, Value>,
    body: &mut Map<String, Value>,
    template_kwargs: &mut Option<Map<String, Value>>,
) {
    for (key, value) in values {
        match (key.as_str(), value) {
            ("chatTemplateKwargs", Value::Object(entries)) => {
                let kwargs = template_kwargs.get_or_insert_with(Map::new);
                kwargs.extend(entries.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            ("additionalOptions", Value::Object(entries)) => {
                body.extend(entries.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            (key, value) => {
                body.insert(llamacpp_member(key).to_owned(), value.clone());
            }
        }
    }
}

/// Applies LocalAI native values: only `frequencyPenalty` and `presencePenalty` exist;
/// any other key is refused (defence in depth behind the schema, as the reference).
pub fn apply_localai(values: &Map<String, Value>, body: &mut Map<String, Value>) -> Result<(), AepError> {
    for (key, value) in values {
        let member = match key.as_str() {
            "frequencyPenalty" => "frequency_penalty",
            "presencePenalty" => "presence_penalty",
            other => {
                return Err(AepError::invalid_request(format!(
                    "Unsupported LocalAI option '{other}'. Only frequencyPenalty and presencePenalty are allowed."
                )));
            }
        };
        body.insert(member.to_owned(), value.clone());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_the_references() {
        assert_eq!(
            aep_sdk::config::schema_digest_text(LLAMACPP_SCHEMA).unwrap(),
            LLAMACPP_DIGEST
        );
        assert_eq!(
            aep_sdk::config::schema_digest_text(LOCALAI_SCHEMA).unwrap(),
            LOCALAI_DIGEST
        );
    }

    #[test]
    fn localai_refuses_other_keys() {
        let mut body = Map::new();
        let values = serde_json::json!({"metadata": {"mcp_servers": "untrusted"}});
        let error = apply_localai(values.as_object().unwrap(), &mut body).unwrap_err();
        assert_eq!(error.code(), "invalid_request");
        assert!(body.is_empty());
    }
}
