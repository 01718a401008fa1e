//! How native option values are checked against their schema (spec section 5): with
//! [`crate::schema::Validator`] under [`Rules::Reference`], the C# reference's rules, so a
//! drop-in extension accepts and refuses the same values, and in its words.
//!
//! The reference checks `type`, `enum`, `properties`, `required`, `additionalProperties`,
//! `items`, `minimum`, `maximum` and `exclusiveMinimum`: `enum` first, then `type` (a
//! failure of either stops the checks of that value); an object's `required` members,
//! then its members in written order. Numbers compare by value (`1` equals `1.0` in an
//! `enum`); an `integer` is a number without fraction or exponent that fits an `i64`.
//! Paths read `values`, `values.x`, `values.a[0]`. Being a full JSON Schema validator,
//! this one also checks every other standard keyword (`exclusiveMaximum`, `pattern`,
//! `minLength`, `oneOf`, ...), which is only ever stricter.
//!
//! ```
//! use aep_sdk::config::validate_values;
//! use serde_json::json;
//!
//! let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}},
//!                     "additionalProperties": false});
//! let issues = validate_values(&json!({"n": 0, "x": true}), &schema);
//! assert_eq!(issues[0].path, "values.n");
//! assert_eq!(issues[0].code, "minimum");
//! assert_eq!(issues[1].path, "values.x");
//! assert_eq!(issues[1].code, "unknown");
//! ```

use std::fmt;

use serde_json::Value;

use crate::schema::{Issue, IssueKind, Rules, Validator};

/// The root of every path: the `values` member of versioned options.
pub const ROOT_PATH: &str = "values";

/// One value that does not match its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationIssue {
    /// Where: `values`, `values.x`, `values.a[0]`.
    pub path: String,
    /// Which rule: `enum`, `type`, `required`, `unknown`, `minimum`, `maximum`,
    /// `exclusiveMinimum`, `exclusiveMaximum`, another JSON Schema keyword, or `decode`
    /// for a value its Rust type refuses.
    pub code: String,
    /// A sentence that names the path.
    pub message: String,
}

impl ValidationIssue {
    pub(crate) fn new(path: &str, code: &str, message: String) -> Self {
        Self {
            path: path.to_owned(),
            code: code.to_owned(),
            message,
        }
    }

    /// The issue in the reference's words, its path written from `root`.
    pub(crate) fn from_issue(issue: &Issue, root: &str) -> Self {
        let path = issue.path_from(root);
        let message = match &issue.kind {
            IssueKind::Enum(_) => format!("Value at '{path}' is not one of the supported values."),
            IssueKind::Type(names) => {
                let names: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
                format!("Value at '{path}' must be of type {}.", names.join(" or "))
            }
            IssueKind::Required => format!("Required option '{path}' is missing."),
            IssueKind::Unknown => format!("Option '{path}' is not supported."),
            IssueKind::Minimum(bound) => format!("Value at '{path}' must be at least {bound}."),
            IssueKind::Maximum(bound) => format!("Value at '{path}' must be at most {bound}."),
            IssueKind::ExclusiveMinimum(bound) => {
                format!("Value at '{path}' must be greater than {bound}.")
            }
            IssueKind::ExclusiveMaximum(bound) => {
                format!("Value at '{path}' must be less than {bound}.")
            }
            IssueKind::MinLength(n) => format!("Value at '{path}' must have at least {n} characters."),
            IssueKind::MaxLength(n) => format!("Value at '{path}' must have at most {n} characters."),
            IssueKind::MinItems(n) => format!("Value at '{path}' must have at least {n} items."),
            IssueKind::MaxItems(n) => format!("Value at '{path}' must have at most {n} items."),
            IssueKind::Other { message, .. } => format!("Value at '{path}': {message}."),
        };
        Self::new(&path, issue.code(), message)
    }
}

impl fmt::Display for ValidationIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// An option schema compiled under the reference's rules.
pub(crate) fn compile(schema: &Value) -> Result<Validator, String> {
    Validator::with_rules(schema, Rules::Reference)
}

/// The issues `validator` finds in `value`, paths written from `path`.
pub(crate) fn issues_at(validator: &Validator, value: &Value, path: &str) -> Vec<ValidationIssue> {
    validator
        .issues(value)
        .iter()
        .map(|issue| ValidationIssue::from_issue(issue, path))
        .collect()
}

/// Checks option `values` against `schema`; every issue found, in document order.
pub fn validate_values(values: &Value, schema: &Value) -> Vec<ValidationIssue> {
    validate_at(values, schema, ROOT_PATH)
}

/// Checks `value` against `schema`, naming paths from `path`. A schema that cannot be
/// compiled is one issue at `path` with the code `schema`.
pub fn validate_at(value: &Value, schema: &Value, path: &str) -> Vec<ValidationIssue> {
    match compile(schema) {
        Ok(validator) => issues_at(&validator, value, path),
        Err(error) => vec![ValidationIssue::new(
            path,
            "schema",
            format!("The schema for '{path}' cannot be used: {error}"),
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(values: Value, schema: Value) -> Vec<(String, String)> {
        validate_values(&values, &schema)
            .into_iter()
            .map(|i| (i.path, i.code))
            .collect()
    }

    fn pair(path: &str, code: &str) -> (String, String) {
        (path.to_owned(), code.to_owned())
    }

    #[test]
    fn ollama_like_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "think": {"description": "anything"},
                "keepAlive": {"type": "string"},
                "mirostat": {"type": "integer", "minimum": 0, "maximum": 2},
                "endpointMode": {"type": "string", "enum": ["chat"]},
                "additionalOptions": {"type": "object"}
            },
            "additionalProperties": false
        });
        assert!(
            codes(
                json!({"think": [1, {"a": null}], "mirostat": 2, "endpointMode": "chat"}),
                schema.clone()
            )
            .is_empty()
        );
        assert_eq!(
            codes(json!({"mirostat": 3}), schema.clone()),
            vec![pair("values.mirostat", "maximum")]
        );
        assert_eq!(
            codes(json!({"mirostat": -1}), schema.clone()),
            vec![pair("values.mirostat", "minimum")]
        );
        assert_eq!(
            codes(json!({"mirostat": 1.5}), schema.clone()),
            vec![pair("values.mirostat", "type")]
        );
        assert_eq!(
            codes(json!({"endpointMode": "generate"}), schema.clone()),
            vec![pair("values.endpointMode", "enum")]
        );
        assert_eq!(
            codes(json!({"keepAlive": 5}), schema.clone()),
            vec![pair("values.keepAlive", "type")]
        );
        assert_eq!(
            codes(json!({"additionalOptions": []}), schema.clone()),
            vec![pair("values.additionalOptions", "type")]
        );
        assert_eq!(
            codes(json!({"bogus": 1, "other": 2}), schema.clone()),
            vec![pair("values.bogus", "unknown"), pair("values.other", "unknown")]
        );
        assert_eq!(codes(json!([]), schema), vec![pair("values", "type")]);
    }

    #[test]
    fn required_items_and_bounds() {
        let schema = json!({
            "type": "object",
            "required": ["a", "b"],
            "properties": {
                "a": {"type": "array", "items": {"type": "number", "exclusiveMinimum": 0}},
                "b": {"type": ["integer", "null"], "exclusiveMaximum": 10}
            }
        });
        assert_eq!(
            codes(json!({"a": [1, 0, "x", 0.5]}), schema.clone()),
            vec![
                pair("values.b", "required"),
                pair("values.a[1]", "exclusiveMinimum"),
                pair("values.a[2]", "type")
            ]
        );
        assert!(codes(json!({"a": [], "b": null}), schema.clone()).is_empty());
        assert_eq!(
            codes(json!({"a": [], "b": 10}), schema.clone()),
            vec![pair("values.b", "exclusiveMaximum")]
        );
        assert_eq!(
            codes(json!({"a": [], "b": "x"}), schema),
            vec![pair("values.b", "type")]
        );
    }

    #[test]
    fn messages_name_the_path() {
        let schema = json!({"type": "object", "required": ["x"], "additionalProperties": false,
                            "properties": {"n": {"minimum": 1}}});
        let issues = validate_values(&json!({"n": 0, "y": 1}), &schema);
        let messages: Vec<&str> = issues.iter().map(|i| i.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "Required option 'values.x' is missing.",
                "Value at 'values.n' must be at least 1.",
                "Option 'values.y' is not supported."
            ]
        );
    }

    #[test]
    fn enum_compares_numbers_by_value_and_objects_unordered() {
        let schema = json!({"enum": [1, {"a": 1, "b": [2.0]}]});
        assert!(validate_values(&json!(1.0), &schema).is_empty());
        assert!(validate_values(&json!({"b": [2], "a": 1}), &schema).is_empty());
        assert_eq!(validate_values(&json!(2), &schema)[0].code, "enum");
    }

    #[test]
    fn integers_and_large_numbers() {
        let schema = json!({"type": "integer", "maximum": 9007199254740993u64});
        assert!(validate_values(&json!(9007199254740993u64), &schema).is_empty());
        assert_eq!(validate_values(&json!(u64::MAX), &schema)[0].code, "type");
        assert_eq!(validate_values(&json!(1e2), &schema)[0].code, "type");
        assert!(validate_values(&json!(-5), &json!({"type": "number", "minimum": -5.0})).is_empty());
    }

    #[test]
    fn additional_properties_schema_and_non_object_schemas() {
        let schema = json!({"type": "object", "additionalProperties": {"type": "string"}});
        assert_eq!(
            codes(json!({"a": "x", "b": 1}), schema),
            vec![pair("values.b", "type")]
        );
        assert!(validate_values(&json!({"a": 1}), &json!(true)).is_empty());
        // An unknown type name is not ignored as the C# reference does: the meta-schema
        // refuses the schema (so a declaration with it is refused at start-up).
        assert_eq!(
            codes(json!(1), json!({"type": "whatever"})),
            vec![pair("values", "schema")]
        );
    }
}
