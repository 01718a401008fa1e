//! Configuration: where Ollama is, how long to wait for it, where to listen.
//!
//! Everything comes from flags or environment variables (flags win), as
//! [`Cli`] parses them:
//!
//! | flag | environment | default |
//! |---|---|---|
//! | `--ollama-url` | `OLLAMA_HOST` | `http://127.0.0.1:11434` |
//! | `--connect-timeout` | `AEP_OLLAMA_CONNECT_TIMEOUT` | `5s` |
//! | `--idle-timeout` | `AEP_OLLAMA_IDLE_TIMEOUT` | `300s` |
//! | `--probe-timeout` | `AEP_OLLAMA_PROBE_TIMEOUT` | `10s` |
//! | `--stream-start-wait` | `AEP_OLLAMA_STREAM_START_WAIT` | `2s` |
//! | `--max-line-bytes` | `AEP_OLLAMA_MAX_LINE_BYTES` | `16777216` |
//! | `--listen` | `AEP_LISTEN` | `127.0.0.1:8710` |
//!
//! `OLLAMA_HOST` is read the way Ollama's own CLI reads it: `127.0.0.1:11434`,
//! `0.0.0.0`, `myhost` and `https://ollama.example` are all accepted (see
//! [`parse_ollama_url`]). Durations are `500ms`, `10s`, `5m`, `1h` or a bare
//! number of seconds (see [`parse_duration`]). The log level comes from
//! `RUST_LOG` (default `info`).

use std::time::Duration;

use url::Url;

/// The default Ollama address (Ollama's own default).
pub const DEFAULT_OLLAMA_URL: &str = "http://127.0.0.1:11434";

/// Ollama's default port, used when `OLLAMA_HOST` names a host without a scheme or port.
pub const DEFAULT_OLLAMA_PORT: u16 = 11434;

/// How the extension talks to Ollama.
///
/// The help texts below are what `--help` prints, so they are plain text.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Ollama")]
pub struct OllamaConfig {
    /// Ollama's base URL. Accepts what OLLAMA_HOST accepts for Ollama's own CLI:
    /// http://host:port, host:port, host (port 11434), or 0.0.0.0 (then 127.0.0.1 is
    /// used to connect). A path is kept (for a reverse proxy).
    #[arg(
        long = "ollama-url",
        env = "OLLAMA_HOST",
        default_value = DEFAULT_OLLAMA_URL,
        value_parser = parse_ollama_url,
        value_name = "URL"
    )]
    pub url: Url,

    /// Bound on establishing a TCP connection to Ollama.
    #[arg(long, env = "AEP_OLLAMA_CONNECT_TIMEOUT", default_value = "5s", value_parser = parse_duration, value_name = "DURATION")]
    pub connect_timeout: Duration,

    /// Longest silence accepted from Ollama during a chat: waiting for its first
    /// byte (which includes loading the model) and between two lines of its stream.
    #[arg(long, env = "AEP_OLLAMA_IDLE_TIMEOUT", default_value = "300s", value_parser = parse_duration, value_name = "DURATION")]
    pub idle_timeout: Duration,

    /// Bound on each short call as a whole: /api/version (health), /api/tags and
    /// /api/show (model discovery).
    #[arg(long, env = "AEP_OLLAMA_PROBE_TIMEOUT", default_value = "10s", value_parser = parse_duration, value_name = "DURATION")]
    pub probe_timeout: Duration,

    /// How long /chat/stream waits for Ollama's first byte before it starts its SSE
    /// answer anyway. Errors Ollama reports sooner (unknown model, unsupported
    /// feature) keep their HTTP status; a slow model load then gets SSE keep-alives
    /// instead of a silent connection.
    #[arg(long, env = "AEP_OLLAMA_STREAM_START_WAIT", default_value = "2s", value_parser = parse_duration, value_name = "DURATION")]
    pub stream_start_wait: Duration,

    /// Longest NDJSON line accepted from Ollama, in bytes.
    #[arg(long, env = "AEP_OLLAMA_MAX_LINE_BYTES", default_value_t = 16 * 1024 * 1024, value_name = "BYTES")]
    pub max_line_bytes: usize,
}

impl Default for OllamaConfig {
    fn default() -> Self {
        Self {
            url: parse_ollama_url(DEFAULT_OLLAMA_URL)
                .unwrap_or_else(|_| unreachable!("the default URL parses")),
            connect_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(300),
            probe_timeout: Duration::from_secs(10),
            stream_start_wait: Duration::from_secs(2),
            max_line_bytes: 16 * 1024 * 1024,
        }
    }
}

impl OllamaConfig {
    /// The default configuration pointed at `url` (parsed with [`parse_ollama_url`]).
    pub fn with_url(url: &str) -> Result<Self, String> {
        Ok(Self {
            url: parse_ollama_url(url)?,
            ..Self::default()
        })
    }
}

/// The whole command line of the `aep-ollama` binary: the Ollama options, then the
/// serving options every extension has ([`ServeArgs`](aep_sdk::server::ServeArgs)).
///
/// Its `--help` opens the way [`ServeArgs::command`](aep_sdk::server::ServeArgs::command)
/// introduces an extension: name, version and id from the manifest, then the
/// manifest's description (a test checks they agree).
#[derive(Debug, Clone, clap::Parser)]
#[command(
    name = "aep-ollama",
    version,
    about = concat!(
        "Ollama ",
        env!("CARGO_PKG_VERSION"),
        ", an AEP extension (Agentstration.Extensions.Ollama)\n",
        "Agentstration AEP model-provider extension for Ollama.\n",
        "Serves the models of an Ollama server (its native API) as the model provider ollama; \
         a drop-in for the reference C# extension."
    ),
    long_about = None,
    after_help = EXAMPLES
)]
pub struct Cli {
    /// How it talks to Ollama.
    #[command(flatten)]
    pub ollama: OllamaConfig,
    /// Where the extension listens.
    #[command(flatten)]
    pub serve: aep_sdk::server::ServeArgs,
}

/// The end of `--help`.
const EXAMPLES: &str = "\
Examples:
  aep-ollama
      serve the Ollama at http://127.0.0.1:11434 on http://127.0.0.1:8710
  OLLAMA_HOST=gpu-box:11434 aep-ollama --idle-timeout 10m
      use the Ollama of another machine, waiting longer for a large model to load
  aep-ollama --listen 0.0.0.0:8710 --allowed-host models.example.com --bearer-token-file token.txt
      serve every interface, answer to that host name, require a bearer token

Every option has the environment variable shown beside it. The bundled extensions:
https://docs.rs/aep-sdk/latest/aep_sdk/guide/bundled/";

/// Reads an Ollama address the way Ollama's CLI reads `OLLAMA_HOST`.
///
/// - no scheme: `http`, and port 11434 unless one is given;
/// - `http://host` / `https://host` without a port: the scheme's port (80 / 443);
/// - an unspecified address (`0.0.0.0`, `::`) or an empty host: loopback, since
///   those name where Ollama *listens*, not where to connect;
/// - a path is kept (an Ollama behind a reverse proxy), query and fragment are not
///   allowed, nor are credentials.
///
/// ```
/// use aep_ollama::config::parse_ollama_url;
///
/// assert_eq!(parse_ollama_url("127.0.0.1:11434").unwrap().as_str(), "http://127.0.0.1:11434/");
/// assert_eq!(parse_ollama_url("0.0.0.0").unwrap().as_str(), "http://127.0.0.1:11434/");
/// assert_eq!(parse_ollama_url("https://ollama.example").unwrap().as_str(), "https://ollama.example/");
/// ```
pub fn parse_ollama_url(text: &str) -> Result<Url, String> {
    let text = text.trim();
    if text.is_empty() {
        return parse_ollama_url(DEFAULT_OLLAMA_URL);
    }
    let has_scheme = text.contains("://");
    let candidate = if has_scheme {
        text.to_owned()
    } else {
        format!("http://{text}")
    };
    let mut url = Url::parse(&candidate).map_err(|e| format!("'{text}' is not an Ollama address: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("'{text}': the Ollama address must use http or https"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!(
            "'{text}': credentials in the Ollama address are not supported"
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "'{text}': the Ollama address must not have a query or fragment"
        ));
    }
    let loopback = match url.host() {
        None => Some("127.0.0.1"),
        Some(url::Host::Ipv4(ip)) if ip.is_unspecified() => Some("127.0.0.1"),
        Some(url::Host::Ipv6(ip)) if ip.is_unspecified() => Some("[::1]"),
        _ => None,
    };
    if let Some(host) = loopback {
        url.set_host(Some(host))
            .map_err(|e| format!("'{text}': cannot use loopback instead: {e}"))?;
    }
    if !has_scheme && url.port().is_none() {
        url.set_port(Some(DEFAULT_OLLAMA_PORT))
            .map_err(|()| format!("'{text}': cannot set the default port"))?;
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

pub use aep_sdk::server::parse_duration;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ollama_host_forms() {
        let cases = [
            ("", "http://127.0.0.1:11434/"),
            ("127.0.0.1:11434", "http://127.0.0.1:11434/"),
            ("0.0.0.0", "http://127.0.0.1:11434/"),
            ("0.0.0.0:9999", "http://127.0.0.1:9999/"),
            ("[::]:11434", "http://[::1]:11434/"),
            ("myhost", "http://myhost:11434/"),
            ("http://myhost", "http://myhost/"),
            ("https://ollama.example:8443", "https://ollama.example:8443/"),
            ("http://proxy.example/ollama", "http://proxy.example/ollama/"),
            ("  http://localhost:11434/  ", "http://localhost:11434/"),
        ];
        for (input, expected) in cases {
            assert_eq!(
                parse_ollama_url(input).map(|u| u.to_string()),
                Ok(expected.to_owned()),
                "{input}"
            );
        }
        for bad in ["ftp://h", "http://u:p@h", "http://h/?q=1", "http://"] {
            assert!(parse_ollama_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn help_introduces_the_extension_its_manifest_declares() {
        use aep_sdk::server::AepExtension;
        use clap::CommandFactory;
        let extension = crate::OllamaExtension::new(OllamaConfig::default())
            .and_then(AepExtension::into_extension)
            .expect("the extension builds");
        aep_sdk::testing::assert_introduces(Cli::command(), extension.identity(), &["Ollama:"]);
    }

    #[test]
    fn cli_flags_and_defaults() {
        use clap::Parser;
        let cli = Cli::try_parse_from([
            "aep-ollama",
            "--ollama-url",
            "10.0.0.5",
            "--idle-timeout",
            "750ms",
            "--listen",
            "127.0.0.1:0",
        ])
        .expect("valid flags");
        assert_eq!(cli.ollama.url.as_str(), "http://10.0.0.5:11434/");
        assert_eq!(cli.ollama.idle_timeout, Duration::from_millis(750));
        assert_eq!(cli.ollama.connect_timeout, Duration::from_secs(5));
        assert_eq!(cli.serve.listen, "127.0.0.1:0");
        assert!(Cli::try_parse_from(["aep-ollama", "--connect-timeout", "soon"]).is_err());
    }
}
