//! Option-set catalog and versioned options (spec section 5).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::serde_util::null_default;

/// `contributionKind` of an option set bound to a model provider.
pub const CONTRIBUTION_KIND_MODEL_PROVIDER: &str = "model-provider";
/// `scope` of an option set that configures a model profile.
pub const SCOPE_MODEL_PROFILE: &str = "model-profile";

/// `GET /aep/configuration`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigurationCatalog {
    /// Published option sets.
    #[serde(default, deserialize_with = "null_default")]
    pub option_sets: Vec<OptionSet>,
}

/// One option set: a family of schema versions bound to a contribution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionSet {
    /// Id, e.g. `io.agentstration.ollama/model-profile`.
    pub id: String,
    /// `model-provider`.
    pub contribution_kind: String,
    /// Id of the contribution (provider id).
    pub contribution_id: String,
    /// `model-profile`.
    pub scope: String,
    /// Version new profiles should use.
    pub preferred_version: String,
    /// Every supported version.
    #[serde(default, deserialize_with = "null_default")]
    pub versions: Vec<OptionSetVersion>,
    /// Registered migration edges; omitted when none.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub migrations: Vec<MigrationEdge>,
}

/// One version of an option set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionSetVersion {
    /// Version string, e.g. `1.0.0`.
    pub version: String,
    /// `sha256:` + lowercase hex of the compact schema.
    pub schema_digest: String,
    /// The JSON Schema of `values`.
    pub schema: Value,
    /// Still accepted, but should be migrated away from.
    #[serde(default, deserialize_with = "null_default")]
    pub deprecated: bool,
}

/// A directed migration edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MigrationEdge {
    /// Source version.
    pub from_version: String,
    /// Target version.
    pub to_version: String,
}

/// `options.nativeOptions` of a chat request, and the answer of a migration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionedOptions {
    /// Option set id.
    pub option_set: String,
    /// Version the values were written for.
    pub version: String,
    /// Digest of that version's schema, as the host saw it.
    pub schema_digest: String,
    /// The values (a JSON object).
    pub values: Value,
}

/// `POST /aep/configuration/migrate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MigrationRequest {
    /// Option set id.
    pub option_set: String,
    /// Version the values are at.
    pub from_version: String,
    /// Digest of that version's schema.
    pub from_schema_digest: String,
    /// Version to migrate to.
    pub to_version: String,
    /// The values.
    pub values: Value,
}

/// Answer of `POST /aep/configuration/migrate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MigrationResponse {
    /// The complete target envelope.
    pub options: VersionedOptions,
}
