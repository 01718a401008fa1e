//! The configuration screen's work (spec section 5): the extension's option sets with
//! each version's published digest checked against the digest of its schema as read;
//! values checked against a version's schema with the SDK's rules (the ones an SDK
//! extension applies to `options.nativeOptions` before a provider runs), each problem
//! with its path; and migrations run by the extension (`POST /aep/configuration/migrate`),
//! their result checked against the target version's schema.

use std::time::Instant;

use aep_sdk::config::{schema_digest, validate_values};
use aep_sdk::error::codes as aep_codes;
use aep_sdk::protocol::{ConfigurationCatalog, MigrationRequest, OptionSet, OptionSetVersion};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::connection::Connection;
use crate::error::ApiError;
use crate::limits::{REQUEST_TIMEOUT, bounded};

/// Code of a connection whose extension publishes no option set.
pub const NOT_OFFERED: &str = "configuration_not_offered";

/// What the page sends to check values.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidateRequest {
    /// Option set id.
    pub option_set: String,
    /// Version whose schema the values are checked against.
    pub version: String,
    /// The values (a JSON object).
    #[serde(default)]
    pub values: Value,
}

/// What the page sends to migrate values.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MigrateRequest {
    /// Option set id.
    pub option_set: String,
    /// Version the values are at.
    pub from_version: String,
    /// Version to migrate to.
    pub to_version: String,
    /// The values (a JSON object).
    #[serde(default)]
    pub values: Value,
}

/// The extension's catalog, fetched now (`GET /aep/configuration`), or
/// `configuration_not_offered` when the manifest has no `aep.configuration`.
pub async fn catalog(connection: &Connection) -> Result<ConfigurationCatalog, ApiError> {
    if !connection.manifest.capabilities.contains_key("aep.configuration") {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            NOT_OFFERED,
            format!(
                "{} publishes no option set (its manifest has no aep.configuration capability)",
                connection.base
            ),
        ));
    }
    bounded(
        REQUEST_TIMEOUT,
        "GET /aep/configuration",
        connection.client.configuration(),
    )
    .await
}

/// The catalog for the page: every version with `digestCheck` `{computed, matches}`.
pub fn annotate(catalog: &ConfigurationCatalog) -> Value {
    let sets: Vec<Value> = catalog
        .option_sets
        .iter()
        .map(|set| {
            let mut out = json!(set);
            let versions: Vec<Value> = set
                .versions
                .iter()
                .map(|v| {
                    let computed = schema_digest(&v.schema);
                    let mut version = json!(v);
                    version["digestCheck"] =
                        json!({"computed": computed, "matches": computed == v.schema_digest});
                    version
                })
                .collect();
            out["versions"] = json!(versions);
            out
        })
        .collect();
    json!({ "optionSets": sets })
}

fn find_set<'a>(catalog: &'a ConfigurationCatalog, id: &str) -> Result<&'a OptionSet, ApiError> {
    catalog.option_sets.iter().find(|s| s.id == id).ok_or_else(|| {
        let known: Vec<&str> = catalog.option_sets.iter().map(|s| s.id.as_str()).collect();
        ApiError::new(
            StatusCode::NOT_FOUND,
            aep_codes::OPTION_SET_UNSUPPORTED,
            format!(
                "the extension publishes no option set '{id}' (it publishes: {})",
                known.join(", ")
            ),
        )
    })
}

fn find_version<'a>(set: &'a OptionSet, version: &str) -> Result<&'a OptionSetVersion, ApiError> {
    set.versions.iter().find(|v| v.version == version).ok_or_else(|| {
        let known: Vec<&str> = set.versions.iter().map(|v| v.version.as_str()).collect();
        ApiError::new(
            StatusCode::NOT_FOUND,
            aep_codes::OPTION_VERSION_UNSUPPORTED,
            format!(
                "option set '{}' has no version '{version}' (it has: {})",
                set.id,
                known.join(", ")
            ),
        )
    })
}

/// `{valid, issues: [{path, code, message}]}` of `values` against `version`'s schema.
pub fn check(values: &Value, version: &OptionSetVersion) -> Value {
    let issues: Vec<Value> = validate_values(values, &version.schema)
        .iter()
        .map(|i| json!({"path": i.path, "code": i.code, "message": i.message}))
        .collect();
    json!({"valid": issues.is_empty(), "issues": issues})
}

/// Checks `request.values` against the version's schema, as published now.
pub async fn validate(connection: &Connection, request: &ValidateRequest) -> Result<Value, ApiError> {
    let catalog = catalog(connection).await?;
    let set = find_set(&catalog, &request.option_set)?;
    let version = find_version(set, &request.version)?;
    let mut result = check(&request.values, version);
    result["optionSet"] = json!(set.id);
    result["version"] = json!(version.version);
    result["schemaDigest"] = json!(version.schema_digest);
    result["deprecated"] = json!(version.deprecated);
    Ok(result)
}

/// Asks the extension to migrate `request.values` (the source digest taken from its
/// catalog). Answers `{request, options, elapsedMs, check}`, `check` being the result
/// checked against the target version's schema (when the catalog has that version). A
/// refusal by the extension is its code and message, its target among the details.
pub async fn migrate(connection: &Connection, request: &MigrateRequest) -> Result<Value, ApiError> {
    let catalog = catalog(connection).await?;
    let set = find_set(&catalog, &request.option_set)?;
    let from = find_version(set, &request.from_version)?;
    let wire = MigrationRequest {
        option_set: set.id.clone(),
        from_version: from.version.clone(),
        from_schema_digest: from.schema_digest.clone(),
        to_version: request.to_version.clone(),
        values: request.values.clone(),
    };
    let started = Instant::now();
    let answer = tokio::time::timeout(REQUEST_TIMEOUT, connection.client.migrate(&wire)).await;
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    let response = match answer {
        Err(_) => {
            return Err(ApiError::upstream(
                crate::error::codes::TIMED_OUT,
                format!(
                    "POST /aep/configuration/migrate: no answer within {} s",
                    REQUEST_TIMEOUT.as_secs()
                ),
            ));
        }
        Ok(Err(error)) => return Err(refusal(error)),
        Ok(Ok(response)) => response,
    };
    let check = set
        .versions
        .iter()
        .find(|v| v.version == response.options.version)
        .map(|target| check(&response.options.values, target));
    Ok(json!({
        "request": wire,
        "options": response.options,
        "elapsedMs": elapsed_ms,
        "check": check,
    }))
}

/// An AEP error the extension answered with (4xx) is a 422 with its code, message and
/// target; anything else is the client's error.
fn refusal(error: aep_sdk::client::ClientError) -> ApiError {
    match (&error.remote, error.status) {
        (Some(remote), Some(status)) if status.is_client_error() => {
            let mut details = vec![format!("the extension answered HTTP {}", status.as_u16())];
            if let Some(target) = &remote.target {
                details.push(format!("target: {target}"));
            }
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                remote.code.clone(),
                remote.message.clone(),
            )
            .with_details(details)
        }
        _ => error.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(schema: Value, digest: &str) -> OptionSetVersion {
        OptionSetVersion {
            version: "1".into(),
            schema_digest: digest.into(),
            schema,
            deprecated: false,
        }
    }

    #[test]
    fn values_are_checked_with_paths_and_digests_are_recomputed() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "additionalProperties": false});
        let v = version(schema.clone(), &schema_digest(&schema));
        assert_eq!(check(&json!({"n": 2}), &v), json!({"valid": true, "issues": []}));
        let bad = check(&json!({"n": 0, "x": 1}), &v);
        assert_eq!(bad["valid"], false);
        assert_eq!(bad["issues"][0]["path"], "values.n");
        assert_eq!(bad["issues"][1]["code"], "unknown");

        let set = OptionSet {
            id: "s".into(),
            contribution_kind: "model-provider".into(),
            contribution_id: "p".into(),
            scope: "model-profile".into(),
            preferred_version: "1".into(),
            versions: vec![v, version(schema, "sha256:00")],
            migrations: vec![],
        };
        let annotated = annotate(&ConfigurationCatalog {
            option_sets: vec![set],
        });
        assert_eq!(
            annotated["optionSets"][0]["versions"][0]["digestCheck"]["matches"],
            true
        );
        assert_eq!(
            annotated["optionSets"][0]["versions"][1]["digestCheck"]["matches"],
            false
        );
    }
}
