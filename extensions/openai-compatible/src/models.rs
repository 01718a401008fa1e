//! Model discovery, per flavour (shared/openai-compatible-notes.md 2.5 and 3.5):
//! llama.cpp lists `/v1/models` and derives one capability list from `/props`; LocalAI
//! lists `/v1/models/capabilities` and keeps chat models; any other server lists
//! `/v1/models` with the capabilities the operator names.

use aep_sdk::AepError;
use aep_sdk::protocol::ModelDescriptor;
use serde_json::{Map, Value};

use crate::client::{UpstreamClient, UpstreamError};
use crate::flavor::Flavor;

/// The chat models the upstream offers. `extra` lists the capabilities `aep-openai`
/// adds to `chat` and `streaming`.
pub async fn list(client: &UpstreamClient, extra: &[String]) -> Result<Vec<ModelDescriptor>, AepError> {
    let flavor = client.flavor();
    let aep = |e: UpstreamError| e.into_aep(flavor);
    match flavor {
        Flavor::LlamaCpp => {
            let models = client.probe_json("v1/models").await.map_err(aep)?;
            // `/props` failures are tolerated: the base list is used.
            let props = client.probe_json("props").await.ok();
            Ok(llamacpp(&models, props.as_ref()))
        }
        Flavor::LocalAi => match client.probe("v1/models/capabilities").await.map_err(aep)? {
            (404, _) => Err(AepError::new(
                http::StatusCode::BAD_GATEWAY,
                "provider_incompatible",
                "LocalAI must support GET /v1/models/capabilities for capability-safe model discovery.",
            )),
            (status, body) if !(200..300).contains(&status) => Err(aep(UpstreamError::Http {
                status,
                message: crate::client::error_message(flavor, status, &body),
            })),
            (_, body) => {
                let value: Value = serde_json::from_slice(&body).map_err(|e| {
                    aep(UpstreamError::Malformed(format!(
                        "GET v1/models/capabilities: {e}"
                    )))
                })?;
                Ok(localai(&value))
            }
        },
        Flavor::OpenAi => {
            let models = client.probe_json("v1/models").await.map_err(aep)?;
            Ok(openai(&models, extra))
        }
    }
}

fn entries(document: &Value) -> impl Iterator<Item = (&str, &Value)> {
    document
        .get("data")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|entry| match entry.get("id") {
            Some(Value::String(id)) if !id.trim().is_empty() => Some((id.as_str(), entry)),
            _ => None,
        })
}

fn descriptor(id: &str, capabilities: Vec<String>, metadata: Map<String, Value>) -> ModelDescriptor {
    serde_json::from_value(serde_json::json!({
        "id": id, "displayName": id, "capabilities": capabilities, "metadata": metadata
    }))
    .unwrap_or_else(|_| unreachable!("a model descriptor's shape"))
}

/// llama.cpp: every model with the one list `/props` gives, metadata from `meta`.
pub fn llamacpp(models: &Value, props: Option<&Value>) -> Vec<ModelDescriptor> {
    let mut capabilities: Vec<String> = ["chat", "streaming", "structuredOutput"]
        .map(String::from)
        .to_vec();
    if let Some(props) = props {
        if any_true_named(props, "tool") {
            capabilities.push("tools".into());
        }
        if any_true_named(props, "reason") {
            capabilities.push("reasoning".into());
        }
        let vision = match props.get("modalities") {
            Some(Value::Array(items)) => items
                .iter()
                .any(|m| m.as_str().is_some_and(|s| s.eq_ignore_ascii_case("image"))),
            Some(Value::Object(m)) => {
                m.get("vision") == Some(&Value::Bool(true)) || m.get("image") == Some(&Value::Bool(true))
            }
            _ => false,
        };
        if vision {
            capabilities.push("vision".into());
        }
    }
    entries(models)
        .map(|(id, entry)| {
            let mut metadata = Map::new();
            if let Some(Value::Object(meta)) = entry.get("meta") {
                for (from, to) in [
                    ("n_ctx_train", "contextLength"),
                    ("n_params", "parameterCount"),
                    ("size", "sizeBytes"),
                ] {
                    if let Some(value) = meta.get(from) {
                        let text = match value {
                            Value::String(s) => s.clone(),
                            Value::Null => String::new(),
                            other => other.to_string(),
                        };
                        metadata.insert(to.into(), Value::String(text));
                    }
                }
            }
            descriptor(id, capabilities.clone(), metadata)
        })
        .collect()
}

/// The reference's heuristic: any member, at any depth, whose name contains `needle`
/// (case-insensitive) and whose value is `true`.
fn any_true_named(value: &Value, needle: &str) -> bool {
    match value {
        Value::Object(members) => members.iter().any(|(name, v)| {
            (v == &Value::Bool(true) && name.to_ascii_lowercase().contains(needle))
                || any_true_named(v, needle)
        }),
        Value::Array(items) => items.iter().any(|v| any_true_named(v, needle)),
        _ => false,
    }
}

/// LocalAI: chat models only, their capabilities and modalities.
pub fn localai(document: &Value) -> Vec<ModelDescriptor> {
    let strings = |entry: &Value, key: &str| -> Vec<String> {
        entry
            .get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    entries(document)
        .filter_map(|(id, entry)| {
            let native = strings(entry, "capabilities");
            let has = |name: &str| native.iter().any(|c| c.eq_ignore_ascii_case(name));
            if !has("chat") {
                return None;
            }
            let mut capabilities: Vec<String> = vec!["chat".into(), "streaming".into()];
            if has("tools") {
                capabilities.push("tools".into());
            }
            if has("thinking") {
                capabilities.push("reasoning".into());
            }
            let mut metadata = Map::new();
            for (from, to) in [
                ("input_modalities", "inputModalities"),
                ("output_modalities", "outputModalities"),
            ] {
                let joined = strings(entry, from).join(",");
                if !joined.is_empty() {
                    metadata.insert(to.into(), Value::String(joined));
                }
            }
            Some(descriptor(id, capabilities, metadata))
        })
        .collect()
}

/// Any other server: every listed model, `chat`, `streaming` and the configured extras.
pub fn openai(document: &Value, extra: &[String]) -> Vec<ModelDescriptor> {
    let mut capabilities: Vec<String> = vec!["chat".into(), "streaming".into()];
    capabilities.extend(extra.iter().filter(|c| !c.trim().is_empty()).cloned());
    let metadata_of = |entry: &Value| {
        let mut metadata = Map::new();
        if let Some(Value::String(owner)) = entry.get("owned_by") {
            metadata.insert("ownedBy".into(), Value::String(owner.clone()));
        }
        metadata
    };
    entries(document)
        .map(|(id, entry)| descriptor(id, capabilities.clone(), metadata_of(entry)))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The reference's vector (DiscoveryUsesModelsAndPropsForModelSpecificCapabilities).
    #[test]
    fn llamacpp_models_and_props() {
        let models = json!({"data":[{"id":"local-gguf","object":"model","meta":{"n_ctx_train":32768,"n_params":7000000000u64,"size":4200000000u64}}]});
        let props = json!({"chat_template_caps":{"supports_tools":true,"supports_reasoning":true},"modalities":{"vision":true,"video":false,"audio":false}});
        let list = llamacpp(&models, Some(&props));
        let value = serde_json::to_value(&list).unwrap();
        assert_eq!(
            value[0]["capabilities"],
            json!([
                "chat",
                "streaming",
                "structuredOutput",
                "tools",
                "reasoning",
                "vision"
            ])
        );
        assert_eq!(
            value[0]["metadata"],
            json!({"contextLength": "32768", "parameterCount": "7000000000", "sizeBytes": "4200000000"})
        );
        let bare = serde_json::to_value(llamacpp(&models, None)).unwrap();
        assert_eq!(
            bare[0]["capabilities"],
            json!(["chat", "streaming", "structuredOutput"])
        );
    }

    /// The reference's vector (DiscoveryFiltersNonChatModelsAndMapsReportedCapabilities).
    #[test]
    fn localai_keeps_chat_models() {
        let document = json!({"data":[
            {"id":"chat-model","capabilities":["chat","tools","thinking","vision"],"input_modalities":["text","image"],"output_modalities":["text"]},
            {"id":"embedding-model","capabilities":["embeddings"]}]});
        let value = serde_json::to_value(localai(&document)).unwrap();
        assert_eq!(value.as_array().unwrap().len(), 1);
        assert_eq!(
            value[0]["capabilities"],
            json!(["chat", "streaming", "tools", "reasoning"])
        );
        assert_eq!(
            value[0]["metadata"],
            json!({"inputModalities": "text,image", "outputModalities": "text"})
        );
    }
}
