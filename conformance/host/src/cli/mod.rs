//! The `aep-host` command line: `discover`, `tools`, `call`, `chat`, `demo`, and
//! `resources` and `prompts` for an extension's MCP servers used directly.
//!
//! Extensions come from `--config FILE` (see [`crate::config`]) and/or repeated
//! `--extension ID=URL` flags. Tool resources come from the file's `[tools]`; when it
//! declares none, every tool contribution of every registered extension becomes one.
//! `resources` and `prompts` take an extension's base URL, or the id of a registered
//! extension (then its bearer token is sent too), and reach the MCP servers its manifest
//! declares. The `--oauth-*` flags sign in with OAuth 2.1 to the extensions given on the
//! command line when they answer 401 (see [`OAuthArgs`]).

mod commands;
mod gateway;
mod host;
mod inspect;
mod oauth;
mod surface;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use commands::run;
pub use host::{Host, registry};
pub use oauth::OAuthArgs;
pub use surface::{McpTarget, mcp_target, prompt_arguments};

use crate::agent::DEFAULT_MAX_STEPS;

/// `aep-host`'s arguments. The help texts of the arguments and subcommands are what
/// `--help` prints, so they are plain text.
#[derive(Debug, Parser)]
#[command(
    name = "aep-host",
    version,
    about = "A thin reference AEP host: registry, tool catalog (AEP -> MCP), MCP resources and prompts, model calls, agent loop.",
    long_about = None,
    after_help = EXAMPLES
)]
pub struct Cli {
    /// Host configuration (TOML): extensions, tools, models.
    #[arg(long, global = true, env = "AEP_HOST_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Registers an extension: ID=URL (repeatable).
    #[arg(long = "extension", short = 'e', global = true, value_name = "ID=URL")]
    pub extensions: Vec<String>,
    /// AEP protocol revision negotiated with extensions given by --extension and with
    /// discover: 1.0 or 2026-08-01.
    #[arg(long, global = true, default_value = "2026-08-01")]
    pub revision: String,
    /// Signing in with OAuth to the extensions given on the command line.
    #[command(flatten)]
    pub oauth: OAuthArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Fetch and validate an extension's manifest.
    Discover {
        /// Base URL of the extension.
        url: String,
        /// The id the extension must have (checks identity).
        #[arg(long)]
        id: Option<String>,
        /// Print the manifest as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the resolved tool catalog with schemas.
    Tools {
        /// Print the tools as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Call a tool with JSON arguments.
    Call {
        /// Tool resource id.
        tool: String,
        /// Arguments, a JSON object.
        #[arg(default_value = "{}")]
        arguments: String,
    },
    /// Chat with a model, streamed; with --tools, the model may call tools.
    Chat {
        /// Model: EXTENSION/PROVIDER/MODEL (default: the configuration's [models.default]).
        #[arg(long, short = 'm')]
        model: Option<String>,
        /// Tools the model may call: ids separated by commas, or nothing for every enabled tool.
        #[arg(long, num_args = 0.., value_delimiter = ',')]
        tools: Option<Vec<String>>,
        /// Bound on model turns.
        #[arg(long, default_value_t = DEFAULT_MAX_STEPS)]
        max_steps: usize,
        /// System prompt.
        #[arg(long)]
        system: Option<String>,
        /// The user's message.
        #[arg(required = true, num_args = 1..)]
        prompt: Vec<String>,
    },
    /// Use an extension's MCP resources: list them, list the templates, read one.
    Resources {
        /// The extension: its base URL, or the id of an extension registered with
        /// --extension or --config.
        extension: String,
        /// The MCP server, by its id in the manifest (default: the only one declared, or
        /// the only one advertising resources).
        #[arg(long, global = true, value_name = "ID")]
        server: Option<String>,
        /// Print the MCP result as JSON.
        #[arg(long, global = true)]
        json: bool,
        /// What to do.
        #[command(subcommand)]
        action: ResourcesAction,
    },
    /// Use an extension's MCP prompts: list them, get one with its arguments.
    Prompts {
        /// The extension: its base URL, or the id of an extension registered with
        /// --extension or --config.
        extension: String,
        /// The MCP server, by its id in the manifest (default: the only one declared, or
        /// the only one advertising prompts).
        #[arg(long, global = true, value_name = "ID")]
        server: Option<String>,
        /// Print the MCP result as JSON.
        #[arg(long, global = true)]
        json: bool,
        /// What to do.
        #[command(subcommand)]
        action: PromptsAction,
    },
    /// Open the AEP Inspector, a web workbench for extensions.
    ///
    /// Runs aep-inspector with these arguments, e.g. aep-host inspect --listen
    /// 127.0.0.1:8720 http://127.0.0.1:8710 (the Inspector's address, then extensions to
    /// open connected).
    #[command(after_help = INSPECT_EXAMPLES)]
    Inspect {
        /// Arguments for aep-inspector (see aep-inspector --help).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Serve the registered extensions as OpenAI Chat Completions models and one MCP
    /// server.
    ///
    /// The extensions registered with --extension or --config, and those named by URL,
    /// are served as OpenAI Chat Completions models (/v1/models, /v1/chat/completions)
    /// and one MCP server (/mcp), with /healthz and /readyz. The gateway takes the
    /// serving flags of an extension (--listen, --bearer-token-file, --oauth-issuer, and
    /// so on: its own sign-in); the --oauth-client-* flags sign in to the extensions.
    #[command(after_help = GATEWAY_EXAMPLES)]
    Gateway {
        /// How the gateway is served.
        #[command(flatten)]
        serve: Box<aep_sdk::server::ServeArgs>,
        /// Base URLs of extensions to register under the id their manifest gives.
        #[arg(value_name = "EXTENSION_URL")]
        urls: Vec<String>,
    },
    /// Walk through discovery, tool resolution, MCP calls and a chat with a tool round
    /// trip.
    ///
    /// The extensions are started in-process: no external service is needed. With
    /// OLLAMA_HOST reachable, the chat uses aep-ollama and a real model (pick one with
    /// AEP_HOST_DEMO_MODEL).
    Demo {
        /// Use the scripted model even when OLLAMA_HOST is set.
        #[arg(long)]
        scripted: bool,
    },
}

/// The end of `aep-host --help`.
const EXAMPLES: &str = "\
Examples:
  aep-host demo
      a tour of the host, with extensions started in-process
  aep-host discover http://127.0.0.1:8711
      fetch and validate an extension's manifest; print it with the extension's health
  aep-host -e aep.utilities=http://127.0.0.1:8711 call hash.compute '{\"text\":\"abc\"}'
      register an extension and call one of its tools
  aep-host --config host.toml chat --tools -- 'What is the SHA-256 of \"abc\"?'
      chat with the configuration's default model, which may call every enabled tool

Extensions come from --config FILE and from --extension ID=URL (repeatable). The
options of a command: aep-host COMMAND --help. The guide:
https://docs.rs/aep-sdk/latest/aep_sdk/guide/bundled/";

/// The end of `aep-host inspect --help`.
const INSPECT_EXAMPLES: &str = "\
Examples:
  aep-host inspect http://127.0.0.1:8711
      open the Inspector on http://127.0.0.1:8720 with that extension connected
  aep-host inspect --listen 127.0.0.1:9000
      serve the Inspector on another address";

/// The end of `aep-host gateway --help`.
const GATEWAY_EXAMPLES: &str = "\
Examples:
  aep-host gateway --listen 127.0.0.1:8700 http://127.0.0.1:8711
      serve that extension's models at http://127.0.0.1:8700/v1 and its tools at /mcp
  aep-host --config host.toml gateway --listen 0.0.0.0:8700 --allowed-host gateway.example.com --bearer-token-file token.txt
      serve the configuration's extensions on every interface, with a bearer token

The guide: https://docs.rs/aep-sdk/latest/aep_sdk/guide/bundled/";

/// `aep-host resources EXTENSION ...`.
#[derive(Debug, Clone, Subcommand)]
pub enum ResourcesAction {
    /// List the resources (resources/list).
    List,
    /// List the resource templates (resources/templates/list).
    Templates,
    /// Read a resource (resources/read): a listed URI, or a template with its variables
    /// filled in (e.g. hash://sha256/abc).
    Read {
        /// The resource's URI.
        uri: String,
    },
}

/// `aep-host prompts EXTENSION ...`.
#[derive(Debug, Clone, Subcommand)]
pub enum PromptsAction {
    /// List the prompts and their arguments (prompts/list).
    List,
    /// Get a prompt's messages (prompts/get).
    Get {
        /// The prompt's name.
        name: String,
        /// An argument: KEY=VALUE (repeatable; prompt arguments are strings).
        #[arg(long = "arg", value_name = "KEY=VALUE")]
        args: Vec<String>,
    },
}

/// Logs on stderr (`RUST_LOG`, default `warn`) and, when an OTLP endpoint is configured,
/// spans to OpenTelemetry (see [`aep_sdk::telemetry`]).
fn init_tracing() {
    use tracing_subscriber::prelude::*;
    let (filter, problem) = aep_sdk::server::log_filter(tracing::level_filters::LevelFilter::WARN);
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(filter);
    let _ = tracing_subscriber::registry()
        .with(logs)
        .with(aep_sdk::telemetry::layer())
        .try_init();
    if let Some(problem) = problem {
        tracing::warn!("RUST_LOG ignored, logging at warn: {problem}");
    }
    for warning in aep_sdk::telemetry::warnings() {
        tracing::warn!("OpenTelemetry: {warning}");
    }
}

impl Command {
    /// The subcommand's name, as typed.
    fn name(&self) -> &'static str {
        match self {
            Command::Discover { .. } => "discover",
            Command::Tools { .. } => "tools",
            Command::Call { .. } => "call",
            Command::Chat { .. } => "chat",
            Command::Resources { .. } => "resources",
            Command::Prompts { .. } => "prompts",
            Command::Inspect { .. } => "inspect",
            Command::Gateway { .. } => "gateway",
            Command::Demo { .. } => "demo",
        }
    }
}

/// Parses the process arguments, runs the command and reports errors on stderr.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut stdout = std::io::stdout();
    // The root of the command's trace, when spans are exported: every AEP and MCP call
    // the host makes is a child and carries its traceparent.
    let span = if aep_sdk::telemetry::enabled() {
        let name = cli.command.name();
        tracing::info_span!(
            "aep-host",
            otel.name = format!("aep-host {name}"),
            otel.kind = "internal"
        )
    } else {
        tracing::Span::none()
    };
    let outcome = runtime.block_on(tracing::Instrument::instrument(
        commands::run(cli, &mut stdout),
        span,
    ));
    // Tasks still running (an MCP session's worker) may hold the command's span: they
    // end with the runtime, and so does the span. Then what is buffered goes out.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    aep_sdk::telemetry::shutdown();
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
