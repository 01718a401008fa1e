//! [`AgentTool`]: a resolved tool, provider-neutral (no model-provider or agent-framework
//! types): AEP presentation data merged with the MCP tool's schemas and annotations.

use rmcp::model::Tool;
use serde::Serialize;
use serde_json::{Map, Value};
use url::Url;

use crate::JsonObject;

/// The MCP tool annotations (all hints; never a security boundary).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolHints {
    /// A human-readable title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Does not modify its environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// May perform destructive updates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// Repeating a call with the same arguments has no further effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// Interacts with an open world of external entities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

/// Where a resolved tool lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOrigin {
    /// The AEP extension, for an AEP-backed tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extension: Option<String>,
    /// The tool contribution id, for an AEP-backed tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contribution: Option<String>,
    /// The MCP server id declared in the manifest, for an AEP-backed tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp_server: Option<String>,
    /// The MCP endpoint the tool is called at.
    pub mcp_url: Url,
    /// The tool's name in the MCP server's `tools/list`.
    pub mcp_tool: String,
}

/// A resolved tool, ready to be offered to a model and invoked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentTool {
    /// The Tool resource id: what agents store and the function name a model calls.
    pub id: String,
    /// Resource override, else the AEP `displayName`, else the MCP title, else the MCP name.
    pub display_name: String,
    /// Resource override, else the AEP description, else the MCP description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The AEP contribution's metadata (empty for a direct MCP tool).
    pub metadata: Map<String, Value>,
    /// MCP's input schema (MCP is the only authority for schemas).
    pub input_schema: Value,
    /// MCP's output schema, when the tool declares one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// MCP's annotations.
    pub hints: ToolHints,
    /// Where the tool lives.
    pub origin: ToolOrigin,
}

/// AEP-side presentation data (from the contribution and the Tool resource).
pub(crate) struct Presentation {
    pub(crate) display_name: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) metadata: Map<String, Value>,
}

impl AgentTool {
    /// Merges presentation data with the MCP tool.
    pub(crate) fn merge(id: &str, presentation: Presentation, tool: &Tool, origin: ToolOrigin) -> Self {
        let annotations = tool.annotations.clone().unwrap_or_default();
        let hints = ToolHints {
            title: annotations.title.clone(),
            read_only: annotations.read_only_hint,
            destructive: annotations.destructive_hint,
            idempotent: annotations.idempotent_hint,
            open_world: annotations.open_world_hint,
        };
        let display_name = presentation
            .display_name
            .or_else(|| tool.title.clone())
            .or_else(|| annotations.title.clone())
            .unwrap_or_else(|| tool.name.to_string());
        let description = presentation
            .description
            .or_else(|| tool.description.as_ref().map(|d| d.to_string()));
        Self {
            id: id.to_owned(),
            display_name,
            description,
            metadata: presentation.metadata,
            input_schema: object(&tool.input_schema),
            output_schema: tool.output_schema.as_deref().map(object),
            hints,
            origin,
        }
    }
}

fn object(schema: &JsonObject) -> Value {
    Value::Object(schema.clone())
}
