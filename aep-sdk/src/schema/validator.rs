//! The workspace's one JSON Schema validator: the `jsonschema` crate, compiled once per
//! schema, with its errors turned into [`Issue`]s that say where and what in terms a
//! caller can format (option values: `values.x`; tool arguments: `arguments.x`).
//!
//! Two rule sets. [`Rules::Standard`] is JSON Schema as written (what MCP tool schemas
//! mean). [`Rules::Reference`] is what the C# reference checks native option values with,
//! so that a drop-in extension accepts and refuses the same values: an `integer` is a
//! number written without fraction or exponent that fits an `i64` (`1.0`, `1e2` and
//! `u64::MAX` are not) and `required` names that are blank are skipped. (The reference
//! also ignores unknown `type` names; here the meta-schema refuses such a schema.) Both report every issue of a value in document order, and an `enum`
//! or `type` failure stops the checks of the value it is about (what is inside a value of
//! the wrong type is not worth reporting).
//!
//! ```
//! use aep_sdk::schema::{IssueKind, Validator};
//! use serde_json::json;
//!
//! let schema = json!({"type": "object", "required": ["text"],
//!                     "properties": {"n": {"type": "integer", "minimum": 1}}});
//! let validator = Validator::new(&schema).unwrap();
//! let issues = validator.issues(&json!({"n": 0}));
//! assert_eq!(issues[0].kind, IssueKind::Required);
//! assert_eq!(issues[0].path_from("arguments"), "arguments.text");
//! assert_eq!(issues[1].path_from("arguments"), "arguments.n");
//! assert!(matches!(issues[1].kind, IssueKind::Minimum(_)));
//! ```

use std::fmt;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::{Location, LocationSegment};
use jsonschema::{Keyword, ValidationError};
use serde_json::Value;

/// Which meaning a schema's keywords have; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rules {
    /// JSON Schema as written.
    #[default]
    Standard,
    /// The C# reference's option-value rules.
    Reference,
}

/// A compiled JSON Schema.
pub struct Validator {
    inner: jsonschema::Validator,
    rules: Rules,
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Validator")
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}

/// One step of a path into a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// An object member.
    Member(String),
    /// An array item.
    Index(usize),
}

/// What is wrong with the value at an issue's path.
#[derive(Debug, Clone, PartialEq)]
pub enum IssueKind {
    /// Not one of these values (`enum`, or a `oneOf`/`anyOf` of `const`s).
    Enum(Vec<Value>),
    /// Not of these types.
    Type(Vec<String>),
    /// A required member is missing (the path names it).
    Required,
    /// A member that `additionalProperties: false` does not allow (the path names it).
    Unknown,
    /// Below `minimum`.
    Minimum(Value),
    /// Above `maximum`.
    Maximum(Value),
    /// Not above `exclusiveMinimum`.
    ExclusiveMinimum(Value),
    /// Not below `exclusiveMaximum`.
    ExclusiveMaximum(Value),
    /// Fewer characters than `minLength`.
    MinLength(u64),
    /// More characters than `maxLength`.
    MaxLength(u64),
    /// Fewer items than `minItems`.
    MinItems(u64),
    /// More items than `maxItems`.
    MaxItems(u64),
    /// Any other keyword, with the validator's sentence.
    Other {
        /// The keyword, as in the schema.
        keyword: String,
        /// What the validator says.
        message: String,
    },
}

/// One value that does not match its schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    /// Where, from the validated value's root.
    pub path: Vec<Step>,
    /// What.
    pub kind: IssueKind,
    /// The value found there (`None` for a missing member).
    pub found: Option<Value>,
}

impl Issue {
    /// The keyword that failed (`enum`, `type`, `required`, `unknown` for a member
    /// `additionalProperties` refuses, `minimum`, ... or the keyword of [`IssueKind::Other`]).
    pub fn code(&self) -> &str {
        match &self.kind {
            IssueKind::Enum(_) => "enum",
            IssueKind::Type(_) => "type",
            IssueKind::Required => "required",
            IssueKind::Unknown => "unknown",
            IssueKind::Minimum(_) => "minimum",
            IssueKind::Maximum(_) => "maximum",
            IssueKind::ExclusiveMinimum(_) => "exclusiveMinimum",
            IssueKind::ExclusiveMaximum(_) => "exclusiveMaximum",
            IssueKind::MinLength(_) => "minLength",
            IssueKind::MaxLength(_) => "maxLength",
            IssueKind::MinItems(_) => "minItems",
            IssueKind::MaxItems(_) => "maxItems",
            IssueKind::Other { keyword, .. } => keyword,
        }
    }

    /// The path written from `root`: `root.member[2].inner`.
    pub fn path_from(&self, root: &str) -> String {
        let mut text = root.to_owned();
        for step in &self.path {
            match step {
                Step::Member(name) => {
                    text.push('.');
                    text.push_str(name);
                }
                Step::Index(index) => text.push_str(&format!("[{index}]")),
            }
        }
        text
    }
}

impl Issue {
    /// `path: what`, the path written from `root`.
    pub fn describe(&self, root: &str) -> String {
        format!("{}: {}", self.path_from(root), self.kind)
    }
}

impl fmt::Display for IssueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |values: &[Value]| values.iter().map(Value::to_string).collect::<Vec<_>>().join(", ");
        match self {
            IssueKind::Enum(allowed) => write!(f, "must be one of {}", list(allowed)),
            IssueKind::Type(names) => write!(f, "must be of type {}", names.join(" or ")),
            IssueKind::Required => f.write_str("is required"),
            IssueKind::Unknown => f.write_str("is not allowed"),
            IssueKind::Minimum(b) => write!(f, "must be at least {b}"),
            IssueKind::Maximum(b) => write!(f, "must be at most {b}"),
            IssueKind::ExclusiveMinimum(b) => write!(f, "must be greater than {b}"),
            IssueKind::ExclusiveMaximum(b) => write!(f, "must be less than {b}"),
            IssueKind::MinLength(n) => write!(f, "needs at least {n} characters"),
            IssueKind::MaxLength(n) => write!(f, "allows at most {n} characters"),
            IssueKind::MinItems(n) => write!(f, "needs at least {n} items"),
            IssueKind::MaxItems(n) => write!(f, "allows at most {n} items"),
            IssueKind::Other { message, .. } => f.write_str(message),
        }
    }
}

impl Validator {
    /// Compiles `schema` with [`Rules::Standard`].
    ///
    /// # Errors
    /// A sentence saying why `schema` is not a schema this validator can use.
    pub fn new(schema: &Value) -> Result<Self, String> {
        Self::with_rules(schema, Rules::Standard)
    }

    /// Compiles `schema` with the given rules.
    ///
    /// # Errors
    /// A sentence saying why `schema` is not a schema this validator can use.
    pub fn with_rules(schema: &Value, rules: Rules) -> Result<Self, String> {
        let options = jsonschema::options();
        let options = match rules {
            Rules::Standard => options,
            Rules::Reference => options.with_keyword("type", |_, value, _| {
                Ok(Box::new(ReferenceType(type_names(value))) as Box<dyn for<'i> Keyword<'i>>)
            }),
        };
        let inner = options.build(schema).map_err(|error| error.to_string())?;
        Ok(Self { inner, rules })
    }

    /// Whether `value` matches.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.inner.is_valid(value)
    }

    /// Every issue of `value`, in document order (required members before the others of
    /// their object).
    pub fn issues(&self, value: &Value) -> Vec<Issue> {
        let mut found: Vec<(Vec<isize>, Issue)> = Vec::new();
        for error in self.inner.iter_errors(value) {
            for issue in self.convert(&error, value) {
                found.push((order_key(value, &issue), issue));
            }
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let stops: Vec<(Vec<Step>, bool)> = found
            .iter()
            .filter_map(|(_, i)| match i.kind {
                IssueKind::Enum(_) => Some((i.path.clone(), true)),
                IssueKind::Type(_) => Some((i.path.clone(), false)),
                _ => None,
            })
            .collect();
        let mut issues: Vec<Issue> = Vec::new();
        for (_, issue) in found {
            let stopped = stops.iter().any(|(stop, is_enum)| {
                let under = issue.path.len() > stop.len() && issue.path.starts_with(stop);
                let same = issue.path == *stop;
                under
                    || same && !matches!(issue.kind, IssueKind::Enum(_) | IssueKind::Type(_))
                    || same && *is_enum && matches!(issue.kind, IssueKind::Type(_))
            });
            if !stopped && !issues.contains(&issue) {
                issues.push(issue);
            }
        }
        issues
    }

    fn convert(&self, error: &ValidationError<'_>, value: &Value) -> Vec<Issue> {
        let path = steps(error.instance_path());
        let at = |path: Vec<Step>, kind: IssueKind, found: Option<Value>| Issue { path, kind, found };
        let kind = match error.kind() {
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                if self.rules == Rules::Reference && name.trim().is_empty() {
                    return Vec::new();
                }
                let mut member = path.clone();
                member.push(Step::Member(name.to_owned()));
                return vec![at(member, IssueKind::Required, None)];
            }
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                return unexpected
                    .iter()
                    .map(|name| {
                        let mut member = path.clone();
                        member.push(Step::Member(name.clone()));
                        let found = resolve(value, &member).cloned();
                        at(member, IssueKind::Unknown, found)
                    })
                    .collect();
            }
            ValidationErrorKind::Enum { options } => {
                IssueKind::Enum(options.as_array().cloned().unwrap_or_default())
            }
            ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
                match consts(context) {
                    Some(allowed) => IssueKind::Enum(allowed),
                    None => other(error),
                }
            }
            ValidationErrorKind::Type { kind } => IssueKind::Type(match kind {
                TypeKind::Single(one) => vec![one.to_string()],
                TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
            }),
            ValidationErrorKind::Custom { keyword, message } if keyword == "type" => {
                IssueKind::Type(serde_json::from_str(message).unwrap_or_default())
            }
            ValidationErrorKind::Minimum { limit } => IssueKind::Minimum(limit.clone()),
            ValidationErrorKind::Maximum { limit } => IssueKind::Maximum(limit.clone()),
            ValidationErrorKind::ExclusiveMinimum { limit } => IssueKind::ExclusiveMinimum(limit.clone()),
            ValidationErrorKind::ExclusiveMaximum { limit } => IssueKind::ExclusiveMaximum(limit.clone()),
            ValidationErrorKind::MinLength { limit } => IssueKind::MinLength(*limit),
            ValidationErrorKind::MaxLength { limit } => IssueKind::MaxLength(*limit),
            ValidationErrorKind::MinItems { limit } => IssueKind::MinItems(*limit),
            ValidationErrorKind::MaxItems { limit } => IssueKind::MaxItems(*limit),
            _ => other(error),
        };
        let found = resolve(value, &path).cloned();
        vec![at(path, kind, found)]
    }
}

fn other(error: &ValidationError<'_>) -> IssueKind {
    IssueKind::Other {
        keyword: error.kind().keyword().to_owned(),
        message: error.to_string(),
    }
}

/// The values of a `oneOf`/`anyOf` whose every branch failed only on `const`.
fn consts(branches: &[Vec<ValidationError<'static>>]) -> Option<Vec<Value>> {
    let mut allowed = Vec::new();
    for branch in branches {
        match branch.as_slice() {
            [only] => match only.kind() {
                ValidationErrorKind::Constant { expected_value } => allowed.push((**expected_value).clone()),
                _ => return None,
            },
            _ => return None,
        }
    }
    (!allowed.is_empty()).then_some(allowed)
}

fn steps(location: &Location) -> Vec<Step> {
    location
        .iter()
        .map(|segment| match segment {
            LocationSegment::Property(name) => Step::Member(name.into_owned()),
            LocationSegment::Index(index) => Step::Index(index),
        })
        .collect()
}

fn resolve<'v>(value: &'v Value, path: &[Step]) -> Option<&'v Value> {
    path.iter().try_fold(value, |value, step| match step {
        Step::Member(name) => value.get(name),
        Step::Index(index) => value.get(index),
    })
}

/// Document order: each step's position in the value, then the keyword's rank within the
/// value: enum, type and required members come before what is inside the value, every
/// other keyword after it (an array's items before its `maxItems`).
fn order_key(value: &Value, issue: &Issue) -> Vec<isize> {
    let (path, rank) = match issue.kind {
        IssueKind::Required => (&issue.path[..issue.path.len().saturating_sub(1)], -1),
        IssueKind::Enum(_) => (&issue.path[..], -4),
        IssueKind::Type(_) => (&issue.path[..], -3),
        _ => (&issue.path[..], isize::MAX),
    };
    let mut key = Vec::with_capacity(path.len() + 1);
    let mut at = Some(value);
    for step in path {
        let (position, next) = match (step, at) {
            (Step::Member(name), Some(Value::Object(members))) => (
                members.keys().position(|k| k == name).unwrap_or(usize::MAX >> 1),
                members.get(name),
            ),
            (Step::Index(index), Some(Value::Array(items))) => (*index, items.get(*index)),
            _ => (usize::MAX >> 1, None),
        };
        key.push(position as isize);
        at = next;
    }
    key.push(rank);
    key
}

fn type_names(value: &Value) -> Vec<String> {
    match value {
        Value::String(name) => vec![name.clone()],
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// `type` under [`Rules::Reference`]; its error message is the expected names as JSON,
/// read back by [`Validator::convert`].
struct ReferenceType(Vec<String>);

impl ReferenceType {
    fn matches(&self, value: &Value) -> bool {
        self.0.is_empty()
            || self.0.iter().any(|name| match name.as_str() {
                "object" => value.is_object(),
                "array" => value.is_array(),
                "string" => value.is_string(),
                "boolean" => value.is_boolean(),
                "number" => value.is_number(),
                "integer" => value.as_i64().is_some(),
                "null" => value.is_null(),
                _ => false,
            })
    }
}

impl<'i> Keyword<'i> for ReferenceType {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.matches(instance) {
            return Ok(());
        }
        Err(ValidationError::custom(Value::from(self.0.clone()).to_string()))
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        self.matches(instance)
    }
}

/// Problems of `schema` as a JSON Schema document: what its meta-schema says (paths are
/// JSON pointers into `schema`), or why it cannot be compiled.
pub fn schema_problems(schema: &Value) -> Vec<String> {
    let problems: Vec<String> = match jsonschema::meta::validator_for(schema) {
        Err(error) => vec![format!("its meta-schema cannot be used: {error}")],
        Ok(meta) => meta
            .iter_errors(schema)
            .map(|error| format!("{}: {error}", or_root(error.instance_path().as_str())))
            .collect(),
    };
    if !problems.is_empty() {
        return problems;
    }
    match Validator::new(schema) {
        Ok(_) => Vec::new(),
        Err(error) => vec![error],
    }
}

fn or_root(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}
