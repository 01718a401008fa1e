//! The check catalogue: every check's stable id, one-line description, spec section and
//! level, in the order the suite runs them.

use serde::Serialize;

/// How binding a check is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// A MUST of the contract: a failure always fails the run.
    Required,
    /// A SHOULD of the contract: a failure fails the run only with `strict`.
    Recommended,
}

impl Level {
    /// `required` or `recommended`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Required => "required",
            Level::Recommended => "recommended",
        }
    }
}

/// What a check is: its stable id, what it verifies, where the rule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CheckInfo {
    /// Stable id, `<spec section>.<area>.<rule>`, e.g. `3.stream.framing`.
    pub id: &'static str,
    /// One line saying what passes.
    pub description: &'static str,
    /// Section of the AEP contract (`shared/spec/aep.md`) the rule comes from.
    pub section: &'static str,
    /// Required (MUST) or recommended (SHOULD).
    pub level: Level,
}

const fn required(id: &'static str, section: &'static str, description: &'static str) -> CheckInfo {
    CheckInfo {
        id,
        description,
        section,
        level: Level::Required,
    }
}

const fn recommended(id: &'static str, section: &'static str, description: &'static str) -> CheckInfo {
    CheckInfo {
        id,
        description,
        section,
        level: Level::Recommended,
    }
}

/// Every check, in run order. `3.stream.cancellation` runs last: it is the only check
/// that may leave a broken extension unusable.
pub const CATALOG: &[CheckInfo] = &[
    required(
        "1.discovery.v1",
        "1",
        "GET /.well-known/agentstration answers 200 with a JSON object",
    ),
    required(
        "1.discovery.2026-08-01",
        "1",
        "GET /.well-known/aep answers 200 with a JSON object",
    ),
    required(
        "1.discovery.revision",
        "1",
        "/.well-known/aep says \"2026-08-01\"; /.well-known/agentstration says \"1.0\" or the canonical \"2026-08-01\"",
    ),
    recommended(
        "1.discovery.v1-exact",
        "1",
        "/.well-known/agentstration says exactly \"1.0\" (hosts speaking V1 refuse the canonical alias); required with --revision 1.0",
    ),
    required(
        "1.discovery.identical",
        "1",
        "the two discovery documents are identical except for protocolVersion",
    ),
    required(
        "1.manifest.members",
        "1",
        "required members are present with the right JSON types; mcp is omitted when there is no server",
    ),
    required(
        "1.manifest.identity",
        "1",
        "extension id, name and version are non-empty",
    ),
    required(
        "1.manifest.capabilities",
        "1",
        "aep.health always; aep.model-provider iff providers; aep.tools iff tool contributions, without endpoint",
    ),
    required(
        "1.manifest.providers",
        "1, 3",
        "model provider ids are non-empty and unique (case-insensitively); displayName is non-empty",
    ),
    required(
        "1.manifest.mcp-servers",
        "1",
        "MCP server ids are non-empty and unique; endpoints are relative or http(s) without credentials",
    ),
    required(
        "1.manifest.tools.valid",
        "1",
        "tool contribution ids are non-empty and unique; displayName and mcp.tool are non-empty",
    ),
    required(
        "1.manifest.tools.server-ref",
        "1",
        "every tool contribution's mcp.server names a declared MCP server",
    ),
    required(
        "1.manifest.tools.no-schema",
        "1, 6",
        "tool contributions hold no input/output schema (MCP tools/list is the only authority)",
    ),
    required(
        "1.health",
        "1",
        "GET /aep/health answers 200 {\"status\":\"available\"}",
    ),
    required(
        "2.json.enums",
        "2",
        "chat answers and stream updates use only the contract's role, kind and finishReason values",
    ),
    required(
        "3.providers.list",
        "3",
        "GET /aep/model-providers answers a JSON array of descriptors with the manifest's provider ids",
    ),
    required(
        "3.providers.case-insensitive",
        "3",
        "provider routes match provider ids case-insensitively",
    ),
    required(
        "3.provider.health",
        "3",
        "GET /aep/model-providers/{id}/health answers a health document for every provider",
    ),
    required(
        "3.provider.models",
        "3",
        "GET /aep/model-providers/{id}/models answers a JSON array of model descriptors for every provider",
    ),
    required(
        "3.provider.chat",
        "3",
        "POST .../chat answers 200 with a ChatResponse holding at least one message",
    ),
    required(
        "3.stream.response",
        "3",
        "POST .../chat/stream answers 200, content-type text/event-stream, cache-control no-cache",
    ),
    recommended(
        "3.stream.accel-buffering",
        "3",
        "streams carry x-accel-buffering: no so proxies do not buffer them",
    ),
    required(
        "3.stream.framing",
        "3",
        "every event is one `data:` line ended by a blank line (comments allowed, nothing else)",
    ),
    required(
        "3.stream.json",
        "3",
        "every data line is one ChatUpdate JSON object",
    ),
    required(
        "3.stream.terminal",
        "3",
        "exactly one terminal update (finishReason set), nothing after it, and the stream then closes",
    ),
    required(
        "3.stream.matches-chat",
        "3",
        "for a provider declaring metadata deterministic: true, streamed text equals the /chat text",
    ),
    required(
        "4.errors.unknown-provider",
        "3, 4",
        "an unknown provider id answers 404 provider_unavailable on every provider route",
    ),
    required(
        "4.errors.malformed-json",
        "4",
        "a malformed JSON body answers a 4xx AEP error JSON (chat and stream)",
    ),
    required(
        "4.errors.wrong-types",
        "4",
        "a body with wrong JSON types answers a 4xx AEP error JSON (chat and stream)",
    ),
    recommended(
        "4.errors.empty-messages",
        "4",
        "an empty messages array answers a 4xx AEP error JSON (chat and stream)",
    ),
    required(
        "4.errors.content-type",
        "4",
        "a body sent as text/plain answers a 4xx AEP error JSON (chat and stream)",
    ),
    required(
        "4.errors.oversized",
        "4",
        "a body over 16 MiB is refused with a 4xx AEP error JSON (413) or served; never a 5xx or a dropped answer",
    ),
    required(
        "5.config.catalog",
        "5",
        "GET /aep/configuration lists at least one well-formed option set bound to a declared provider",
    ),
    required(
        "5.config.digest",
        "5",
        "every schemaDigest equals sha256 of the schema as served, written as the reference writes it",
    ),
    required(
        "5.config.options.valid",
        "5",
        "valid native options for the preferred version are accepted by /chat",
    ),
    required(
        "5.config.options.unknown-set",
        "5",
        "native options naming an unknown option set answer 422 option_set_unsupported",
    ),
    required(
        "5.config.options.unknown-version",
        "5",
        "native options naming an unknown version answer 422 option_version_unsupported",
    ),
    required(
        "5.config.options.digest-mismatch",
        "5",
        "native options with another schema digest answer 422 option_schema_mismatch",
    ),
    required(
        "5.config.options.invalid-values",
        "5",
        "native option values that fail the schema answer 422 invalid_options",
    ),
    required(
        "5.config.migrate",
        "5",
        "every published migration edge migrates valid values (and back, where a reverse path exists)",
    ),
    required(
        "5.config.migrate.errors",
        "5",
        "migrate answers 422 option_set_unsupported / option_schema_mismatch for an unknown set / digest",
    ),
    required(
        "6.mcp.reachable",
        "1, 6",
        "every declared MCP server's resolved endpoint answers a Streamable HTTP POST",
    ),
    required(
        "6.mcp.initialize",
        "6",
        "an MCP session client (revision 2025-11-25, initialize) connects to every server",
    ),
    recommended(
        "6.mcp.stateless",
        "6",
        "a stateless MCP client (revision 2026-07-28, server/discover) is served by every server",
    ),
    required(
        "6.mcp.origin",
        "6",
        "an MCP request from a foreign browser Origin is refused with 403 (DNS-rebinding rule)",
    ),
    required(
        "6.tools.contribution-maps",
        "6",
        "every tool contribution maps to a tool in its server's tools/list",
    ),
    required(
        "6.tools.schemas",
        "6",
        "every tool's inputSchema (and outputSchema) is a valid JSON Schema whose root is type object",
    ),
    required(
        "6.tools.call",
        "6",
        "read-only tools answer tools/call with arguments synthesized from their input schema",
    ),
    recommended(
        "6.tools.progress",
        "6",
        "every notifications/progress received during a tools/call carries that call's _meta.progressToken",
    ),
    recommended(
        "6.resources.list",
        "6",
        "servers advertising resources answer resources/list and resources/templates/list",
    ),
    recommended(
        "6.resources.read",
        "6",
        "every listed resource reads: resources/read answers contents, one carrying the URI asked for",
    ),
    recommended(
        "6.prompts.list",
        "6",
        "servers advertising prompts answer prompts/list",
    ),
    recommended(
        "6.prompts.get",
        "6",
        "every listed prompt answers prompts/get (required arguments set to \"sample\") with at least one message",
    ),
    required(
        "3.stream.cancellation",
        "3",
        "closing a stream early does not break the extension: the next requests succeed",
    ),
];

/// The check whose level depends on the revisions checked: the canonical document on the
/// V1 route is legal for `2026-08-01` hosts, and fatal for the V1 hosts `--revision 1.0`
/// speaks for.
pub const V1_EXACT: &str = "1.discovery.v1-exact";

impl CheckInfo {
    /// The level of this check in a run over `revisions`.
    pub fn level_in(&self, revisions: crate::revisions::Revisions) -> Level {
        if self.id == V1_EXACT && revisions == crate::revisions::Revisions::V1 {
            Level::Required
        } else {
            self.level
        }
    }
}

/// The catalogue entry of `id`.
pub fn info(id: &str) -> Option<&'static CheckInfo> {
    CATALOG.iter().find(|c| c.id == id)
}

/// Whether the pattern `pattern` selects check `id`: the exact id, or a prefix of whole
/// segments (`3.stream` selects `3.stream.framing`; `3` selects every section 3 check).
pub fn matches(pattern: &str, id: &str) -> bool {
    let pattern = pattern.trim().trim_end_matches(".*").trim_end_matches('.');
    id == pattern || id.strip_prefix(pattern).is_some_and(|rest| rest.starts_with('.'))
}

/// Patterns that select no check at all (to report typos).
pub fn unknown_patterns(patterns: &[String]) -> Vec<&str> {
    patterns
        .iter()
        .map(String::as_str)
        .filter(|p| !CATALOG.iter().any(|c| matches(p, c.id)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_follow_sections() {
        let mut seen = std::collections::HashSet::new();
        for check in CATALOG {
            assert!(seen.insert(check.id), "duplicate id {}", check.id);
            let section = check.id.split('.').next().unwrap_or("");
            assert!(
                check.section.split(", ").any(|s| s == section),
                "{} is filed under section {}",
                check.id,
                check.section
            );
            assert!(!check.description.is_empty() && !check.description.contains('\n'));
        }
    }

    #[test]
    fn the_readme_table_lists_every_check_with_its_level() {
        let readme = include_str!("../README.md");
        for check in CATALOG {
            let row = format!("| `{}` | {}", check.id, check.level.as_str());
            assert!(
                readme.lines().any(|line| line.starts_with(&row)),
                "README.md has no row starting `{row}`"
            );
        }
    }

    #[test]
    fn patterns_select_whole_segments() {
        assert!(matches("3.stream", "3.stream.framing"));
        assert!(matches("3.stream.*", "3.stream.framing"));
        assert!(matches("3", "3.stream.framing"));
        assert!(matches("1.discovery.v1", "1.discovery.v1"));
        assert!(!matches("3.str", "3.stream.framing"));
        assert!(!matches("1.manifest.tools", "1.manifest.identity"));
        let patterns = vec!["3.stream".to_owned(), "9.nothing".to_owned()];
        assert_eq!(unknown_patterns(&patterns), ["9.nothing"]);
    }
}
