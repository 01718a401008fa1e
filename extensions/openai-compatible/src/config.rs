//! Configuration: where the upstream is, its key, how long to wait for it.
//!
//! Each binary reads its endpoint the way the reference does (the ASP.NET keys in their
//! environment form) and also takes `--endpoint`; the rest is shared:
//!
//! | binary | endpoint (flag / environment / default) | key |
//! |---|---|---|
//! | `aep-llamacpp` | `--endpoint` / `LlamaCpp__Endpoint` / `http://localhost:8080` | none (as the reference) |
//! | `aep-localai` | `--endpoint` / `LocalAI__Endpoint` / `http://localhost:8081` | `LocalAI__ApiKey` |
//! | `aep-openai` | `--endpoint` / `AEP_OPENAI_ENDPOINT` / `http://127.0.0.1:8000` | `--api-key-file` / `AEP_OPENAI_API_KEY` |
//!
//! | flag | environment | default |
//! |---|---|---|
//! | `--connect-timeout` | `AEP_UPSTREAM_CONNECT_TIMEOUT` | `5s` |
//! | `--first-byte-timeout` | `AEP_UPSTREAM_FIRST_BYTE_TIMEOUT` | `90s` (the reference's bound) |
//! | `--idle-timeout` | `AEP_UPSTREAM_IDLE_TIMEOUT` | `90s` |
//! | `--probe-timeout` | `AEP_UPSTREAM_PROBE_TIMEOUT` | `10s` |
//! | `--stream-start-wait` | `AEP_UPSTREAM_STREAM_START_WAIT` | `2s` |
//! | `--max-line-bytes` | `AEP_UPSTREAM_MAX_LINE_BYTES` | `16777216` |
//! | `--include-usage` | `AEP_UPSTREAM_INCLUDE_USAGE` | off for the drop-ins, always on for `aep-openai` |
//!
//! The key is never logged, shown or sent anywhere but its own upstream ([`ApiKey`]'s
//! `Debug` prints `ApiKey(***)`).

use crate::error::ConfigError;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use aep_sdk::server::{ServeArgs, parse_duration};
use url::Url;

use crate::flavor::Flavor;

/// A bearer key for the upstream.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// A key (used as given, as the reference does: no trimming).
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// How the extension talks to its upstream.
#[derive(Debug, Clone)]
pub struct UpstreamConfig {
    /// Which server it is.
    pub flavor: Flavor,
    /// The endpoint, ending in exactly one `/` (a path prefix is kept).
    pub endpoint: Url,
    /// Sent as `Authorization: Bearer` on every upstream request, when set.
    pub api_key: Option<ApiKey>,
    /// Timeouts, bounds and switches.
    pub tuning: Tuning,
}

/// Bounds and switches shared by the three binaries.
///
/// The help texts below are what `--help` prints, so they are plain text. They have no
/// heading of their own: each binary shows them under its upstream's.
#[derive(Debug, Clone, clap::Args)]
pub struct Tuning {
    /// Bound on establishing a TCP connection to the upstream.
    #[arg(long, env = "AEP_UPSTREAM_CONNECT_TIMEOUT", default_value = "5s", value_parser = parse_duration, value_name = "DURATION")]
    pub connect_timeout: Duration,
    /// Bound on the upstream's answer headers (a non-streamed exchange: the whole of it).
    #[arg(long, env = "AEP_UPSTREAM_FIRST_BYTE_TIMEOUT", default_value = "90s", value_parser = parse_duration, value_name = "DURATION")]
    pub first_byte_timeout: Duration,
    /// Longest silence between two pieces of a streamed answer.
    #[arg(long, env = "AEP_UPSTREAM_IDLE_TIMEOUT", default_value = "90s", value_parser = parse_duration, value_name = "DURATION")]
    pub idle_timeout: Duration,
    /// Bound on each probe (health, models) as a whole.
    #[arg(long, env = "AEP_UPSTREAM_PROBE_TIMEOUT", default_value = "10s", value_parser = parse_duration, value_name = "DURATION")]
    pub probe_timeout: Duration,
    /// How long /chat/stream waits for the upstream's answer headers before it starts
    /// its SSE answer anyway (errors reported sooner keep their HTTP status).
    #[arg(long, env = "AEP_UPSTREAM_STREAM_START_WAIT", default_value = "2s", value_parser = parse_duration, value_name = "DURATION")]
    pub stream_start_wait: Duration,
    /// Longest SSE data line accepted from the upstream, in bytes.
    #[arg(long, env = "AEP_UPSTREAM_MAX_LINE_BYTES", default_value_t = 16 * 1024 * 1024, value_name = "BYTES")]
    pub max_line_bytes: usize,
    /// Ask for a usage chunk (stream_options.include_usage). aep-llamacpp and
    /// aep-localai send the reference's request body unless this is set; aep-openai
    /// always asks.
    #[arg(long, env = "AEP_UPSTREAM_INCLUDE_USAGE")]
    pub include_usage: bool,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            first_byte_timeout: Duration::from_secs(90),
            idle_timeout: Duration::from_secs(90),
            probe_timeout: Duration::from_secs(10),
            stream_start_wait: Duration::from_secs(2),
            max_line_bytes: 16 * 1024 * 1024,
            include_usage: false,
        }
    }
}

impl UpstreamConfig {
    /// A configuration for `flavor` at `endpoint` with default bounds.
    pub fn new(flavor: Flavor, endpoint: &str) -> Result<Self, aep_sdk::Error> {
        Ok(Self {
            flavor,
            endpoint: parse_endpoint(endpoint).map_err(ConfigError::Endpoint)?,
            api_key: None,
            tuning: Tuning {
                include_usage: flavor == Flavor::OpenAi,
                ..Tuning::default()
            },
        })
    }
}

/// An absolute `http`/`https` URL, normalised to end in exactly one `/` so relative
/// paths keep a prefix (`http://h:8080/x` + `v1/models` = `http://h:8080/x/v1/models`).
///
/// ```
/// use aep_openai_compatible::config::parse_endpoint;
/// assert_eq!(parse_endpoint("http://h:8080/x").unwrap().as_str(), "http://h:8080/x/");
/// assert!(parse_endpoint("localhost:8080").is_err());
/// ```
pub fn parse_endpoint(text: &str) -> Result<Url, String> {
    let url = Url::parse(text.trim()).map_err(|e| format!("'{text}' is not an absolute HTTP(S) URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(format!("'{text}' is not an absolute HTTP(S) URL"));
    }
    let path = format!("{}/", url.path().trim_end_matches('/'));
    let mut url = url;
    url.set_path(&path);
    Ok(url)
}

/// `aep-llamacpp`'s flags: the llama.cpp server and the bounds on it, then the serving
/// options every extension has.
///
/// Its `--help` opens the way [`ServeArgs::command`] introduces an extension: name,
/// version and id from the manifest, then the manifest's description (a test checks
/// they agree); `--version` prints the manifest's version.
#[derive(Debug, clap::Parser)]
#[command(
    name = "aep-llamacpp",
    version = "1.0.0",
    about = "llama.cpp 1.0.0, an AEP extension (Agentstration.Extensions.LlamaCpp)
Agentstration AEP model-provider extension for a local llama.cpp server.
Serves the models of a llama-server (its OpenAI-compatible API) as the model provider \
llamacpp; a drop-in for the reference C# extension.",
    long_about = None,
    next_help_heading = "llama.cpp server",
    after_help = LLAMACPP_EXAMPLES
)]
pub struct LlamaCppCli {
    /// llama-server's base URL (the reference's LlamaCpp:Endpoint setting).
    #[arg(
        long,
        env = "LlamaCpp__Endpoint",
        default_value = "http://localhost:8080",
        value_name = "URL"
    )]
    pub endpoint: String,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub tuning: Tuning,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub serve: ServeArgs,
}

/// `aep-localai`'s flags: LocalAI, its key and the bounds on it, then the serving
/// options every extension has (`--help` as [`LlamaCppCli`]'s).
#[derive(Debug, clap::Parser)]
#[command(
    name = "aep-localai",
    version = "1.0.0",
    about = "LocalAI 1.0.0, an AEP extension (Agentstration.Extensions.LocalAI)
Agentstration AEP model-provider extension for a LocalAI server.
Serves the models of a LocalAI server (its OpenAI-compatible API) as the model provider \
localai; a drop-in for the reference C# extension.",
    long_about = None,
    next_help_heading = "LocalAI",
    after_help = LOCALAI_EXAMPLES
)]
pub struct LocalAiCli {
    /// LocalAI's base URL (the reference's LocalAI:Endpoint setting).
    #[arg(
        long,
        env = "LocalAI__Endpoint",
        default_value = "http://localhost:8081",
        value_name = "URL"
    )]
    pub endpoint: String,
    /// LocalAI's API key (the reference's LocalAI:ApiKey setting), sent as a bearer
    /// token; better in the environment than on a command line.
    #[arg(long, env = "LocalAI__ApiKey", hide_env_values = true, value_name = "KEY")]
    pub api_key: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub tuning: Tuning,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub serve: ServeArgs,
}

/// `aep-openai`'s flags: the upstream server, its key, its models' capabilities and the
/// bounds on it, then the serving options every extension has (`--help` as
/// [`LlamaCppCli`]'s).
#[derive(Debug, clap::Parser)]
#[command(
    name = "aep-openai",
    version,
    about = concat!(
        "OpenAI-compatible ",
        env!("CARGO_PKG_VERSION"),
        ", an AEP extension (aep.openai-compatible)\n",
        "AEP model-provider extension for any OpenAI Chat Completions server.\n",
        "Serves the models of vLLM, LM Studio, OpenAI, llama-cpp-python or any other server \
         of the Chat Completions API as the model provider openai."
    ),
    long_about = None,
    next_help_heading = "Upstream server",
    after_help = OPENAI_EXAMPLES
)]
pub struct OpenAiCli {
    /// The server's base URL, without /v1.
    #[arg(
        long,
        env = "AEP_OPENAI_ENDPOINT",
        default_value = "http://127.0.0.1:8000",
        value_name = "URL"
    )]
    pub endpoint: String,
    /// A file holding the API key (one line); preferred to AEP_OPENAI_API_KEY.
    #[arg(long, env = "AEP_OPENAI_API_KEY_FILE", value_name = "FILE")]
    pub api_key_file: Option<PathBuf>,
    /// The API key itself (better in the environment than on a command line).
    #[arg(
        long = "api-key",
        env = "AEP_OPENAI_API_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    pub api_key: Option<String>,
    /// Capabilities every model has beyond chat and streaming, since /v1/models does
    /// not say them: any of tools, structuredOutput, reasoning, vision
    /// (comma-separated or repeated).
    #[arg(
        long,
        env = "AEP_OPENAI_MODEL_CAPABILITIES",
        value_delimiter = ',',
        default_value = "tools,structuredOutput",
        value_name = "CAPABILITY"
    )]
    pub model_capabilities: Vec<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub tuning: Tuning,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub serve: ServeArgs,
}

/// The end of `aep-llamacpp --help`.
const LLAMACPP_EXAMPLES: &str = "\
Examples:
  aep-llamacpp
      serve the llama-server at http://localhost:8080 on http://127.0.0.1:8710
  LlamaCpp__Endpoint=http://gpu-box:8080 aep-llamacpp --first-byte-timeout 5m
      use the llama-server of another machine, waiting up to 5 minutes for an answer to start
  aep-llamacpp --listen 0.0.0.0:8710 --allowed-host models.example.com --bearer-token-file token.txt
      serve every interface, answer to that host name, require a bearer token

Every option has the environment variable shown beside it. The bundled extensions:
https://docs.rs/aep-sdk/latest/aep_sdk/guide/bundled/";

/// The end of `aep-localai --help`.
const LOCALAI_EXAMPLES: &str = "\
Examples:
  aep-localai
      serve the LocalAI at http://localhost:8081 on http://127.0.0.1:8710
  LocalAI__Endpoint=http://gpu-box:8080 LocalAI__ApiKey=sk-... aep-localai
      use the LocalAI of another machine, which requires an API key
  aep-localai --include-usage --listen 127.0.0.1:8711
      report the tokens each streamed answer used, and serve on another port

Every option has the environment variable shown beside it. The bundled extensions:
https://docs.rs/aep-sdk/latest/aep_sdk/guide/bundled/";

/// The end of `aep-openai --help`.
const OPENAI_EXAMPLES: &str = "\
Examples:
  aep-openai --endpoint http://127.0.0.1:8000
      serve the models of a vLLM (or any Chat Completions server) on http://127.0.0.1:8710
  AEP_OPENAI_API_KEY_FILE=key.txt aep-openai --endpoint https://api.openai.com --model-capabilities tools,structuredOutput,vision
      serve OpenAI's models, the key read from a file, vision declared for each too
  AEP_OPENAI_ENDPOINT=http://127.0.0.1:1234 aep-openai --listen 127.0.0.1:8711
      serve LM Studio's models on another port

Every option has the environment variable shown beside it. The bundled extensions:
https://docs.rs/aep-sdk/latest/aep_sdk/guide/bundled/";

impl LlamaCppCli {
    /// The upstream configuration it describes.
    pub fn upstream(&self) -> Result<UpstreamConfig, aep_sdk::Error> {
        let endpoint = parse_endpoint(&self.endpoint).map_err(|_| {
            ConfigError::Endpoint("LlamaCpp:Endpoint must be an absolute HTTP(S) URL.".into())
        })?;
        Ok(UpstreamConfig {
            flavor: Flavor::LlamaCpp,
            endpoint,
            api_key: None,
            tuning: self.tuning.clone(),
        })
    }
}

impl LocalAiCli {
    /// The upstream configuration it describes.
    pub fn upstream(&self) -> Result<UpstreamConfig, aep_sdk::Error> {
        let endpoint = parse_endpoint(&self.endpoint)
            .map_err(|_| ConfigError::Endpoint("LocalAI:Endpoint must be an absolute HTTP(S) URL.".into()))?;
        Ok(UpstreamConfig {
            flavor: Flavor::LocalAi,
            endpoint,
            api_key: self
                .api_key
                .as_deref()
                .filter(|k| !k.trim().is_empty())
                .map(ApiKey::new),
            tuning: self.tuning.clone(),
        })
    }
}

impl OpenAiCli {
    /// The upstream configuration it describes (reads the key file).
    pub fn upstream(&self) -> Result<UpstreamConfig, aep_sdk::Error> {
        let endpoint = parse_endpoint(&self.endpoint)
            .map_err(|e| ConfigError::Endpoint(format!("--endpoint / AEP_OPENAI_ENDPOINT: {e}")))?;
        let key = match &self.api_key_file {
            Some(path) => Some(
                std::fs::read_to_string(path)
                    .map_err(|source| ConfigError::KeyFile {
                        path: path.clone(),
                        source,
                    })?
                    .trim()
                    .to_owned(),
            ),
            None => self.api_key.clone(),
        };
        Ok(UpstreamConfig {
            flavor: Flavor::OpenAi,
            endpoint,
            api_key: key.filter(|k| !k.is_empty()).map(ApiKey::new),
            tuning: Tuning {
                include_usage: true,
                ..self.tuning.clone()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[test]
    fn a_bad_configuration_is_the_extensions_own_typed_error() {
        let error = UpstreamConfig::new(Flavor::OpenAi, "ftp://h").unwrap_err();
        let aep_sdk::Error::Extension(inner) = &error else {
            panic!("not an extension error: {error:?}")
        };
        assert!(
            matches!(
                inner.downcast_ref::<ConfigError>(),
                Some(ConfigError::Endpoint(_))
            ),
            "{inner:?}"
        );
        let missing = OpenAiCli::try_parse_from([
            "aep-openai",
            "--endpoint",
            "http://h:1",
            "--api-key-file",
            "/nonexistent/key",
        ])
        .unwrap()
        .upstream()
        .unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("cannot read the API key file /nonexistent/key"),
            "{missing}"
        );
    }

    #[test]
    fn help_introduces_the_extension_its_manifest_declares() {
        use aep_sdk::testing::assert_introduces;
        use clap::CommandFactory;

        use crate::upstream::Upstream;
        let upstream = |cli: UpstreamConfig| Upstream::new(cli, Vec::new()).unwrap();
        let llamacpp = LlamaCppCli::try_parse_from(["aep-llamacpp"]).unwrap();
        let extension = crate::llamacpp::LlamaCppExtension(upstream(llamacpp.upstream().unwrap()));
        let extension = crate::build(extension).unwrap();
        assert_introduces(
            LlamaCppCli::command(),
            extension.identity(),
            &["llama.cpp server:"],
        );
        let localai = LocalAiCli::try_parse_from(["aep-localai"]).unwrap();
        let extension = crate::localai::LocalAiExtension(upstream(localai.upstream().unwrap()));
        let extension = crate::build(extension).unwrap();
        assert_introduces(LocalAiCli::command(), extension.identity(), &["LocalAI:"]);
        let openai = OpenAiCli::try_parse_from(["aep-openai"]).unwrap();
        let extension = crate::openai::OpenAiExtension(upstream(openai.upstream().unwrap()));
        let extension = crate::build(extension).unwrap();
        assert_introduces(OpenAiCli::command(), extension.identity(), &["Upstream server:"]);
    }

    #[test]
    fn endpoints_keep_a_prefix_and_end_in_one_slash() {
        assert_eq!(
            parse_endpoint("http://h:8080").unwrap().as_str(),
            "http://h:8080/"
        );
        assert_eq!(
            parse_endpoint("http://h:8080/x//").unwrap().as_str(),
            "http://h:8080/x/"
        );
        for bad in ["ftp://h", "h:8080", "/v1", ""] {
            assert!(parse_endpoint(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn reference_defaults_and_flags() {
        let cli = LlamaCppCli::try_parse_from(["aep-llamacpp"]).unwrap();
        assert_eq!(
            cli.upstream().unwrap().endpoint.as_str(),
            "http://localhost:8080/"
        );
        let cli = LocalAiCli::try_parse_from([
            "aep-localai",
            "--endpoint",
            "http://10.0.0.2:9000",
            "--api-key",
            "k",
        ])
        .unwrap();
        let upstream = cli.upstream().unwrap();
        assert_eq!(upstream.endpoint.as_str(), "http://10.0.0.2:9000/");
        assert_eq!(format!("{:?}", upstream.api_key), "Some(ApiKey(***))");
        assert!(!upstream.tuning.include_usage);
        let cli = OpenAiCli::try_parse_from(["aep-openai"]).unwrap();
        assert!(cli.upstream().unwrap().tuning.include_usage);
        let error = LlamaCppCli::try_parse_from(["aep-llamacpp", "--endpoint", "nope"])
            .unwrap()
            .upstream()
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("LlamaCpp:Endpoint must be an absolute HTTP(S) URL.")
        );
    }
}
