//! Section 5: the option-set catalog, digests recomputed from each schema as served,
//! native option checks on chat requests, and migrations.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use aep_sdk::config::{schema_digest_text, validate_values};
use aep_sdk::protocol::{
    CONTRIBUTION_KIND_MODEL_PROVIDER, ConfigurationCatalog, MigrationResponse, OptionSet, OptionSetVersion,
    SCOPE_MODEL_PROFILE, capability, paths,
};
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{Findings, Verdict, need};
use crate::ctx::{Catalog, Ctx, Missing, PROMPT, Target, chat_body};
use crate::http::Http;
use crate::schema::{synthesize, violate};

const ZERO_DIGEST: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

/// The catalog read as wire types, for the checks that depend on `5.config.catalog`.
async fn sets(ctx: &mut Ctx) -> Result<(Arc<Catalog>, ConfigurationCatalog), Missing> {
    let catalog = ctx.catalog().await.map_err(|m| {
        if m.broken {
            Missing::skip(format!("{} (see 5.config.catalog)", m.reason))
        } else {
            m
        }
    })?;
    let typed = catalog
        .typed
        .clone()
        .map_err(|e| Missing::skip(format!("the catalog cannot be read: {e} (see 5.config.catalog)")))?;
    if typed.option_sets.is_empty() {
        return Err(Missing::skip(
            "the catalog lists no option set (see 5.config.catalog)",
        ));
    }
    Ok((catalog, typed))
}

fn is_digest(text: &str) -> bool {
    text.strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
}

/// `5.config.catalog`.
pub(crate) async fn catalog(ctx: &mut Ctx) -> Verdict {
    let catalog = match ctx.catalog().await {
        Ok(catalog) => catalog,
        Err(missing) => return Verdict::owner(missing),
    };
    let typed = match &catalog.typed {
        Ok(typed) => typed,
        Err(error) => return Verdict::fail(error.clone()),
    };
    let providers = ctx.providers().await.unwrap_or_default();
    let mut findings = Findings::default();
    if typed.option_sets.is_empty() {
        findings.problem("aep.configuration is advertised but the catalog lists no option set");
    }
    let mut ids = HashSet::new();
    for set in &typed.option_sets {
        let name = format!("option set '{}'", set.id);
        let mut problems = Vec::new();
        if set.id.trim().is_empty() {
            problems.push("id is empty".to_owned());
        } else if !ids.insert(set.id.clone()) {
            problems.push("id is duplicated".to_owned());
        }
        if set.contribution_kind != CONTRIBUTION_KIND_MODEL_PROVIDER {
            problems.push(format!(
                "contributionKind is '{}', expected '{CONTRIBUTION_KIND_MODEL_PROVIDER}'",
                set.contribution_kind
            ));
        }
        if set.scope != SCOPE_MODEL_PROFILE {
            problems.push(format!(
                "scope is '{}', expected '{SCOPE_MODEL_PROFILE}'",
                set.scope
            ));
        }
        if !providers
            .iter()
            .any(|p| p.id.eq_ignore_ascii_case(&set.contribution_id))
        {
            problems.push(format!(
                "contributionId '{}' is not a declared model provider",
                set.contribution_id
            ));
        }
        if set.versions.is_empty() {
            problems.push("no version".to_owned());
        }
        let mut versions = HashSet::new();
        for version in &set.versions {
            if version.version.trim().is_empty() || !versions.insert(version.version.as_str()) {
                problems.push(format!("version '{}' is empty or duplicated", version.version));
            }
            if !is_digest(&version.schema_digest) {
                problems.push(format!(
                    "version '{}': schemaDigest '{}' is not sha256: plus 64 lowercase hex digits",
                    version.version, version.schema_digest
                ));
            }
            if !version.schema.is_object() {
                problems.push(format!(
                    "version '{}': the schema is not a JSON object",
                    version.version
                ));
            }
        }
        if !versions.contains(set.preferred_version.as_str()) {
            problems.push(format!(
                "preferredVersion '{}' is not among its versions",
                set.preferred_version
            ));
        }
        for edge in &set.migrations {
            for end in [&edge.from_version, &edge.to_version] {
                if !versions.contains(end.as_str()) {
                    problems.push(format!(
                        "migration {} -> {} names unknown version '{end}'",
                        edge.from_version, edge.to_version
                    ));
                }
            }
        }
        if problems.is_empty() {
            findings.ok(format!(
                "{name}: {} version(s), {} migration(s)",
                set.versions.len(),
                set.migrations.len()
            ));
        } else {
            problems
                .into_iter()
                .for_each(|p| findings.problem(format!("{name}: {p}")));
        }
    }
    findings.verdict()
}

/// `5.config.digest`.
pub(crate) async fn digest(ctx: &mut Ctx) -> Verdict {
    let (catalog, typed) = need!(sets(ctx).await);
    let mut findings = Findings::default();
    for (set, texts) in typed.option_sets.iter().zip(&catalog.schema_texts) {
        for (version, text) in set.versions.iter().zip(texts) {
            let label = format!("'{}' version '{}'", set.id, version.version);
            let Some(text) = text else {
                findings.problem(format!("{label}: no schema"));
                continue;
            };
            findings.check(match schema_digest_text(text) {
                Err(error) => Err(format!("{label}: the schema text cannot be digested: {error}")),
                Ok(digest) if digest == version.schema_digest => Ok(format!("{label}: {digest}")),
                Ok(digest) => Err(format!(
                    "{label}: published {}, but the schema as served digests to {digest}",
                    version.schema_digest
                )),
            });
        }
    }
    findings.verdict()
}

/// One native-options probe of `/chat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Probe {
    /// Valid values for the preferred version: accepted.
    Valid,
    /// An unknown option set: 422 `option_set_unsupported`.
    UnknownSet,
    /// An unknown version: 422 `option_version_unsupported`.
    UnknownVersion,
    /// Another digest: 422 `option_schema_mismatch`.
    DigestMismatch,
    /// Values that fail the schema: 422 `invalid_options`.
    InvalidValues,
}

fn preferred(set: &OptionSet) -> Option<&OptionSetVersion> {
    set.versions
        .iter()
        .find(|v| v.version == set.preferred_version)
        .or_else(|| set.versions.first())
}

/// Values `version`'s schema accepts (checked with the SDK's validator).
fn valid_values(version: &OptionSetVersion) -> Option<Value> {
    let values = synthesize(&version.schema, &version.schema)?;
    validate_values(&values, &version.schema)
        .is_empty()
        .then_some(values)
}

/// `5.config.options.*`.
pub(crate) async fn options(ctx: &mut Ctx, probe: Probe) -> Verdict {
    let (_, typed) = need!(sets(ctx).await);
    let (targets, _) = need!(ctx.targets().await.map_err(|m| Missing::skip(m.reason)));
    let mut findings = Findings::default();
    for set in &typed.option_sets {
        let Some(target) = targets
            .iter()
            .find(|t| t.id().eq_ignore_ascii_case(&set.contribution_id))
        else {
            findings.skip(format!(
                "option set '{}': provider '{}' is not checked",
                set.id, set.contribution_id
            ));
            continue;
        };
        let Some(version) = preferred(set) else { continue };
        let valid = valid_values(version);
        let mut native = json!({
            "optionSet": set.id,
            "version": version.version,
            "schemaDigest": version.schema_digest,
            "values": valid.clone().unwrap_or_else(|| json!({})),
        });
        let (status, code, what) = match probe {
            Probe::Valid => {
                if valid.is_none() {
                    findings.skip(format!(
                        "no valid values could be synthesized for '{}' {}",
                        set.id, version.version
                    ));
                    continue;
                }
                (200, "", "valid values".to_owned())
            }
            Probe::UnknownSet => {
                native["optionSet"] = json!(format!("{}/aep-conformance-unknown", set.id));
                (422, "option_set_unsupported", "an unknown option set".to_owned())
            }
            Probe::UnknownVersion => {
                native["version"] = json!("0.0.0-aep-conformance");
                (422, "option_version_unsupported", "an unknown version".to_owned())
            }
            Probe::DigestMismatch => {
                native["schemaDigest"] = json!(ZERO_DIGEST);
                (422, "option_schema_mismatch", "another schema digest".to_owned())
            }
            Probe::InvalidValues => {
                let base = valid.clone().unwrap_or_else(|| json!({}));
                match violate(&version.schema, &base) {
                    Some((values, how)) if !validate_values(&values, &version.schema).is_empty() => {
                        native["values"] = values;
                        (422, "invalid_options", how)
                    }
                    _ => {
                        findings.skip(format!(
                            "the schema of '{}' {} has no constraint to violate",
                            set.id, version.version
                        ));
                        continue;
                    }
                }
            }
        };
        findings.check(
            send(
                ctx,
                target,
                native,
                status,
                code,
                &format!("'{}' {}: {what}", set.id, version.version),
            )
            .await,
        );
    }
    findings.verdict()
}

async fn send(
    ctx: &mut Ctx,
    target: &Target,
    native: Value,
    status: u16,
    code: &str,
    label: &str,
) -> Result<String, String> {
    let tail = if target.descriptor.capabilities.chat {
        "/chat"
    } else {
        "/chat/stream"
    };
    let path = Http::provider_path(target.id(), tail);
    let mut body = chat_body(&target.model, PROMPT);
    body["options"] = json!({ "nativeOptions": native });
    let answer = ctx
        .http
        .post_json(&path, &body)
        .await
        .map_err(|e| format!("{label}: {e}"))?;
    if status == 200 {
        return if answer.status == StatusCode::OK {
            Ok(format!("{label}: accepted"))
        } else {
            Err(format!("{label}: POST {path} answered {}", answer.describe()))
        };
    }
    answer
        .exact_error(status, code)
        .map(|()| format!("{label}: {status} {code}"))
        .map_err(|e| format!("{label}: POST {path}: {e}"))
}

fn migrate_path(manifest: Option<&aep_sdk::protocol::Manifest>) -> String {
    let base = manifest
        .map(|m| Ctx::capability_path(m, capability::CONFIGURATION, paths::CONFIGURATION))
        .unwrap_or_else(|| paths::CONFIGURATION.to_owned());
    format!("{}/migrate", base.trim_end_matches('/'))
}

/// Whether the edges of `set` lead from `from` to `to`.
fn has_path(set: &OptionSet, from: &str, to: &str) -> bool {
    let mut seen = HashSet::from([from.to_owned()]);
    let mut queue = VecDeque::from([from.to_owned()]);
    while let Some(at) = queue.pop_front() {
        for edge in set.migrations.iter().filter(|e| e.from_version == at) {
            if edge.to_version == to {
                return true;
            }
            if seen.insert(edge.to_version.clone()) {
                queue.push_back(edge.to_version.clone());
            }
        }
    }
    false
}

/// One migration: the answer must be the target envelope with values its schema accepts.
async fn migrate_once(
    ctx: &mut Ctx,
    path: &str,
    set: &OptionSet,
    from: &OptionSetVersion,
    to: &OptionSetVersion,
    values: Value,
) -> Result<Value, String> {
    let label = format!("'{}' {} -> {}", set.id, from.version, to.version);
    let request = json!({
        "optionSet": set.id,
        "fromVersion": from.version,
        "fromSchemaDigest": from.schema_digest,
        "toVersion": to.version,
        "values": values,
    });
    let answer = ctx
        .http
        .post_json(path, &request)
        .await
        .map_err(|e| format!("{label}: {e}"))?;
    let value = answer
        .ok_json()
        .map_err(|e| format!("{label}: POST {path}: {e}"))?;
    let response: MigrationResponse =
        serde_json::from_value(value).map_err(|e| format!("{label}: not a migration answer: {e}"))?;
    let options = response.options;
    let mut problems = Vec::new();
    if options.option_set != set.id {
        problems.push(format!("optionSet is '{}'", options.option_set));
    }
    if options.version != to.version {
        problems.push(format!("version is '{}'", options.version));
    }
    if options.schema_digest != to.schema_digest {
        problems.push(format!(
            "schemaDigest is '{}', the catalog publishes '{}'",
            options.schema_digest, to.schema_digest
        ));
    }
    let issues = validate_values(&options.values, &to.schema);
    if !issues.is_empty() {
        let listed: Vec<String> = issues.iter().map(ToString::to_string).collect();
        problems.push(format!(
            "the values do not match the target schema: {}",
            listed.join(" ")
        ));
    }
    if problems.is_empty() {
        Ok(options.values)
    } else {
        Err(format!("{label}: {}", problems.join("; ")))
    }
}

/// `5.config.migrate`.
pub(crate) async fn migrate(ctx: &mut Ctx) -> Verdict {
    let (_, typed) = need!(sets(ctx).await);
    if typed.option_sets.iter().all(|s| s.migrations.is_empty()) {
        return Verdict::Skip("no option set publishes a migration edge".to_owned());
    }
    let path = migrate_path(ctx.manifest().await.ok().as_ref());
    let mut findings = Findings::default();
    for set in &typed.option_sets {
        for edge in &set.migrations {
            let find = |v: &str| set.versions.iter().find(|x| x.version == v);
            let (Some(from), Some(to)) = (find(&edge.from_version), find(&edge.to_version)) else {
                findings.skip(format!(
                    "'{}' {} -> {}: unknown version",
                    set.id, edge.from_version, edge.to_version
                ));
                continue;
            };
            let Some(values) = valid_values(from) else {
                findings.skip(format!(
                    "no valid values could be synthesized for '{}' {}",
                    set.id, from.version
                ));
                continue;
            };
            let there = match migrate_once(ctx, &path, set, from, to, values).await {
                Ok(values) => values,
                Err(problem) => {
                    findings.problem(problem);
                    continue;
                }
            };
            if has_path(set, &to.version, &from.version) {
                findings.check(
                    migrate_once(ctx, &path, set, to, from, there)
                        .await
                        .map(|_| format!("'{}' {} -> {} and back", set.id, from.version, to.version)),
                );
            } else {
                findings.ok(format!("'{}' {} -> {}", set.id, from.version, to.version));
            }
        }
    }
    findings.verdict()
}

/// `5.config.migrate.errors`.
pub(crate) async fn migrate_errors(ctx: &mut Ctx) -> Verdict {
    let (_, typed) = need!(sets(ctx).await);
    let path = migrate_path(ctx.manifest().await.ok().as_ref());
    let mut findings = Findings::default();
    let Some((set, version)) = typed
        .option_sets
        .iter()
        .find_map(|s| preferred(s).map(|v| (s, v)))
    else {
        return Verdict::Skip("no option set has a version".to_owned());
    };
    let values = valid_values(version).unwrap_or_else(|| json!({}));
    let cases = [
        (
            json!({"optionSet": format!("{}/aep-conformance-unknown", set.id), "fromVersion": version.version,
                   "fromSchemaDigest": version.schema_digest, "toVersion": version.version, "values": values}),
            "option_set_unsupported",
            "an unknown option set",
        ),
        (
            json!({"optionSet": set.id, "fromVersion": version.version, "fromSchemaDigest": ZERO_DIGEST,
                   "toVersion": version.version, "values": values}),
            "option_schema_mismatch",
            "another source digest",
        ),
    ];
    for (request, code, what) in cases {
        findings.check(match ctx.http.post_json(&path, &request).await {
            Err(error) => Err(error),
            Ok(answer) => answer
                .exact_error(422, code)
                .map(|()| format!("{what}: 422 {code}"))
                .map_err(|e| format!("POST {path} with {what}: {e}")),
        });
    }
    findings.verdict()
}
