//! Declaring an option set: its versions (schemas from Rust types or literal JSON
//! Schemas), the preferred version, deprecations, pinned digests and migrations.

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::schema::{ROOT_PATH, ValidationIssue};
use crate::AepError;

/// Where a version's schema comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaSource {
    /// A schema held as a value (e.g. `serde_json::json!`); its digest writes numbers as
    /// serde_json does (see [`super::compact_json`]).
    Json(Value),
    /// A schema as JSON text (e.g. `include_str!`); its digest keeps number tokens as
    /// written, exactly as the C# reference computes it. Parse errors are reported by
    /// `build()`.
    Text(String),
}

impl From<Value> for SchemaSource {
    fn from(value: Value) -> Self {
        Self::Json(value)
    }
}

impl From<&str> for SchemaSource {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

impl From<String> for SchemaSource {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

/// Why a migration step failed.
#[derive(Debug, Clone, PartialEq)]
pub enum MigrationError {
    /// Answered as 422 `option_migration_failed`, naming the step and this reason.
    Failed(String),
    /// Answered as is.
    Aep(AepError),
}

impl From<String> for MigrationError {
    fn from(reason: String) -> Self {
        Self::Failed(reason)
    }
}

impl From<&str> for MigrationError {
    fn from(reason: &str) -> Self {
        Self::Failed(reason.to_owned())
    }
}

impl From<AepError> for MigrationError {
    fn from(error: AepError) -> Self {
        Self::Aep(error)
    }
}

/// Attaches typed values to a request's extensions.
pub(crate) type TypedValue = Box<dyn FnOnce(&mut http::Extensions) + Send>;
/// Decodes validated values into a version's Rust type.
pub(crate) type TypedDecoder = Arc<dyn Fn(&Value) -> Result<TypedValue, ValidationIssue> + Send + Sync>;
/// One migration step.
pub(crate) type MigrationFn =
    Arc<dyn Fn(Value) -> BoxFuture<'static, Result<Value, MigrationError>> + Send + Sync>;

pub(crate) struct VersionDecl {
    pub(crate) version: String,
    pub(crate) source: SchemaSource,
    pub(crate) typed: Option<TypedDecoder>,
}

pub(crate) struct MigrationDecl {
    pub(crate) from: String,
    pub(crate) to: String,
    pub(crate) run: MigrationFn,
}

/// An option set bound to a model provider (contribution kind `model-provider`, scope
/// `model-profile`), declared with
/// [`ExtensionBuilder::option_set`](crate::server::ExtensionBuilder::option_set).
/// Nothing is checked until `build()`, which reports every problem at once.
///
/// ```
/// use aep_sdk::config::OptionSetDecl;
/// use serde_json::json;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(rename_all = "camelCase", deny_unknown_fields)]
/// struct ProfileV2 {
///     context_size: Option<u32>,
/// }
///
/// let decl = OptionSetDecl::new("acme.llm/model-profile", "llm")
///     .version("1.0.0", json!({"type": "object", "properties": {"ctx": {"type": "integer"}}}))
///     .deprecated("1.0.0")
///     .version_from_type::<ProfileV2>("2.0.0")
///     .preferred("2.0.0")
///     .migration("1.0.0", "2.0.0", |mut values| async move {
///         if let Some(ctx) = values.as_object_mut().and_then(|v| v.remove("ctx")) {
///             values["contextSize"] = ctx;
///         }
///         Ok::<_, String>(values)
///     });
/// # let _ = decl;
/// ```
pub struct OptionSetDecl {
    pub(crate) id: String,
    pub(crate) provider_id: String,
    pub(crate) versions: Vec<VersionDecl>,
    pub(crate) preferred: Option<String>,
    pub(crate) deprecated: Vec<String>,
    pub(crate) expected_digests: Vec<(String, String)>,
    pub(crate) migrations: Vec<MigrationDecl>,
}

impl OptionSetDecl {
    /// An option set `id` (e.g. `io.agentstration.ollama/model-profile`) for the model
    /// provider `provider_id`.
    pub fn new(id: impl Into<String>, provider_id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            provider_id: provider_id.into(),
            versions: Vec::new(),
            preferred: None,
            deprecated: Vec::new(),
            expected_digests: Vec::new(),
            migrations: Vec::new(),
        }
    }

    /// The option set id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The model provider the set is bound to.
    pub fn provider_id(&self) -> &str {
        &self.provider_id
    }

    /// Adds a version whose schema is a literal JSON Schema: a [`Value`] or JSON text
    /// (text keeps number tokens for the digest, see [`SchemaSource`]). The provider sees
    /// its values as JSON ([`RequestContext::native_options_json`](crate::server::RequestContext::native_options_json)).
    pub fn version(mut self, version: impl Into<String>, schema: impl Into<SchemaSource>) -> Self {
        self.versions.push(VersionDecl {
            version: version.into(),
            source: schema.into(),
            typed: None,
        });
        self
    }

    /// Adds a version whose schema is generated from `T` ([`schema_for_type`]); the
    /// provider also receives its values as a `T`
    /// ([`RequestContext::native_options`](crate::server::RequestContext::native_options)).
    pub fn version_from_type<T>(mut self, version: impl Into<String>) -> Self
    where
        T: JsonSchema + DeserializeOwned + Send + Sync + 'static,
    {
        self.versions.push(VersionDecl {
            version: version.into(),
            source: SchemaSource::Json(schema_for_type::<T>()),
            typed: Some(typed_decoder::<T>()),
        });
        self
    }

    /// Adds a version with a literal schema whose values the provider also receives as a
    /// `T` (for a schema that must keep a published digest yet be read into a Rust type).
    /// Values the schema accepts but `T` refuses are answered as `invalid_options`.
    pub fn version_typed<T>(mut self, version: impl Into<String>, schema: impl Into<SchemaSource>) -> Self
    where
        T: DeserializeOwned + Send + Sync + 'static,
    {
        self.versions.push(VersionDecl {
            version: version.into(),
            source: schema.into(),
            typed: Some(typed_decoder::<T>()),
        });
        self
    }

    /// The version new profiles should use. Optional when there is exactly one version.
    pub fn preferred(mut self, version: impl Into<String>) -> Self {
        self.preferred = Some(version.into());
        self
    }

    /// Marks a version deprecated: still accepted, but hosts should migrate away from it.
    pub fn deprecated(mut self, version: impl Into<String>) -> Self {
        self.deprecated.push(version.into());
        self
    }

    /// Pins the digest `version`'s schema must have (e.g. the digest a published
    /// reference announces); `build()` fails when the computed digest differs.
    pub fn expect_digest(mut self, version: impl Into<String>, digest: impl Into<String>) -> Self {
        self.expected_digests.push((version.into(), digest.into()));
        self
    }

    /// Registers the directed migration edge `from` -> `to`. The step receives values
    /// valid for `from` and returns values for `to`; an `Err` is a string (answered as
    /// `option_migration_failed`) or an [`AepError`] (answered as is). Paths of several
    /// edges are found breadth first; nothing ever migrates implicitly.
    pub fn migration<F, Fut, E>(mut self, from: impl Into<String>, to: impl Into<String>, step: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, E>> + Send + 'static,
        E: Into<MigrationError>,
    {
        let run: MigrationFn = Arc::new(move |values| {
            let future = step(values);
            Box::pin(async move { future.await.map_err(Into::into) })
        });
        self.migrations.push(MigrationDecl {
            from: from.into(),
            to: to.into(),
            run,
        });
        self
    }
}

/// The JSON Schema of `T` as option sets publish it: generated by `schemars`
/// (draft 2020-12), subschemas inlined, no `$schema` member, standard `format`s only
/// (see [`crate::schema`]).
///
/// ```
/// #[derive(schemars::JsonSchema)]
/// #[allow(dead_code)]
/// struct Options { mirostat: u8 }
///
/// let schema = aep_sdk::config::schema_for_type::<Options>();
/// assert_eq!(schema["type"], "object");
/// assert!(schema.get("$schema").is_none());
/// ```
pub fn schema_for_type<T: JsonSchema>() -> Value {
    Value::Object(crate::schema::schema_for::<T>())
}

/// Typed native option values as the request context holds them.
pub(crate) struct TypedOptions<T>(pub(crate) Arc<T>);

impl<T> Clone for TypedOptions<T> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

fn typed_decoder<T: DeserializeOwned + Send + Sync + 'static>() -> TypedDecoder {
    Arc::new(|values: &Value| {
        let typed: T = serde_path_to_error::deserialize(values).map_err(|error| {
            let mut path = ROOT_PATH.to_owned();
            for segment in error.path().iter() {
                match segment {
                    serde_path_to_error::Segment::Seq { index } => path.push_str(&format!("[{index}]")),
                    serde_path_to_error::Segment::Map { key } => path.push_str(&format!(".{key}")),
                    serde_path_to_error::Segment::Enum { variant } => path.push_str(&format!(".{variant}")),
                    serde_path_to_error::Segment::Unknown => {}
                }
            }
            let reason = error.into_inner();
            ValidationIssue::new(
                &path,
                "decode",
                format!("Value at '{path}' cannot be read: {reason}."),
            )
        })?;
        let typed = TypedOptions(Arc::new(typed));
        Ok(Box::new(move |extensions: &mut http::Extensions| {
            extensions.insert(typed);
        }) as TypedValue)
    })
}
