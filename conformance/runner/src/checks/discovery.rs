//! Section 1: the discovery routes, the revision they report, and extension health.

use aep_sdk::protocol::{Availability, Health, ProtocolVersion, capability, paths};
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

/// `1.discovery.revision`.
pub(crate) async fn revision(ctx: &mut Ctx) -> Verdict {
    let mut findings = Findings::default();
    for revision in ctx.options.revisions.list() {
        let route = revision.discovery_path();
        match ctx.discovery(revision).await {
            Err(_) => findings.skip(format!(
                "{route} did not answer a JSON object (see its 1.discovery check)"
            )),
            Ok(document) => match document.get("protocolVersion") {
                Some(Value::String(found)) if found == revision.as_str() => {
                    findings.ok(format!("{route}: protocolVersion \"{found}\""));
                }
                Some(found) => findings.problem(format!(
                    "{route}: protocolVersion is {found}, expected \"{}\"",
                    revision.as_str()
                )),
                None => findings.problem(format!("{route}: protocolVersion is missing")),
            },
        }
    }
    findings.verdict()
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
        Ok(Health {
            status: Availability::Available,
            ..
        }) => Verdict::Pass(vec![format!("GET {path}: available")]),
        Ok(Health { details, .. }) => Verdict::fail(format!(
            "GET {path} reports unavailable: {}",
            details.unwrap_or_else(|| "no details".to_owned())
        )),
        Err(error) => Verdict::fail(format!(
            "GET {path}: not a health document ({error}): {}",
            answer.describe()
        )),
    }
}
