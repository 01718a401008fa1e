//! Manifest rules and MCP endpoint resolution (spec section 1), shared by the server
//! (which refuses to start with an invalid manifest), the client, the host and the
//! conformance runner.

use std::collections::HashSet;
use std::fmt;

use serde_json::Value;
use url::Url;

use crate::protocol::{Manifest, capability};

/// One broken rule, with the JSON path of the member it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// JSON path, e.g. `$.contributions.tools[1].mcp.server`.
    pub path: String,
    /// What is wrong, for a person.
    pub message: String,
}

impl Problem {
    pub(crate) fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

fn blank(value: &str) -> bool {
    value.trim().is_empty()
}

/// Checks every rule of spec section 1 and returns all problems (empty when valid).
///
/// ```
/// use aep_sdk::protocol::Manifest;
/// use aep_sdk::validate::validate_manifest;
///
/// let manifest: Manifest = serde_json::from_str(r#"{
///   "protocolVersion": "1.0",
///   "extension": {"id": "", "name": "Weather", "version": "1.0.0"},
///   "capabilities": {"aep.health": {"version": "1.0", "endpoint": "/aep/health"}},
///   "contributions": {"modelProviders": []}
/// }"#).unwrap();
/// let problems = validate_manifest(&manifest);
/// assert_eq!(problems[0].path, "$.extension.id");
/// ```
pub fn validate_manifest(manifest: &Manifest) -> Vec<Problem> {
    let mut problems = Vec::new();
    let ext = &manifest.extension;
    for (name, value) in [("id", &ext.id), ("name", &ext.name), ("version", &ext.version)] {
        if blank(value) {
            problems.push(Problem::new(
                format!("$.extension.{name}"),
                format!("extension {name} must not be empty"),
            ));
        }
    }
    check_capabilities(manifest, &mut problems);

    let mut providers = HashSet::new();
    for (i, provider) in manifest.contributions.model_providers.iter().enumerate() {
        let path = format!("$.contributions.modelProviders[{i}]");
        if blank(&provider.id) {
            problems.push(Problem::new(
                format!("{path}.id"),
                "model provider id must not be empty",
            ));
        } else if !providers.insert(provider.id.to_lowercase()) {
            problems.push(Problem::new(
                format!("{path}.id"),
                format!(
                    "model provider id '{}' is duplicated (ids match case-insensitively)",
                    provider.id
                ),
            ));
        }
        if blank(&provider.display_name) {
            problems.push(Problem::new(
                format!("{path}.displayName"),
                "model provider displayName must not be empty",
            ));
        }
    }

    let mut servers = HashSet::new();
    for (i, server) in manifest.mcp_servers().iter().enumerate() {
        let path = format!("$.mcp.servers[{i}]");
        if blank(&server.id) {
            problems.push(Problem::new(
                format!("{path}.id"),
                "MCP server id must not be empty",
            ));
        } else if !servers.insert(server.id.as_str()) {
            problems.push(Problem::new(
                format!("{path}.id"),
                format!("MCP server id '{}' is duplicated", server.id),
            ));
        }
        if let Err(error) = check_endpoint(&server.endpoint) {
            problems.push(Problem::new(format!("{path}.endpoint"), error.to_string()));
        }
    }

    let mut tools = HashSet::new();
    for (i, tool) in manifest.contributions.tools.iter().enumerate() {
        let path = format!("$.contributions.tools[{i}]");
        if blank(&tool.id) {
            problems.push(Problem::new(
                format!("{path}.id"),
                "tool contribution id must not be empty",
            ));
        } else if !tools.insert(tool.id.as_str()) {
            problems.push(Problem::new(
                format!("{path}.id"),
                format!("tool contribution id '{}' is duplicated", tool.id),
            ));
        }
        if blank(&tool.display_name) {
            problems.push(Problem::new(
                format!("{path}.displayName"),
                format!("tool contribution '{}' needs a displayName", tool.id),
            ));
        }
        if blank(&tool.mcp.tool) {
            problems.push(Problem::new(
                format!("{path}.mcp.tool"),
                format!("tool contribution '{}' needs an MCP tool name", tool.id),
            ));
        }
        if !servers.contains(tool.mcp.server.as_str()) {
            problems.push(Problem::new(
                format!("{path}.mcp.server"),
                format!(
                    "tool contribution '{}' references unknown MCP server '{}'",
                    tool.id, tool.mcp.server
                ),
            ));
        }
    }
    problems
}

fn check_capabilities(manifest: &Manifest, problems: &mut Vec<Problem>) {
    let has = |name: &str| manifest.capabilities.contains_key(name);
    if !has(capability::HEALTH) {
        problems.push(Problem::new(
            "$.capabilities",
            "capability 'aep.health' must always be present",
        ));
    }
    let rules = [
        (
            capability::MODEL_PROVIDER,
            !manifest.contributions.model_providers.is_empty(),
            "model provider",
        ),
        (
            capability::TOOLS,
            !manifest.contributions.tools.is_empty(),
            "tool contribution",
        ),
    ];
    for (name, expected, what) in rules {
        match (has(name), expected) {
            (false, true) => problems.push(Problem::new(
                "$.capabilities",
                format!("capability '{name}' must be present when there is a {what}"),
            )),
            (true, false) => problems.push(Problem::new(
                format!("$.capabilities['{name}']"),
                format!("capability '{name}' must be absent when there is no {what}"),
            )),
            _ => {}
        }
    }
    if let Some(mcp) = &manifest.mcp
        && mcp.servers.is_empty()
    {
        problems.push(Problem::new(
            "$.mcp",
            "'mcp' must be omitted when there is no MCP server",
        ));
    }
}

/// Rules only visible in the raw JSON: required members, and no schema in a tool
/// contribution (MCP is the only authority for schemas). Run it before parsing.
pub fn validate_manifest_json(document: &Value) -> Vec<Problem> {
    let mut problems = Vec::new();
    let Some(object) = document.as_object() else {
        return vec![Problem::new("$", "the manifest must be a JSON object")];
    };
    for member in ["protocolVersion", "extension", "capabilities", "contributions"] {
        if object.get(member).is_none_or(Value::is_null) {
            problems.push(Problem::new(
                format!("$.{member}"),
                format!("member '{member}' is required"),
            ));
        }
    }
    if let Some(contributions) = object.get("contributions").and_then(Value::as_object)
        && contributions.get("modelProviders").is_none_or(Value::is_null)
    {
        problems.push(Problem::new(
            "$.contributions.modelProviders",
            "member 'modelProviders' is required (an empty array when there are none)",
        ));
    }
    let tools = document.pointer("/contributions/tools").and_then(Value::as_array);
    for (i, tool) in tools.into_iter().flatten().enumerate() {
        for key in [
            "inputSchema",
            "outputSchema",
            "schema",
            "parameters",
            "annotations",
        ] {
            if tool.get(key).is_some() {
                problems.push(Problem::new(
                    format!("$.contributions.tools[{i}].{key}"),
                    format!("a tool contribution never holds '{key}': MCP tools/list is the only authority for schemas"),
                ));
            }
        }
    }
    problems
}

/// Why an MCP endpoint or base URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    /// Empty endpoint.
    #[error("the endpoint is empty")]
    Empty,
    /// Not a URL at all.
    #[error("'{0}' is not a valid URL")]
    Invalid(String),
    /// Absolute but not HTTP(S).
    #[error("'{0}' must use http or https")]
    Scheme(String),
    /// Carries a user name or password.
    #[error("the URL must not carry credentials (user info)")]
    Credentials,
    /// A relative endpoint whose dot segments (`..`, `%2e%2e`) climb out of the base URL.
    #[error("'{0}' resolves outside the extension's base URL")]
    OutsideBase(String),
}

/// Checks that `endpoint` is relative, or absolute HTTP(S) without credentials.
pub fn check_endpoint(endpoint: &str) -> Result<(), EndpointError> {
    if blank(endpoint) {
        return Err(EndpointError::Empty);
    }
    match Url::parse(endpoint) {
        Ok(url) => check_absolute(&url, endpoint),
        Err(url::ParseError::RelativeUrlWithoutBase) => Ok(()),
        Err(_) => Err(EndpointError::Invalid(endpoint.to_owned())),
    }
}

fn check_absolute(url: &Url, raw: &str) -> Result<(), EndpointError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(EndpointError::Scheme(raw.to_owned()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(EndpointError::Credentials);
    }
    Ok(())
}

/// Parses an extension base URL: absolute HTTP(S), no credentials.
pub fn parse_base_url(base: &str) -> Result<Url, EndpointError> {
    let url = Url::parse(base).map_err(|_| EndpointError::Invalid(base.to_owned()))?;
    check_absolute(&url, base)?;
    Ok(url)
}

/// Resolves an MCP server endpoint against the extension's base URL.
///
/// A relative endpoint is appended to the base with exactly one `/` between them, and must
/// stay under it: dot segments that climb out of the base path (to another extension's
/// routes behind a shared gateway) are refused. An absolute one must be HTTP(S) without
/// credentials and is used as is.
///
/// ```
/// use aep_sdk::validate::{parse_base_url, resolve_mcp_endpoint};
///
/// let base = parse_base_url("http://h:1/base").unwrap();
/// assert_eq!(resolve_mcp_endpoint(&base, "mcp").unwrap().as_str(), "http://h:1/base/mcp");
/// assert_eq!(resolve_mcp_endpoint(&base, "/mcp").unwrap().as_str(), "http://h:1/base/mcp");
/// assert!(resolve_mcp_endpoint(&base, "ftp://h/mcp").is_err());
/// assert!(resolve_mcp_endpoint(&base, "../admin/mcp").is_err());
/// ```
pub fn resolve_mcp_endpoint(base: &Url, endpoint: &str) -> Result<Url, EndpointError> {
    check_endpoint(endpoint)?;
    check_absolute(base, base.as_str())?;
    if let Ok(url) = Url::parse(endpoint) {
        return Ok(url);
    }
    let prefix = base.as_str().trim_end_matches('/');
    let joined = format!("{prefix}/{}", endpoint.trim_start_matches('/'));
    let url = Url::parse(&joined).map_err(|_| EndpointError::Invalid(endpoint.to_owned()))?;
    check_absolute(&url, &joined)?;
    // The parser resolves dot segments, plain or percent-encoded.
    if !url.as_str().starts_with(&format!("{prefix}/")) {
        return Err(EndpointError::OutsideBase(endpoint.to_owned()));
    }
    Ok(url)
}
