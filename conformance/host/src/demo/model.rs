//! Which model the demo talks to: the scripted provider, or, when `OLLAMA_HOST` answers,
//! the Ollama extension (`aep-ollama`) in front of it with an installed model that
//! supports tools, or, when `AEP_OPENAI_BASE_URL` answers, `aep-openai` in front of that
//! OpenAI-compatible server.

use std::time::Duration;

use aep_ollama::config::{OllamaConfig, parse_ollama_url};
use aep_ollama::{EXTENSION_ID as OLLAMA_EXTENSION_ID, OllamaExtension, PROVIDER_ID as OLLAMA_PROVIDER_ID};
use aep_openai_compatible::config::UpstreamConfig;
use aep_openai_compatible::flavor::{Flavor, OPENAI_EXTENSION_ID, OPENAI_PROVIDER_ID};
use aep_openai_compatible::openai::OpenAiExtension;
use aep_openai_compatible::upstream::Upstream;
use aep_sdk::client::Client;
use aep_sdk::server::AepExtension;

use super::scripted::{SCRIPTED_EXTENSION_ID, SCRIPTED_MODEL_ID, SCRIPTED_PROVIDER_ID, scripted_extension};
use super::serve::LocalExtension;
use super::{DemoOptions, declaration};
use crate::error::Result;
use crate::models::ModelRef;

/// Bound on the `OLLAMA_HOST` probe and the model listing.
const PROBE: Duration = Duration::from_secs(3);

/// The system prompt given to a real model.
pub(crate) const SYSTEM_PROMPT: &str = "You can call the tool hash.compute, which returns the SHA-256 digest of a \
     text. Never compute a digest yourself: call the tool, then answer with the digest it returned.";

pub(crate) struct ModelChoice {
    pub(crate) server: LocalExtension,
    pub(crate) reference: ModelRef,
    pub(crate) system: Option<&'static str>,
    pub(crate) what: String,
}

/// The Ollama extension when `options.ollama` answers and has a model for tools,
/// otherwise the scripted provider; `notes` says why when Ollama was not used.
pub(crate) async fn choose(options: &DemoOptions, notes: &mut Vec<String>) -> Result<ModelChoice> {
    if let Some(host) = &options.ollama {
        match ollama(host, options.model.as_deref()).await {
            Ok(choice) => return Ok(choice),
            Err(why) => notes.push(format!(
                "OLLAMA_HOST={host}: {why}; using the scripted model instead"
            )),
        }
    }
    if let Some(base) = &options.openai {
        match openai(base, options.model.as_deref()).await {
            Ok(choice) => return Ok(choice),
            Err(why) => notes.push(format!(
                "AEP_OPENAI_BASE_URL={base}: {why}; using the scripted model instead"
            )),
        }
    }
    let server = LocalExtension::start(scripted_extension("hash.compute").map_err(declaration)?).await?;
    Ok(ModelChoice {
        server,
        reference: ModelRef::new(SCRIPTED_EXTENSION_ID, SCRIPTED_PROVIDER_ID, SCRIPTED_MODEL_ID),
        system: None,
        what: "a scripted model that calls hash.compute".to_owned(),
    })
}

async fn ollama(host: &str, model: Option<&str>) -> std::result::Result<ModelChoice, String> {
    let url = parse_ollama_url(host)?;
    let probe = reqwest::Client::builder()
        .timeout(PROBE)
        .build()
        .map_err(|e| e.to_string())?;
    let version = format!("{}/api/version", url.as_str().trim_end_matches('/'));
    match probe.get(&version).send().await {
        Ok(answer) if answer.status().is_success() => {}
        Ok(answer) => return Err(format!("{version} answered HTTP {}", answer.status().as_u16())),
        Err(error) => return Err(format!("not reachable ({error})")),
    }
    let extension = OllamaExtension::new(OllamaConfig::with_url(url.as_str())?)
        .and_then(AepExtension::into_extension)
        .map_err(|e| e.to_string())?;
    let server = LocalExtension::start(extension)
        .await
        .map_err(|e| e.to_string())?;
    let model = match model {
        Some(model) => model.to_owned(),
        None => {
            let client = Client::builder(&server.base_url)
                .read_timeout(PROBE)
                .build()
                .map_err(|e| e.to_string())?;
            let models = client
                .models(OLLAMA_PROVIDER_ID)
                .await
                .map_err(|e| e.to_string())?;
            let tools = models.iter().find(|m| {
                m.capabilities
                    .as_ref()
                    .is_some_and(|caps| caps.iter().any(|c| c == "tools"))
            });
            match tools {
                Some(found) => found.id.clone(),
                None => {
                    server.stop().await;
                    return Err(
                        "no installed model supports tools (set AEP_HOST_DEMO_MODEL to pick one)".to_owned(),
                    );
                }
            }
        }
    };
    Ok(ModelChoice {
        server,
        reference: ModelRef::new(OLLAMA_EXTENSION_ID, OLLAMA_PROVIDER_ID, &model),
        system: Some(SYSTEM_PROMPT),
        what: format!("aep-ollama in front of Ollama at {url}, model {model}"),
    })
}

async fn openai(base: &str, model: Option<&str>) -> std::result::Result<ModelChoice, String> {
    let mut config = UpstreamConfig::new(Flavor::OpenAi, base).map_err(|e| e.to_string())?;
    config.tuning.probe_timeout = PROBE;
    let url = config.endpoint.clone();
    let extension = aep_openai_compatible::build(OpenAiExtension(
        Upstream::new(config, vec!["tools".to_owned()]).map_err(|e| e.to_string())?,
    ))
    .map_err(|e| e.to_string())?;
    let server = LocalExtension::start(extension)
        .await
        .map_err(|e| e.to_string())?;
    let client = Client::builder(&server.base_url)
        .read_timeout(PROBE)
        .build()
        .map_err(|e| e.to_string())?;
    let listed = match client.models(OPENAI_PROVIDER_ID).await {
        Ok(models) => models,
        Err(error) => {
            server.stop().await;
            return Err(format!("not answering ({error})"));
        }
    };
    let model = match model
        .map(str::to_owned)
        .or_else(|| listed.first().map(|m| m.id.clone()))
    {
        Some(model) => model,
        None => {
            server.stop().await;
            return Err("it lists no model (set AEP_HOST_DEMO_MODEL to pick one)".to_owned());
        }
    };
    Ok(ModelChoice {
        server,
        reference: ModelRef::new(OPENAI_EXTENSION_ID, OPENAI_PROVIDER_ID, &model),
        system: Some(SYSTEM_PROMPT),
        what: format!("aep-openai in front of {url}, model {model}"),
    })
}
