//! [`ExtensionEntry`]: one registered extension (id, base URL, revision) and its client.

use std::time::Duration;

use aep_sdk::client::Client;
use aep_sdk::protocol::ProtocolVersion;
use aep_sdk::validate::{EndpointError, parse_base_url};
use url::Url;

use crate::error::{ErrorCode, HostError, Result};
use crate::oauth::{OAuthOptions, SignIn};

/// Bound on establishing a connection to an extension.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Bound on silence while reading an extension's answer (streams send keep-alives every 15 s).
pub const READ_TIMEOUT: Duration = Duration::from_secs(120);

/// A registered extension: the id the host knows it by, where it lives, the revision
/// the host speaks with it, and the canonical client for it (one per extension, so
/// HTTP connections are reused).
#[derive(Debug, Clone)]
pub struct ExtensionEntry {
    /// The id the manifest must carry.
    pub id: String,
    /// Base URL: absolute HTTP(S), no credentials.
    pub base_url: Url,
    /// The revision negotiated, exactly.
    pub revision: ProtocolVersion,
    client: Client,
    token: Option<Token>,
    oauth: Option<OAuthOptions>,
}

/// A bearer token; its `Debug` never shows it.
#[derive(Clone)]
struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

impl ExtensionEntry {
    /// Checks the id and base URL and builds the client.
    ///
    /// Fails with `endpoint_invalid` when the URL is not absolute HTTP(S) or carries
    /// credentials, and with `configuration_invalid` when the id is blank.
    pub fn new(id: &str, base_url: &str, revision: ProtocolVersion) -> Result<Self> {
        if id.trim().is_empty() {
            return Err(HostError::new(
                ErrorCode::ConfigurationInvalid,
                "an extension id must not be empty",
            ));
        }
        let base_url = parse_base_url(base_url).map_err(|e| {
            HostError::new(
                ErrorCode::EndpointInvalid,
                format!(
                    "extension '{id}': base URL {}",
                    describe_endpoint_error(base_url, &e)
                ),
            )
            .with_target(id)
        })?;
        let client = Client::builder(base_url.as_str())
            .revision(revision)
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(READ_TIMEOUT)
            .build()?;
        Ok(Self {
            id: id.to_owned(),
            base_url,
            revision,
            client,
            token: None,
            oauth: None,
        })
    }

    /// Sends `Authorization: Bearer <token>` to this extension: its AEP routes through
    /// the canonical client and, through the catalog's MCP pool, its MCP servers.
    pub fn with_bearer_token(mut self, token: &str) -> Result<Self> {
        self.client = Client::builder(self.base_url.as_str())
            .revision(self.revision)
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(READ_TIMEOUT)
            .bearer_token(token)
            .build()?;
        self.token = Some(Token(token.to_owned()));
        Ok(self)
    }

    /// The bearer token configured for this extension, if any.
    pub fn bearer_token(&self) -> Option<&str> {
        self.token.as_ref().map(|t| t.0.as_str())
    }

    /// Signs in with OAuth when this extension answers 401: its AEP routes (the
    /// canonical client, the base URL as the resource) and, through the catalog's MCP
    /// pool, its MCP servers (each its own resource, the token store shared).
    pub fn with_oauth(mut self, options: OAuthOptions) -> Result<Self> {
        let sign_in = SignIn::new(&self.base_url, options.clone())?;
        // A sign-in may happen within any call.
        let read_timeout = READ_TIMEOUT + sign_in.bound();
        self.client = Client::builder(self.base_url.as_str())
            .revision(self.revision)
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(read_timeout)
            .token_source(std::sync::Arc::new(sign_in))
            .build()?;
        self.oauth = Some(options);
        Ok(self)
    }

    /// The OAuth options of this extension, if it signs in with OAuth.
    pub fn oauth(&self) -> Option<&OAuthOptions> {
        self.oauth.as_ref()
    }

    /// Parses `id=url` (the `--extension` flag).
    ///
    /// ```
    /// use aep_host::registry::ExtensionEntry;
    /// use aep_sdk::protocol::ProtocolVersion;
    ///
    /// let entry = ExtensionEntry::parse_flag("aep.utilities=http://127.0.0.1:8711", ProtocolVersion::LATEST).unwrap();
    /// assert_eq!(entry.id, "aep.utilities");
    /// assert_eq!(entry.base_url.as_str(), "http://127.0.0.1:8711/");
    /// assert!(ExtensionEntry::parse_flag("x=http://user:pw@h", ProtocolVersion::LATEST).is_err());
    /// ```
    pub fn parse_flag(flag: &str, revision: ProtocolVersion) -> Result<Self> {
        let Some((id, url)) = flag.split_once('=') else {
            return Err(HostError::new(
                ErrorCode::ConfigurationInvalid,
                format!("--extension expects ID=URL, got '{flag}'"),
            ));
        };
        Self::new(id.trim(), url.trim(), revision)
    }

    /// The canonical client for this extension.
    pub fn client(&self) -> &Client {
        &self.client
    }
}

/// Parses a revision name (`"1.0"` or `"2026-08-01"`).
pub fn parse_revision(text: &str) -> Result<ProtocolVersion> {
    ProtocolVersion::from_wire(text)
        .map_err(|e| HostError::new(ErrorCode::ConfigurationInvalid, e.to_string()))
}

/// Says why `url` was refused without repeating any credentials it carries.
pub fn describe_endpoint_error(url: &str, error: &EndpointError) -> String {
    let shown = redact(url);
    match error {
        EndpointError::Empty => "is empty".to_owned(),
        EndpointError::Invalid(_) => format!("'{shown}' is not an absolute URL"),
        EndpointError::Scheme(_) => format!("'{shown}' must use http or https"),
        EndpointError::Credentials => format!("'{shown}' must not carry credentials (user info)"),
        EndpointError::OutsideBase(_) => format!("'{shown}' resolves outside the extension's base URL"),
    }
}

/// `url` with any user name and password replaced by `***`.
fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if !parsed.username().is_empty() || parsed.password().is_some() => {
            let _ = parsed.set_username("***");
            let _ = parsed.set_password(None);
            parsed.to_string()
        }
        Ok(_) => url.to_owned(),
        Err(_) => match url.rsplit_once('@') {
            Some((_, host)) => format!("***@{host}"),
            None => url.to_owned(),
        },
    }
}
