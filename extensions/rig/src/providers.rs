//! rig -> AEP: which rig provider `aep-rig` serves, found by name the way rig's own
//! lookups find it, configured by base URL and key, on a reqwest client we build.
//!
//! | `--provider` | rig configuration | completion route |
//! |---|---|---|
//! | an OpenAI-shaped dialect: `openai`, `azure` (rig's `azure.openai`), `deepseek`, `groq`, `hyperbolic`, `mira`, `perplexity`, `together`, `huggingface`, `llamacpp`, `mistral`, `openrouter`, `venice`, `doubleword`, `zai`, `minimax`, `moonshot`, `xiaomimimo`, `xai` ([`openai::wire::by_name`]) | `OpenAIConfig::with_key(dialect, key)` | Chat Completions, always (rig's default for `openai` and `xai` is the Responses API) |
//! | a Messages-format dialect: `anthropic`, or `zai/anthropic`, `minimax/anthropic`, `moonshot/anthropic`, `xiaomimimo/anthropic` ([`ProviderId::resolve`]) | `AnthropicConfig::with_key(dialect, key)` | Messages |
//! | `gemini` (rig's `gcp.gemini`) | `GeminiConfig::new(key)` | GenerateContent |
//! | `cohere` | `CohereConfig::new(key)`; `cohere/openai` is Cohere's OpenAI-compatible dialect | Cohere's native chat API (rig's Cohere client defaults to its Compatibility API) |
//! | `ollama` | `OllamaConfig` (native `/api/chat`, an optional key); `ollama/openai` is Ollama's OpenAI-compatible API | `/api/chat` |
//!
//! A bare name that is both an OpenAI-shaped and a Messages-format dialect (`zai`,
//! `minimax`, `moonshot`, `xiaomimimo`) is the OpenAI-shaped one; `vendor/format` picks
//! either. `chatgpt` and `copilot` are OpenAI-shaped in rig but need a subscription
//! sign-in or an exchanged session token, not a key: they are refused. An unknown name
//! is an error listing every known one ([`known_providers`]).
//!
//! `--base-url` replaces the provider's default base URL as rig resolves paths against
//! it: for the OpenAI-shaped dialects it usually ends in `/v1`
//! (`http://127.0.0.1:8000/v1`), for Anthropic, Gemini, Cohere and Ollama it is the
//! API root.

use std::fmt;
use std::time::Duration;

use aep_sdk::protocol::{Availability, Health};

use rig_core::DynModel;
use rig_core::operation::Completion;
use rig_core::providers::registry::{Format, ProviderConfig, ProviderId};
use rig_core::providers::{anthropic, cohere, gemini, ollama, openai};
use rig_reqwest::ReqwestClient;

/// OpenAI-shaped dialects rig knows that a key and a base URL cannot configure.
const SIGN_IN_ONLY: [&str; 2] = ["chatgpt", "copilot"];

/// Short names for rig's provider names.
const ALIASES: [(&str, &str); 2] = [("gemini", gemini::PROVIDER_NAME), ("azure", "azure.openai")];

/// Why a provider name does not name a provider `aep-rig` can serve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderLookupError {
    /// No provider has this name.
    #[error("unknown provider '{name}'{why}; known providers: {}", known_providers().join(", "))]
    Unknown {
        /// The name given.
        name: String,
        /// What rig's registry said, if anything (`: ...`).
        why: String,
    },
    /// The provider needs a sign-in, not a key.
    #[error("provider '{0}' needs a subscription sign-in or a session token, not an API key; known providers: {known}", known = known_providers().join(", "))]
    SignInOnly(String),
    /// The provider needs a key and none was given.
    #[error("provider '{0}' needs an API key: --api-key-file FILE or AEP_RIG_API_KEY")]
    KeyMissing(String),
}

/// Every provider name `aep-rig` accepts, bare names first.
pub fn known_providers() -> Vec<String> {
    let mut names: Vec<String> = openai::wire::all()
        .map(|d| d.name)
        .filter(|name| !SIGN_IN_ONLY.contains(name))
        .map(str::to_owned)
        .collect();
    for name in ["anthropic", gemini::PROVIDER_NAME, "cohere", "ollama"]
        .into_iter()
        .chain(ALIASES.iter().map(|(alias, _)| *alias))
    {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    // Qualified spellings for vendors with more than one format.
    for dialect in anthropic::wire::all() {
        if openai::wire::by_name(dialect.name).is_some() {
            names.push(format!("{}/anthropic", dialect.name));
        }
    }
    names.extend(["cohere/openai".to_owned(), "ollama/openai".to_owned()]);
    names
}

/// A provider's configuration, before a model is named.
#[derive(Clone, PartialEq)]
enum Config {
    // Boxed: OpenAI's configuration is several times the others' size.
    OpenAi(Box<openai::OpenAIConfig>),
    Anthropic(anthropic::AnthropicConfig),
    Gemini(gemini::GeminiConfig),
    Cohere(cohere::CohereConfig),
    Ollama(ollama::OllamaConfig),
}

impl fmt::Debug for Config {
    // The configurations' own `Debug` redacts the key; this one names the family only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Config::OpenAi(_) => "OpenAi",
            Config::Anthropic(_) => "Anthropic",
            Config::Gemini(_) => "Gemini",
            Config::Cohere(_) => "Cohere",
            Config::Ollama(_) => "Ollama",
        })
    }
}

/// The rig provider `aep-rig` serves: its name, configuration and HTTP client.
#[derive(Clone)]
pub struct Upstream {
    name: String,
    config: Config,
    http: ReqwestClient,
    /// The same client, for the health probe.
    probe: reqwest::Client,
}

impl fmt::Debug for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upstream")
            .field("name", &self.name)
            .field("format", &self.config)
            .field("base_url", &self.base_url())
            .finish_non_exhaustive()
    }
}

fn from_registry(config: ProviderConfig) -> Config {
    match config {
        ProviderConfig::OpenAi(config) => Config::OpenAi(Box::new(config)),
        ProviderConfig::Anthropic(config) => Config::Anthropic(config),
        ProviderConfig::Gemini(config) => Config::Gemini(config),
    }
}

impl Upstream {
    /// The provider `name` (see the module docs), at `base_url` when given, with
    /// `api_key`, sending through `http`.
    pub fn new(
        name: &str,
        base_url: Option<&str>,
        api_key: Option<String>,
        http: reqwest::Client,
    ) -> Result<Self, ProviderLookupError> {
        let given = name.trim();
        let name = ALIASES
            .iter()
            .find(|(alias, _)| *alias == given)
            .map_or(given, |(_, name)| *name);
        if SIGN_IN_ONLY.contains(&name) || SIGN_IN_ONLY.iter().any(|s| name.starts_with(&format!("{s}/"))) {
            return Err(ProviderLookupError::SignInOnly(given.to_owned()));
        }
        let key = api_key.filter(|k| !k.is_empty());
        let unknown = |why: String| ProviderLookupError::Unknown {
            name: given.to_owned(),
            why,
        };
        let (config, needs_key) = match name {
            "cohere" => (
                Config::Cohere(cohere::CohereConfig::new(key.clone().unwrap_or_default())),
                true,
            ),
            "ollama" => {
                let mut config = ollama::OllamaConfig::new();
                if let Some(key) = &key {
                    config = config.with_api_key(key.clone());
                }
                (Config::Ollama(config), false)
            }
            qualified if qualified.contains('/') => {
                let id = ProviderId::resolve(qualified).map_err(|e| unknown(format!(": {e}")))?;
                let config = id
                    .config(key.clone().unwrap_or_default())
                    .ok_or_else(|| unknown(": rig's registry cannot configure it".to_owned()))?;
                (from_registry(config), id.requires_credential())
            }
            bare => {
                let id = if openai::wire::by_name(bare).is_some() {
                    ProviderId::new(bare, Format::OpenAi)
                } else if anthropic::wire::Dialect::by_name(bare).is_some() {
                    ProviderId::new(bare, Format::Anthropic)
                } else if bare == gemini::PROVIDER_NAME {
                    ProviderId::new(bare, Format::Gemini)
                } else {
                    None
                }
                .ok_or_else(|| unknown(String::new()))?;
                let config = id
                    .config(key.clone().unwrap_or_default())
                    .ok_or_else(|| unknown(": rig's registry cannot configure it".to_owned()))?;
                (from_registry(config), id.requires_credential())
            }
        };
        if needs_key && key.is_none() {
            return Err(ProviderLookupError::KeyMissing(given.to_owned()));
        }
        let config = match (config, base_url) {
            (config, None) => config,
            (Config::OpenAi(c), Some(url)) => Config::OpenAi(Box::new(c.with_base_url(url))),
            (Config::Anthropic(c), Some(url)) => Config::Anthropic(c.with_base_url(url)),
            (Config::Gemini(c), Some(url)) => Config::Gemini(c.with_base_url(url)),
            (Config::Cohere(c), Some(url)) => Config::Cohere(c.with_base_url(url)),
            (Config::Ollama(c), Some(url)) => Config::Ollama(c.with_base_url(url)),
        };
        let config = match config {
            // Chat Completions, not the Responses API rig picks for openai and xai.
            Config::OpenAi(c) => Config::OpenAi(Box::new(c.with_route(openai::Route::Chat))),
            other => other,
        };
        Ok(Self {
            name: given.to_owned(),
            config,
            probe: http.clone(),
            http: ReqwestClient::from(http),
        })
    }

    /// The provider's name as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The base URL requests go to.
    pub fn base_url(&self) -> &str {
        match &self.config {
            Config::OpenAi(c) => &c.base_url,
            Config::Anthropic(c) => &c.base_url,
            Config::Gemini(c) => &c.base_url,
            Config::Cohere(c) => &c.base_url,
            Config::Ollama(c) => &c.base_url,
        }
    }

    /// `openai at http://...`, for messages.
    pub fn describe(&self) -> String {
        format!("{} at {}", self.name, self.base_url())
    }

    /// Whether the provider answers at all: `GET <base URL>` within `bound`. Any HTTP
    /// answer is `available` (503, a server still loading its model, is `loading`); no
    /// connection is `unreachable`. The key and the models are not checked: providers
    /// have no common route for that.
    pub async fn probe(&self, bound: Duration) -> Health {
        let url = self.base_url();
        match tokio::time::timeout(bound, self.probe.get(url).send()).await {
            Ok(Ok(answer)) if answer.status() == reqwest::StatusCode::SERVICE_UNAVAILABLE => Health::new(
                Availability::Loading,
                format!("GET {url} answered 503 (still loading?)"),
            ),
            Ok(Ok(answer)) => Health {
                details: Some(format!(
                    "{} is reachable (GET {url} answered {}); key and models not checked",
                    self.name,
                    answer.status().as_u16()
                )),
                ..Health::available()
            },
            Ok(Err(error)) => Health::new(Availability::Unreachable, format!("GET {url}: {error}")),
            Err(_) => Health::new(
                Availability::Unreachable,
                format!("GET {url}: no answer within {bound:?}"),
            ),
        }
    }

    /// rig's completion model `model` of this provider.
    pub fn completion_model(&self, model: &str) -> DynModel<Completion> {
        let http = self.http.clone();
        match &self.config {
            Config::OpenAi(c) => (**c).clone().connect(http).completion(model).erase(),
            Config::Anthropic(c) => c.clone().connect(http).completion(model).erase(),
            Config::Gemini(c) => c.clone().connect(http).completion(model).erase(),
            Config::Cohere(c) => {
                let mut model = c.clone().connect(http).completion(model);
                model.wire = model.wire.with_route(cohere::ChatRoute::Native);
                model.erase()
            }
            Config::Ollama(c) => c.clone().connect(http).native_completion(model).erase(),
        }
    }
}
