//! What `GET /aep/configuration` serves (the catalog document) and what
//! `POST /aep/configuration/migrate` does; the routes themselves are the server's
//! (`server::config_routes`).

use std::collections::{HashSet, VecDeque};

use bytes::Bytes;

use super::validate_request::issues_error;
use super::{CompiledEdge, CompiledSet, Configuration, sorted_edges};
use crate::AepError;
use crate::error::codes;
use crate::protocol::{
    CONTRIBUTION_KIND_MODEL_PROVIDER, MigrationRequest, MigrationResponse, SCOPE_MODEL_PROFILE,
    VersionedOptions,
};

impl Configuration {
    /// The catalog document, as served.
    pub(crate) fn catalog(&self) -> Bytes {
        self.catalog.clone()
    }
}

fn json_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// The catalog document, written by hand so that each schema is served as its compact
/// text: a client that re-digests the schema it reads gets the published digest, number
/// tokens included.
pub(super) fn catalog_bytes(sets: &[CompiledSet]) -> Bytes {
    let mut out = String::from("{\"optionSets\":[");
    for (i, set) in sets.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            "{{\"id\":{},\"contributionKind\":{},\"contributionId\":{},\"scope\":{},\"preferredVersion\":{},\"versions\":[",
            json_string(&set.id),
            json_string(CONTRIBUTION_KIND_MODEL_PROVIDER),
            json_string(&set.contribution_id),
            json_string(SCOPE_MODEL_PROFILE),
            json_string(&set.preferred),
        ));
        for (j, version) in set.versions.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            out.push_str(&format!(
                "{{\"version\":{},\"schemaDigest\":{},\"schema\":{},\"deprecated\":{}}}",
                json_string(&version.version),
                json_string(&version.digest),
                version.compact,
                version.deprecated
            ));
        }
        out.push(']');
        let edges = sorted_edges(set);
        if !edges.is_empty() {
            out.push_str(",\"migrations\":[");
            for (j, edge) in edges.iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                out.push_str(&format!(
                    "{{\"fromVersion\":{},\"toVersion\":{}}}",
                    json_string(&edge.from_version),
                    json_string(&edge.to_version)
                ));
            }
            out.push(']');
        }
        out.push('}');
    }
    out.push_str("]}");
    Bytes::from(out)
}

/// The shortest chain of edges from `from` to `to` (breadth first, edges in declaration
/// order); empty when `from == to`, `None` when there is no path.
fn find_path<'a>(set: &'a CompiledSet, from: &str, to: &str) -> Option<Vec<&'a CompiledEdge>> {
    if from == to {
        return Some(Vec::new());
    }
    let mut visited = HashSet::from([from.to_owned()]);
    let mut queue = VecDeque::from([(from.to_owned(), Vec::new())]);
    while let Some((version, path)) = queue.pop_front() {
        for edge in set.edges.iter().filter(|e| e.from == version) {
            let mut next: Vec<&CompiledEdge> = path.clone();
            next.push(edge);
            if edge.to == to {
                return Some(next);
            }
            if visited.insert(edge.to.clone()) {
                queue.push_back((edge.to.clone(), next));
            }
        }
    }
    None
}

impl Configuration {
    /// Migrates `request.values` along the shortest chain of declared steps, checking
    /// the source, every step's result and the target.
    pub(crate) async fn migrate(&self, request: MigrationRequest) -> Result<MigrationResponse, AepError> {
        migrate(self, request).await
    }
}

async fn migrate(config: &Configuration, request: MigrationRequest) -> Result<MigrationResponse, AepError> {
    let unsupported_version = |role: &str, version: &str, target: &str| {
        AepError::unprocessable(
            codes::OPTION_VERSION_UNSUPPORTED,
            format!(
                "{role} version '{version}' of option set '{}' is not supported.",
                request.option_set
            ),
        )
        .with_target(target)
    };
    let set = config
        .sets
        .iter()
        .find(|s| s.id == request.option_set)
        .ok_or_else(|| {
            AepError::unprocessable(
                codes::OPTION_SET_UNSUPPORTED,
                format!("Option set '{}' is not supported.", request.option_set),
            )
            .with_target("optionSet")
        })?;
    let source = set
        .version(&request.from_version)
        .ok_or_else(|| unsupported_version("Source", &request.from_version, "fromVersion"))?;
    let target = set
        .version(&request.to_version)
        .ok_or_else(|| unsupported_version("Target", &request.to_version, "toVersion"))?;
    if source.digest != request.from_schema_digest {
        return Err(AepError::unprocessable(
            codes::OPTION_SCHEMA_MISMATCH,
            format!(
                "The source schema digest '{}' does not match version '{}' of option set '{}' ('{}').",
                request.from_schema_digest, source.version, set.id, source.digest
            ),
        )
        .with_target("fromSchemaDigest"));
    }
    source.check(&request.values).map_err(|issues| {
        issues_error(
            codes::INVALID_OPTIONS,
            "The migration source values are invalid: ",
            &issues,
        )
    })?;
    let path = find_path(set, &source.version, &target.version).ok_or_else(|| {
        AepError::unprocessable(
            codes::OPTION_MIGRATION_UNSUPPORTED,
            format!(
                "No migration path exists from '{}' to '{}' in option set '{}'.",
                source.version, target.version, set.id
            ),
        )
        .with_target("toVersion")
    })?;
    let mut values = request.values;
    for edge in path {
        let step_error = |code: &str, message: String| {
            AepError::unprocessable(code, message)
                .with_detail("fromVersion", edge.from.clone())
                .with_detail("toVersion", edge.to.clone())
        };
        values = (edge.run)(values).await.map_err(|error| match error {
            super::MigrationError::Aep(error) => error,
            super::MigrationError::Failed(reason) => step_error(
                codes::OPTION_MIGRATION_FAILED,
                format!(
                    "Migration of option set '{}' from '{}' to '{}' failed: {reason}",
                    set.id, edge.from, edge.to
                ),
            ),
        })?;
        let reached = set
            .version(&edge.to)
            .ok_or_else(|| AepError::internal("migration edge to an unknown version"))?;
        reached.check(&values).map_err(|issues| {
            let prefix = format!(
                "Migration of option set '{}' from '{}' to '{}' produced values that do not match version '{}': ",
                set.id, edge.from, edge.to, edge.to
            );
            issues_error(codes::OPTION_MIGRATION_FAILED, &prefix, &issues)
                .with_detail("fromVersion", edge.from.clone())
                .with_detail("toVersion", edge.to.clone())
        })?;
    }
    let options = VersionedOptions {
        option_set: set.id.clone(),
        version: target.version.clone(),
        schema_digest: target.digest.clone(),
        values,
    };
    Ok(MigrationResponse { options })
}
