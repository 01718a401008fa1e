//! AEP -> rig: tools resolved by the host's catalog (Tool resource -> AEP contribution ->
//! MCP server -> MCP tool, [`aep_host::catalog`]) as rig [`DynamicTool`]s.
//!
//! A tool's rig name is its Tool resource id (what the host's own agent offers a model),
//! its description the resolved one (else its display name), its parameters MCP's input
//! schema. A call goes through [`Catalog::invoke_resolved`]: arguments checked against
//! that schema, then `tools/call` on the pooled MCP session.
//!
//! | outcome | rig |
//! |---|---|
//! | the tool answered | `ToolOutput`: the structured content as JSON, else the text, else the content blocks as JSON |
//! | the tool reported a failure (`isError: true`) | `ToolExecutionError` (`other`, code `tool_error`) whose message, shown to the model, is the tool's own text |
//! | arguments fail the input schema | `invalid_args`, code `invalid_arguments`, naming the path |
//! | the tool, contribution or MCP tool is gone | `not_found` |
//! | the tool is disabled, or sign-in failed | `permission_denied` |
//! | the extension or MCP server is unreachable | `network` (retryable) |
//! | any other host failure | `provider` |
//!
//! Every error's message (what the model reads) is `<host code>: <message>`, and its
//! code is the host's code.
//!
//! ```no_run
//! # async fn run() -> Result<(), aep_host::HostError> {
//! use std::sync::Arc;
//! use aep_host::{catalog::Catalog, mcp::McpPool, registry::Registry};
//! use aep_sdk::protocol::ProtocolVersion;
//!
//! let mut registry = Registry::new();
//! registry.register("aep.utilities", "http://127.0.0.1:8711", ProtocolVersion::LATEST)?;
//! let catalog = Arc::new(Catalog::new(Arc::new(registry), McpPool::new()));
//! catalog.add_extension_tools("aep.utilities").await?;
//! let tools = aep_rig::tools::catalog_tools(&catalog, &["hash.compute"]).await?;
//! assert_eq!(tools[0].name().as_str(), "hash.compute");
//! # Ok(()) }
//! ```

use std::sync::Arc;

use aep_host::catalog::{AgentTool, Catalog};
use aep_host::invoke::ToolOutput as HostOutput;
use aep_host::{ErrorCode, HostError};
use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolErrorKind, ToolExecutionError, ToolOutput};
use serde_json::Value;

/// The code of a tool's own failure (`isError: true`).
pub const TOOL_ERROR: &str = "tool_error";

/// A resolved tool as a rig [`DynamicTool`] that calls it through `catalog`.
pub fn dynamic_tool(catalog: Arc<Catalog>, tool: AgentTool) -> Result<DynamicTool, HostError> {
    let name = ToolName::new(tool.id.clone()).map_err(|_| {
        HostError::new(
            ErrorCode::ConfigurationInvalid,
            "a Tool resource with an empty id",
        )
    })?;
    let description = tool
        .description
        .clone()
        .unwrap_or_else(|| tool.display_name.clone());
    let parameters = tool.input_schema.clone();
    let tool = Arc::new(tool);
    Ok(DynamicTool::new(
        name,
        description,
        parameters,
        move |arguments| {
            let catalog = catalog.clone();
            let tool = tool.clone();
            Box::pin(async move { invoke(&catalog, &tool, arguments).await })
        },
    ))
}

/// The Tool resources `ids`, resolved by `catalog` (concurrently), as rig tools; the first
/// that does not resolve is the error.
pub async fn catalog_tools<S: AsRef<str>>(
    catalog: &Arc<Catalog>,
    ids: &[S],
) -> Result<Vec<DynamicTool>, HostError> {
    catalog
        .resolve_many(ids)
        .await
        .into_iter()
        .map(|resolved| dynamic_tool(catalog.clone(), resolved?))
        .collect()
}

/// Every enabled Tool resource of `catalog` as a rig tool, with the ones that did not
/// resolve and why.
pub async fn enabled_tools(catalog: &Arc<Catalog>) -> (Vec<DynamicTool>, Vec<HostError>) {
    let resolved = catalog.resolve_enabled().await;
    let mut failures = resolved.failures;
    let mut tools = Vec::new();
    for tool in resolved.tools {
        match dynamic_tool(catalog.clone(), tool) {
            Ok(tool) => tools.push(tool),
            Err(error) => failures.push(error),
        }
    }
    (tools, failures)
}

/// Calls `tool` through `catalog` and maps the outcome (see the module docs).
pub async fn invoke(
    catalog: &Catalog,
    tool: &AgentTool,
    arguments: Value,
) -> Result<ToolOutput, ToolExecutionError> {
    match catalog.invoke_resolved(tool, arguments).await {
        Ok(output) if !output.is_error => Ok(rig_output(&output)),
        Ok(output) => {
            let said = match output.text() {
                text if !text.is_empty() => text,
                _ => output.result_value().to_string(),
            };
            Err(
                ToolExecutionError::new(ToolErrorKind::Other, format!("tool '{}' failed: {said}", tool.id))
                    .with_code(TOOL_ERROR),
            )
        }
        Err(error) => Err(tool_error(error)),
    }
}

/// What the tool answered as rig tool output.
pub fn rig_output(output: &HostOutput) -> ToolOutput {
    match output.result_value() {
        Value::String(text) => ToolOutput::text(text),
        value => ToolOutput::json(value),
    }
}

/// A host failure as the tool error the model reads.
pub fn tool_error(error: HostError) -> ToolExecutionError {
    let kind = match error.code {
        ErrorCode::InvalidArguments => ToolErrorKind::InvalidArgs,
        ErrorCode::ToolNotFound
        | ErrorCode::AepToolNotFound
        | ErrorCode::AepMcpServerNotFound
        | ErrorCode::McpToolNotFound => ToolErrorKind::NotFound,
        ErrorCode::ToolDisabled | ErrorCode::AuthorizationFailed => ToolErrorKind::PermissionDenied,
        ErrorCode::ExtensionUnreachable => ToolErrorKind::Network,
        _ => ToolErrorKind::Provider,
    };
    let code = error.code.as_str();
    ToolExecutionError::new(kind, error.to_string())
        .with_code(code)
        .with_source(error)
}
