//! The gateway's tool list: every enabled Tool resource of the catalog that resolves, as
//! an MCP tool named by its Tool id (an AEP contribution's id), with the owning MCP
//! server's schemas and annotations.
//!
//! Two extensions contributing the same tool id are told apart by their extension id:
//! both become `<extension>.<tool>` (the catalog itself keeps the first as `<tool>` and
//! names the second `<extension>/<tool>`; MCP tool names have no `/`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};

use crate::catalog::AgentTool;

/// One listing: the MCP tools in order, and what each name calls.
#[derive(Debug, Default)]
pub(super) struct Listing {
    pub(super) tools: Vec<Tool>,
    by_name: HashMap<String, AgentTool>,
}

impl Listing {
    /// The listing of `resolved` (the catalog's enabled tools that resolved).
    pub(super) fn new(resolved: Vec<AgentTool>) -> Self {
        let bases: Vec<&str> = resolved.iter().map(base).collect();
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for b in &bases {
            *counts.entry(b).or_default() += 1;
        }
        let names: Vec<String> = resolved
            .iter()
            .zip(&bases)
            .map(|(tool, b)| match (&tool.origin.extension, counts[b] > 1) {
                (Some(extension), true) => format!("{extension}.{b}"),
                _ => (*b).to_owned(),
            })
            .collect();
        let mut listing = Listing::default();
        for (name, tool) in names.into_iter().zip(resolved) {
            listing.tools.push(mcp_tool(&name, &tool));
            listing.by_name.insert(name, tool);
        }
        listing
    }

    /// The tool listed as `name`.
    pub(super) fn get(&self, name: &str) -> Option<&AgentTool> {
        self.by_name.get(name)
    }
}

/// The name a tool is listed under when it collides with none: its Tool id, less the
/// `<extension>/` the catalog puts before a second contribution of the same id.
fn base(tool: &AgentTool) -> &str {
    match (&tool.origin.extension, &tool.origin.contribution) {
        (Some(extension), Some(contribution)) if tool.id == format!("{extension}/{contribution}") => {
            contribution
        }
        _ => &tool.id,
    }
}

/// The MCP tool a client sees: the AEP presentation (display name as title, description)
/// over the owning server's input and output schemas and annotations.
fn mcp_tool(name: &str, tool: &AgentTool) -> Tool {
    let schema = match &tool.input_schema {
        serde_json::Value::Object(schema) => schema.clone(),
        _ => serde_json::Map::new(),
    };
    let mut listed = Tool::new_with_raw(
        name.to_owned(),
        tool.description.clone().map(Cow::Owned),
        Arc::new(schema),
    )
    .with_title(tool.display_name.clone());
    if let Some(serde_json::Value::Object(output)) = &tool.output_schema {
        listed = listed.with_raw_output_schema(Arc::new(output.clone()));
    }
    let hints = &tool.hints;
    let annotated = [
        hints.read_only,
        hints.destructive,
        hints.idempotent,
        hints.open_world,
    ]
    .iter()
    .any(Option::is_some)
        || hints.title.is_some();
    if annotated {
        listed = listed.with_annotations(ToolAnnotations::from_raw(
            hints.title.clone(),
            hints.read_only,
            hints.destructive,
            hints.idempotent,
            hints.open_world,
        ));
    }
    listed
}
