//! [`TokenStore`]: where tokens and dynamically registered clients are kept, in memory
//! (the default) or in a JSON file readable by its owner only (mode 0600, in a 0700
//! directory), by default `aep-host/oauth-tokens.json` under the user's configuration
//! directory. Nothing in it is ever printed or logged.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use url::Url;

use super::auth_method::AuthMethod;
use super::secret::Secret;
use crate::error::{ErrorCode, HostError, Result};

/// A client the authorization server knows: pre-registered, a metadata document URL,
/// or registered dynamically.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredClient {
    /// The client id.
    pub client_id: String,
    /// Its secret, if it has one.
    #[serde(default)]
    pub client_secret: Option<Secret>,
    /// How it authenticates at the token endpoint.
    pub auth_method: AuthMethod,
    /// The redirect URI it was registered with (dynamic registration).
    #[serde(default)]
    pub redirect_uri: Option<String>,
    /// The scope it was registered with (dynamic registration; space-separated), which
    /// bounds what it may ask for (RFC 7591 section 2). `None`: not known to be bounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// A token for one resource, with what refreshing it takes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredToken {
    /// The access token.
    pub access_token: Secret,
    /// The refresh token, if the server gave one.
    #[serde(default)]
    pub refresh_token: Option<Secret>,
    /// When it expires (seconds since the Unix epoch), if the server said.
    #[serde(default)]
    pub expires_at: Option<u64>,
    /// The scopes granted (those asked for when the server did not say).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The `resource` it was issued for (RFC 8707).
    pub resource: String,
    /// The authorization server's issuer.
    pub issuer: String,
    /// Its token endpoint (for refreshing).
    pub token_endpoint: Url,
    /// The client it was issued to.
    pub client: StoredClient,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Contents {
    #[serde(default)]
    tokens: BTreeMap<String, StoredToken>,
    #[serde(default)]
    clients: BTreeMap<String, StoredClient>,
}

/// Tokens by resource, clients by issuer. Cheap to clone; clones share the store.
#[derive(Clone)]
pub struct TokenStore {
    inner: Arc<Inner>,
}

struct Inner {
    path: Option<PathBuf>,
    // Loaded on first use.
    contents: Mutex<Option<Contents>>,
}

impl fmt::Debug for TokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner.path {
            Some(path) => write!(f, "TokenStore(file {})", path.display()),
            None => f.write_str("TokenStore(memory)"),
        }
    }
}

impl Default for TokenStore {
    fn default() -> Self {
        Self::memory()
    }
}

impl TokenStore {
    /// Tokens in this process's memory only.
    pub fn memory() -> Self {
        Self::at(None)
    }

    /// Tokens in the JSON file `path` (created with mode 0600 on first save). Stores of
    /// the same path in one process are one store; each save re-reads the file first,
    /// so another process's tokens are kept.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        static OPEN: Mutex<Vec<(PathBuf, std::sync::Weak<Inner>)>> = Mutex::new(Vec::new());
        let path = path.into();
        let mut open = match OPEN.lock() {
            Ok(open) => open,
            Err(poisoned) => poisoned.into_inner(),
        };
        open.retain(|(_, store)| store.strong_count() > 0);
        if let Some(inner) = open
            .iter()
            .find(|(p, _)| *p == path)
            .and_then(|(_, s)| s.upgrade())
        {
            return Self { inner };
        }
        let store = Self::at(Some(path.clone()));
        open.push((path, Arc::downgrade(&store.inner)));
        store
    }

    fn at(path: Option<PathBuf>) -> Self {
        Self {
            inner: Arc::new(Inner {
                path,
                contents: Mutex::new(None),
            }),
        }
    }

    /// `aep-host/oauth-tokens.json` under the user's configuration directory:
    /// `$XDG_CONFIG_HOME`, else `~/.config` (`%APPDATA%` on Windows).
    pub fn default_path() -> Result<PathBuf> {
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                if cfg!(windows) {
                    std::env::var_os("APPDATA").map(PathBuf::from)
                } else {
                    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config"))
                }
            })
            .ok_or_else(|| {
                HostError::new(
                    ErrorCode::ConfigurationInvalid,
                    "no configuration directory for the token store (set XDG_CONFIG_HOME or HOME), \
                     or give --oauth-token-store a path",
                )
            })?;
        Ok(base.join("aep-host").join("oauth-tokens.json"))
    }

    /// The file, for a file store.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// The token kept for `resource`.
    pub fn token(&self, resource: &str) -> Result<Option<StoredToken>> {
        self.with(|contents| Ok(contents.tokens.get(resource).cloned()))
    }

    /// Keeps `token` for its resource.
    pub fn save_token(&self, token: StoredToken) -> Result<()> {
        self.update(|contents| {
            contents.tokens.insert(token.resource.clone(), token);
        })
    }

    /// Forgets the token of `resource` (signing out).
    pub fn forget(&self, resource: &str) -> Result<()> {
        self.update(|contents| {
            contents.tokens.remove(resource);
        })
    }

    /// The client registered dynamically with `issuer`.
    pub fn client(&self, issuer: &str) -> Result<Option<StoredClient>> {
        self.with(|contents| Ok(contents.clients.get(issuer).cloned()))
    }

    /// Keeps a dynamically registered client of `issuer`.
    pub fn save_client(&self, issuer: &str, client: StoredClient) -> Result<()> {
        self.update(|contents| {
            contents.clients.insert(issuer.to_owned(), client);
        })
    }

    fn with<T>(&self, read: impl FnOnce(&mut Contents) -> Result<T>) -> Result<T> {
        let mut guard = match self.inner.contents.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if guard.is_none() {
            *guard = Some(match &self.inner.path {
                Some(path) => load(path)?,
                None => Contents::default(),
            });
        }
        let contents = guard.as_mut().expect("loaded above");
        read(contents)
    }

    fn update(&self, change: impl FnOnce(&mut Contents)) -> Result<()> {
        let path = self.inner.path.clone();
        self.with(|contents| {
            if let Some(path) = &path {
                *contents = load(path)?;
            }
            change(contents);
            match &path {
                Some(path) => save(path, contents),
                None => Ok(()),
            }
        })
    }
}

fn store_error(path: &Path, what: &str, error: impl fmt::Display) -> HostError {
    HostError::new(
        ErrorCode::ConfigurationInvalid,
        format!("token store {}: {what}: {error}", path.display()),
    )
}

fn load(path: &Path) -> Result<Contents> {
    let text = match std::fs::read(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Contents::default()),
        Err(e) => return Err(store_error(path, "cannot read", e)),
    };
    tighten(path)?;
    // serde_json's error names a position, never the content.
    serde_json::from_slice(&text)
        .map_err(|e| store_error(path, "not a token store (delete it to start over)", e))
}

/// A store readable by others is narrowed to its owner before use.
#[cfg(unix)]
fn tighten(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(|e| store_error(path, "cannot stat", e))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        tracing::warn!(path = %path.display(), "token store was readable by others (mode {:o}); now 0600", mode & 0o777);
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| store_error(path, "cannot restrict to mode 0600", e))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn tighten(_: &Path) -> Result<()> {
    Ok(())
}

/// Writes a temporary file created with mode 0600, then renames it over the store, so
/// the store is never half-written nor, even briefly, readable by others.
fn save(path: &Path, contents: &Contents) -> Result<()> {
    use std::io::Write as _;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        create_private_dir(dir).map_err(|e| store_error(path, "cannot create its directory", e))?;
    }
    let text = serde_json::to_vec_pretty(contents).map_err(|e| store_error(path, "cannot encode", e))?;
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let written = options
        .open(&temporary)
        .and_then(|mut file| file.write_all(&text).and_then(|()| file.sync_all()));
    if let Err(e) = written.and_then(|()| std::fs::rename(&temporary, path)) {
        let _ = std::fs::remove_file(&temporary);
        return Err(store_error(path, "cannot write", e));
    }
    Ok(())
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}
