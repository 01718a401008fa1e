//! Section 1: manifest validity. Every rule comes from the SDK's `validate_manifest` and
//! `validate_manifest_json` (the rules a host enforces); each problem is filed under the
//! check that owns its path, so one broken rule fails one check.

use aep_sdk::protocol::{Manifest, ProtocolVersion, capability};
use aep_sdk::validate::{validate_manifest, validate_manifest_json};
use serde_json::Value;

use super::Verdict;
use crate::ctx::Ctx;

/// The check that owns a `validate_manifest` problem at `path`.
fn owner(path: &str) -> &'static str {
    if path.starts_with("$.extension") {
        "1.manifest.identity"
    } else if path.starts_with("$.capabilities") {
        "1.manifest.capabilities"
    } else if path.starts_with("$.contributions.modelProviders") {
        "1.manifest.providers"
    } else if path.starts_with("$.mcp.servers") {
        "1.manifest.mcp-servers"
    } else if path.starts_with("$.contributions.tools[") && path.ends_with(".mcp.server") {
        "1.manifest.tools.server-ref"
    } else if path.starts_with("$.contributions.tools") {
        "1.manifest.tools.valid"
    } else {
        "1.manifest.members"
    }
}

/// Problems found in several documents, each listed once with the revisions it concerns.
#[derive(Default)]
struct Problems(Vec<(String, Vec<ProtocolVersion>)>);

impl Problems {
    fn add(&mut self, revision: ProtocolVersion, problem: String) {
        match self.0.iter_mut().find(|(p, _)| *p == problem) {
            Some((_, revisions)) => revisions.push(revision),
            None => self.0.push((problem, vec![revision])),
        }
    }

    fn verdict(self, checked: usize, pass_note: &str) -> Verdict {
        if self.0.is_empty() {
            return if checked == 0 {
                Verdict::Skip("no manifest could be read (see 1.manifest.members)".to_owned())
            } else {
                Verdict::Pass(vec![pass_note.to_owned()])
            };
        }
        let details: Vec<String> = self
            .0
            .into_iter()
            .map(|(problem, revisions)| {
                let revisions: Vec<&str> = revisions.iter().map(|r| r.as_str()).collect();
                format!("[{}] {problem}", revisions.join(", "))
            })
            .collect();
        let reason = match details.len() {
            1 => details[0].clone(),
            n => format!("{} (and {} more)", details[0], n - 1),
        };
        Verdict::Fail(reason, details)
    }
}

/// `1.manifest.members`.
pub(crate) async fn members(ctx: &mut Ctx) -> Verdict {
    let manifests = ctx.manifests().await;
    if manifests.docs.is_empty() {
        return Verdict::Skip("no discovery route answered a JSON object (see 1.discovery.*)".to_owned());
    }
    let mut problems = Problems::default();
    for (revision, parsed) in &manifests.parsed {
        match parsed {
            Err(found) => found.iter().for_each(|p| problems.add(*revision, p.clone())),
            Ok(manifest) => validate_manifest(manifest)
                .into_iter()
                .filter(|p| owner(&p.path) == "1.manifest.members")
                .for_each(|p| problems.add(*revision, p.to_string())),
        }
    }
    problems.verdict(manifests.parsed.len(), "every required member is present")
}

/// Extra capability rules not in `validate_manifest`: `aep.tools` has no endpoint.
fn extra_capability_problems(manifest: &Manifest) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(tools) = manifest.capability(capability::TOOLS)
        && tools.endpoint.is_some()
    {
        problems.push("$.capabilities['aep.tools']: aep.tools has no endpoint".to_owned());
    }
    problems
}

/// `1.manifest.identity`, `.capabilities`, `.providers`, `.mcp-servers`, `.tools.valid`,
/// `.tools.server-ref`: the problems of `validate_manifest` this check owns.
pub(crate) async fn rules(ctx: &mut Ctx, id: &str) -> Verdict {
    let manifests = ctx.manifests().await;
    let mut problems = Problems::default();
    let mut checked = 0;
    let mut applicable = false;
    for (revision, parsed) in &manifests.parsed {
        let Ok(manifest) = parsed else { continue };
        checked += 1;
        applicable |= match id {
            "1.manifest.providers" => !manifest.contributions.model_providers.is_empty(),
            "1.manifest.mcp-servers" => manifest.mcp.is_some(),
            "1.manifest.tools.valid" | "1.manifest.tools.server-ref" => {
                !manifest.contributions.tools.is_empty()
            }
            _ => true,
        };
        for problem in validate_manifest(manifest) {
            if owner(&problem.path) == id {
                problems.add(*revision, problem.to_string());
            }
        }
        if id == "1.manifest.capabilities" {
            extra_capability_problems(manifest)
                .into_iter()
                .for_each(|p| problems.add(*revision, p));
        }
    }
    if id == "1.manifest.capabilities"
        && let Some(problem) = unadvertised_configuration(ctx, &manifests).await
    {
        let revisions: Vec<ProtocolVersion> = manifests.parsed.iter().map(|(r, _)| *r).collect();
        revisions
            .into_iter()
            .for_each(|r| problems.add(r, problem.clone()));
    }
    if checked > 0 && !applicable && problems.0.is_empty() {
        let what = match id {
            "1.manifest.providers" => "no model provider is declared",
            "1.manifest.mcp-servers" => "no MCP server is declared",
            _ => "no tool contribution is declared",
        };
        return Verdict::Skip(what.to_owned());
    }
    problems.verdict(checked, "every rule holds")
}

/// `aep.configuration` must be advertised when there is an option set: when it is not,
/// `GET /aep/configuration` must not list one.
async fn unadvertised_configuration(ctx: &mut Ctx, manifests: &crate::ctx::Manifests) -> Option<String> {
    let manifest = manifests.primary()?;
    if manifest.capability(capability::CONFIGURATION).is_some() {
        return None;
    }
    let answer = ctx.http.get(aep_sdk::protocol::paths::CONFIGURATION).await.ok()?;
    let catalog = answer.ok_json().ok()?;
    let count = catalog
        .get("optionSets")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    (count > 0).then(|| {
        format!("$.capabilities: aep.configuration is not advertised, but GET /aep/configuration lists {count} option set(s)")
    })
}

/// `1.manifest.tools.no-schema`: the SDK's JSON rule, plus any member whose name
/// mentions a schema.
pub(crate) async fn no_schema(ctx: &mut Ctx) -> Verdict {
    let manifests = ctx.manifests().await;
    let mut problems = Problems::default();
    let mut tools_seen = 0;
    for (revision, document) in &manifests.docs {
        for problem in validate_manifest_json(document) {
            if !crate::ctx::is_member_problem(&problem.path) {
                problems.add(*revision, problem.to_string());
            }
        }
        let tools = document.pointer("/contributions/tools").and_then(Value::as_array);
        for (i, tool) in tools.into_iter().flatten().enumerate() {
            tools_seen += 1;
            for key in tool.as_object().into_iter().flat_map(|o| o.keys()) {
                let known = ["inputSchema", "outputSchema", "schema"].contains(&key.as_str());
                if !known && key.to_ascii_lowercase().contains("schema") {
                    problems.add(
                        *revision,
                        format!("$.contributions.tools[{i}].{key}: a tool contribution never holds a schema"),
                    );
                }
            }
        }
    }
    if manifests.docs.is_empty() {
        return Verdict::Skip("no discovery route answered a JSON object (see 1.discovery.*)".to_owned());
    }
    if tools_seen == 0 && problems.0.is_empty() {
        return Verdict::Skip("no tool contribution is declared".to_owned());
    }
    problems.verdict(manifests.docs.len(), "no tool contribution holds a schema")
}
