//! What the checks share: the HTTP side, the options, and every document fetched once and
//! reused (discovery documents, provider lists, chat and stream captures, the option-set
//! catalog, MCP clients).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use aep_sdk::client::SseDecoder;
use aep_sdk::protocol::{
    ChatResponse, ConfigurationCatalog, Manifest, ModelDescriptor, ModelProviderDescriptor, ProtocolVersion,
    capability, paths,
};
use aep_sdk::validate;
use futures::StreamExt;
use reqwest::header::{self, HeaderMap};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::time::Instant;
use url::Url;

use crate::http::{Answer, Http, MAX_BODY, describe_error};
use crate::mcp::McpServer;
use crate::options::Options;

/// Why something a check needs is not there. `broken` says whether its absence is itself
/// a failure (for the check that owns it); dependants always skip.
#[derive(Debug, Clone)]
pub(crate) struct Missing {
    pub(crate) reason: String,
    pub(crate) broken: bool,
}

impl Missing {
    pub(crate) fn skip(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            broken: false,
        }
    }

    pub(crate) fn broken(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            broken: true,
        }
    }
}

/// The manifests served by the selected discovery routes.
#[derive(Debug)]
pub(crate) struct Manifests {
    /// Each route that answered a JSON object, oldest revision first.
    pub(crate) docs: Vec<(ProtocolVersion, Value)>,
    /// Each of those documents read as a manifest, or why it cannot be.
    pub(crate) parsed: Vec<(ProtocolVersion, Result<Manifest, Vec<String>>)>,
}

impl Manifests {
    /// The manifest the other checks use: the newest selected revision that parses.
    pub(crate) fn primary(&self) -> Option<&Manifest> {
        self.parsed.iter().rev().find_map(|(_, m)| m.as_ref().ok())
    }
}

/// A provider the chat checks talk to, with the model they use.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub(crate) descriptor: ModelProviderDescriptor,
    pub(crate) model: String,
}

impl Target {
    pub(crate) fn id(&self) -> &str {
        &self.descriptor.id
    }

    /// Whether the provider declares metadata `deterministic: true`.
    pub(crate) fn deterministic(&self) -> bool {
        let flag = self
            .descriptor
            .metadata
            .as_ref()
            .and_then(|m| m.get("deterministic"));
        matches!(flag, Some(Value::Bool(true))) || flag.and_then(Value::as_str) == Some("true")
    }
}

/// The prompt of the chat checks: short, with a short answer.
pub(crate) const PROMPT: &str = "Reply with exactly one word: pong";

/// A plain chat request body for `model`.
pub(crate) fn chat_body(model: &str, prompt: &str) -> Value {
    json!({
        "model": model,
        "messages": [{"role": "user", "contents": [{"kind": "text", "text": prompt}]}]
    })
}

/// One `/chat` exchange.
#[derive(Debug)]
pub(crate) struct ChatCapture {
    pub(crate) answer: Answer,
    /// The body as JSON when it is JSON.
    pub(crate) value: Option<Value>,
    /// The body as a ChatResponse, or why not.
    pub(crate) response: Result<ChatResponse, String>,
}

impl ChatCapture {
    /// The answer when it is a ChatResponse with at least one message (what
    /// `3.provider.chat` requires), or why not.
    pub(crate) fn usable(&self) -> Result<&ChatResponse, String> {
        match &self.response {
            Err(error) => Err(error.clone()),
            Ok(response) if response.messages.is_empty() => Err("the answer holds no message".to_owned()),
            Ok(response) => Ok(response),
        }
    }
}

/// How reading a stream ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StreamEnd {
    /// The server closed the body.
    Closed,
    /// A terminal update arrived but the body stayed open past the grace period.
    OpenAfterTerminal,
    /// No terminal update and no end within the time bound.
    TimedOut,
    /// The connection failed while reading.
    Failed(String),
    /// The body grew past the size bound.
    TooLarge,
}

/// One `/chat/stream` exchange, read whole.
#[derive(Debug)]
pub(crate) struct StreamCapture {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Vec<u8>,
    pub(crate) end: StreamEnd,
}

/// How long a body may stay open after its terminal update.
const GRACE_AFTER_TERMINAL: Duration = Duration::from_secs(3);

/// The option-set catalog as served.
#[derive(Debug)]
pub(crate) struct Catalog {
    /// Each set's versions' `schema` text exactly as served (number tokens and member
    /// order kept, what the digest is computed over), by set and version position.
    pub(crate) schema_texts: Vec<Vec<Option<String>>>,
    pub(crate) typed: Result<ConfigurationCatalog, String>,
}

/// The served catalog read for its raw schema texts only.
#[derive(serde::Deserialize)]
struct RawCatalog<'a> {
    #[serde(rename = "optionSets", default, borrow)]
    option_sets: Vec<RawSet<'a>>,
}

#[derive(serde::Deserialize)]
struct RawSet<'a> {
    #[serde(default, borrow)]
    versions: Vec<RawVersion<'a>>,
}

#[derive(serde::Deserialize)]
struct RawVersion<'a> {
    #[serde(default, borrow)]
    schema: Option<&'a serde_json::value::RawValue>,
}

impl Catalog {
    fn read(text: &str, value: Value) -> Result<Self, String> {
        let raw: RawCatalog<'_> = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let schema_texts = raw
            .option_sets
            .iter()
            .map(|set| {
                set.versions
                    .iter()
                    .map(|v| v.schema.map(|raw| raw.get().to_owned()))
                    .collect()
            })
            .collect();
        Ok(Self {
            schema_texts,
            typed: serde_json::from_value(value).map_err(|e| format!("not a configuration catalog: {e}")),
        })
    }
}

/// Shared state of one run.
pub(crate) struct Ctx {
    pub(crate) http: Http,
    pub(crate) options: Options,
    discovery: BTreeMap<ProtocolVersion, Result<Value, String>>,
    manifests: Option<Arc<Manifests>>,
    provider_list: Option<Result<Vec<ModelProviderDescriptor>, String>>,
    models: HashMap<String, Result<Vec<ModelDescriptor>, String>>,
    chats: HashMap<String, Arc<Result<ChatCapture, String>>>,
    streams: HashMap<String, Arc<Result<StreamCapture, String>>>,
    catalog: Option<Result<Arc<Catalog>, Missing>>,
    pub(crate) mcp: Option<Vec<McpServer>>,
}

impl Ctx {
    pub(crate) fn new(base: &str, options: Options) -> Result<Self, String> {
        let base: Url =
            validate::parse_base_url(base).map_err(|e| format!("invalid base URL '{base}': {e}"))?;
        let http = Http::new(base, options.bearer_token.clone(), options.request_timeout)?;
        Ok(Self {
            http,
            options,
            discovery: BTreeMap::new(),
            manifests: None,
            provider_list: None,
            models: HashMap::new(),
            chats: HashMap::new(),
            streams: HashMap::new(),
            catalog: None,
            mcp: None,
        })
    }

    /// The discovery document of `revision`: 200, a JSON content type, a JSON object.
    pub(crate) async fn discovery(&mut self, revision: ProtocolVersion) -> Result<Value, String> {
        if let Some(cached) = self.discovery.get(&revision) {
            return cached.clone();
        }
        let result = match self.http.get(revision.discovery_path()).await {
            Ok(answer) => answer.ok_json().and_then(|value| {
                if value.is_object() {
                    Ok(value)
                } else {
                    Err(format!(
                        "the document is not a JSON object: {}",
                        answer.describe()
                    ))
                }
            }),
            Err(error) => Err(error),
        };
        self.discovery.insert(revision, result.clone());
        result
    }

    /// The documents of every selected revision, read as manifests.
    pub(crate) async fn manifests(&mut self) -> Arc<Manifests> {
        if let Some(cached) = &self.manifests {
            return cached.clone();
        }
        let mut docs = Vec::new();
        for revision in self.options.revisions.list() {
            if let Ok(value) = self.discovery(revision).await {
                docs.push((revision, value));
            }
        }
        let parsed = docs
            .iter()
            .map(|(revision, value)| (*revision, read_manifest(*revision, value)))
            .collect();
        let manifests = Arc::new(Manifests { docs, parsed });
        self.manifests = Some(manifests.clone());
        manifests
    }

    /// The manifest other checks rely on, or why there is none.
    pub(crate) async fn manifest(&mut self) -> Result<Manifest, Missing> {
        let manifests = self.manifests().await;
        if manifests.docs.is_empty() {
            return Err(Missing::skip(
                "no discovery route answered a JSON object (see 1.discovery.*)",
            ));
        }
        manifests
            .primary()
            .cloned()
            .ok_or_else(|| Missing::skip("the manifest cannot be read (see 1.manifest.members)"))
    }

    /// The endpoint of capability `name`, or `default` when it has none.
    pub(crate) fn capability_path(manifest: &Manifest, name: &str, default: &str) -> String {
        manifest
            .capability(name)
            .and_then(|c| c.endpoint.clone())
            .filter(|e| e.starts_with('/'))
            .unwrap_or_else(|| default.to_owned())
    }

    /// The manifest's model providers, one per id (case-insensitively).
    pub(crate) async fn providers(&mut self) -> Result<Vec<ModelProviderDescriptor>, Missing> {
        let manifest = self.manifest().await?;
        if manifest.capability(capability::MODEL_PROVIDER).is_none()
            && manifest.contributions.model_providers.is_empty()
        {
            return Err(Missing::skip("aep.model-provider is not advertised"));
        }
        let mut seen = std::collections::HashSet::new();
        Ok(manifest
            .contributions
            .model_providers
            .into_iter()
            .filter(|p| !p.id.trim().is_empty() && seen.insert(p.id.to_lowercase()))
            .collect())
    }

    /// `GET /aep/model-providers`, read as descriptors.
    pub(crate) async fn provider_list(&mut self) -> Result<Vec<ModelProviderDescriptor>, String> {
        if let Some(cached) = &self.provider_list {
            return cached.clone();
        }
        let result = match self.http.get(paths::MODEL_PROVIDERS).await {
            Ok(answer) => answer.ok_json().and_then(|value| {
                serde_json::from_value::<Vec<ModelProviderDescriptor>>(value)
                    .map_err(|e| format!("not an array of model provider descriptors: {e}"))
            }),
            Err(error) => Err(error),
        };
        self.provider_list = Some(result.clone());
        result
    }

    /// `GET /aep/model-providers/{id}/models`, read as model descriptors.
    pub(crate) async fn models(&mut self, provider: &str) -> Result<Vec<ModelDescriptor>, String> {
        let key = provider.to_lowercase();
        if let Some(cached) = self.models.get(&key) {
            return cached.clone();
        }
        let result = match self.http.get(&Http::provider_path(provider, "/models")).await {
            Ok(answer) => answer.ok_json().and_then(|value| {
                serde_json::from_value::<Vec<ModelDescriptor>>(value)
                    .map_err(|e| format!("not an array of model descriptors: {e}"))
            }),
            Err(error) => Err(error),
        };
        self.models.insert(key, result.clone());
        result
    }

    /// The providers the chat checks use, each with its model; the second list says which
    /// providers were left out and why.
    pub(crate) async fn targets(&mut self) -> Result<(Vec<Target>, Vec<String>), Missing> {
        let providers = self.providers().await?;
        if providers.is_empty() {
            return Err(Missing::skip("the extension declares no model provider"));
        }
        let wanted = self.options.provider.clone();
        if let Some(wanted) = &wanted
            && !providers.iter().any(|p| p.id.eq_ignore_ascii_case(wanted))
        {
            let ids: Vec<&str> = providers.iter().map(|p| p.id.as_str()).collect();
            return Err(Missing::broken(format!(
                "--provider '{wanted}' is not a provider of this extension (it has: {})",
                ids.join(", ")
            )));
        }
        let mut targets = Vec::new();
        let mut left_out = Vec::new();
        for descriptor in providers {
            if wanted
                .as_ref()
                .is_some_and(|w| !descriptor.id.eq_ignore_ascii_case(w))
            {
                continue;
            }
            if !descriptor.capabilities.chat && !descriptor.capabilities.streaming {
                left_out.push(format!(
                    "provider '{}' declares neither chat nor streaming",
                    descriptor.id
                ));
                continue;
            }
            let model = match self.options.model.clone() {
                Some(model) => Some(model),
                None => {
                    let listed = self
                        .models(&descriptor.id)
                        .await
                        .ok()
                        .and_then(|m| m.first().map(|m| m.id.clone()));
                    listed.or_else(|| {
                        descriptor
                            .models
                            .as_ref()
                            .and_then(|m| m.first())
                            .map(|m| m.id.clone())
                    })
                }
            };
            match model {
                Some(model) => targets.push(Target { descriptor, model }),
                None => left_out.push(format!(
                    "provider '{}' lists no model; pass --model to check its chat",
                    descriptor.id
                )),
            }
        }
        if targets.is_empty() {
            return Err(Missing::skip(left_out.join("; ")));
        }
        Ok((targets, left_out))
    }

    /// The first target (what the error and cancellation checks use).
    pub(crate) async fn first_target(&mut self) -> Result<Target, Missing> {
        let (targets, _) = self.targets().await.map_err(|m| Missing::skip(m.reason))?;
        targets
            .into_iter()
            .next()
            .ok_or_else(|| Missing::skip("no provider to chat with"))
    }

    /// The `/chat` exchange of `target` with [`PROMPT`].
    pub(crate) async fn chat(&mut self, target: &Target) -> Arc<Result<ChatCapture, String>> {
        let key = target.id().to_lowercase();
        if let Some(cached) = self.chats.get(&key) {
            return cached.clone();
        }
        let path = Http::provider_path(target.id(), "/chat");
        let result = self
            .http
            .post_json(&path, &chat_body(&target.model, PROMPT))
            .await
            .map(|answer| {
                let value = serde_json::from_slice::<Value>(&answer.body).ok();
                let response = answer.ok_json().and_then(|value| {
                    serde_json::from_value::<ChatResponse>(value)
                        .map_err(|e| format!("not a ChatResponse: {e}"))
                });
                ChatCapture {
                    answer,
                    value,
                    response,
                }
            });
        let result = Arc::new(result);
        self.chats.insert(key, result.clone());
        result
    }

    /// The `/chat/stream` exchange of `target` with [`PROMPT`], read to its end.
    pub(crate) async fn stream(&mut self, target: &Target) -> Arc<Result<StreamCapture, String>> {
        let key = target.id().to_lowercase();
        if let Some(cached) = self.streams.get(&key) {
            return cached.clone();
        }
        let path = Http::provider_path(target.id(), "/chat/stream");
        let deadline = Instant::now()
            + self
                .options
                .check_timeout
                .saturating_sub(Duration::from_secs(5))
                .max(Duration::from_secs(5));
        let result = Arc::new(
            self.read_stream(&path, &chat_body(&target.model, PROMPT), deadline)
                .await,
        );
        self.streams.insert(key, result.clone());
        result
    }

    async fn read_stream(
        &self,
        path: &str,
        body: &Value,
        deadline: Instant,
    ) -> Result<StreamCapture, String> {
        let url = self.http.url(path);
        let request = self
            .http
            .request(Method::POST, &url)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "text/event-stream")
            .body(serde_json::to_vec(body).map_err(|e| e.to_string())?);
        let response = match tokio::time::timeout_at(deadline, request.send()).await {
            Ok(Ok(response)) => response,
            Ok(Err(error)) => return Err(describe_error(&url, &error)),
            Err(_) => return Err(format!("{url}: no answer headers in time")),
        };
        let status = response.status();
        let headers = response.headers().clone();
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        let mut decoder = SseDecoder::default();
        let mut until = deadline;
        let mut terminal = false;
        let end = loop {
            match tokio::time::timeout_at(until, chunks.next()).await {
                Err(_) if terminal => break StreamEnd::OpenAfterTerminal,
                Err(_) => break StreamEnd::TimedOut,
                Ok(None) => break StreamEnd::Closed,
                Ok(Some(Err(error))) => break StreamEnd::Failed(describe_error(&url, &error)),
                Ok(Some(Ok(chunk))) => {
                    if body.len() + chunk.len() > MAX_BODY {
                        break StreamEnd::TooLarge;
                    }
                    body.extend_from_slice(&chunk);
                    if !terminal && status.is_success() {
                        let payloads = decoder.push(&chunk);
                        if payloads.iter().any(|p| is_terminal_payload(p)) {
                            terminal = true;
                            until = Instant::now() + GRACE_AFTER_TERMINAL;
                        }
                    }
                }
            }
        };
        Ok(StreamCapture {
            status,
            headers,
            body,
            end,
        })
    }

    /// The option-set catalog, when `aep.configuration` is advertised.
    pub(crate) async fn catalog(&mut self) -> Result<Arc<Catalog>, Missing> {
        if let Some(cached) = &self.catalog {
            return cached.clone();
        }
        let manifest = self.manifest().await?;
        if manifest.capability(capability::CONFIGURATION).is_none() {
            return Err(Missing::skip("aep.configuration is not advertised"));
        }
        let path = Self::capability_path(&manifest, capability::CONFIGURATION, paths::CONFIGURATION);
        let result = match self.http.get(&path).await {
            Err(error) => Err(Missing::broken(error)),
            Ok(answer) => match answer.ok_json() {
                Err(error) => Err(Missing::broken(format!("GET {path}: {error}"))),
                Ok(value) => {
                    let text = String::from_utf8_lossy(&answer.body);
                    Catalog::read(&text, value)
                        .map(Arc::new)
                        .map_err(|error| Missing::broken(format!("GET {path}: {error}")))
                }
            },
        };
        self.catalog = Some(result.clone());
        result
    }

    /// Closes every MCP client (ends sessions), each within a bound.
    pub(crate) async fn close(&mut self) {
        if let Some(servers) = self.mcp.take() {
            for server in servers {
                server.close().await;
            }
        }
    }
}

/// Whether an SSE payload is a JSON object with a non-null `finishReason`.
pub(crate) fn is_terminal_payload(payload: &str) -> bool {
    serde_json::from_str::<Value>(payload)
        .ok()
        .and_then(|v| v.get("finishReason").map(|f| !f.is_null()))
        .unwrap_or(false)
}

/// Reads one discovery document as a manifest: required members (the SDK's JSON rules)
/// and the manifest's shape. `protocolVersion` is checked by `1.discovery.revision`, so
/// it is read here as the route's revision.
fn read_manifest(revision: ProtocolVersion, value: &Value) -> Result<Manifest, Vec<String>> {
    let problems: Vec<String> = validate::validate_manifest_json(value)
        .into_iter()
        .filter(|p| is_member_problem(&p.path))
        .map(|p| p.to_string())
        .collect();
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut value = value.clone();
    if let Some(object) = value.as_object_mut() {
        object.insert(
            "protocolVersion".to_owned(),
            Value::String(revision.as_str().to_owned()),
        );
    }
    serde_json::from_value(value)
        .map_err(|e| vec![format!("$: the document does not have the manifest's shape: {e}")])
}

/// Whether a `validate_manifest_json` problem is about required members (as opposed to
/// a schema inside a tool contribution).
pub(crate) fn is_member_problem(path: &str) -> bool {
    !path.starts_with("$.contributions.tools[")
}
