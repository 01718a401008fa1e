//! The tool catalog: Tool resources (each with exactly one source), their resolution
//! into provider-neutral [`AgentTool`]s, enable/disable, and invocation.
//!
//! Resolution follows Tool resource -> AEP contribution -> MCP server -> MCP tool (or
//! Tool resource -> MCP server -> MCP tool for a direct source) and fails explicitly:
//!
//! | code | when |
//! |---|---|
//! | `tool_not_found` | no Tool resource has the id |
//! | `tool_disabled` | the Tool resource is disabled |
//! | `extension_unreachable` | the extension or MCP server cannot be reached, or no base URL is registered |
//! | `protocol_incompatible` | the extension does not serve the registered revision exactly |
//! | `aep_descriptor_invalid` | the manifest breaks a rule of spec section 1 |
//! | `extension_identity_mismatch` | the manifest's id is not the registered id |
//! | `aep_tool_not_found` | the manifest (discovered again once) has no such tool contribution |
//! | `aep_mcp_server_not_found` | the contribution names an MCP server the manifest does not declare |
//! | `endpoint_invalid` | an MCP URL is not HTTP(S) or carries credentials |
//! | `mcp_tool_not_found` | the server's `tools/list` (refreshed once) has no such tool |
//!
//! Manifests are discovered once per extension and MCP tool lists cached per server (see
//! [`crate::mcp`]), so resolving or invoking a tool again costs no request beyond the
//! call itself. [`Catalog::resolve_many`] resolves concurrently.

mod agent_tool;
mod resolve;
mod resource;

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use rmcp::model::CallToolResult;
use serde_json::Value;

pub use agent_tool::{AgentTool, ToolHints, ToolOrigin};
pub use resource::{ToolResource, ToolSource};

use crate::error::{ErrorCode, HostError, Result};
use crate::invoke::{ToolOutput, check_arguments};
use crate::mcp::{Failure, McpPool, Relay};
use crate::registry::Registry;

/// What [`Catalog::resolve_enabled`] found.
#[derive(Debug, Default)]
pub struct Resolved {
    /// The tools that resolved, in id order.
    pub tools: Vec<AgentTool>,
    /// The tools that did not, with why.
    pub failures: Vec<HostError>,
}

/// Tool resources and their resolution. Share it with an `Arc`.
#[derive(Debug)]
pub struct Catalog {
    registry: Arc<Registry>,
    pool: McpPool,
    resources: RwLock<BTreeMap<String, ToolResource>>,
}

impl Catalog {
    /// An empty catalog over `registry`, calling MCP servers through `pool`.
    pub fn new(registry: Arc<Registry>, pool: McpPool) -> Self {
        Self {
            registry,
            pool,
            resources: RwLock::default(),
        }
    }

    /// The extension registry.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The MCP client pool.
    pub fn pool(&self) -> &McpPool {
        &self.pool
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<String, ToolResource>> {
        self.resources.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<String, ToolResource>> {
        self.resources.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a Tool resource; an id already used is a configuration error.
    pub fn add(&self, resource: ToolResource) -> Result<()> {
        let mut resources = self.write();
        if resources.contains_key(&resource.id) {
            return Err(HostError::new(
                ErrorCode::ConfigurationInvalid,
                format!("tool '{}' is declared twice", resource.id),
            )
            .with_target(&resource.id));
        }
        resources.insert(resource.id.clone(), resource);
        Ok(())
    }

    /// Removes a Tool resource.
    pub fn remove(&self, id: &str) -> Option<ToolResource> {
        self.write().remove(id)
    }

    /// The Tool resource `id`.
    pub fn resource(&self, id: &str) -> Option<ToolResource> {
        self.read().get(id).cloned()
    }

    /// Every Tool resource, in id order.
    pub fn resources(&self) -> Vec<ToolResource> {
        self.read().values().cloned().collect()
    }

    /// Enables or disables a tool (`tool_not_found` for an unknown id).
    pub fn set_enabled(&self, id: &str, enabled: bool) -> Result<()> {
        match self.write().get_mut(id) {
            Some(resource) => {
                resource.enabled = enabled;
                Ok(())
            }
            None => Err(not_found(id)),
        }
    }

    /// Adds one Tool resource per tool contribution of extension `extension` (discovering
    /// it), with the contribution id as the Tool id, or `extension/contribution` when that
    /// id is taken. Returns the ids added.
    pub async fn add_extension_tools(&self, extension: &str) -> Result<Vec<String>> {
        let manifest = self.registry.manifest(extension).await?;
        let mut resources = self.write();
        let mut added = Vec::new();
        for contribution in &manifest.contributions.tools {
            let already = resources.values().any(|r| {
                r.source
                    == ToolSource::Aep {
                        extension: extension.to_owned(),
                        contribution: contribution.id.clone(),
                    }
            });
            if already {
                continue;
            }
            let mut id = contribution.id.clone();
            if resources.contains_key(&id) {
                id = format!("{extension}/{}", contribution.id);
            }
            resources.insert(id.clone(), ToolResource::aep(&id, extension, &contribution.id));
            added.push(id);
        }
        Ok(added)
    }

    /// Resolves the Tool resource `id` into an [`AgentTool`].
    pub async fn resolve(&self, id: &str) -> Result<AgentTool> {
        let resource = self.resource(id).ok_or_else(|| not_found(id))?;
        resolve::resolve(&self.registry, &self.pool, &resource).await
    }

    /// Resolves many tools concurrently (extensions are discovered and MCP servers
    /// listed at most once each); one result per id, in order.
    pub async fn resolve_many<S: AsRef<str>>(&self, ids: &[S]) -> Vec<Result<AgentTool>> {
        futures::future::join_all(ids.iter().map(|id| self.resolve(id.as_ref()))).await
    }

    /// Resolves every enabled tool concurrently.
    pub async fn resolve_enabled(&self) -> Resolved {
        let ids: Vec<String> = self
            .read()
            .values()
            .filter(|r| r.enabled)
            .map(|r| r.id.clone())
            .collect();
        let mut resolved = Resolved::default();
        for result in self.resolve_many(&ids).await {
            match result {
                Ok(tool) => resolved.tools.push(tool),
                Err(error) => resolved.failures.push(error),
            }
        }
        resolved
    }

    /// Resolves tool `id`, checks `arguments` against its input schema, and calls it.
    ///
    /// `Ok` with `is_error: true` is the tool's own failure; `Err` is a resolution,
    /// argument, transport or protocol failure. When the server answers that it does not
    /// know the tool, the cached tool list is refreshed: a tool that is gone fails with
    /// `mcp_tool_not_found`, one that is still listed is called once more.
    pub async fn invoke(&self, id: &str, arguments: Value) -> Result<ToolOutput> {
        let tool = self.resolve(id).await?;
        self.invoke_resolved(&tool, arguments).await
    }

    /// Like [`Catalog::invoke`] for a tool resolved earlier.
    pub async fn invoke_resolved(&self, tool: &AgentTool, arguments: Value) -> Result<ToolOutput> {
        self.invoke_with(tool, arguments, None)
            .await
            .map(ToolOutput::from_mcp)
    }

    /// Like [`Catalog::invoke_resolved`], relaying the server's progress and log
    /// messages and the caller's cancellation ([`Relay`]), with the MCP result as the
    /// server sent it (content, structured content, `isError`).
    pub async fn invoke_relayed(
        &self,
        tool: &AgentTool,
        arguments: Value,
        relay: &Relay,
    ) -> Result<CallToolResult> {
        self.invoke_with(tool, arguments, Some(relay)).await
    }

    async fn invoke_with(
        &self,
        tool: &AgentTool,
        arguments: Value,
        relay: Option<&Relay>,
    ) -> Result<CallToolResult> {
        let arguments = check_arguments(&tool.id, &tool.input_schema, arguments)?;
        let url = &tool.origin.mcp_url;
        let name = &tool.origin.mcp_tool;
        match self.pool.call_raw(url, name, arguments.clone(), relay).await {
            Ok(result) => Ok(result),
            Err(Failure::UnknownTool(error)) => {
                let tools = self.pool.refresh_tools(url).await?;
                if !tools.iter().any(|t| t.name == name.as_str()) {
                    return Err(HostError::new(
                        ErrorCode::McpToolNotFound,
                        format!("tool '{}': MCP server {url} no longer has tool '{name}'", tool.id),
                    )
                    .with_target(name));
                }
                tracing::debug!(tool = %tool.id, "server did not know the tool but lists it; calling once more: {error}");
                self.pool
                    .call_raw(url, name, arguments, relay)
                    .await
                    .map_err(Failure::into_error)
            }
            Err(failure) => Err(failure.into_error()),
        }
    }
}

fn not_found(id: &str) -> HostError {
    HostError::new(
        ErrorCode::ToolNotFound,
        format!("no Tool resource has the id '{id}'"),
    )
    .with_target(id)
}
