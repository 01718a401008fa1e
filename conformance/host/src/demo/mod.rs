//! `aep-host demo`: a self-contained walk-through that needs no external service.
//!
//! It starts the bundled utilities extension (`extensions/utilities`) and a scripted
//! model provider ([`scripted`]) in-process on loopback ports, then walks through
//! discovery, catalog resolution, MCP tool calls (showing that the MCP client is reused)
//! and a streamed chat in which the model asks for `hash.compute` and answers with its
//! result, printing what happens at each step.
//!
//! When `AEP_OPENAI_BASE_URL` names an OpenAI-compatible server that answers (and Ollama
//! is not used), the chat goes through `aep-openai` in front of it.
//! When `OLLAMA_HOST` is set and answers, the chat uses the Ollama extension
//! (`aep-ollama`, started in-process in front of that Ollama) with an installed model
//! that supports tools (or `AEP_HOST_DEMO_MODEL`) instead of the scripted one.

mod model;
pub mod scripted;
mod serve;

use std::sync::Arc;
use std::time::Instant;

use aep_sdk::protocol::{Message, ProtocolVersion};
use aep_sdk::server::AepExtension;
use serde_json::json;

pub use scripted::{
    SCRIPTED_EXTENSION_ID, SCRIPTED_MODEL_ID, SCRIPTED_PROVIDER_ID, ScriptedModel, scripted_extension,
};
pub use serve::LocalExtension;

use crate::agent::{Agent, AgentEvent, AgentStop};
use crate::catalog::{Catalog, ToolResource};
use crate::error::{ErrorCode, HostError, Result};
use crate::mcp::{McpPool, PoolStats};
use crate::registry::Registry;
use crate::render::{self, EventPrinter, Out};

/// Extension id of the bundled utilities extension.
pub const UTILITIES_ID: &str = "aep.utilities";
/// The text the demo hashes.
pub const DEMO_TEXT: &str = "hello from aep-host";

/// Where the demo's model comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DemoOptions {
    /// An Ollama address (`OLLAMA_HOST` syntax); when it answers, the chat uses a real model.
    pub ollama: Option<String>,
    /// An OpenAI-compatible server's base URL (`AEP_OPENAI_BASE_URL`, without `/v1`);
    /// when it answers (and Ollama is not used), the chat goes through `aep-openai`.
    pub openai: Option<String>,
    /// The model to use (default: Ollama's first installed one that supports tools, or
    /// the OpenAI-compatible server's first listed one).
    pub model: Option<String>,
}

impl DemoOptions {
    /// `OLLAMA_HOST`, `AEP_OPENAI_BASE_URL` and `AEP_HOST_DEMO_MODEL` from the environment.
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Self {
            ollama: var("OLLAMA_HOST"),
            openai: var("AEP_OPENAI_BASE_URL"),
            model: var("AEP_HOST_DEMO_MODEL"),
        }
    }

    /// Always the scripted model.
    pub fn scripted() -> Self {
        Self::default()
    }
}

/// What the demo saw, for tests and the closing summary.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoReport {
    /// The digest `hash.compute` returned.
    pub digest: String,
    /// The model's final answer.
    pub answer: String,
    /// Tools resolved.
    pub tools: usize,
    /// What the MCP pool did for the utilities server over the whole demo.
    pub pool: PoolStats,
}

/// Writes a line, ignoring output errors (a closed pipe must not fail the demo).
macro_rules! say {
    ($out:expr) => { let _ = writeln!($out); };
    ($out:expr, $($arg:tt)*) => { let _ = writeln!($out, $($arg)*); };
}

pub(crate) fn declaration(error: aep_sdk::Error) -> HostError {
    HostError::new(
        ErrorCode::ConfigurationInvalid,
        format!("in-process extension: {error}"),
    )
}

/// Runs the demo with [`DemoOptions::from_env`], printing to `out`.
pub async fn run(out: Out<'_>) -> Result<DemoReport> {
    run_with(out, DemoOptions::from_env()).await
}

/// Runs the demo, printing to `out`.
pub async fn run_with(out: Out<'_>, options: DemoOptions) -> Result<DemoReport> {
    let started = Instant::now();
    say!(
        out,
        "aep-host demo: an AEP host, a tools extension and a model provider, all on loopback."
    );
    say!(out);
    say!(out, "[1/5] Starting extensions in-process");
    let utilities =
        LocalExtension::start(aep_utilities::Utilities.into_extension().map_err(declaration)?).await?;
    let mut notes = Vec::new();
    let model = match model::choose(&options, &mut notes).await {
        Ok(model) => model,
        Err(error) => {
            utilities.stop().await;
            return Err(error);
        }
    };
    say!(
        out,
        "  {UTILITIES_ID:<32} {}  (extensions/utilities: hashing, JSON and text tools over MCP)",
        utilities.base_url
    );
    say!(
        out,
        "  {:<32} {}  ({})",
        model.reference.extension,
        model.server.base_url,
        model.what
    );
    for note in notes {
        say!(out, "  note: {note}");
    }

    let result = walk(out, &utilities, &model).await;
    utilities.stop().await;
    model.server.stop().await;
    if let Ok(report) = &result {
        say!(out);
        say!(
            out,
            "Done in {:.2} s: {} tools resolved, MCP server saw {} connection(s), {} tools/list, {} tools/call.",
            started.elapsed().as_secs_f64(),
            report.tools,
            report.pool.connects,
            report.pool.tool_lists,
            report.pool.calls
        );
    }
    result
}

async fn walk(out: Out<'_>, utilities: &LocalExtension, model: &model::ModelChoice) -> Result<DemoReport> {
    let revision = ProtocolVersion::LATEST;
    say!(out);
    say!(
        out,
        "[2/5] Discovery: GET {} (protocol {revision}, exact match required)",
        revision.discovery_path()
    );
    let mut registry = Registry::new();
    registry.register(UTILITIES_ID, &utilities.base_url, revision)?;
    registry.register(&model.reference.extension, &model.server.base_url, revision)?;
    let registry = Arc::new(registry);
    for id in [UTILITIES_ID, model.reference.extension.as_str()] {
        let manifest = registry.manifest(id).await?;
        let _ = render::manifest(out, &manifest);
    }

    say!(out);
    say!(
        out,
        "[3/5] Tool catalog: Tool resource -> AEP contribution -> MCP server -> MCP tool (resolved concurrently)"
    );
    let pool = McpPool::new();
    let catalog = Catalog::new(registry.clone(), pool.clone());
    catalog.add_extension_tools(UTILITIES_ID).await?;
    let direct_url = format!("{}/mcp", utilities.base_url);
    catalog.add(ToolResource::mcp("direct.hash", &direct_url, "hash_compute"))?;
    let resolved = catalog.resolve_enabled().await;
    if let Some(error) = resolved.failures.first() {
        return Err(error.clone());
    }
    for tool in &resolved.tools {
        let _ = render::tool(out, tool, tool.id == "hash.compute");
    }
    catalog.set_enabled("text.case", false)?;
    if let Err(error) = catalog.resolve("text.case").await {
        say!(out, "  after disabling text.case: {error}");
    }
    if let Err(error) = catalog.resolve("weather.current").await {
        say!(out, "  an unknown Tool resource:  {error}");
    }

    say!(out);
    say!(
        out,
        "[4/5] MCP tool calls through the pooled rmcp client (Streamable HTTP)"
    );
    say!(out, "  hash.compute {}", json!({ "text": DEMO_TEXT }));
    let output = catalog
        .invoke("hash.compute", json!({ "text": DEMO_TEXT }))
        .await?;
    let _ = render::output(out, &output);
    let digest = output.text();
    let stats = catalog
        .invoke("text.stats", json!({ "text": "one two\nthree" }))
        .await?;
    say!(
        out,
        "  text.stats -> structured content {}",
        stats.structured.clone().unwrap_or_default()
    );
    let direct = catalog
        .invoke("direct.hash", json!({ "text": DEMO_TEXT }))
        .await?;
    say!(
        out,
        "  direct.hash (a direct MCP Tool resource) -> {}",
        direct.text()
    );
    let failed = catalog.invoke("json.compact", json!({ "json": "{oops" })).await?;
    say!(
        out,
        "  json.compact {{oops -> isError: {} ({})",
        failed.is_error,
        failed.text()
    );
    if let Err(error) = catalog.invoke("hash.compute", json!({ "text": 42 })).await {
        say!(out, "  hash.compute {{\"text\": 42}} -> not sent: {error}");
    }
    let counts = pool.stats(
        &url::Url::parse(&direct_url)
            .map_err(|e| HostError::new(ErrorCode::EndpointInvalid, e.to_string()))?,
    );
    say!(
        out,
        "  reuse: {} tools/call over {} connection (one initialize) and {} tools/list",
        counts.calls,
        counts.connects,
        counts.tool_lists
    );

    say!(out);
    let reference = model.reference.clone();
    say!(
        out,
        "[5/5] Streamed chat with a tool round trip (model {reference})"
    );
    let prompt = format!("What is the SHA-256 digest of \"{DEMO_TEXT}\"?");
    say!(out, "  user: {prompt}");
    let hash = catalog.resolve("hash.compute").await?;
    let agent = Agent::new(&catalog, reference).tools(vec![hash]).max_steps(4);
    let mut printer = EventPrinter::default();
    let outcome = {
        let mut forward = |event: &AgentEvent| {
            let _ = printer.print(&mut *out, event);
        };
        let mut messages: Vec<Message> = model.system.map(Message::system).into_iter().collect();
        messages.push(Message::user(prompt));
        agent.run(messages, &mut forward).await?
    };
    say!(
        out,
        "  {} model turns; {}",
        outcome.steps,
        match outcome.stop {
            AgentStop::Answered(_) => "the model answered",
            AgentStop::StepLimit => "stopped at the step limit",
        }
    );
    let report = DemoReport {
        digest,
        answer: outcome.answer,
        tools: resolved.tools.len(),
        pool: pool.stats(
            &url::Url::parse(&direct_url)
                .map_err(|e| HostError::new(ErrorCode::EndpointInvalid, e.to_string()))?,
        ),
    };
    pool.close().await;
    Ok(report)
}
