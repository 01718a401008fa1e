//! The official Python MCP SDK's OAuth client (`python/mcp_oauth_client.py`: its
//! `OAuthClientProvider` against a protected MCP server, signing in on oidc-provider's
//! development pages), and a FastMCP resource server to check it against
//! (`python/mcp_oauth_server.py`).

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::{Peers, Run};

impl Peers {
    /// `mcp_oauth_client.py URL TOOL ARGUMENTS EXTRA...` (`--login NAME`, `--auth-method
    /// client_secret_post|client_secret_basic|none`, `--redirect-uri URI`, `--timeout S`):
    /// the SDK discovers, registers, authorizes (PKCE, `resource`) and exchanges the code,
    /// then lists the tools and calls `tool`. `Ok`: its JSON line (`tools`, `tool`,
    /// `arguments`, `result`, `authorizations`, `token` without the token), also when the
    /// tool answered `isError`; any failure or warning on stderr is `Err`.
    pub async fn python_oauth_client(
        &self,
        url: &str,
        tool: &str,
        arguments: &Value,
        extra: &[&str],
    ) -> Result<Value, String> {
        let mut run = self.python_oauth_client_run(url, tool, arguments, extra).await;
        // Exit 2: the tool answered `isError: true`, which is an answer, not a failure.
        if run.code == Some(2) {
            run.code = Some(0);
        }
        let stdout = run.clean()?;
        serde_json::from_str(stdout.trim()).map_err(|e| format!("mcp_oauth_client.py output: {e}: {stdout}"))
    }

    /// [`Peers::python_oauth_client`] as it ran, for a test expecting it to fail (exit 1,
    /// the reason on stderr).
    pub async fn python_oauth_client_run(
        &self,
        url: &str,
        tool: &str,
        arguments: &Value,
        extra: &[&str],
    ) -> Run {
        let mut args = vec![
            Self::script("mcp_oauth_client.py").display().to_string(),
            url.to_owned(),
            tool.to_owned(),
            arguments.to_string(),
        ];
        args.extend(extra.iter().map(|a| (*a).to_owned()));
        self.run(&self.bin("py1"), &args).await
    }

    /// Starts `mcp_oauth_server.py`: FastMCP protected by the authorization server
    /// `issuer`, every call needing `scopes` (space-separated), on a free loopback port.
    pub async fn python_oauth_server(&self, issuer: &str, scopes: &str) -> Result<PythonOAuthServer, String> {
        let mut child = Command::new(self.bin("py1"))
            .arg(Self::script("mcp_oauth_server.py"))
            .args(["--issuer", issuer, "--scopes", scopes, "--port", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("mcp_oauth_server.py: {e}"))?;
        let mut lines = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .map_err(|_| "mcp_oauth_server.py did not say LISTENING within 60 s".to_owned())?
            .map_err(|e| e.to_string())?
            .ok_or("mcp_oauth_server.py exited before listening (is the issuer up?)")?;
        let url = line
            .strip_prefix("LISTENING ")
            .ok_or_else(|| format!("unexpected first line: {line}"))?
            .trim()
            .to_owned();
        Ok(PythonOAuthServer { url, _child: child })
    }
}

/// The running FastMCP resource server; stopped on drop.
#[derive(Debug)]
pub struct PythonOAuthServer {
    /// Its MCP endpoint, `http://127.0.0.1:PORT/mcp` (the resource, the tokens' audience).
    pub url: String,
    _child: Child,
}
