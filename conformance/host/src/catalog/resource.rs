//! Tool resources: the host's stable tool identities, each with exactly one source.

/// Where a Tool resource's tool comes from: exactly one source, by construction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolSource {
    /// A tool contribution of a registered AEP extension.
    Aep {
        /// Registered extension id.
        extension: String,
        /// Tool contribution id in its manifest.
        contribution: String,
    },
    /// A tool of an MCP server that may not speak AEP at all.
    Mcp {
        /// The server's Streamable HTTP endpoint (absolute HTTP(S), no credentials).
        url: String,
        /// The tool's name in the server's `tools/list`.
        tool: String,
    },
}

/// A Tool resource: a stable id agents refer to (and the function name a model calls),
/// its source, whether it is enabled, and optional presentation overrides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResource {
    /// Stable id, e.g. `hash.compute`.
    pub id: String,
    /// The one source.
    pub source: ToolSource,
    /// Disabled tools fail to resolve with `tool_disabled`.
    pub enabled: bool,
    /// Overrides the display name found at the source.
    pub display_name: Option<String>,
    /// Overrides the description found at the source.
    pub description: Option<String>,
}

impl ToolResource {
    /// An enabled Tool resource backed by an AEP tool contribution.
    pub fn aep(id: impl Into<String>, extension: impl Into<String>, contribution: impl Into<String>) -> Self {
        Self::with_source(
            id,
            ToolSource::Aep {
                extension: extension.into(),
                contribution: contribution.into(),
            },
        )
    }

    /// An enabled Tool resource pointing straight at an MCP server's tool.
    pub fn mcp(id: impl Into<String>, url: impl Into<String>, tool: impl Into<String>) -> Self {
        Self::with_source(
            id,
            ToolSource::Mcp {
                url: url.into(),
                tool: tool.into(),
            },
        )
    }

    fn with_source(id: impl Into<String>, source: ToolSource) -> Self {
        Self {
            id: id.into(),
            source,
            enabled: true,
            display_name: None,
            description: None,
        }
    }

    /// Sets `enabled`.
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }
}
