//! Resolution: Tool resource -> AEP contribution -> MCP server -> MCP tool, or Tool
//! resource -> MCP server -> MCP tool; each step fails with its own code.

use aep_sdk::validate::{parse_base_url, resolve_mcp_endpoint};
use serde_json::Map;

use super::agent_tool::{AgentTool, Presentation, ToolOrigin};
use super::resource::{ToolResource, ToolSource};
use crate::error::{ErrorCode, HostError, Result};
use crate::mcp::McpPool;
use crate::registry::{Registry, describe_endpoint_error};

pub(crate) async fn resolve(
    registry: &Registry,
    pool: &McpPool,
    resource: &ToolResource,
) -> Result<AgentTool> {
    if !resource.enabled {
        return Err(HostError::new(
            ErrorCode::ToolDisabled,
            format!("tool '{}' is disabled", resource.id),
        )
        .with_target(&resource.id));
    }
    match &resource.source {
        ToolSource::Aep {
            extension,
            contribution,
        } => resolve_aep(registry, pool, resource, extension, contribution).await,
        ToolSource::Mcp { url, tool } => resolve_direct(pool, resource, url, tool).await,
    }
}

async fn resolve_aep(
    registry: &Registry,
    pool: &McpPool,
    resource: &ToolResource,
    extension: &str,
    contribution_id: &str,
) -> Result<AgentTool> {
    let entry = registry.entry(extension)?;
    let mut manifest = registry.manifest(extension).await?;
    if !manifest
        .contributions
        .tools
        .iter()
        .any(|t| t.id == contribution_id)
    {
        // The extension may have been redeployed with the contribution since discovery.
        manifest = registry.refresh(extension, &manifest).await?;
    }
    let Some(contribution) = manifest
        .contributions
        .tools
        .iter()
        .find(|t| t.id == contribution_id)
    else {
        let known: Vec<&str> = manifest
            .contributions
            .tools
            .iter()
            .map(|t| t.id.as_str())
            .collect();
        return Err(HostError::new(
            ErrorCode::AepToolNotFound,
            format!(
                "tool '{}': extension '{extension}' has no tool contribution '{contribution_id}' (it has: {})",
                resource.id,
                list(&known)
            ),
        )
        .with_target(contribution_id));
    };
    let server_id = &contribution.mcp.server;
    let Some(server) = manifest.mcp_servers().iter().find(|s| &s.id == server_id) else {
        let known: Vec<&str> = manifest.mcp_servers().iter().map(|s| s.id.as_str()).collect();
        return Err(HostError::new(
            ErrorCode::AepMcpServerNotFound,
            format!(
                "tool '{}': contribution '{contribution_id}' of extension '{extension}' maps to MCP server \
                 '{server_id}', which the manifest does not declare (it declares: {})",
                resource.id,
                list(&known)
            ),
        )
        .with_target(server_id));
    };
    let url = resolve_mcp_endpoint(&entry.base_url, &server.endpoint).map_err(|e| {
        HostError::new(
            ErrorCode::EndpointInvalid,
            format!("tool '{}': MCP server '{server_id}' endpoint: {e}", resource.id),
        )
        .with_target(&server.endpoint)
    })?;
    if let Some(token) = entry.bearer_token() {
        pool.set_bearer_token(&entry.base_url, token);
    }
    if let Some(options) = entry.oauth() {
        pool.set_oauth(&entry.base_url, options.clone());
    }
    let tool = pool
        .find_tool(&url, &contribution.mcp.tool)
        .await
        .map_err(|mut e| {
            if e.code == ErrorCode::McpToolNotFound {
                e.message = format!(
                    "tool '{}': contribution '{contribution_id}' maps to a missing MCP tool: {}",
                    resource.id, e.message
                );
            }
            e
        })?;
    let presentation = Presentation {
        display_name: resource
            .display_name
            .clone()
            .or_else(|| Some(contribution.display_name.clone())),
        description: resource
            .description
            .clone()
            .or_else(|| contribution.description.clone()),
        metadata: contribution.metadata.clone().unwrap_or_default(),
    };
    let origin = ToolOrigin {
        extension: Some(extension.to_owned()),
        contribution: Some(contribution_id.to_owned()),
        mcp_server: Some(server_id.clone()),
        mcp_url: url,
        mcp_tool: contribution.mcp.tool.clone(),
    };
    Ok(AgentTool::merge(&resource.id, presentation, &tool, origin))
}

async fn resolve_direct(pool: &McpPool, resource: &ToolResource, url: &str, name: &str) -> Result<AgentTool> {
    let url = parse_base_url(url).map_err(|e| {
        HostError::new(
            ErrorCode::EndpointInvalid,
            format!(
                "tool '{}': MCP server URL {}",
                resource.id,
                describe_endpoint_error(url, &e)
            ),
        )
        .with_target(&resource.id)
    })?;
    let tool = pool.find_tool(&url, name).await.map_err(|mut e| {
        e.message = format!("tool '{}': {}", resource.id, e.message);
        e
    })?;
    let presentation = Presentation {
        display_name: resource.display_name.clone(),
        description: resource.description.clone(),
        metadata: Map::new(),
    };
    let origin = ToolOrigin {
        extension: None,
        contribution: None,
        mcp_server: None,
        mcp_url: url,
        mcp_tool: name.to_owned(),
    };
    Ok(AgentTool::merge(&resource.id, presentation, &tool, origin))
}

fn list(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}
