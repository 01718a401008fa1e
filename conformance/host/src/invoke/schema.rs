//! Tool arguments checked against the MCP input schema before every `tools/call`, so a
//! bad call fails fast with the path of the offending value. The checking is the SDK's
//! [`aep_sdk::schema::Validator`] (JSON Schema as written); this module only words the
//! issues. A schema the validator cannot compile (an unresolvable `$ref`, say) is not
//! checked here: the server stays the final judge.
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

use aep_sdk::schema::{Issue, IssueKind, Step, Validator};
use serde_json::Value;

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
    match Validator::new(schema) {
        Ok(validator) => validator.issues(arguments).iter().map(worded).collect(),
        Err(_) => Vec::new(),
    }
}

fn worded(issue: &Issue) -> ArgumentIssue {
    let path = path_of(&issue.path);
    let got = issue.found.as_ref().map_or_else(String::new, Value::to_string);
    let message = match &issue.kind {
        IssueKind::Required => "is required".to_owned(),
        IssueKind::Unknown => "is not an accepted argument".to_owned(),
        IssueKind::Type(names) => format!(
            "expected {}, got {}",
            names.join(" or "),
            issue.found.as_ref().map_or("nothing", kind)
        ),
        IssueKind::Enum(allowed) => {
            let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
            format!("must be one of {}, got {got}", list.join(", "))
        }
        IssueKind::Minimum(bound) => format!("must be at least {bound}, got {got}"),
        IssueKind::Maximum(bound) => format!("must be at most {bound}, got {got}"),
        IssueKind::ExclusiveMinimum(bound) => format!("must be greater than {bound}, got {got}"),
        IssueKind::ExclusiveMaximum(bound) => format!("must be less than {bound}, got {got}"),
        IssueKind::MinLength(n) => format!("needs at least {n} characters, has {}", chars(issue)),
        IssueKind::MaxLength(n) => format!("allows at most {n} characters, has {}", chars(issue)),
        IssueKind::MinItems(n) => format!("needs at least {n} items, has {}", items(issue)),
        IssueKind::MaxItems(n) => format!("allows at most {n} items, has {}", items(issue)),
        IssueKind::Other { message, .. } => message.clone(),
    };
    ArgumentIssue {
        message: format!("{path}: {message}"),
        path,
    }
}

/// `arguments.name[2]`, with names that are not plain words quoted: `arguments["a b"]`.
fn path_of(steps: &[Step]) -> String {
    let mut path = "arguments".to_owned();
    for step in steps {
        match step {
            Step::Member(name)
                if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') =>
            {
                path.push('.');
                path.push_str(name);
            }
            Step::Member(name) => path.push_str(&format!("[{}]", Value::String(name.clone()))),
            Step::Index(index) => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn chars(issue: &Issue) -> usize {
    issue
        .found
        .as_ref()
        .and_then(Value::as_str)
        .map_or(0, |s| s.chars().count())
}

fn items(issue: &Issue) -> usize {
    issue.found.as_ref().and_then(Value::as_array).map_or(0, Vec::len)
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
