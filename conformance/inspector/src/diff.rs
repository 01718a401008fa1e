//! A structural diff of two JSON documents (the manifest of each revision): every JSON
//! Pointer at which they differ, with both values (`null` where one side has nothing).

use serde::Serialize;
use serde_json::Value;

/// One difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    /// JSON Pointer of the member that differs (`""` for the whole document).
    pub path: String,
    /// The left document's value there, if it has one.
    pub left: Option<Value>,
    /// The right document's value there, if it has one.
    pub right: Option<Value>,
}

/// Every place where `left` and `right` differ, in document order (left's members
/// first, then those only right has). Arrays are compared element by element.
pub fn diff(left: &Value, right: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    walk(String::new(), Some(left), Some(right), &mut out);
    out
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn walk(path: String, left: Option<&Value>, right: Option<&Value>, out: &mut Vec<Difference>) {
    match (left, right) {
        (Some(Value::Object(l)), Some(Value::Object(r))) => {
            for (key, value) in l {
                walk(format!("{path}/{}", escape(key)), Some(value), r.get(key), out);
            }
            for (key, value) in r.iter().filter(|(k, _)| !l.contains_key(*k)) {
                walk(format!("{path}/{}", escape(key)), None, Some(value), out);
            }
        }
        (Some(Value::Array(l)), Some(Value::Array(r))) => {
            for i in 0..l.len().max(r.len()) {
                walk(format!("{path}/{i}"), l.get(i), r.get(i), out);
            }
        }
        (l, r) if l != r => out.push(Difference {
            path,
            left: l.cloned(),
            right: r.cloned(),
        }),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_are_pointers_with_both_values() {
        let left = json!({"protocolVersion": "1.0", "a/b": [1, 2], "same": {"x": 1}, "gone": true});
        let right = json!({"protocolVersion": "2026-08-01", "a/b": [1], "same": {"x": 1}, "new": 0});
        let found = diff(&left, &right);
        let paths: Vec<&str> = found.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["/protocolVersion", "/a~1b/1", "/gone", "/new"]);
        assert_eq!(found[1].right, None);
        assert_eq!(found[3].left, None);
        assert!(diff(&left, &left).is_empty());
    }
}
