//! A real authorization server: panva's `oidc-provider` (npm, OpenID Certified) run by
//! `js/oidc_provider.mjs` on `127.0.0.1`, with dynamic registration, PKCE, resource
//! indicators and JWT access tokens, introspection, client credentials, refresh tokens and
//! its development login and consent pages (`README.md`, "oidc-provider").
//!
//! [`OidcProvider`] runs one (stopped on drop); [`OidcProvider::login`] walks those pages
//! headlessly; `token.rs` has the token endpoint requests; [`jwt_parts`] reads a token.

mod jwt;
mod login;
mod options;
mod token;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};

pub use jwt::jwt_parts;
pub use options::{OidcClient, OidcOptions, SigningAlg};
pub use token::{Pkce, Token};

use crate::Peers;

/// Bound on the start (Node and two key pairs on two shared cores).
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// Bound on each HTTP request to the server.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// How much of the server's stderr is kept for error messages.
const STDERR_KEPT: usize = 16 * 1024;

/// A running oidc-provider, stopped (killed) on drop.
#[derive(Debug)]
pub struct OidcProvider {
    /// The line it printed: `issuer`, `port` and the endpoints.
    metadata: Value,
    http: reqwest::Client,
    stderr: Arc<Mutex<String>>,
    _child: Child,
}

impl OidcProvider {
    /// Starts oidc-provider from the installed peers ([`Peers::find`]; call
    /// [`Peers::require`] first to skip when they are missing).
    pub async fn start(options: OidcOptions) -> Result<Self, String> {
        let peers = Peers::find().ok_or("the peers are not installed: run conformance/peers/install.sh")?;
        peers.oidc_provider(options).await
    }

    /// `http://127.0.0.1:PORT`, exactly as in its metadata and tokens (no trailing slash).
    pub fn issuer(&self) -> &str {
        self.endpoint("issuer")
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.metadata["port"]
            .as_u64()
            .and_then(|p| u16::try_from(p).ok())
            .unwrap_or(0)
    }

    /// An endpoint from the line it printed: `authorization_endpoint`, `token_endpoint`,
    /// `registration_endpoint`, `introspection_endpoint`, `revocation_endpoint`, `jwks_uri`.
    pub fn endpoint(&self, name: &str) -> &str {
        self.metadata[name].as_str().unwrap_or_default()
    }

    /// What it wrote on stderr so far (warnings; never a token or a secret), for messages.
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// GET `path` (relative to the issuer) as JSON: `/.well-known/openid-configuration`,
    /// `/.well-known/oauth-authorization-server`, `/jwks`.
    pub async fn get_json(&self, path: &str) -> Result<Value, String> {
        let url = format!("{}{path}", self.issuer());
        let response = self
            .http
            .get(&url)
            .send()
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        let status = response.status();
        let text = response.text().await.map_err(|e| format!("GET {url}: {e}"))?;
        if !status.is_success() {
            return Err(format!("GET {url}: {status}: {text}"));
        }
        serde_json::from_str(&text).map_err(|e| format!("GET {url}: {e}: {text}"))
    }
}

impl Peers {
    /// Starts `bin/oidc-provider` on a free loopback port with `options` and waits (at most
    /// 60 s) for its JSON line.
    pub async fn oidc_provider(&self, options: OidcOptions) -> Result<OidcProvider, String> {
        let program = self.bin("oidc-provider");
        let mut child = Command::new(&program)
            .args(["--port", &options.port.unwrap_or(0).to_string()])
            .env("AEP_OIDC_CONFIG", options.to_json().to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("{}: {e}", program.display()))?;
        let stderr = Arc::new(Mutex::new(String::new()));
        if let Some(pipe) = child.stderr.take() {
            keep_stderr(pipe, stderr.clone());
        }
        let mut lines = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
        let first = tokio::time::timeout(START_TIMEOUT, lines.next_line()).await;
        // Keep reading stdout too, so the server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let said = |why: &str| {
            format!(
                "oidc-provider {why}\n--- stderr\n{}",
                stderr.lock().map(|s| s.clone()).unwrap_or_default()
            )
        };
        let line = match first {
            Err(_) => return Err(said(&format!("printed nothing within {START_TIMEOUT:?}"))),
            Ok(Err(e)) => return Err(said(&format!("stdout: {e}"))),
            Ok(Ok(None)) => {
                // It exited (a bad configuration: exit 2): let its last words reach `stderr`.
                let status = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
                tokio::time::sleep(Duration::from_millis(100)).await;
                let status = status.map_or("still running".to_owned(), |s| format!("{s:?}"));
                return Err(said(&format!("exited before listening ({status})")));
            }
            Ok(Ok(Some(line))) => line,
        };
        let metadata: Value = serde_json::from_str(&line)
            .map_err(|e| said(&format!("first line is not JSON ({e}): {line}")))?;
        if !metadata["issuer"].is_string() {
            return Err(said(&format!("no issuer in {line}")));
        }
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(OidcProvider {
            metadata,
            http,
            stderr,
            _child: child,
        })
    }
}

/// Reads `pipe` to its end in the background, keeping its first [`STDERR_KEPT`] bytes.
fn keep_stderr(pipe: impl AsyncRead + Unpin + Send + 'static, kept: Arc<Mutex<String>>) {
    tokio::spawn(async move {
        let mut lines = BufReader::new(pipe).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if let Ok(mut kept) = kept.lock()
                && kept.len() < STDERR_KEPT
            {
                kept.push_str(&line);
                kept.push('\n');
            }
        }
    });
}
