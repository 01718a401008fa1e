//! `aep-host gateway [--listen ADDR] [EXTENSION_URL...]`: the registered extensions (the
//! configuration file's, `--extension`'s, and those named by URL, registered under the id
//! their manifest gives) served as one OpenAI-compatible and MCP endpoint.

use std::process::ExitCode;
use std::sync::Arc;

use aep_sdk::server::ServeArgs;

use super::{Cli, Host, host::with_flags};
use crate::error::{ErrorCode, HostError, Result};
use crate::gateway::Gateway;
use crate::registry::{ExtensionEntry, parse_revision};

/// Registers each of `urls` under the id its manifest gives (signing in as the
/// `--oauth-*` flags say), then serves the gateway until SIGINT/SIGTERM.
pub(super) async fn gateway(cli: &Cli, serve: &ServeArgs, urls: &[String]) -> Result<ExitCode> {
    let host = Host::from_cli_with(cli, &identified(cli, urls).await?).await?;
    // With no `[tools]` configured, every extension's contributions are the tools.
    let discover = host.config.tool_resources()?.is_empty();
    let gateway = Gateway::new(Arc::new(host.catalog)).discover_tools(discover);
    let extension = gateway.extension()?;
    extension
        .serve_with(serve.clone())
        .await
        .map_err(|error| HostError::new(ErrorCode::ExtensionUnreachable, format!("the gateway: {error}")))?;
    Ok(ExitCode::SUCCESS)
}

/// The entries of extensions given by URL: each one's manifest is read first, for its id.
async fn identified(cli: &Cli, urls: &[String]) -> Result<Vec<ExtensionEntry>> {
    let revision = parse_revision(&cli.revision)?;
    let oauth = cli.oauth.options()?;
    let mut entries = Vec::new();
    for url in urls {
        // A provisional entry only to read the manifest (with the sign-in, if any).
        let probe = with_flags(
            ExtensionEntry::new("gateway.probe", url, revision)?,
            oauth.as_ref(),
        )?;
        let manifest = probe
            .client()
            .discover()
            .await
            .map_err(|error| HostError::from_client(error).with_target(url))?;
        let id = manifest.extension.id;
        tracing::info!(extension = %id, %url, "registered");
        entries.push(with_flags(
            ExtensionEntry::new(&id, url, revision)?,
            oauth.as_ref(),
        )?);
    }
    Ok(entries)
}
