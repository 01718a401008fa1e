//! Model discovery: `/api/tags` for the list, `/api/show` for each model's
//! capabilities, cached by name and digest so that listing again (or chatting)
//! costs no `/api/show` call until a model changes.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use aep_sdk::AepError;
use aep_sdk::protocol::ModelDescriptor;
use futures::StreamExt;

use crate::ollama::{OllamaClient, OllamaError, wire};

/// `/api/show` calls in flight at once while listing.
const SHOW_CONCURRENCY: usize = 4;

/// Per-model `/api/show` answers, keyed by name, valid while the digest is unchanged.
#[derive(Debug, Default)]
pub struct ModelCatalog {
    shows: Mutex<HashMap<String, (String, Arc<wire::ShowResponse>)>>,
}

impl ModelCatalog {
    /// The installed chat models.
    ///
    /// Each model is described by its `/api/tags` entry (metadata `family`,
    /// `families`, `parameterSize`, `quantizationLevel`, `format`, `digest`,
    /// `sizeBytes`) and its `/api/show` answer (`contextLength`,
    /// `ollamaCapabilities`, and AEP capabilities `chat`, `streaming`,
    /// `structuredOutput`, `tools`, `thinking`, `vision`). Models `/api/show` says
    /// cannot chat (embedding models) are left out; a model whose `/api/show` fails
    /// is listed without capabilities.
    pub async fn list(&self, client: &OllamaClient) -> Result<Vec<ModelDescriptor>, AepError> {
        let tags = client.tags().await.map_err(listing_error)?;
        let models: Vec<(String, wire::TagModel)> = tags
            .models
            .unwrap_or_default()
            .into_iter()
            .filter_map(|m| {
                let name = m.name.clone().or_else(|| m.model.clone())?;
                (!name.trim().is_empty()).then_some((name, m))
            })
            .collect();
        let keys: Vec<(String, String)> = models
            .iter()
            .map(|(name, m)| (name.clone(), m.digest.clone().unwrap_or_default()))
            .collect();
        let shows: Vec<Option<Arc<wire::ShowResponse>>> = futures::stream::iter(keys)
            .map(|(name, digest)| async move { self.show(client, &name, &digest).await })
            .buffered(SHOW_CONCURRENCY)
            .collect()
            .await;
        self.forget_all_but(models.iter().map(|(name, _)| name.as_str()));
        Ok(models
            .iter()
            .zip(shows)
            .filter_map(|((name, tag), show)| describe(name, tag, show.as_deref()))
            .collect())
    }

    async fn show(&self, client: &OllamaClient, name: &str, digest: &str) -> Option<Arc<wire::ShowResponse>> {
        if let Some((cached_digest, show)) = self.lock().get(name)
            && cached_digest == digest
        {
            return Some(show.clone());
        }
        match client.show(name).await {
            Ok(show) => {
                let show = Arc::new(show);
                self.lock()
                    .insert(name.to_owned(), (digest.to_owned(), show.clone()));
                Some(show)
            }
            Err(error) => {
                tracing::warn!(model = name, "cannot describe the model: {error}");
                None
            }
        }
    }

    fn forget_all_but<'a>(&self, names: impl Iterator<Item = &'a str>) {
        let keep: std::collections::HashSet<&str> = names.collect();
        self.lock().retain(|name, _| keep.contains(name.as_str()));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (String, Arc<wire::ShowResponse>)>> {
        self.shows.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Listing failures: unreachable stays `provider_unavailable`; any HTTP error of
/// `/api/tags` is `request_failed` (a 404 there is not an unknown model).
fn listing_error(error: OllamaError) -> AepError {
    match error {
        OllamaError::Http { status, .. } => {
            AepError::request_failed(error.to_string()).with_detail("ollamaStatus", status.to_string())
        }
        other => other.into_aep(),
    }
}

fn describe(name: &str, tag: &wire::TagModel, show: Option<&wire::ShowResponse>) -> Option<ModelDescriptor> {
    let observed: Option<&[String]> = show.and_then(|s| s.capabilities.as_deref());
    let has = |capability: &str| {
        observed.is_some_and(|caps| caps.iter().any(|c| c.eq_ignore_ascii_case(capability)))
    };
    if observed.is_some() && !has("completion") {
        return None;
    }
    let mut metadata = BTreeMap::new();
    let details = tag.details.as_ref().or(show.and_then(|s| s.details.as_ref()));
    if let Some(details) = details {
        let mut put = |key: &str, value: &Option<String>| {
            if let Some(value) = value.as_ref().filter(|v| !v.is_empty()) {
                metadata.insert(key.to_owned(), value.clone());
            }
        };
        put("family", &details.family);
        put("parameterSize", &details.parameter_size);
        put("quantizationLevel", &details.quantization_level);
        put("format", &details.format);
        if let Some(families) = details.families.as_ref().filter(|f| !f.is_empty()) {
            metadata.insert("families".to_owned(), families.join(","));
        }
    }
    if let Some(digest) = tag.digest.as_ref().filter(|d| !d.is_empty()) {
        metadata.insert("digest".to_owned(), digest.clone());
    }
    if let Some(size) = tag.size {
        metadata.insert("sizeBytes".to_owned(), size.to_string());
    }
    if let Some(context) = show.and_then(wire::ShowResponse::context_length) {
        metadata.insert("contextLength".to_owned(), context.to_string());
    }
    let capabilities = observed.map(|caps| {
        metadata.insert("ollamaCapabilities".to_owned(), caps.join(","));
        let mut out: Vec<String> = ["chat", "streaming", "structuredOutput"]
            .map(String::from)
            .to_vec();
        for (ollama, aep) in [("tools", "tools"), ("thinking", "thinking"), ("vision", "vision")] {
            if has(ollama) {
                out.push(aep.to_owned());
            }
        }
        out
    });
    Some(ModelDescriptor {
        id: name.to_owned(),
        display_name: name.to_owned(),
        capabilities,
        metadata: (!metadata.is_empty()).then_some(metadata),
    })
}
