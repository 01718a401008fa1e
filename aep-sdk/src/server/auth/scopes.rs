//! Which OAuth scopes a request needs: an MCP server's tools, resources and prompts
//! ([`McpScopes`]), model providers, and the extension-wide default for everything
//! without scopes of its own. MCP requests are read here only as far as their method
//! and the name or URI they ask for.
//!
//! A list of scopes means all of them. A static bearer token passes every check; an
//! OAuth token must grant each scope the request needs, else the request is answered
//! 403 `insufficient_scope` before its handler runs.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use serde::Deserialize;

use crate::caller::Caller;
use crate::tool::McpScopes;

/// What a JSON-RPC message names; the rest of it is not read here.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    method: &'a str,
    #[serde(default)]
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    uri: Option<String>,
}

/// The scopes of the whole extension: its default, its providers' and its MCP servers'.
#[derive(Debug, Clone, Default)]
pub(crate) struct ScopePolicy {
    pub(crate) default: Vec<String>,
    /// By provider id, lowercased (ids match without case).
    pub(crate) providers: HashMap<String, Vec<String>>,
    /// By MCP endpoint path.
    pub(crate) mcp: HashMap<String, Arc<McpScopes>>,
}

impl ScopePolicy {
    /// Whether any request needs a scope at all.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    pub(crate) fn restricts(&self) -> bool {
        !self.default.is_empty() || self.mcp.values().any(|t| !t.is_empty())
    }

    /// The scopes a request to the AEP route at `path` needs.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    pub(crate) fn for_aep(&self, path: &str) -> &[String] {
        if self.providers.is_empty() {
            return &self.default;
        }
        let provider = path
            .strip_prefix(crate::protocol::paths::MODEL_PROVIDERS)
            .and_then(|rest| rest.strip_prefix('/'))
            .and_then(|rest| rest.split('/').next())
            .filter(|id| !id.is_empty());
        if let Some(id) = provider {
            let id = percent_encoding::percent_decode_str(id).decode_utf8_lossy();
            // Few providers: compared in place rather than lowercased into a new string.
            if let Some((_, scopes)) = self.providers.iter().find(|(p, _)| p.eq_ignore_ascii_case(&id)) {
                return scopes;
            }
        }
        &self.default
    }

    /// The scopes the MCP request `body` (one message or a batch) needs at `path`, in
    /// the order named. A body that is not JSON-RPC needs the default (rmcp answers it).
    pub(crate) fn for_mcp(&self, path: &str, body: &[u8]) -> Vec<String> {
        let table = self.mcp.get(path);
        let mut needed: Vec<String> = Vec::new();
        let mut add = |scopes: &[String]| {
            for scope in scopes {
                if !needed.contains(scope) {
                    needed.push(scope.clone());
                }
            }
        };
        let messages: Vec<Message<'_>> = match body.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'[') => serde_json::from_slice(body).unwrap_or_default(),
            _ => serde_json::from_slice(body).map(|m| vec![m]).unwrap_or_default(),
        };
        if messages.is_empty() {
            add(&self.default);
        }
        for message in &messages {
            let params = message.params.as_ref();
            let (name, uri) = (
                params.and_then(|p| p.name.as_deref()),
                params.and_then(|p| p.uri.as_deref()),
            );
            match table.and_then(|t| t.of(message.method, name, uri)) {
                Some(own) => add(own),
                None => add(&self.default),
            }
        }
        needed
    }

    /// Every scope a resource may ask for: the default and those of `items`.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    pub(crate) fn supported<'a>(&'a self, items: impl Iterator<Item = &'a str>) -> Vec<String> {
        let mut all: BTreeSet<&str> = items.collect();
        all.extend(self.default.iter().map(String::as_str));
        all.into_iter().map(str::to_owned).collect()
    }
}

/// The scopes of `needed` that `caller` lacks (none for static tokens).
pub(crate) fn missing(caller: &Caller, needed: &[String]) -> Vec<String> {
    needed.iter().filter(|s| !caller.has_scope(s)).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> ScopePolicy {
        let mcp = McpScopes::new()
            .tool("write", ["files:write"])
            .prompt("secret", ["prompts:secret"])
            .resource("docs://a", ["docs:a"])
            .resource_template("file://{+path}", ["files:read"]);
        ScopePolicy {
            default: vec!["mcp".into()],
            providers: HashMap::from([("echo".to_owned(), vec!["chat".to_owned()])]),
            mcp: HashMap::from([("/mcp".to_owned(), Arc::new(mcp))]),
        }
    }

    #[test]
    fn mcp_messages_need_their_items_scopes_else_the_default() {
        let p = policy();
        let need = |body: &str| p.for_mcp("/mcp", body.as_bytes());
        assert_eq!(
            need(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#),
            ["mcp"]
        );
        assert_eq!(
            need(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write","arguments":{}}}"#
            ),
            ["files:write"]
        );
        assert_eq!(
            need(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"other"}}"#),
            ["mcp"]
        );
        assert_eq!(
            need(r#"{"method":"resources/read","params":{"uri":"file://a/b.txt"}}"#),
            ["files:read"]
        );
        assert_eq!(
            need(r#"{"method":"resources/read","params":{"uri":"docs://a"}}"#),
            ["docs:a"]
        );
        assert_eq!(
            need(r#"{"method":"prompts/get","params":{"name":"secret"}}"#),
            ["prompts:secret"]
        );
        assert_eq!(
            need(r#"[{"method":"tools/call","params":{"name":"write"}},{"method":"ping"}]"#),
            ["files:write", "mcp"]
        );
        assert_eq!(need("not json"), ["mcp"]);
        assert_eq!(
            p.for_mcp("/other", br#"{"method":"tools/call","params":{"name":"write"}}"#),
            ["mcp"]
        );
    }

    #[test]
    fn providers_match_without_case_and_the_rest_needs_the_default() {
        let p = policy();
        assert_eq!(p.for_aep("/aep/model-providers/ECHO/chat"), ["chat"]);
        assert_eq!(p.for_aep("/aep/model-providers/echo/models"), ["chat"]);
        assert_eq!(p.for_aep("/aep/model-providers/other/chat"), ["mcp"]);
        assert_eq!(p.for_aep("/aep/model-providers"), ["mcp"]);
        assert_eq!(p.for_aep("/aep/health"), ["mcp"]);
    }
}
