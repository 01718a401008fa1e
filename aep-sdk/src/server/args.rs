//! The serving options ([`ServeArgs`]): flags and environment variables, read by clap
//! when the options are parsed, and the grammar of their durations.

use std::path::PathBuf;
use std::time::Duration;

use super::OAuth;
use crate::Error;
use crate::protocol::ExtensionIdentity;

/// Where an extension listens unless told otherwise: loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8710";

/// The serving options of an extension binary: flags, each with an `AEP_*` environment
/// variable.
///
/// [`Extension::serve`](super::Extension::serve) reads them from the command line and
/// environment, with a `--help` that introduces the extension ([`ServeArgs::command`]);
/// flatten them into your own clap parser (`#[command(flatten)] serve: ServeArgs`) to add
/// options of your own, and pass them to
/// [`Extension::serve_with`](super::Extension::serve_with).
///
/// The help texts below are what `--help` prints, so they are plain text.
#[derive(Debug, Clone, clap::Args)]
// No `about` of its own (clap would take this doc comment): the command it is flattened
// into introduces itself.
#[command(about = None::<&str>, long_about = None::<&str>)]
pub struct ServeArgs {
    /// Address to listen on, host:port. Loopback by default; to accept other interfaces
    /// use e.g. 0.0.0.0:8710 and list the host names clients use with --allowed-host.
    #[arg(long, env = "AEP_LISTEN", default_value = DEFAULT_LISTEN, help_heading = LISTENING)]
    pub listen: String,
    /// Seconds open streams may run after a shutdown signal (SIGINT, SIGTERM) before
    /// they are ended with a terminal update.
    #[arg(long, env = "AEP_SHUTDOWN_GRACE_SECS", default_value_t = 10, help_heading = LISTENING)]
    pub shutdown_grace_secs: u64,
    /// File whose first line is a bearer token every request must carry
    /// (Authorization: Bearer). The token may also come from AEP_BEARER_TOKEN; it is
    /// never logged.
    #[arg(long, env = "AEP_BEARER_TOKEN_FILE", value_name = "FILE", help_heading = ACCESS)]
    pub bearer_token_file: Option<PathBuf>,
    /// The bearer token itself, read from `AEP_BEARER_TOKEN` when the options are parsed
    /// (never a flag: command lines are visible to every user of the machine); the file
    /// wins when both are given.
    #[arg(skip = Secret::from_env("AEP_BEARER_TOKEN"))]
    pub bearer_token: Option<Secret>,
    /// Leave the two discovery routes public when a token is required.
    #[arg(long, env = "AEP_PUBLIC_DISCOVERY", help_heading = ACCESS)]
    pub public_discovery: bool,
    /// Extra Host header values the MCP endpoints accept (besides localhost, 127.0.0.1
    /// and ::1); comma-separated or repeated.
    #[arg(long = "allowed-host", env = "AEP_ALLOWED_HOSTS", value_delimiter = ',', value_name = "HOST", help_heading = ACCESS)]
    pub allowed_hosts: Vec<String>,
    /// Browser origins every route accepts besides pages on this machine (which are
    /// accepted only on a loopback listen address): scheme://host or scheme://host:port,
    /// with * as the port for any port, e.g. <https://app.example.com>,<http://dev.example:*>
    #[arg(long = "allowed-origin", env = "AEP_ALLOWED_ORIGINS", value_delimiter = ',', value_name = "ORIGIN", help_heading = ACCESS)]
    pub allowed_origins: Vec<String>,
    /// Seconds a client may take to send a request's headers; a kept-alive connection
    /// that sends nothing for this long is closed.
    #[arg(long, env = "AEP_HEADER_READ_TIMEOUT_SECS", default_value_t = 30, help_heading = LISTENING)]
    pub header_read_timeout_secs: u64,
    /// Bound on every MCP tool call that has no timeout of its own (30s, 500ms, 5m);
    /// none by default.
    #[arg(long, env = "AEP_TOOL_TIMEOUT", value_parser = parse_duration, value_name = "DURATION", help_heading = TOOLS)]
    pub tool_timeout: Option<Duration>,
    /// Accept OAuth access tokens issued by this authorization server (its issuer
    /// identifier, e.g. <https://login.example.com>); comma-separated or repeated. The
    /// extension becomes an OAuth 2.1 resource server (needs aep-sdk's oauth feature).
    #[arg(
        long = "oauth-issuer",
        env = "AEP_OAUTH_ISSUER",
        value_delimiter = ',',
        value_name = "URL",
        help_heading = OAUTH
    )]
    pub oauth_issuers: Vec<String>,
    /// The extension's external base URL (behind a proxy, say): resource identifiers,
    /// the tokens' required audiences, are derived from it. Default: the listen address.
    #[arg(long, env = "AEP_PUBLIC_URL", value_name = "URL", help_heading = OAUTH)]
    pub public_url: Option<String>,
    /// Also accept tokens whose aud is this (besides the resource's own URL).
    #[arg(long = "oauth-audience", env = "AEP_OAUTH_AUDIENCES", value_delimiter = ',', value_name = "AUDIENCE", help_heading = OAUTH)]
    pub oauth_audiences: Vec<String>,
    /// Clock skew allowed on a token's exp and nbf.
    #[arg(long, env = "AEP_OAUTH_LEEWAY", default_value = "60s", value_parser = parse_duration, value_name = "DURATION", help_heading = OAUTH)]
    pub oauth_leeway: Duration,
    /// Client id of this resource server at the authorization server, to introspect
    /// opaque tokens (RFC 7662); needs --oauth-introspection-secret-file.
    #[arg(long, env = "AEP_OAUTH_INTROSPECTION_CLIENT_ID", value_name = "ID", help_heading = OAUTH)]
    pub oauth_introspection_client_id: Option<String>,
    /// File holding that client's secret (or AEP_OAUTH_INTROSPECTION_SECRET); never logged.
    #[arg(long, env = "AEP_OAUTH_INTROSPECTION_SECRET_FILE", value_name = "FILE", help_heading = OAUTH)]
    pub oauth_introspection_secret_file: Option<PathBuf>,
    /// That secret itself, read from `AEP_OAUTH_INTROSPECTION_SECRET` when the options
    /// are parsed; the file wins.
    #[arg(skip = Secret::from_env("AEP_OAUTH_INTROSPECTION_SECRET"))]
    pub oauth_introspection_secret: Option<Secret>,
    /// Introspection endpoint, when the issuer's metadata names none.
    #[arg(long, env = "AEP_OAUTH_INTROSPECTION_URL", value_name = "URL", help_heading = OAUTH)]
    pub oauth_introspection_url: Option<String>,
    /// Address of a second listener, host:port, serving GET /metrics in the Prometheus
    /// text format; off by default (nothing is recorded and nothing listens). It needs no
    /// bearer token: keep it on loopback or a private network.
    #[arg(long, env = "AEP_METRICS_LISTEN", value_name = "ADDR", help_heading = LISTENING)]
    pub metrics_listen: Option<String>,
}

// The groups of `--help`, in the order they first appear in the struct.
const LISTENING: &str = "Listening";
const ACCESS: &str = "Access";
const TOOLS: &str = "Tools";
const OAUTH: &str = "OAuth 2.1 resource server";

impl Default for ServeArgs {
    fn default() -> Self {
        Self {
            listen: DEFAULT_LISTEN.to_owned(),
            shutdown_grace_secs: 10,
            bearer_token_file: None,
            bearer_token: None,
            public_discovery: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            header_read_timeout_secs: 30,
            tool_timeout: None,
            metrics_listen: None,
            oauth_issuers: Vec::new(),
            public_url: None,
            oauth_audiences: Vec::new(),
            oauth_leeway: Duration::from_secs(60),
            oauth_introspection_client_id: None,
            oauth_introspection_secret_file: None,
            oauth_introspection_secret: None,
            oauth_introspection_url: None,
        }
    }
}

impl ServeArgs {
    /// The command line of an extension binary serving `identity`: `--help` opens with
    /// the extension's name, version, id and description (from its manifest), then the
    /// serving options in groups, then examples; `--version` prints the extension's
    /// version. [`Extension::serve`](super::Extension::serve) parses the process's
    /// arguments with it.
    ///
    /// ```
    /// use aep_sdk::protocol::ExtensionIdentity;
    /// use aep_sdk::server::ServeArgs;
    ///
    /// let identity = ExtensionIdentity {
    ///     id: "acme.words".into(),
    ///     name: "Words".into(),
    ///     version: "1.2.0".into(),
    ///     description: Some("Counts words.".into()),
    /// };
    /// let help = ServeArgs::command(&identity).render_help().to_string();
    /// assert!(help.starts_with("Words 1.2.0, an AEP extension (acme.words)\nCounts words."));
    /// assert!(help.contains("Listening:") && help.contains("--listen <LISTEN>"));
    ///
    /// let args = ServeArgs::from_command(&identity, ["words", "--listen", "127.0.0.1:0"]).unwrap();
    /// assert_eq!(args.listen, "127.0.0.1:0");
    /// ```
    pub fn command(identity: &ExtensionIdentity) -> clap::Command {
        let bin = program_name().unwrap_or_else(|| identity.id.clone());
        let mut about = format!(
            "{} {}, an AEP extension ({})",
            identity.name, identity.version, identity.id
        );
        if let Some(description) = identity.description.as_deref().filter(|d| !d.trim().is_empty()) {
            about.push('\n');
            about.push_str(description.trim());
        }
        <Self as clap::Args>::augment_args(clap::Command::new(bin.clone()))
            .version(identity.version.clone())
            .about(about)
            .after_help(examples(&bin))
    }

    /// Parses `args` (the program name first) with [`ServeArgs::command`]; `--help`,
    /// `--version` and mistakes come back as clap errors, which `exit()` prints.
    pub fn from_command<I, T>(identity: &ExtensionIdentity, args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let matches = Self::command(identity).try_get_matches_from(args)?;
        <Self as clap::FromArgMatches>::from_arg_matches(&matches)
    }

    /// Reads the options of the extension `identity` from the process's command line and
    /// environment; prints the help, the version or the mistake and exits when that is
    /// what the command line asks for.
    pub fn from_env(identity: &ExtensionIdentity) -> Self {
        Self::from_command(identity, std::env::args_os()).unwrap_or_else(|error| error.exit())
    }

    /// The bearer token: the file's first line, else `AEP_BEARER_TOKEN`.
    pub(crate) fn bearer_token(&self) -> Result<Option<String>, Error> {
        secret(
            self.bearer_token_file.as_deref(),
            self.bearer_token.as_ref(),
            "bearer token",
        )
    }

    /// The OAuth resource server these options describe, if any issuer is given.
    pub fn oauth(&self) -> Result<Option<OAuth>, Error> {
        let issuers: Vec<&String> = self
            .oauth_issuers
            .iter()
            .filter(|i| !i.trim().is_empty())
            .collect();
        let Some((first, rest)) = issuers.split_first() else {
            if self.oauth_introspection_client_id.is_some() {
                return Err(Error::Config(
                    "--oauth-introspection-client-id needs --oauth-issuer".into(),
                ));
            }
            return Ok(None);
        };
        let mut oauth = OAuth::issuer(first.trim()).leeway(self.oauth_leeway);
        for issuer in rest {
            oauth = oauth.also_issuer(issuer.trim());
        }
        for audience in &self.oauth_audiences {
            oauth = oauth.audience(audience.trim());
        }
        if let Some(url) = &self.public_url {
            oauth = oauth.public_url(url.trim());
        }
        if let Some(client_id) = &self.oauth_introspection_client_id {
            let file = self.oauth_introspection_secret_file.as_deref();
            let secret = secret(file, self.oauth_introspection_secret.as_ref(), "introspection client secret")?
                .ok_or_else(|| {
                    Error::Config(
                        "--oauth-introspection-client-id needs --oauth-introspection-secret-file (or AEP_OAUTH_INTROSPECTION_SECRET)"
                            .into(),
                    )
                })?;
            oauth = oauth.introspection(client_id, secret);
        }
        if let Some(url) = &self.oauth_introspection_url {
            oauth = oauth.introspection_endpoint(url);
        }
        Ok(Some(oauth.public_discovery(self.public_discovery)))
    }
}

/// The executable's file name, as the user typed it.
fn program_name() -> Option<String> {
    let first = std::env::args_os().next()?;
    let name = std::path::Path::new(&first).file_name()?.to_str()?.to_owned();
    Some(name)
}

/// The end of `--help`: how the options are usually given.
fn examples(bin: &str) -> String {
    format!(
        "Examples:
  {bin}
      serve on http://127.0.0.1:8710 (the manifest at /.well-known/aep, MCP at /mcp)
  {bin} --listen 0.0.0.0:8710 --allowed-host tools.example.com --bearer-token-file token.txt
      serve every interface, answer to that host name, require a bearer token
  AEP_LISTEN=127.0.0.1:9000 AEP_TOOL_TIMEOUT=30s {bin}
      the same options from the environment

Every option has the environment variable shown beside it. The serving guide:
https://docs.rs/aep-sdk/latest/aep_sdk/guide/serving/"
    )
}

/// A secret value: never shown by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value of environment variable `name`, unless unset or blank.
    fn from_env(name: &str) -> Option<Self> {
        std::env::var(name)
            .ok()
            .filter(|t| !t.trim().is_empty())
            .map(Self)
    }

    /// The secret itself.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// A secret: the first line of `file`, else `value`.
fn secret(
    file: Option<&std::path::Path>,
    value: Option<&Secret>,
    what: &str,
) -> Result<Option<String>, Error> {
    if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Config(format!("cannot read the {what} file {}: {e}", path.display())))?;
        let value = text.lines().next().unwrap_or("").trim().to_owned();
        if value.is_empty() {
            return Err(Error::Config(format!(
                "the {what} file {} is empty",
                path.display()
            )));
        }
        return Ok(Some(value));
    }
    Ok(value.map(|s| s.expose().trim().to_owned()))
}

/// Reads a duration: `250ms`, `10s`, `5m`, `1h`, or a bare number of seconds
/// (fractions allowed: `0.5`).
///
/// ```
/// use std::time::Duration;
/// use aep_sdk::server::parse_duration;
///
/// assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
/// assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
/// assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
/// ```
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    aep_sdk_internals::duration::parse(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> ExtensionIdentity {
        ExtensionIdentity {
            id: "acme.words".into(),
            name: "Words".into(),
            version: "1.2.0".into(),
            description: Some("Counts words in a text.".into()),
        }
    }

    fn parse(args: &[&str]) -> ServeArgs {
        ServeArgs::from_command(&identity(), std::iter::once("ext").chain(args.iter().copied()))
            .expect("valid options")
    }

    #[test]
    fn help_introduces_the_extension_in_plain_text() {
        let help = ServeArgs::command(&identity()).render_long_help().to_string();
        assert!(
            help.starts_with("Words 1.2.0, an AEP extension (acme.words)\nCounts words in a text.\n"),
            "{help}"
        );
        for heading in [
            "Listening:",
            "Access:",
            "Tools:",
            "OAuth 2.1 resource server:",
            "Examples:",
        ] {
            assert!(help.contains(heading), "no {heading} in {help}");
        }
        assert!(help.contains("[env: AEP_LISTEN="), "{help}");
        for markup in ["`", "](", "[`", "README", "flatten"] {
            assert!(!help.contains(markup), "rustdoc markup {markup:?} in {help}");
        }
        let version = ServeArgs::from_command(&identity(), ["ext", "--version"]).unwrap_err();
        assert_eq!(version.kind(), clap::error::ErrorKind::DisplayVersion);
        assert!(version.to_string().contains("1.2.0"), "{version}");
        let wrong = ServeArgs::from_command(&identity(), ["ext", "--lisen", "x"]).unwrap_err();
        assert!(
            wrong.to_string().contains("--listen"),
            "a close match is suggested: {wrong}"
        );
    }

    #[test]
    fn a_parser_flattening_the_options_keeps_its_own_introduction() {
        /// My tool: does things.
        #[derive(clap::Parser)]
        struct Mine {
            #[command(flatten)]
            serve: ServeArgs,
        }
        let help = <Mine as clap::CommandFactory>::command()
            .render_help()
            .to_string();
        assert!(help.starts_with("My tool: does things"), "{help}");
        assert!(!help.contains("serving options"), "{help}");
    }

    #[test]
    fn oauth_options_from_flags() {
        assert!(parse(&[]).oauth().unwrap().is_none(), "no issuer, no OAuth");
        let args = parse(&[
            "--oauth-issuer",
            "https://login.example.com,http://127.0.0.1:9000",
            "--oauth-issuer",
            "https://other.example",
            "--public-url",
            "https://tools.example.com",
            "--oauth-audience",
            "api://tools",
            "--oauth-leeway",
            "5s",
            "--public-discovery",
        ]);
        let oauth = args.oauth().unwrap().expect("OAuth");
        assert_eq!(
            oauth.issuers,
            [
                "https://login.example.com",
                "http://127.0.0.1:9000",
                "https://other.example"
            ]
        );
        assert_eq!(oauth.public_url.as_deref(), Some("https://tools.example.com"));
        assert_eq!(oauth.audiences, ["api://tools"]);
        assert_eq!(oauth.leeway, Duration::from_secs(5));
        assert!(oauth.public_discovery);
        assert!(oauth.introspection.is_none());
    }

    #[test]
    fn introspection_needs_an_issuer_and_a_secret() {
        let refused = parse(&["--oauth-introspection-client-id", "rs"]).oauth();
        assert!(refused.unwrap_err().to_string().contains("--oauth-issuer"));
        let dir = std::env::temp_dir().join(format!("aep-serve-secret-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("secret");
        std::fs::write(&file, "s3cret\n").unwrap();
        let path = file.display().to_string();
        let args = parse(&[
            "--oauth-issuer",
            "https://login.example.com",
            "--oauth-introspection-client-id",
            "rs",
            "--oauth-introspection-secret-file",
            &path,
        ]);
        let oauth = args.oauth().unwrap().expect("OAuth");
        assert_eq!(oauth.introspection, Some(("rs".to_owned(), "s3cret".to_owned())));
        assert!(!format!("{oauth:?}").contains("s3cret"), "Debug hides the secret");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn secrets_given_as_values_serve_and_never_show() {
        let args = ServeArgs {
            bearer_token: Some(Secret::new(" t0ken-value ")),
            oauth_issuers: vec!["https://login.example".into()],
            oauth_introspection_client_id: Some("rs".into()),
            oauth_introspection_secret: Some(Secret::new("intro-s3cret")),
            ..ServeArgs::default()
        };
        assert_eq!(args.bearer_token().unwrap().as_deref(), Some("t0ken-value"));
        let oauth = args.oauth().unwrap().unwrap();
        assert_eq!(
            oauth.introspection,
            Some(("rs".to_owned(), "intro-s3cret".to_owned()))
        );
        let shown = format!("{args:?}");
        assert!(
            !shown.contains("t0ken") && !shown.contains("intro-s3cret"),
            "{shown}"
        );
        assert_eq!(ServeArgs::default().bearer_token().unwrap(), None);
    }
}
