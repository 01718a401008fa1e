//! The discovery manifest (spec section 1).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::serde_util::null_default;
use super::{ModelProviderDescriptor, ProtocolVersion};

/// Well-known capability names. Capability names are open: clients keep unknown ones.
pub mod capability {
    /// Always present.
    pub const HEALTH: &str = "aep.health";
    /// Present iff the extension has at least one model provider.
    pub const MODEL_PROVIDER: &str = "aep.model-provider";
    /// Present iff the extension has at least one tool contribution (no endpoint).
    pub const TOOLS: &str = "aep.tools";
    /// Present iff the extension publishes at least one option set.
    pub const CONFIGURATION: &str = "aep.configuration";
    /// The version every capability above is served at.
    pub const VERSION: &str = "1.0";
}

/// The document served at the discovery routes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// The revision this document was served for.
    pub protocol_version: ProtocolVersion,
    /// Who the extension is.
    pub extension: ExtensionIdentity,
    /// Capability name -> descriptor, in the order the extension wrote them.
    pub capabilities: IndexMap<String, CapabilityDescriptor>,
    /// Model providers and tool contributions.
    pub contributions: Contributions,
    /// Co-hosted MCP servers; omitted when there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpDescriptor>,
}

impl Manifest {
    /// The descriptor of capability `name`, if advertised.
    pub fn capability(&self, name: &str) -> Option<&CapabilityDescriptor> {
        self.capabilities.get(name)
    }

    /// The MCP servers declared (empty when none).
    pub fn mcp_servers(&self) -> &[McpServerDescriptor] {
        self.mcp
            .as_ref()
            .map(|m| m.servers.as_slice())
            .unwrap_or_default()
    }
}

/// `extension`: identity of the extension.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionIdentity {
    /// Stable id, e.g. `acme.weather`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The extension's own version.
    pub version: String,
    /// Optional description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// One entry of `capabilities`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapabilityDescriptor {
    /// Capability version, `"1.0"` for every capability this SDK serves.
    pub version: String,
    /// Route of the capability, relative to the base URL (absent for `aep.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl CapabilityDescriptor {
    /// A capability at `version` with an endpoint.
    pub fn new(version: impl Into<String>, endpoint: Option<&str>) -> Self {
        Self {
            version: version.into(),
            endpoint: endpoint.map(str::to_owned),
            metadata: None,
        }
    }
}

/// `contributions`: what the extension contributes to a host.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Contributions {
    /// Model providers; always written, an empty array when there are none.
    #[serde(default, deserialize_with = "null_default")]
    pub model_providers: Vec<ModelProviderDescriptor>,
    /// Tool contributions; omitted when empty.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub tools: Vec<ToolContribution>,
}

/// A tool contribution: presentation data plus the MCP tool it maps to. Never a schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolContribution {
    /// Extension-local id, e.g. `hash.compute`.
    pub id: String,
    /// Name shown to people.
    pub display_name: String,
    /// Optional description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// The MCP server and tool this contribution resolves to.
    pub mcp: McpToolMapping,
}

/// `mcp` of a tool contribution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpToolMapping {
    /// Id of a server declared in the manifest's `mcp.servers`.
    pub server: String,
    /// Name of the tool in that server's `tools/list`.
    pub tool: String,
}

/// `mcp`: the MCP servers the extension co-hosts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct McpDescriptor {
    /// The servers, each with a unique id.
    #[serde(default, deserialize_with = "null_default")]
    pub servers: Vec<McpServerDescriptor>,
}

/// One co-hosted MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServerDescriptor {
    /// Unique, non-empty id.
    pub id: String,
    /// Relative path (resolved against the base URL) or absolute `http(s)` URL.
    pub endpoint: String,
}
