//! A small JSON Schema validator for tool arguments, run before every `tools/call` so a
//! bad call fails fast with the path of the offending value.
//!
//! Keywords: `type` (a name or an array of names), `enum`, `const`, `properties`,
//! `required`, `additionalProperties` (boolean or schema), `items`, `minItems`,
//! `maxItems`, `minLength`, `maxLength`, `minimum`, `maximum`, `exclusiveMinimum`,
//! `exclusiveMaximum`, `allOf`, `anyOf`, `oneOf`. Other keywords (`$ref`, `pattern`,
//! `format`, ...) are not checked: the server stays the final judge, this only catches
//! what is certainly wrong. (`aep_sdk::config::validate_values` covers option values but
//! not `const`/`oneOf`, which `schemars` writes for enums, hence this module.)
//!
//! ```
//! use aep_host::invoke::validate_arguments;
//! use serde_json::json;
//!
//! let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
//! let issues = validate_arguments(&schema, &json!({"text": 3}));
//! assert_eq!(issues[0].path, "arguments.text");
//! assert_eq!(issues[0].message, "arguments.text: expected string, got integer");
//! ```

use std::fmt;

use serde_json::{Map, Value};

/// One argument that does not match the input schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentIssue {
    /// Where: `arguments`, `arguments.text`, `arguments.items[2]`.
    pub path: String,
    /// A sentence that starts with the path.
    pub message: String,
}

impl fmt::Display for ArgumentIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Checks `arguments` against `schema`; every issue found, in document order.
pub fn validate_arguments(schema: &Value, arguments: &Value) -> Vec<ArgumentIssue> {
    let mut issues = Vec::new();
    check(schema, arguments, "arguments", &mut issues);
    issues
}

fn issue(issues: &mut Vec<ArgumentIssue>, path: &str, message: String) {
    issues.push(ArgumentIssue {
        path: path.to_owned(),
        message: format!("{path}: {message}"),
    });
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if is_integer(n) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_integer(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "number" => value.is_number(),
        "integer" => value.as_number().is_some_and(is_integer),
        other => kind(value) == other,
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_number() && b.is_number() => x == y,
        _ => a == b,
    }
}

fn check(schema: &Value, value: &Value, path: &str, issues: &mut Vec<ArgumentIssue>) {
    let schema = match schema {
        Value::Bool(false) => return issue(issues, path, "no value is allowed here".to_owned()),
        Value::Object(schema) => schema,
        _ => return,
    };
    if let Some(expected) = schema.get("const")
        && !same(expected, value)
    {
        return issue(issues, path, format!("must be {expected}"));
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.iter().any(|a| same(a, value))
    {
        let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
        return issue(
            issues,
            path,
            format!("must be one of {}, got {value}", list.join(", ")),
        );
    }
    if !check_type(schema, value, path, issues) {
        return;
    }
    check_combinators(schema, value, path, issues);
    match value {
        Value::Object(object) => check_object(schema, object, path, issues),
        Value::Array(items) => check_array(schema, items, path, issues),
        Value::String(text) => check_length(schema, text.chars().count(), "characters", path, issues),
        Value::Number(_) => check_bounds(schema, value, path, issues),
        _ => {}
    }
}

fn check_type(
    schema: &Map<String, Value>,
    value: &Value,
    path: &str,
    issues: &mut Vec<ArgumentIssue>,
) -> bool {
    let names: Vec<&str> = match schema.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => return true,
    };
    if names.is_empty() || names.iter().any(|n| has_type(value, n)) {
        return true;
    }
    issue(
        issues,
        path,
        format!("expected {}, got {}", names.join(" or "), kind(value)),
    );
    false
}

fn check_combinators(
    schema: &Map<String, Value>,
    value: &Value,
    path: &str,
    issues: &mut Vec<ArgumentIssue>,
) {
    if let Some(Value::Array(all)) = schema.get("allOf") {
        for branch in all {
            check(branch, value, path, issues);
        }
    }
    for (keyword, exactly_one) in [("anyOf", false), ("oneOf", true)] {
        let Some(Value::Array(branches)) = schema.get(keyword) else {
            continue;
        };
        let matching = branches
            .iter()
            .filter(|b| validate_at(b, value, path).is_empty())
            .count();
        if matching == 0 {
            let consts: Option<Vec<String>> = branches
                .iter()
                .map(|b| b.get("const").map(Value::to_string))
                .collect();
            let message = match consts {
                Some(consts) if !consts.is_empty() => {
                    format!("must be one of {}, got {value}", consts.join(", "))
                }
                _ => format!("matches none of the {} allowed forms ({keyword})", branches.len()),
            };
            issue(issues, path, message);
        } else if exactly_one && matching > 1 {
            issue(
                issues,
                path,
                format!("matches {matching} forms of a oneOf, exactly one is allowed"),
            );
        }
    }
}

fn validate_at(schema: &Value, value: &Value, path: &str) -> Vec<ArgumentIssue> {
    let mut issues = Vec::new();
    check(schema, value, path, &mut issues);
    issues
}

fn member_path(path: &str, name: &str) -> String {
    let plain = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if plain {
        format!("{path}.{name}")
    } else {
        format!("{path}[{}]", Value::String(name.to_owned()))
    }
}

fn check_object(
    schema: &Map<String, Value>,
    object: &Map<String, Value>,
    path: &str,
    issues: &mut Vec<ArgumentIssue>,
) {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(Value::Array(required)) = schema.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if !object.contains_key(name) {
                issue(issues, &member_path(path, name), "is required".to_owned());
            }
        }
    }
    for (name, member) in object {
        let member_at = member_path(path, name);
        match properties.and_then(|p| p.get(name)) {
            Some(member_schema) => check(member_schema, member, &member_at, issues),
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    issue(issues, &member_at, "is not an accepted argument".to_owned())
                }
                Some(extra @ Value::Object(_)) => check(extra, member, &member_at, issues),
                _ => {}
            },
        }
    }
}

fn check_array(schema: &Map<String, Value>, items: &[Value], path: &str, issues: &mut Vec<ArgumentIssue>) {
    if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
        for (i, item) in items.iter().enumerate() {
            check(item_schema, item, &format!("{path}[{i}]"), issues);
        }
    }
    check_length_keywords(
        schema,
        items.len(),
        ("minItems", "maxItems"),
        "items",
        path,
        issues,
    );
}

fn check_length(
    schema: &Map<String, Value>,
    length: usize,
    unit: &str,
    path: &str,
    issues: &mut Vec<ArgumentIssue>,
) {
    check_length_keywords(schema, length, ("minLength", "maxLength"), unit, path, issues);
}

fn check_length_keywords(
    schema: &Map<String, Value>,
    length: usize,
    (min, max): (&str, &str),
    unit: &str,
    path: &str,
    issues: &mut Vec<ArgumentIssue>,
) {
    let length = length as u64;
    if let Some(bound) = schema.get(min).and_then(Value::as_u64)
        && length < bound
    {
        issue(
            issues,
            path,
            format!("needs at least {bound} {unit}, has {length}"),
        );
    }
    if let Some(bound) = schema.get(max).and_then(Value::as_u64)
        && length > bound
    {
        issue(
            issues,
            path,
            format!("allows at most {bound} {unit}, has {length}"),
        );
    }
}

fn check_bounds(schema: &Map<String, Value>, value: &Value, path: &str, issues: &mut Vec<ArgumentIssue>) {
    let Some(number) = value.as_f64() else { return };
    type Rule = (&'static str, fn(f64, f64) -> bool, &'static str);
    let rules: [Rule; 4] = [
        ("minimum", |n, b| n >= b, "at least"),
        ("maximum", |n, b| n <= b, "at most"),
        ("exclusiveMinimum", |n, b| n > b, "greater than"),
        ("exclusiveMaximum", |n, b| n < b, "less than"),
    ];
    for (keyword, holds, words) in rules {
        if let Some(bound) = schema.get(keyword).and_then(Value::as_f64)
            && !holds(number, bound)
        {
            issue(
                issues,
                path,
                format!("must be {words} {}, got {value}", schema[keyword]),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn messages(schema: Value, value: Value) -> Vec<String> {
        validate_arguments(&schema, &value)
            .into_iter()
            .map(|i| i.message)
            .collect()
    }

    #[test]
    fn required_and_unknown_members_name_their_path() {
        let schema = json!({"type": "object", "properties": {"text": {"type": "string"}},
                            "required": ["text"], "additionalProperties": false});
        assert_eq!(
            messages(schema, json!({"txt": "a"})),
            [
                "arguments.text: is required",
                "arguments.txt: is not an accepted argument"
            ]
        );
    }

    #[test]
    fn one_of_consts_reads_like_an_enum() {
        // What schemars writes for a Rust enum (the utilities' `text.case`).
        let schema = json!({"type": "object", "properties": {"case": {"oneOf": [
            {"type": "string", "const": "upper"}, {"type": "string", "const": "lower"}]}}});
        assert_eq!(
            messages(schema.clone(), json!({"case": "sideways"})),
            [r#"arguments.case: must be one of "upper", "lower", got "sideways""#]
        );
        assert!(messages(schema, json!({"case": "lower"})).is_empty());
    }

    #[test]
    fn nested_items_types_and_bounds() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "integer", "minimum": 1},
            "tags": {"type": "array", "items": {"type": "string", "minLength": 2}, "maxItems": 2},
            "opt": {"type": ["string", "null"]},
            "weird key": {"enum": [1, 2]}
        }});
        assert_eq!(
            messages(
                schema.clone(),
                json!({"n": 0, "tags": ["ok", "x", "yy"], "opt": null, "weird key": 2.0})
            ),
            [
                "arguments.n: must be at least 1, got 0",
                "arguments.tags[1]: needs at least 2 characters, has 1",
                "arguments.tags: allows at most 2 items, has 3",
            ]
        );
        assert_eq!(
            messages(schema, json!({"n": 1.5, "weird key": 3})),
            [
                "arguments.n: expected integer, got number",
                r#"arguments["weird key"]: must be one of 1, 2, got 3"#
            ]
        );
    }

    #[test]
    fn the_root_must_match_too() {
        assert_eq!(
            messages(json!({"type": "object"}), json!([1])),
            ["arguments: expected object, got array"]
        );
        assert!(messages(json!({"$ref": "#/x", "pattern": "^a"}), json!("b")).is_empty());
    }
}
