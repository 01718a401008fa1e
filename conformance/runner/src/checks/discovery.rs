//! Section 1: the discovery routes, the revision they report, and extension health.

use aep_sdk::protocol::{Health, ProtocolVersion, capability, paths};
use serde_json::Value;

use super::{Findings, Verdict};
use crate::ctx::Ctx;

fn not_selected(revision: ProtocolVersion) -> Verdict {
    Verdict::Skip(format!("revision {revision} is not selected (--revision)"))
}

/// `1.discovery.v1` / `1.discovery.2026-08-01`.
pub(crate) async fn route(ctx: &mut Ctx, revision: ProtocolVersion) -> Verdict {
    if !ctx.options.revisions.includes(revision) {
        return not_selected(revision);
    }
    match ctx.discovery(revision).await {
        Ok(_) => Verdict::Pass(vec![format!(
            "GET {} answered a JSON object",
            revision.discovery_path()
        )]),
        Err(error) => Verdict::fail(format!("GET {}: {error}", revision.discovery_path())),
    }
}

/// `1.discovery.revision`: each route reports a revision it may serve. The V1 route may
/// serve the canonical document (the C# reference's compatibility alias); whether it
/// should is `1.discovery.v1-exact`.
pub(crate) async fn revision(ctx: &mut Ctx) -> Verdict {
    let mut findings = Findings::default();
    for revision in ctx.options.revisions.list() {
        let route = revision.discovery_path();
        let legal: &[&str] = match revision {
            ProtocolVersion::V1 => &[ProtocolVersion::V1.as_str(), ProtocolVersion::LATEST.as_str()],
            _ => &[revision.as_str()],
        };
        match ctx.discovery(revision).await {
            Err(_) => findings.skip(format!(
                "{route} did not answer a JSON object (see its 1.discovery check)"
            )),
            Ok(document) => match document.get("protocolVersion") {
                Some(Value::String(found)) if legal.contains(&found.as_str()) => {
                    findings.ok(format!("{route}: protocolVersion \"{found}\""));
                }
                Some(found) => findings.problem(format!(
                    "{route}: protocolVersion is {found}, expected {}",
                    legal
                        .iter()
                        .map(|v| format!("\"{v}\""))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )),
                None => findings.problem(format!("{route}: protocolVersion is missing")),
            },
        }
    }
    findings.verdict()
}

/// `1.discovery.v1-exact`.
pub(crate) async fn v1_exact(ctx: &mut Ctx) -> Verdict {
    let v1 = ProtocolVersion::V1;
    if !ctx.options.revisions.includes(v1) {
        return not_selected(v1);
    }
    let route = v1.discovery_path();
    let Ok(document) = ctx.discovery(v1).await else {
        return Verdict::Skip(format!(
            "{route} did not answer a JSON object (see 1.discovery.v1)"
        ));
    };
    match document.get("protocolVersion").and_then(Value::as_str) {
        Some(found) if found == v1.as_str() => {
            Verdict::Pass(vec![format!("{route}: protocolVersion \"1.0\"")])
        }
        Some(found) if found == ProtocolVersion::LATEST.as_str() => Verdict::fail(format!(
            "{route} serves the canonical \"{found}\" document: hosts speaking V1 \"1.0\" will refuse \
             this extension (protocol_incompatible); serve protocolVersion \"1.0\" there"
        )),
        _ => Verdict::Skip("the route reports another revision (see 1.discovery.revision)".to_owned()),
    }
}

/// `1.discovery.identical`.
pub(crate) async fn identical(ctx: &mut Ctx) -> Verdict {
    let revisions = ctx.options.revisions.list();
    if revisions.len() < 2 {
        return Verdict::Skip("needs both revisions (--revision both)".to_owned());
    }
    let mut documents = Vec::new();
    for revision in revisions {
        match ctx.discovery(revision).await {
            Ok(mut document) => {
                if let Some(object) = document.as_object_mut() {
                    object.remove("protocolVersion");
                }
                documents.push((revision, document));
            }
            Err(_) => {
                return Verdict::Skip(format!(
                    "{} did not answer a JSON object",
                    revision.discovery_path()
                ));
            }
        }
    }
    let (first, a) = &documents[0];
    let (second, b) = &documents[1];
    if a == b {
        return Verdict::Pass(vec!["same document apart from protocolVersion".to_owned()]);
    }
    let mut differences = Vec::new();
    diff("$", a, b, &mut differences);
    let reason = format!(
        "{} and {} differ beyond protocolVersion: {}",
        first.discovery_path(),
        second.discovery_path(),
        differences.first().cloned().unwrap_or_default()
    );
    Verdict::Fail(reason, differences)
}

/// Paths where two JSON values differ (at most 20).
fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    if out.len() >= 20 || a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, value) in x {
                match y.get(key) {
                    Some(other) => diff(&format!("{path}.{key}"), value, other, out),
                    None => out.push(format!("{path}.{key}: only in the first document")),
                }
            }
            for key in y.keys().filter(|k| !x.contains_key(*k)) {
                out.push(format!("{path}.{key}: only in the second document"));
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                diff(&format!("{path}[{i}]"), p, q, out);
            }
        }
        _ => out.push(format!(
            "{path}: {} vs {}",
            crate::render::clip(&a.to_string(), 60),
            crate::render::clip(&b.to_string(), 60)
        )),
    }
}

/// `1.health`.
pub(crate) async fn health(ctx: &mut Ctx) -> Verdict {
    let path = match ctx.manifest().await {
        Ok(manifest) => Ctx::capability_path(&manifest, capability::HEALTH, paths::HEALTH),
        Err(_) => paths::HEALTH.to_owned(),
    };
    let answer = match ctx.http.get(&path).await {
        Ok(answer) => answer,
        Err(error) => return Verdict::fail(error),
    };
    let value = match answer.ok_json() {
        Ok(value) => value,
        Err(error) => return Verdict::fail(format!("GET {path}: {error}")),
    };
    match serde_json::from_value::<Health>(value) {
        Ok(health) if health.is_serving() => Verdict::Pass(vec![format!(
            "GET {path}: available{}",
            health.details.map(|d| format!(" ({d})")).unwrap_or_default()
        )]),
        Ok(Health { status, details }) => Verdict::fail(format!(
            "GET {path} reports '{status}', not available: {}",
            details.unwrap_or_else(|| "no details".to_owned())
        )),
        Err(error) => Verdict::fail(format!(
            "GET {path}: not a health document ({error}): {}",
            answer.describe()
        )),
    }
}
