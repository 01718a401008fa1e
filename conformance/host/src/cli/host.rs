//! Building a host (registry, pool, catalog) from the configuration file and flags.

use std::sync::Arc;

use crate::catalog::Catalog;
use crate::config::HostConfig;
use crate::error::Result;
use crate::mcp::McpPool;
use crate::models::ModelRef;
use crate::oauth::OAuthOptions;
use crate::registry::{ExtensionEntry, Registry, parse_revision};

use super::Cli;

/// What the commands work with.
#[derive(Debug)]
pub struct Host {
    /// The configuration file's content (empty without `--config`).
    pub config: HostConfig,
    /// Tool resources over the registry.
    pub catalog: Catalog,
}

impl Host {
    /// Reads `--config`, registers its extensions and those of `--extension`, and fills
    /// the catalog (the file's `[tools]`, or every contribution of every extension).
    pub async fn from_cli(cli: &Cli) -> Result<Self> {
        Self::from_cli_with(cli, &[]).await
    }

    /// Like [`Host::from_cli`], with `extra` extensions registered too.
    pub async fn from_cli_with(cli: &Cli, extra: &[ExtensionEntry]) -> Result<Self> {
        let (config, mut registry) = registry(cli)?;
        for entry in extra {
            registry.insert(entry.clone())?;
        }
        let registry = Arc::new(registry);
        let pool = McpPool::new();
        for (url, options) in config.mcp_oauth()? {
            pool.set_oauth(&url, options);
        }
        let catalog = Catalog::new(registry.clone(), pool);
        let resources = config.tool_resources()?;
        if resources.is_empty() {
            let ids: Vec<String> = registry.entries().map(|e| e.id.clone()).collect();
            let added = futures::future::join_all(ids.iter().map(|id| catalog.add_extension_tools(id))).await;
            for (id, result) in ids.iter().zip(added) {
                if let Err(error) = result {
                    tracing::warn!(extension = %id, "tools not added: {error}");
                }
            }
        } else {
            for resource in resources {
                catalog.add(resource)?;
            }
        }
        Ok(Self { config, catalog })
    }

    /// `--model`, else the configuration's `[models.default]`.
    pub fn model(&self, flag: Option<&str>) -> Result<ModelRef> {
        match flag {
            Some(text) => text.parse(),
            None => self.config.model("default").ok_or_else(|| {
                crate::HostError::new(
                    crate::ErrorCode::ConfigurationInvalid,
                    "no model: pass --model EXTENSION/PROVIDER/MODEL or configure [models.default]",
                )
            }),
        }
    }
}

/// Reads `--config` and registers its extensions and those of `--extension` (nothing is
/// discovered yet).
pub fn registry(cli: &Cli) -> Result<(HostConfig, Registry)> {
    let config = match &cli.config {
        Some(path) => HostConfig::load(path)?,
        None => HostConfig::default(),
    };
    let mut registry = config.registry()?;
    let revision = parse_revision(&cli.revision)?;
    let oauth = cli.oauth.options()?;
    for flag in &cli.extensions {
        registry.insert(with_flags(
            ExtensionEntry::parse_flag(flag, revision)?,
            oauth.as_ref(),
        )?)?;
    }
    Ok((config, registry))
}

/// `entry`, signing in as the `--oauth-*` flags say (when they do).
pub fn with_flags(entry: ExtensionEntry, oauth: Option<&OAuthOptions>) -> Result<ExtensionEntry> {
    match oauth {
        Some(options) => entry.with_oauth(options.clone()),
        None => Ok(entry),
    }
}
