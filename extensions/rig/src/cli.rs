//! `aep-rig`'s command line: the rig provider, its base URL and key, the models, the
//! bounds on the provider's HTTP client, and the SDK's serving options.
//!
//! | flag | environment | default |
//! |---|---|---|
//! | `--provider NAME` | `AEP_RIG_PROVIDER` | required ([`crate::providers`] lists the names) |
//! | `--base-url URL` | `AEP_RIG_BASE_URL` | the provider's own |
//! | `--api-key-file FILE` | `AEP_RIG_API_KEY_FILE` | none (preferred to the variable) |
//! | `--api-key KEY` | `AEP_RIG_API_KEY` | none |
//! | `--model ID` (repeatable, or comma-separated) | `AEP_RIG_MODELS` | none: any model id is passed on |
//! | `--connect-timeout` | `AEP_RIG_CONNECT_TIMEOUT` | `10s` |
//! | `--read-timeout` (longest silence while reading an answer) | `AEP_RIG_READ_TIMEOUT` | `300s` |
//! | `--stream-start-wait` | `AEP_RIG_STREAM_START_WAIT` | `2s` |
//!
//! plus [`ServeArgs`] (`--listen`, `--bearer-token-file`, ...). The key is never logged
//! (rig's configurations redact it in `Debug`).

use std::path::PathBuf;
use std::time::Duration;

use aep_sdk::server::{ServeArgs, parse_duration};

use crate::providers::{ProviderLookupError, Upstream};
use crate::serve::RigExtension;

/// Why the command line does not describe an extension that can start.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The provider name, or its key, is wrong.
    #[error(transparent)]
    Provider(#[from] ProviderLookupError),
    /// The key file cannot be read.
    #[error("cannot read the API key file {path}: {source}")]
    KeyFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The base URL is not an absolute HTTP(S) URL.
    #[error("--base-url '{0}' is not an absolute http(s) URL")]
    BaseUrl(String),
    /// reqwest cannot build the client.
    #[error("cannot build the HTTP client: {0}")]
    Http(#[from] reqwest::Error),
}

/// `aep-rig`'s flags: the rig provider, its key, the models and the bounds on the
/// provider's HTTP client, then the serving options every extension has.
///
/// Its `--help` opens the way [`ServeArgs::command`] introduces an extension: name,
/// version and id from the manifest, then the manifest's description (a test checks
/// they agree). The help texts below are what `--help` prints, so they are plain text.
#[derive(Debug, clap::Parser)]
#[command(
    name = "aep-rig",
    version,
    about = concat!(
        "rig ",
        env!("CARGO_PKG_VERSION"),
        ", an AEP extension (aep.rig)\n",
        "AEP model-provider extension serving a rig provider (OpenAI, Anthropic, Gemini, \
         Cohere, Ollama and the OpenAI-shaped vendors rig knows).\n",
        "Serves the models of the provider named by --provider as the model provider rig."
    ),
    long_about = None,
    next_help_heading = "rig provider",
    after_help = EXAMPLES
)]
pub struct Cli {
    /// The rig provider: openai (Chat Completions), an OpenAI-shaped dialect (groq,
    /// deepseek, mistral, openrouter, together, xai, perplexity, hyperbolic, huggingface,
    /// moonshot, llamacpp, ...), anthropic, gemini, cohere, ollama, or vendor/format
    /// (zai/anthropic, ollama/openai, ...).
    #[arg(long, env = "AEP_RIG_PROVIDER", value_name = "NAME")]
    pub provider: String,
    /// The provider's base URL, as rig resolves paths against it (for OpenAI-shaped
    /// providers it usually ends in /v1).
    #[arg(long, env = "AEP_RIG_BASE_URL", value_name = "URL")]
    pub base_url: Option<String>,
    /// A file holding the API key (one line); preferred to AEP_RIG_API_KEY.
    #[arg(long, env = "AEP_RIG_API_KEY_FILE", value_name = "FILE")]
    pub api_key_file: Option<PathBuf>,
    /// The API key itself (better in the environment than on a command line).
    #[arg(
        long = "api-key",
        env = "AEP_RIG_API_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    pub api_key: Option<String>,
    /// A model to list and serve (repeat, or separate with commas). When none is given,
    /// every model id is passed on to the provider and the models route lists none.
    #[arg(
        long = "model",
        env = "AEP_RIG_MODELS",
        value_delimiter = ',',
        value_name = "ID"
    )]
    pub models: Vec<String>,
    /// Bound on connecting to the provider.
    #[arg(long, env = "AEP_RIG_CONNECT_TIMEOUT", default_value = "10s", value_parser = parse_duration, value_name = "DURATION")]
    pub connect_timeout: Duration,
    /// Longest silence while reading the provider's answer.
    #[arg(long, env = "AEP_RIG_READ_TIMEOUT", default_value = "300s", value_parser = parse_duration, value_name = "DURATION")]
    pub read_timeout: Duration,
    /// How long /chat/stream waits for the provider's first event before it starts its
    /// SSE answer (errors reported sooner keep their HTTP status).
    #[arg(long, env = "AEP_RIG_STREAM_START_WAIT", default_value = "2s", value_parser = parse_duration, value_name = "DURATION")]
    pub stream_start_wait: Duration,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub serve: ServeArgs,
}

/// The end of `--help`.
const EXAMPLES: &str = "\
Examples:
  aep-rig --provider ollama --model llama3.2
      serve llama3.2 of the local Ollama on http://127.0.0.1:8710
  AEP_RIG_API_KEY_FILE=anthropic-key.txt aep-rig --provider anthropic --model claude-sonnet-4-5
      serve an Anthropic model, the key read from a file
  aep-rig --provider openai --base-url https://llm.example.com/v1 --api-key-file key.txt --listen 127.0.0.1:8711
      pass any model id on to another Chat Completions server, and serve on another port

Every option has the environment variable shown beside it. The bundled extensions:
https://docs.rs/aep-sdk/latest/aep_sdk/guide/bundled/";

impl Cli {
    /// The API key: the file's first line, else the flag or variable.
    pub fn key(&self) -> Result<Option<String>, CliError> {
        match &self.api_key_file {
            Some(path) => std::fs::read_to_string(path)
                .map(|text| Some(text.trim().to_owned()))
                .map_err(|source| CliError::KeyFile {
                    path: path.clone(),
                    source,
                }),
            None => Ok(self.api_key.clone()),
        }
    }

    /// The provider these flags describe, on a reqwest client with their bounds.
    pub fn upstream(&self) -> Result<Upstream, CliError> {
        if let Some(url) = &self.base_url {
            let parsed = url::Url::parse(url).map_err(|_| CliError::BaseUrl(url.clone()))?;
            if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
                return Err(CliError::BaseUrl(url.clone()));
            }
        }
        let http = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .read_timeout(self.read_timeout)
            .build()?;
        Ok(Upstream::new(
            &self.provider,
            self.base_url.as_deref(),
            self.key()?,
            http,
        )?)
    }

    /// The extension these flags describe.
    pub fn extension(&self) -> Result<RigExtension, CliError> {
        let models = self
            .models
            .iter()
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty())
            .collect();
        Ok(RigExtension::new(self.upstream()?, models).stream_start_wait(self.stream_start_wait))
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;

    #[test]
    fn help_introduces_the_extension_its_manifest_declares() {
        let cli = Cli::try_parse_from(["aep-rig", "--provider", "ollama"]).unwrap();
        let extension = cli.extension().unwrap().build().unwrap();
        aep_sdk::testing::assert_introduces(Cli::command(), extension.identity(), &["rig provider:"]);
    }
}
