//! The gateway's model ids: every model of every provider of every registered extension,
//! from the provider's declared `models` and, where it declares `modelDiscovery`, its
//! `GET .../models` route.
//!
//! An id reads `<provider>/<model>` (`openai/smollm2`). When two registered extensions
//! have a provider of the same id (two `aep-openai` in front of two servers, say), no
//! extension is preferred: the models of every provider of that id read
//! `<extension>/<provider>/<model>` instead, the reference form `aep-host chat` uses. An
//! id that would still name two models (a provider `a` with a model `b/c` beside an
//! extension `a` with a provider `b` and a model `c`) is listed once, for the first.
//!
//! The listing is kept: `GET /v1/models` builds it anew, and a chat naming an id it does
//! not hold builds it anew at most once a second, so a chat for a known model costs no
//! discovery call and a stream of unknown ids cannot hammer the extensions.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use aep_sdk::protocol::{ModelProviderDescriptor, ProviderCapabilities};
use serde_json::{Value, json};

use crate::gateway::Gateway;
use crate::models::ModelRef;

/// Bound on one extension's manifest and on one provider's `/models` answer.
const DISCOVERY_BOUND: Duration = Duration::from_secs(10);
/// Least time between two listings a chat's unknown id asks for.
const MIN_REFRESH: Duration = Duration::from_secs(1);

/// One model as the gateway offers it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Listed {
    /// The id OpenAI clients use.
    pub id: String,
    /// Where it lives: extension, provider, model as the provider knows it.
    pub reference: ModelRef,
    /// What its provider declares.
    pub capabilities: ProviderCapabilities,
}

impl Listed {
    /// The OpenAI model object.
    pub fn object(&self) -> Value {
        // `created` is not known for an AEP model: 0 says so.
        json!({"id": self.id, "object": "model", "created": 0, "owned_by": self.reference.extension})
    }
}

#[derive(Debug, Default)]
pub(super) struct Listing {
    pub models: Vec<Listed>,
    index: HashMap<String, usize>,
    built: Option<Instant>,
}

impl Listing {
    fn get(&self, id: &str) -> Option<Listed> {
        self.index.get(id).map(|&i| self.models[i].clone())
    }
}

/// The kept listing; see the module.
#[derive(Debug)]
pub(super) struct Models {
    gateway: Gateway,
    current: RwLock<Arc<Listing>>,
    rebuilding: tokio::sync::Mutex<()>,
}

impl Models {
    pub fn new(gateway: Gateway) -> Self {
        Self {
            gateway,
            current: RwLock::new(Arc::default()),
            rebuilding: tokio::sync::Mutex::new(()),
        }
    }

    fn current(&self) -> Arc<Listing> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// A fresh listing (and kept for the chats that follow).
    pub async fn list(&self) -> Arc<Listing> {
        let _one = self.rebuilding.lock().await;
        self.rebuild().await
    }

    /// The model `id` names, from the kept listing or, when it has no such id, from a
    /// new one (see the module for how often).
    pub async fn resolve(&self, id: &str) -> Option<Listed> {
        let seen = self.current();
        if let Some(found) = seen.get(id) {
            return Some(found);
        }
        let _one = self.rebuilding.lock().await;
        let now = self.current();
        if now.built != seen.built {
            // Rebuilt while this call waited.
            return now.get(id);
        }
        if now.built.is_some_and(|at| at.elapsed() < MIN_REFRESH) {
            return None;
        }
        self.rebuild().await.get(id)
    }

    async fn rebuild(&self) -> Arc<Listing> {
        let found = discover(&self.gateway).await;
        let listing = Arc::new(name(found));
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = listing.clone();
        listing
    }
}

/// What one provider serves.
struct Found {
    extension: String,
    provider: ModelProviderDescriptor,
    models: Vec<String>,
}

/// Every provider of every registered extension with its models, asked at once; an
/// extension or a provider that does not answer is left out (and logged).
async fn discover(gateway: &Gateway) -> Vec<Found> {
    let registry = gateway.catalog().registry();
    let per_extension = registry.entries().map(|entry| async move {
        let manifest = match tokio::time::timeout(DISCOVERY_BOUND, registry.manifest(&entry.id)).await {
            Ok(Ok(manifest)) => manifest,
            Ok(Err(error)) => {
                tracing::warn!(extension = %entry.id, "its models are not listed: {error}");
                return Vec::new();
            }
            Err(_) => {
                tracing::warn!(extension = %entry.id, "its models are not listed: no manifest within {DISCOVERY_BOUND:?}");
                return Vec::new();
            }
        };
        let providers = manifest.contributions.model_providers.iter().map(|provider| async move {
            let mut models: Vec<String> = provider.models.iter().flatten().map(|m| m.id.clone()).collect();
            if provider.capabilities.model_discovery {
                match tokio::time::timeout(DISCOVERY_BOUND, entry.client().models(&provider.id)).await {
                    Ok(Ok(discovered)) => models.extend(discovered.into_iter().map(|m| m.id)),
                    Ok(Err(error)) => {
                        tracing::warn!(extension = %entry.id, provider = %provider.id, "model discovery failed: {error}")
                    }
                    Err(_) => tracing::warn!(extension = %entry.id, provider = %provider.id, "model discovery did not answer within {DISCOVERY_BOUND:?}"),
                }
            }
            let mut seen = BTreeSet::new();
            models.retain(|m| seen.insert(m.clone()));
            Found {
                extension: entry.id.clone(),
                provider: provider.clone(),
                models,
            }
        });
        futures::future::join_all(providers).await
    });
    futures::future::join_all(per_extension)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// Names each model (see the module).
fn name(found: Vec<Found>) -> Listing {
    let mut owners: HashMap<String, BTreeSet<&str>> = HashMap::new();
    for f in &found {
        owners
            .entry(f.provider.id.to_ascii_lowercase())
            .or_default()
            .insert(&f.extension);
    }
    let mut listing = Listing {
        built: Some(Instant::now()),
        ..Listing::default()
    };
    for f in &found {
        let shared = owners[&f.provider.id.to_ascii_lowercase()].len() > 1;
        for model in &f.models {
            let reference = ModelRef::new(&f.extension, &f.provider.id, model);
            let id = if shared {
                reference.to_string()
            } else {
                format!("{}/{model}", f.provider.id)
            };
            if listing.index.contains_key(&id) {
                tracing::warn!(%id, extension = %f.extension, "a model id names two models; the first is kept");
                continue;
            }
            listing.index.insert(id.clone(), listing.models.len());
            listing.models.push(Listed {
                id,
                reference,
                capabilities: f.provider.capabilities,
            });
        }
    }
    listing
}

#[cfg(test)]
mod tests {
    use aep_sdk::protocol::ModelProviderDescriptor;

    use super::*;

    fn found(extension: &str, provider: &str, models: &[&str]) -> Found {
        Found {
            extension: extension.into(),
            provider: ModelProviderDescriptor::new(provider, provider),
            models: models.iter().map(|m| (*m).to_owned()).collect(),
        }
    }

    #[test]
    fn ids_are_provider_slash_model_unless_two_extensions_share_the_provider_id() {
        let listing = name(vec![
            found("acme.a", "openai", &["m1"]),
            found("acme.b", "OpenAI", &["m1"]),
            found("acme.c", "echo", &["echo-1", "library/x"]),
        ]);
        let ids: Vec<&str> = listing.models.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "acme.a/openai/m1",
                "acme.b/OpenAI/m1",
                "echo/echo-1",
                "echo/library/x"
            ]
        );
        let listed = listing.get("echo/library/x").unwrap();
        assert_eq!(listed.reference, ModelRef::new("acme.c", "echo", "library/x"));
        assert_eq!(listed.object()["owned_by"], "acme.c");
    }

    #[test]
    fn an_id_naming_two_models_is_kept_for_the_first() {
        // Provider `a`'s model `b/c`, and extension `a`'s model `c` of the shared provider `b`.
        let listing = name(vec![
            found("x", "a", &["b/c"]),
            found("a", "b", &["c"]),
            found("z", "b", &["c"]),
        ]);
        let ids: Vec<&str> = listing.models.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["a/b/c", "z/b/c"]);
        assert_eq!(listing.get("a/b/c").unwrap().reference.extension, "x");
    }
}
