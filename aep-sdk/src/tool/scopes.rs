//! [`McpScopes`]: the OAuth scopes an MCP server's tools, resources and prompts need.

use std::collections::{BTreeSet, HashMap};

use super::UriTemplate;

/// The scopes an MCP server's tools, resources and prompts need (those not listed need
/// the extension's default scopes, see
/// [`ExtensionBuilder::default_scopes`](crate::server::ExtensionBuilder::default_scopes)).
///
/// `#[aep_extension]` builds it from the `scopes = [..]` keys of `#[tool]`,
/// `#[resource]` and `#[prompt]` ([`ToolServer::required_scopes`](super::ToolServer::required_scopes));
/// a server written by hand passes one to
/// [`ExtensionBuilder::mcp_scopes`](crate::server::ExtensionBuilder::mcp_scopes).
/// `tools/list` still lists every tool to a caller without its scopes, so a client sees
/// what it may ask for and steps up when a call answers 403.
///
/// ```
/// use aep_sdk::tool::McpScopes;
///
/// let scopes = McpScopes::new()
///     .tool("write_file", ["files:write"])
///     .resource_template("file://{+path}", ["files:read"]);
/// assert_eq!(scopes.all().collect::<Vec<_>>(), ["files:read", "files:write"]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct McpScopes {
    tools: HashMap<String, Vec<String>>,
    prompts: HashMap<String, Vec<String>>,
    resources: HashMap<String, Vec<String>>,
    templates: Vec<(UriTemplate, Vec<String>)>,
}

fn owned<I: IntoIterator<Item = S>, S: Into<String>>(scopes: I) -> Vec<String> {
    scopes.into_iter().map(Into::into).collect()
}

impl McpScopes {
    /// No tool, resource or prompt has scopes of its own.
    pub fn new() -> Self {
        Self::default()
    }

    /// Tool `name` (its MCP name) needs `scopes`.
    pub fn tool<I: IntoIterator<Item = S>, S: Into<String>>(mut self, name: &str, scopes: I) -> Self {
        self.tools.insert(name.to_owned(), owned(scopes));
        self
    }

    /// Prompt `name` needs `scopes`.
    pub fn prompt<I: IntoIterator<Item = S>, S: Into<String>>(mut self, name: &str, scopes: I) -> Self {
        self.prompts.insert(name.to_owned(), owned(scopes));
        self
    }

    /// The resource at `uri` needs `scopes` (to read and to subscribe).
    pub fn resource<I: IntoIterator<Item = S>, S: Into<String>>(mut self, uri: &str, scopes: I) -> Self {
        self.resources.insert(uri.to_owned(), owned(scopes));
        self
    }

    /// Every resource matching `template` needs `scopes`; a template that does not parse
    /// is ignored with a warning (the macro refuses it at compile time).
    pub fn resource_template<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        template: &str,
        scopes: I,
    ) -> Self {
        match UriTemplate::parse(template) {
            Ok(parsed) => self.templates.push((parsed, owned(scopes))),
            Err(why) => tracing::warn!(template, "ignoring the scopes of a resource template: {why}"),
        }
        self
    }

    /// Merges `other` in (its entries win).
    pub fn merge(mut self, other: McpScopes) -> Self {
        self.tools.extend(other.tools);
        self.prompts.extend(other.prompts);
        self.resources.extend(other.resources);
        self.templates.extend(other.templates);
        self
    }

    /// Whether nothing has scopes of its own.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
            && self.prompts.is_empty()
            && self.resources.is_empty()
            && self.templates.is_empty()
    }

    /// Every scope named, sorted, once each.
    pub fn all(&self) -> impl Iterator<Item = &str> {
        let lists = self
            .tools
            .values()
            .chain(self.prompts.values())
            .chain(self.resources.values())
            .chain(self.templates.iter().map(|(_, s)| s));
        lists
            .flatten()
            .map(String::as_str)
            .collect::<BTreeSet<_>>()
            .into_iter()
    }

    /// The scopes of the item a request of `method` names (by `name` or `uri`), if it
    /// has its own.
    pub(crate) fn of(&self, method: &str, name: Option<&str>, uri: Option<&str>) -> Option<&[String]> {
        let found = match method {
            "tools/call" => self.tools.get(name?),
            "prompts/get" => self.prompts.get(name?),
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                let uri = uri?;
                self.resources.get(uri).or_else(|| {
                    self.templates
                        .iter()
                        .find(|(template, _)| template.matches(uri).is_some())
                        .map(|(_, scopes)| scopes)
                })
            }
            _ => None,
        };
        found.map(Vec::as_slice)
    }
}
