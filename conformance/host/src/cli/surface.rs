//! `resources` and `prompts`: an extension's MCP servers used directly, without Tool
//! resources. The servers come from the extension's manifest (`mcp.servers`, endpoints
//! resolved against its base URL); one of them is used: `--server ID`, else the only one
//! declared, else the only one advertising the capability.

use std::process::ExitCode;

use aep_sdk::protocol::Manifest;
use aep_sdk::validate::resolve_mcp_endpoint;
use serde::Serialize;
use url::Url;

use super::{Cli, PromptsAction, ResourcesAction, registry};
use crate::JsonObject;
use crate::error::{ErrorCode, HostError, Result};
use crate::mcp::{Capability, McpPool};
use crate::registry::{ExtensionEntry, discover, parse_revision};
use crate::render::{self, Out};

/// One MCP server of an extension, reached through a pool of its own.
#[derive(Debug)]
pub struct McpTarget {
    /// The server's id in the manifest.
    pub server: String,
    /// Its endpoint, resolved against the extension's base URL.
    pub url: Url,
    /// The pool the requests go through (with the extension's bearer token, if any).
    pub pool: McpPool,
}

/// The extension `extension` names: a registered id (from `--extension` or `--config`;
/// discovered with the identity check, its token kept), else a base URL.
fn entry(cli: &Cli, extension: &str) -> Result<(ExtensionEntry, bool)> {
    let (_, registry) = registry(cli)?;
    if let Some(entry) = registry.get(extension) {
        return Ok((entry.clone(), true));
    }
    let revision = parse_revision(&cli.revision)?;
    let entry = ExtensionEntry::new("(any)", extension, revision)?;
    Ok((
        super::host::with_flags(entry, cli.oauth.options()?.as_ref())?,
        false,
    ))
}

/// The declared MCP servers of `manifest`, by id, with their resolved endpoints.
fn servers(entry: &ExtensionEntry, manifest: &Manifest) -> Result<Vec<(String, Url)>> {
    manifest
        .mcp_servers()
        .iter()
        .map(|server| {
            resolve_mcp_endpoint(&entry.base_url, &server.endpoint)
                .map(|url| (server.id.clone(), url))
                .map_err(|e| {
                    HostError::new(
                        ErrorCode::EndpointInvalid,
                        format!("MCP server '{}' endpoint '{}': {e}", server.id, server.endpoint),
                    )
                    .with_target(&server.endpoint)
                })
        })
        .collect()
}

/// Discovers `extension` and picks the MCP server to use for `capability`.
pub async fn mcp_target(
    cli: &Cli,
    extension: &str,
    server: Option<&str>,
    capability: Capability,
) -> Result<McpTarget> {
    let (entry, registered) = entry(cli, extension)?;
    let manifest = if registered {
        discover(&entry).await?
    } else {
        entry.client().discover().await?
    };
    let declared = servers(&entry, &manifest)?;
    let pool = McpPool::new();
    if let Some(token) = entry.bearer_token() {
        pool.set_bearer_token(&entry.base_url, token);
    }
    if let Some(options) = entry.oauth() {
        pool.set_oauth(&entry.base_url, options.clone());
    }
    let ids = || {
        declared
            .iter()
            .map(|(id, _)| id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let name = &manifest.extension.id;
    let chosen = match server {
        Some(wanted) => declared
            .iter()
            .find(|(id, _)| id == wanted)
            .cloned()
            .ok_or_else(|| {
                HostError::new(
                    ErrorCode::AepMcpServerNotFound,
                    format!(
                        "extension '{name}' declares no MCP server '{wanted}' (it declares: {})",
                        if declared.is_empty() {
                            "none".to_owned()
                        } else {
                            ids()
                        }
                    ),
                )
                .with_target(wanted)
            })?,
        None => match declared.as_slice() {
            [] => {
                return Err(HostError::new(
                    ErrorCode::AepMcpServerNotFound,
                    format!("extension '{name}' declares no MCP server"),
                )
                .with_target(name));
            }
            [only] => only.clone(),
            several => {
                let mut advertising = Vec::new();
                for (id, url) in several {
                    if capability.advertised_in(&pool.capabilities(url).await?) {
                        advertising.push((id.clone(), url.clone()));
                    }
                }
                match advertising.len() {
                    1 => advertising.remove(0),
                    0 => {
                        return Err(HostError::new(
                            ErrorCode::McpCapabilityMissing,
                            format!(
                                "no MCP server of extension '{name}' advertises {} (it declares: {})",
                                capability.as_str(),
                                ids()
                            ),
                        )
                        .with_target(name));
                    }
                    _ => {
                        let listed: Vec<&str> = advertising.iter().map(|(id, _)| id.as_str()).collect();
                        return Err(HostError::new(
                            ErrorCode::ConfigurationInvalid,
                            format!(
                                "several MCP servers of extension '{name}' advertise {} ({}): pick one with --server",
                                capability.as_str(),
                                listed.join(", ")
                            ),
                        )
                        .with_target(name));
                    }
                }
            }
        },
    };
    Ok(McpTarget {
        server: chosen.0,
        url: chosen.1,
        pool,
    })
}

fn print_json(out: Out<'_>, value: &impl Serialize) {
    let _ = writeln!(out, "{}", serde_json::to_string_pretty(value).unwrap_or_default());
}

/// `aep-host resources EXTENSION [--server ID] [--json] list|templates|read URI`.
pub(super) async fn resources(
    cli: &Cli,
    out: Out<'_>,
    extension: &str,
    server: Option<&str>,
    json: bool,
    action: &ResourcesAction,
) -> Result<ExitCode> {
    let target = mcp_target(cli, extension, server, Capability::Resources).await?;
    let (pool, url) = (&target.pool, &target.url);
    let result = match action {
        ResourcesAction::List => pool.resources(url).await.map(|resources| {
            if json {
                print_json(out, &resources);
            } else {
                let _ = render::server_header(out, &target.server, url);
                let _ = render::resources(out, &resources);
            }
        }),
        ResourcesAction::Templates => pool.resource_templates(url).await.map(|templates| {
            if json {
                print_json(out, &templates);
            } else {
                let _ = render::server_header(out, &target.server, url);
                let _ = render::resource_templates(out, &templates);
            }
        }),
        ResourcesAction::Read { uri } => pool.read_resource(url, uri).await.map(|read| {
            if json {
                print_json(out, &read);
            } else {
                let _ = render::resource_contents(out, &read.contents);
            }
        }),
    };
    pool.close().await;
    result.map(|()| ExitCode::SUCCESS)
}

/// Parses `--arg KEY=VALUE` flags into prompt arguments (strings).
pub fn prompt_arguments(flags: &[String]) -> Result<JsonObject> {
    let mut arguments = JsonObject::new();
    for flag in flags {
        let Some((key, value)) = flag.split_once('=') else {
            return Err(HostError::new(
                ErrorCode::InvalidArguments,
                format!("--arg expects KEY=VALUE, got '{flag}'"),
            )
            .with_target(flag));
        };
        let key = key.trim();
        if key.is_empty() {
            return Err(HostError::new(
                ErrorCode::InvalidArguments,
                format!("--arg '{flag}' has no name before '='"),
            )
            .with_target(flag));
        }
        if arguments
            .insert(key.to_owned(), serde_json::Value::String(value.to_owned()))
            .is_some()
        {
            return Err(
                HostError::new(ErrorCode::InvalidArguments, format!("--arg {key} is given twice"))
                    .with_target(key),
            );
        }
    }
    Ok(arguments)
}

/// `aep-host prompts EXTENSION [--server ID] [--json] list|get NAME [--arg K=V ...]`.
pub(super) async fn prompts(
    cli: &Cli,
    out: Out<'_>,
    extension: &str,
    server: Option<&str>,
    json: bool,
    action: &PromptsAction,
) -> Result<ExitCode> {
    let arguments = match action {
        PromptsAction::Get { args, .. } => prompt_arguments(args)?,
        PromptsAction::List => JsonObject::new(),
    };
    let target = mcp_target(cli, extension, server, Capability::Prompts).await?;
    let (pool, url) = (&target.pool, &target.url);
    let result = match action {
        PromptsAction::List => pool.prompts(url).await.map(|prompts| {
            if json {
                print_json(out, &prompts);
            } else {
                let _ = render::server_header(out, &target.server, url);
                let _ = render::prompts(out, &prompts);
            }
        }),
        PromptsAction::Get { name, .. } => pool.get_prompt(url, name, arguments).await.map(|prompt| {
            if json {
                print_json(out, &prompt);
            } else {
                let _ = render::prompt_messages(out, &prompt);
            }
        }),
    };
    pool.close().await;
    result.map(|()| ExitCode::SUCCESS)
}
