//! [`OAuthSettings`]: sign-in settings as people write them, in the host configuration
//! file (`[extensions.<id>.oauth]`, `[tools.<id>.oauth]`) and as `--oauth-*` flags, made
//! into [`OAuthOptions`].

use std::path::{Path, PathBuf};

use serde::Deserialize;
use url::Url;

use super::options::{Grant, OAuthOptions};
use super::secret::Secret;
use super::store::TokenStore;
use super::visit::Authorize;
use crate::error::{ErrorCode, HostError, Result};

/// One protected resource's sign-in settings. Every member is optional: an empty table
/// signs in with dynamic registration, a browser and tokens in memory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthSettings {
    /// A pre-registered client id.
    #[serde(default)]
    pub client_id: Option<String>,
    /// A file holding the pre-registered client's secret (first line).
    #[serde(default)]
    pub client_secret_file: Option<PathBuf>,
    /// This client's metadata document URL (used as client id where supported).
    #[serde(default)]
    pub client_metadata_url: Option<String>,
    /// The scope to ask for (space-separated).
    #[serde(default)]
    pub scope: Option<String>,
    /// Client credentials (machine to machine) instead of the authorization code.
    #[serde(default)]
    pub client_credentials: bool,
    /// Follow the authorization server's redirects without a browser.
    #[serde(default)]
    pub headless: bool,
    /// Open the system's browser on the authorization URL.
    #[serde(default)]
    pub open_browser: bool,
    /// The redirect listener's port on 127.0.0.1 (default: any free port).
    #[serde(default)]
    pub redirect_port: Option<u16>,
    /// `memory` (default), `file` (the default file, see [`TokenStore::default_path`]),
    /// or a path.
    #[serde(default)]
    pub token_store: Option<String>,
}

impl OAuthSettings {
    /// The options these settings describe (the secret file is read now).
    pub fn options(&self) -> Result<OAuthOptions> {
        let authorize = if self.headless {
            Authorize::headless()
        } else {
            match Authorize::browser(self.open_browser) {
                Authorize::Browser { open, timeout, .. } => Authorize::Browser {
                    open,
                    timeout,
                    port: self.redirect_port.unwrap_or(0),
                },
                other => other,
            }
        };
        let mut options = OAuthOptions::authorization_code(authorize).with_store(self.store()?);
        if self.client_credentials {
            options.grant = Grant::ClientCredentials;
        }
        let secret = match &self.client_secret_file {
            Some(path) => Some(Secret::from_file(&expand(path))?),
            None => None,
        };
        if self.client_credentials && (self.client_id.is_none() || secret.is_none()) {
            return Err(invalid(
                "client credentials need a client id and a secret file \
                 (--oauth-client-id and --oauth-client-secret-file, or client_id and client_secret_file)",
            ));
        }
        match (&self.client_id, secret) {
            (Some(id), secret) => options = options.with_client(id.clone(), secret),
            (None, Some(_)) => {
                return Err(invalid(
                    "a client secret file needs a client id (--oauth-client-id, or client_id)",
                ));
            }
            (None, None) => {}
        }
        if let Some(url) = &self.client_metadata_url {
            let url = Url::parse(url).map_err(|e| invalid(&format!("client_metadata_url '{url}': {e}")))?;
            options = options.with_client_metadata_url(url);
        }
        if let Some(scope) = self.scope.as_ref().filter(|s| !s.trim().is_empty()) {
            options = options.with_scope(scope.trim());
        }
        Ok(options)
    }

    fn store(&self) -> Result<TokenStore> {
        Ok(match self.token_store.as_deref().map(str::trim) {
            None | Some("" | "memory") => TokenStore::memory(),
            Some("file") => TokenStore::file(TokenStore::default_path()?),
            Some(path) => TokenStore::file(expand(Path::new(path))),
        })
    }
}

/// `~/...` under the home directory.
fn expand(path: &Path) -> PathBuf {
    match (path.strip_prefix("~"), std::env::var_os("HOME")) {
        (Ok(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => path.to_path_buf(),
    }
}

fn invalid(message: &str) -> HostError {
    HostError::new(
        ErrorCode::ConfigurationInvalid,
        format!("OAuth settings: {message}"),
    )
}
