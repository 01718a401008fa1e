//! Versioned configuration (`aep.configuration`, spec section 5).
//!
//! An extension publishes *option sets*: families of JSON Schema versions for the
//! provider-native options of one model provider. Declare them with [`OptionSetDecl`] and
//! [`ExtensionBuilder::option_set`](crate::server::ExtensionBuilder::option_set); the
//! runtime then
//!
//! - advertises `aep.configuration` in the manifest (only when there is an option set);
//! - serves `GET /aep/configuration` (the catalog, each version with its schema and
//!   [digest](schema_digest)) and `POST /aep/configuration/migrate`;
//! - checks `options.nativeOptions` of every `/chat` and `/chat/stream` request before the
//!   provider runs (unknown set, unknown version, other digest, values that fail the
//!   schema: each a 422 naming the path), and hands the provider the validated values
//!   ([`RequestContext::native_options_json`](crate::server::RequestContext::native_options_json),
//!   and [`RequestContext::native_options`](crate::server::RequestContext::native_options)
//!   for versions declared from a Rust type).
//!
//! ```
//! use aep_sdk::config::OptionSetDecl;
//! use aep_sdk::prelude::*;
//! use aep_sdk::server::{ChatStream, Extension, ModelProvider};
//!
//! #[derive(Clone, serde::Deserialize, schemars::JsonSchema)]
//! #[serde(rename_all = "camelCase", deny_unknown_fields)]
//! struct Profile {
//!     /// Context window in tokens.
//!     context_size: Option<u32>,
//! }
//!
//! struct Llm;
//!
//! impl ModelProvider for Llm {
//!     async fn chat_stream(&self, _request: ChatRequest, ctx: RequestContext) -> Result<ChatStream, AepError> {
//!         let context = ctx.native_options::<Profile>().and_then(|p| p.context_size).unwrap_or(2048);
//!         Ok(ChatStream::from_updates([ChatUpdate::text(format!("context {context}"))]))
//!     }
//! }
//!
//! let extension = Extension::builder("acme.llm", "LLM", "1.0.0")
//!     .model_provider(ModelProviderDescriptor::new("llm", "LLM"), Llm)
//!     .option_set(OptionSetDecl::new("acme.llm/model-profile", "llm").version_from_type::<Profile>("1.0.0"))
//!     .build()
//!     .unwrap();
//! let manifest = extension.manifest(aep_sdk::protocol::ProtocolVersion::V1);
//! assert!(manifest.capabilities.contains_key("aep.configuration"));
//! ```

mod digest;
mod migrate;
mod option_set;
mod schema;
mod validate_request;

use std::collections::HashSet;
use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;

pub use digest::{
    DIGEST_PREFIX, JsonTextError, MAX_DEPTH, compact_json, compact_json_text, digest_of_compact,
    schema_digest, schema_digest_text,
};
pub use option_set::{MigrationError, OptionSetDecl, SchemaSource, schema_for_type};
pub use schema::{ROOT_PATH, ValidationIssue, validate_at, validate_values};

pub(crate) use option_set::TypedOptions;
pub(crate) use validate_request::ValidatedOptions;

use crate::protocol::{MigrationEdge, ModelProviderDescriptor};
use option_set::{MigrationFn, TypedDecoder, TypedValue};

/// The checked option sets of an extension, what the routes and the request check use.
pub(crate) struct Configuration {
    sets: Vec<CompiledSet>,
    catalog: Bytes,
}

struct CompiledSet {
    id: String,
    contribution_id: String,
    preferred: String,
    versions: Vec<CompiledVersion>,
    edges: Vec<CompiledEdge>,
}

struct CompiledVersion {
    version: String,
    digest: String,
    validator: crate::schema::Validator,
    compact: String,
    deprecated: bool,
    typed: Option<TypedDecoder>,
}

struct CompiledEdge {
    from: String,
    to: String,
    run: MigrationFn,
}

impl CompiledSet {
    fn version(&self, version: &str) -> Option<&CompiledVersion> {
        self.versions.iter().find(|v| v.version == version)
    }
}

impl CompiledVersion {
    /// Checks values against the schema, then decodes them into the version's Rust type
    /// if it has one. `Err` holds every issue (never empty).
    fn check(&self, values: &Value) -> Result<Option<TypedValue>, Vec<ValidationIssue>> {
        if !values.is_object() {
            return Err(vec![ValidationIssue::new(
                ROOT_PATH,
                "type",
                format!("Value at '{ROOT_PATH}' must be a JSON object."),
            )]);
        }
        let issues = schema::issues_at(&self.validator, values, ROOT_PATH);
        if !issues.is_empty() {
            return Err(issues);
        }
        match &self.typed {
            Some(decode) => decode(values).map(Some).map_err(|issue| vec![issue]),
            None => Ok(None),
        }
    }
}

impl Configuration {
    /// Checks the declarations against the providers and compiles them; the second value
    /// lists every problem found (the configuration is only usable when it is empty).
    pub(crate) fn compile(
        decls: Vec<OptionSetDecl>,
        providers: &[ModelProviderDescriptor],
    ) -> (Arc<Configuration>, Vec<String>) {
        let mut problems = Vec::new();
        let mut ids = HashSet::new();
        let mut sets = Vec::new();
        for (index, decl) in decls.into_iter().enumerate() {
            let name = if decl.id.trim().is_empty() {
                problems.push(format!("option set #{index}: id must not be empty"));
                format!("#{index}")
            } else {
                if !ids.insert(decl.id.clone()) {
                    problems.push(format!("option set '{}' is declared more than once", decl.id));
                }
                format!("'{}'", decl.id)
            };
            if !providers
                .iter()
                .any(|p| p.id.eq_ignore_ascii_case(&decl.provider_id))
            {
                problems.push(format!(
                    "option set {name}: contribution '{}' is not a declared model provider",
                    decl.provider_id
                ));
            }
            if let Some(set) = compile_set(decl, &name, &mut problems) {
                sets.push(set);
            }
        }
        let catalog = migrate::catalog_bytes(&sets);
        (Arc::new(Configuration { sets, catalog }), problems)
    }

    /// Whether no option set is declared (then there is no capability and no route).
    pub(crate) fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }
}

/// The migration edges as published: ordered by source, then target version.
fn sorted_edges(set: &CompiledSet) -> Vec<MigrationEdge> {
    let mut edges: Vec<MigrationEdge> = set
        .edges
        .iter()
        .map(|e| MigrationEdge {
            from_version: e.from.clone(),
            to_version: e.to.clone(),
        })
        .collect();
    edges.sort_by(|a, b| (&a.from_version, &a.to_version).cmp(&(&b.from_version, &b.to_version)));
    edges
}

fn compile_set(decl: OptionSetDecl, name: &str, problems: &mut Vec<String>) -> Option<CompiledSet> {
    let before = problems.len();
    if decl.versions.is_empty() {
        problems.push(format!("option set {name} declares no version"));
    }
    let mut versions: Vec<CompiledVersion> = Vec::new();
    for version in decl.versions {
        let label = format!("option set {name} version '{}'", version.version);
        if version.version.trim().is_empty() {
            problems.push(format!("option set {name}: a version string must not be empty"));
            continue;
        }
        if versions.iter().any(|v| v.version == version.version) {
            problems.push(format!("{label} is declared more than once"));
            continue;
        }
        let (schema, compact) = match version.source {
            option_set::SchemaSource::Json(schema) => {
                let compact = compact_json(&schema);
                (schema, compact)
            }
            option_set::SchemaSource::Text(text) => {
                let compact = match compact_json_text(&text) {
                    Ok(compact) => compact,
                    Err(error) => {
                        problems.push(format!("{label}: the schema is not valid JSON: {error}"));
                        continue;
                    }
                };
                match serde_json::from_str::<Value>(&text) {
                    Ok(schema) => (schema, compact),
                    Err(error) => {
                        problems.push(format!("{label}: the schema cannot be read: {error}"));
                        continue;
                    }
                }
            }
        };
        if !schema.is_object() {
            problems.push(format!("{label}: the schema must be a JSON object"));
            continue;
        }
        let validator = match schema::compile(&schema) {
            Ok(validator) => validator,
            Err(error) => {
                problems.push(format!("{label}: the schema cannot be used: {error}"));
                continue;
            }
        };
        versions.push(CompiledVersion {
            digest: digest_of_compact(&compact),
            version: version.version,
            validator,
            compact,
            deprecated: false,
            typed: version.typed,
        });
    }
    for deprecated in &decl.deprecated {
        match versions.iter_mut().find(|v| &v.version == deprecated) {
            Some(version) => version.deprecated = true,
            None => problems.push(format!(
                "option set {name}: deprecated version '{deprecated}' is not declared"
            )),
        }
    }
    for (version, expected) in &decl.expected_digests {
        match versions.iter().find(|v| &v.version == version) {
            Some(v) if &v.digest != expected => problems.push(format!(
                "option set {name} version '{version}': schema digest mismatch: declared '{expected}', computed '{}'",
                v.digest
            )),
            Some(_) => {}
            None => problems.push(format!(
                "option set {name}: a digest is pinned for version '{version}', which is not declared"
            )),
        }
    }
    let listed = || {
        versions
            .iter()
            .map(|v| format!("'{}'", v.version))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let preferred = match (&decl.preferred, versions.as_slice()) {
        (Some(preferred), _) => {
            if !versions.iter().any(|v| &v.version == preferred) {
                problems.push(format!(
                    "option set {name}: preferred version '{preferred}' is not among its versions ({})",
                    listed()
                ));
            }
            preferred.clone()
        }
        (None, [only]) => only.version.clone(),
        (None, _) => {
            if versions.len() > 1 {
                problems.push(format!(
                    "option set {name}: no preferred version among {}; declare one with .preferred(...)",
                    listed()
                ));
            }
            String::new()
        }
    };
    let mut edges: Vec<CompiledEdge> = Vec::new();
    for edge in decl.migrations {
        let label = format!("option set {name}: migration '{}' -> '{}'", edge.from, edge.to);
        let mut ok = true;
        for end in [&edge.from, &edge.to] {
            if !versions.iter().any(|v| &v.version == end) {
                problems.push(format!("{label} names unknown version '{end}'"));
                ok = false;
            }
        }
        if edge.from == edge.to {
            problems.push(format!("{label} migrates a version to itself"));
            ok = false;
        } else if edges.iter().any(|e| e.from == edge.from && e.to == edge.to) {
            problems.push(format!("{label} is registered more than once"));
            ok = false;
        }
        if ok {
            edges.push(CompiledEdge {
                from: edge.from,
                to: edge.to,
                run: edge.run,
            });
        }
    }
    (problems.len() == before).then_some(CompiledSet {
        id: decl.id,
        contribution_id: decl.provider_id,
        preferred,
        versions,
        edges,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{
        CONTRIBUTION_KIND_MODEL_PROVIDER, ConfigurationCatalog, OptionSet, OptionSetVersion,
        SCOPE_MODEL_PROFILE,
    };
    use serde_json::json;

    /// The catalog as wire types, to compare with the hand-written served bytes.
    fn build_catalog(sets: &[CompiledSet]) -> ConfigurationCatalog {
        ConfigurationCatalog {
            option_sets: sets
                .iter()
                .map(|set| OptionSet {
                    id: set.id.clone(),
                    contribution_kind: CONTRIBUTION_KIND_MODEL_PROVIDER.to_owned(),
                    contribution_id: set.contribution_id.clone(),
                    scope: SCOPE_MODEL_PROFILE.to_owned(),
                    preferred_version: set.preferred.clone(),
                    versions: set
                        .versions
                        .iter()
                        .map(|v| OptionSetVersion {
                            version: v.version.clone(),
                            schema_digest: v.digest.clone(),
                            schema: serde_json::from_str(&v.compact).unwrap(),
                            deprecated: v.deprecated,
                        })
                        .collect(),
                    migrations: sorted_edges(set),
                })
                .collect(),
        }
    }

    fn providers() -> Vec<ModelProviderDescriptor> {
        vec![ModelProviderDescriptor::new("llm", "LLM")]
    }

    fn problems(decl: OptionSetDecl) -> Vec<String> {
        Configuration::compile(vec![decl], &providers()).1
    }

    #[test]
    fn catalog_lists_versions_digests_and_sorted_migrations() {
        let decl = OptionSetDecl::new("s", "LLM")
            .version("2", json!({"type": "object"}))
            .version("1", "{ \"type\" : \"object\", \"maximum\": 1.0 }")
            .preferred("2")
            .deprecated("1")
            .migration("2", "1", |v| async move { Ok::<_, String>(v) })
            .migration("1", "2", |v| async move { Ok::<_, String>(v) });
        let (config, problems) = Configuration::compile(vec![decl], &providers());
        assert!(problems.is_empty(), "{problems:?}");
        let catalog = build_catalog(&config.sets);
        let set = &catalog.option_sets[0];
        assert_eq!(set.contribution_id, "LLM");
        assert_eq!(
            set.versions[1].schema_digest,
            digest_of_compact(r#"{"type":"object","maximum":1.0}"#)
        );
        assert!(set.versions[1].deprecated && !set.versions[0].deprecated);
        assert_eq!(
            set.migrations[0],
            MigrationEdge {
                from_version: "1".into(),
                to_version: "2".into()
            }
        );
        // The served bytes read back as the same catalog; the schema keeps its number text.
        let served: ConfigurationCatalog = serde_json::from_slice(&config.catalog).unwrap();
        assert_eq!(served, catalog);
        let text = std::str::from_utf8(&config.catalog).unwrap();
        assert!(
            text.contains(r#""schema":{"type":"object","maximum":1.0}"#),
            "{text}"
        );
    }

    #[test]
    fn single_version_is_preferred_by_default() {
        let (config, problems) = Configuration::compile(
            vec![OptionSetDecl::new("s", "llm").version("1", json!({}))],
            &providers(),
        );
        assert!(problems.is_empty());
        assert_eq!(build_catalog(&config.sets).option_sets[0].preferred_version, "1");
    }

    #[test]
    fn every_declaration_problem_is_reported() {
        let noop = |v: Value| async move { Ok::<_, String>(v) };
        let all = problems(
            OptionSetDecl::new("s", "nope")
                .version("1", json!({}))
                .version("1", json!({}))
                .version("2", "{bad")
                .version("3", json!([]))
                .preferred("9")
                .deprecated("8")
                .expect_digest("1", "sha256:00")
                .expect_digest("7", "sha256:00")
                .migration("1", "6", noop)
                .migration("1", "1", noop)
                .migration("5", "1", noop),
        );
        let expected = [
            "contribution 'nope' is not a declared model provider",
            "version '1' is declared more than once",
            "version '2': the schema is not valid JSON",
            "version '3': the schema must be a JSON object",
            "deprecated version '8' is not declared",
            "version '1': schema digest mismatch",
            "digest is pinned for version '7'",
            "preferred version '9' is not among its versions",
            "migration '1' -> '6' names unknown version '6'",
            "migration '1' -> '1' migrates a version to itself",
            "migration '5' -> '1' names unknown version '5'",
        ];
        assert_eq!(all.len(), expected.len(), "{all:#?}");
        for (problem, fragment) in all.iter().zip(expected) {
            assert!(problem.contains(fragment), "{problem:?} lacks {fragment:?}");
        }
        let duplicated = problems(
            OptionSetDecl::new("s", "llm")
                .version("1", json!({}))
                .version("2", json!({}))
                .migration("1", "2", noop)
                .migration("1", "2", noop),
        );
        assert_eq!(duplicated.len(), 2, "{duplicated:?}");
        assert!(duplicated[0].contains("no preferred version"));
        assert!(duplicated[1].contains("registered more than once"));
        let (_, twice) = Configuration::compile(
            vec![
                OptionSetDecl::new("s", "llm").version("1", json!({})),
                OptionSetDecl::new("s", "llm").version("1", json!({})),
            ],
            &providers(),
        );
        assert_eq!(twice, ["option set 's' is declared more than once"]);
        assert!(
            problems(OptionSetDecl::new(" ", "llm").version("1", json!({})))[0]
                .contains("id must not be empty")
        );
        assert!(problems(OptionSetDecl::new("s", "llm"))[0].contains("declares no version"));
    }
}
