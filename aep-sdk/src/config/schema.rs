//! The JSON Schema subset that native option values are checked against (spec
//! section 5): `type`, `enum`, `properties`, `required`, `additionalProperties`,
//! `items`, `minimum`, `maximum`, `exclusiveMinimum`.
//!
//! Semantics follow the C# reference validator: `enum` is checked first, then `type`
//! (a failure of either stops the checks of that value); an object's `required` members,
//! its known `properties` and, with `additionalProperties: false`, its unknown members;
//! every item of an array against `items`; numeric bounds. Unknown keywords and unknown
//! type names are ignored. Numbers compare by value (`1` equals `1.0` in an `enum`); an
//! `integer` is a number without fraction or exponent that fits an `i64`. Paths read
//! `values`, `values.x`, `values.a[0]`.
//!
//! Two additions, both standard JSON Schema and both only ever stricter: `type` may be an
//! array of type names (what `schemars` writes for `Option<T>`), and
//! `additionalProperties` may be a schema that unknown members must match;
//! `exclusiveMaximum` is checked too.
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

use serde_json::{Map, Value};

/// The root of every path: the `values` member of versioned options.
pub const ROOT_PATH: &str = "values";

/// One value that does not match its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationIssue {
    /// Where: `values`, `values.x`, `values.a[0]`.
    pub path: String,
    /// Which rule: `enum`, `type`, `required`, `unknown`, `minimum`, `maximum`,
    /// `exclusiveMinimum`, `exclusiveMaximum` (or `decode` for a value its Rust type refuses).
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
}

impl fmt::Display for ValidationIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Checks option `values` against `schema`; every issue found, in document order.
pub fn validate_values(values: &Value, schema: &Value) -> Vec<ValidationIssue> {
    validate_at(values, schema, ROOT_PATH)
}

/// Checks `value` against `schema`, naming paths from `path`.
pub fn validate_at(value: &Value, schema: &Value, path: &str) -> Vec<ValidationIssue> {
    let mut issues = Vec::new();
    check(value, schema, path, &mut issues);
    issues
}

fn check(value: &Value, schema: &Value, path: &str, issues: &mut Vec<ValidationIssue>) {
    let Some(schema) = schema.as_object() else { return };
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.iter().any(|candidate| json_equal(candidate, value))
    {
        issues.push(ValidationIssue::new(
            path,
            "enum",
            format!("Value at '{path}' is not one of the supported values."),
        ));
        return;
    }
    if let Some(expected) = type_names(schema.get("type"))
        && !expected.iter().any(|name| matches_type(value, name))
    {
        let names = expected
            .iter()
            .map(|n| format!("'{n}'"))
            .collect::<Vec<_>>()
            .join(" or ");
        issues.push(ValidationIssue::new(
            path,
            "type",
            format!("Value at '{path}' must be of type {names}."),
        ));
        return;
    }
    match value {
        Value::Object(members) => check_object(members, schema, path, issues),
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (index, item) in items.iter().enumerate() {
                    check(item, item_schema, &format!("{path}[{index}]"), issues);
                }
            }
        }
        Value::Number(_) => check_number(value, schema, path, issues),
        _ => {}
    }
}

fn type_names(schema_type: Option<&Value>) -> Option<Vec<&str>> {
    match schema_type? {
        Value::String(name) => Some(vec![name.as_str()]),
        Value::Array(names) => {
            let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
            (!names.is_empty()).then_some(names)
        }
        _ => None,
    }
}

fn matches_type(value: &Value, name: &str) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "number" => value.is_number(),
        "integer" => value.as_i64().is_some(),
        "null" => value.is_null(),
        _ => true,
    }
}

fn check_object(
    members: &Map<String, Value>,
    schema: &Map<String, Value>,
    path: &str,
    issues: &mut Vec<ValidationIssue>,
) {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(Value::Array(required)) = schema.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if !name.trim().is_empty() && !members.contains_key(name) {
                let at = format!("{path}.{name}");
                issues.push(ValidationIssue::new(
                    &at,
                    "required",
                    format!("Required option '{at}' is missing."),
                ));
            }
        }
    }
    for (name, member) in members {
        let at = format!("{path}.{name}");
        if let Some(member_schema) = properties.and_then(|p| p.get(name)) {
            check(member, member_schema, &at, issues);
            continue;
        }
        match schema.get("additionalProperties") {
            Some(Value::Bool(false)) => {
                issues.push(ValidationIssue::new(
                    &at,
                    "unknown",
                    format!("Option '{at}' is not supported."),
                ));
            }
            Some(additional @ Value::Object(_)) => check(member, additional, &at, issues),
            _ => {}
        }
    }
}

fn check_number(value: &Value, schema: &Map<String, Value>, path: &str, issues: &mut Vec<ValidationIssue>) {
    let bound = |name: &str| schema.get(name).filter(|b| b.is_number());
    if let Some(min) = bound("minimum")
        && compare(value, min).is_some_and(|o| o.is_lt())
    {
        issues.push(ValidationIssue::new(
            path,
            "minimum",
            format!("Value at '{path}' must be at least {min}."),
        ));
    }
    if let Some(max) = bound("maximum")
        && compare(value, max).is_some_and(|o| o.is_gt())
    {
        issues.push(ValidationIssue::new(
            path,
            "maximum",
            format!("Value at '{path}' must be at most {max}."),
        ));
    }
    if let Some(min) = bound("exclusiveMinimum")
        && compare(value, min).is_some_and(|o| o.is_le())
    {
        issues.push(ValidationIssue::new(
            path,
            "exclusiveMinimum",
            format!("Value at '{path}' must be greater than {min}."),
        ));
    }
    if let Some(max) = bound("exclusiveMaximum")
        && compare(value, max).is_some_and(|o| o.is_ge())
    {
        issues.push(ValidationIssue::new(
            path,
            "exclusiveMaximum",
            format!("Value at '{path}' must be less than {max}."),
        ));
    }
}

/// Orders two JSON numbers by value: exactly when both are integers, as `f64` otherwise.
fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return Some(x.cmp(&y));
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return Some(x.cmp(&y));
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

/// Deep equality where numbers compare by value and member order does not matter.
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => compare(a, b).is_some_and(|o| o.is_eq()),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
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
        assert!(validate_values(&json!(1), &json!({"type": "whatever"})).is_empty());
    }
}
