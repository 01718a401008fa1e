//! JSON Schema helpers: a structural check that a document is a usable JSON Schema
//! (for MCP tool schemas), and synthesis of values that a schema accepts (tool
//! arguments, native option values) or rejects (native option values).

use serde_json::{Map, Value, json};

/// Problems of `schema` as a JSON Schema whose root must be `type: object` (what MCP
/// requires of `inputSchema` and `outputSchema`): its meta-schema's verdict, or why it
/// cannot be compiled (the SDK's validator). Paths are JSON pointers.
pub(crate) fn object_schema_problems(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    match schema.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        other => problems.push(format!(
            "/type: the root must be `\"type\": \"object\"`, found {}",
            other.map_or_else(|| "no type".to_owned(), Value::to_string)
        )),
    }
    problems.extend(aep_sdk::schema::schema_problems(schema));
    problems
}

/// The subschema a local `$ref` (`#/$defs/x`, percent-encoded or not) points at.
pub(crate) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
        .or_else(|| root.pointer(&percent_decode(pointer)?))
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A value `schema` accepts, as small as possible (an object holds only its required
/// members); `None` when the schema asks for something this synthesis cannot produce
/// with confidence (a `pattern`, an unresolvable `$ref`, ...). `root` resolves `$ref`s.
pub(crate) fn synthesize(root: &Value, schema: &Value) -> Option<Value> {
    synth(root, schema, 0)
}

fn synth(root: &Value, schema: &Value, depth: usize) -> Option<Value> {
    if depth > 32 {
        return None;
    }
    let members = match schema {
        Value::Bool(true) => return Some(json!("aep-conformance")),
        Value::Object(members) => members,
        _ => return None,
    };
    if let Some(value) = members.get("const") {
        return Some(value.clone());
    }
    if let Some(Value::Array(values)) = members.get("enum") {
        return values.first().cloned();
    }
    if let Some(value) = members.get("default") {
        return Some(value.clone());
    }
    if let Some(reference) = members.get("$ref").and_then(Value::as_str) {
        return synth(root, resolve(root, reference)?, depth + 1);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(options)) = members.get(key) {
            return options.iter().find_map(|o| synth(root, o, depth + 1));
        }
    }
    if members.contains_key("allOf") || members.contains_key("not") || members.contains_key("pattern") {
        return None;
    }
    let type_name = match members.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .or_else(|| types.first().and_then(Value::as_str))?,
        None if members.contains_key("properties") || members.contains_key("required") => "object",
        None => return Some(json!("aep-conformance")),
        Some(_) => return None,
    };
    match type_name {
        "object" => {
            let properties = members.get("properties").and_then(Value::as_object);
            let mut out = Map::new();
            for name in members
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = name.as_str()?;
                let value = match properties.and_then(|p| p.get(name)) {
                    Some(property) => synth(root, property, depth + 1)?,
                    None => match members.get("additionalProperties") {
                        Some(Value::Bool(false)) => return None,
                        Some(Value::Object(_)) => synth(root, &members["additionalProperties"], depth + 1)?,
                        _ => json!("aep-conformance"),
                    },
                };
                out.insert(name.to_owned(), value);
            }
            let min = members.get("minProperties").and_then(Value::as_u64).unwrap_or(0);
            (out.len() as u64 >= min).then_some(Value::Object(out))
        }
        "array" => {
            let min = members.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let item = match members.get("items") {
                Some(items) if min > 0 => Some(synth(root, items, depth + 1)?),
                None if min > 0 => Some(json!("aep-conformance")),
                _ => None,
            };
            Some(Value::Array(
                item.map(|i| vec![i; usize::try_from(min).unwrap_or(1).min(16)])
                    .unwrap_or_default(),
            ))
        }
        "string" => {
            let min = members.get("minLength").and_then(Value::as_u64).unwrap_or(0);
            let max = members
                .get("maxLength")
                .and_then(Value::as_u64)
                .unwrap_or(u64::MAX);
            let text = match members.get("format").and_then(Value::as_str) {
                Some("uri" | "url" | "iri") => "https://example.com/".to_owned(),
                Some("date-time") => "2026-01-01T00:00:00Z".to_owned(),
                Some("date") => "2026-01-01".to_owned(),
                Some("time") => "00:00:00Z".to_owned(),
                Some("email") => "conformance@example.com".to_owned(),
                Some("uuid") => "00000000-0000-4000-8000-000000000000".to_owned(),
                Some(_) => return None,
                None => {
                    let wanted = usize::try_from(min.max(15)).unwrap_or(15).min(1024);
                    "aep-conformance".chars().cycle().take(wanted).collect()
                }
            };
            let len = text.chars().count() as u64;
            if len < min {
                return None;
            }
            if len > max {
                let max = usize::try_from(max).unwrap_or(0);
                return (members.get("format").is_none() && max as u64 >= min)
                    .then(|| json!("x".repeat(max.max(min as usize))));
            }
            Some(Value::String(text))
        }
        "integer" | "number" => number_in_bounds(members, type_name == "integer"),
        "boolean" => Some(Value::Bool(false)),
        "null" => Some(Value::Null),
        _ => None,
    }
}

fn number_in_bounds(members: &Map<String, Value>, integer: bool) -> Option<Value> {
    let get = |k: &str| members.get(k).and_then(Value::as_f64);
    let mut low = get("minimum").unwrap_or(f64::NEG_INFINITY);
    if let Some(exclusive) = get("exclusiveMinimum") {
        low = low.max(exclusive + if integer { 1.0 } else { 0.5 });
    }
    let mut high = get("maximum").unwrap_or(f64::INFINITY);
    if let Some(exclusive) = get("exclusiveMaximum") {
        high = high.min(exclusive - if integer { 1.0 } else { 0.5 });
    }
    let mut value = 1.0_f64.clamp(low.min(high), high.max(low));
    if integer {
        value = value.ceil();
    }
    if value < low || value > high {
        return None;
    }
    if let Some(step) = get("multipleOf") {
        value = (value / step).ceil() * step;
        if value > high {
            return None;
        }
    }
    if integer || value.fract() == 0.0 {
        #[allow(clippy::cast_possible_truncation)]
        return Some(json!(value as i64));
    }
    Some(json!(value))
}

/// Values an option-set schema must reject, built from its own constraints (an unknown
/// member under `additionalProperties: false`, a property of the wrong type, a value
/// outside an `enum` or below a `minimum`), starting from `valid`. `None` when the schema
/// constrains nothing this can violate.
pub(crate) fn violate(schema: &Value, valid: &Value) -> Option<(Value, String)> {
    let base = valid.as_object().cloned().unwrap_or_default();
    let properties = schema.get("properties").and_then(Value::as_object);
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        let mut name = "aepConformanceUnknown".to_owned();
        while properties.is_some_and(|p| p.contains_key(&name)) {
            name.push('_');
        }
        let mut values = base.clone();
        values.insert(name.clone(), json!(true));
        return Some((
            Value::Object(values),
            format!("unknown member '{name}' (additionalProperties: false)"),
        ));
    }
    for (name, property) in properties.into_iter().flatten() {
        let mut values = base.clone();
        if let Some(Value::Array(allowed)) = property.get("enum") {
            let candidate = json!("aep-conformance-not-in-enum");
            if !allowed.contains(&candidate) {
                values.insert(name.clone(), candidate);
                return Some((Value::Object(values), format!("'{name}' outside its enum")));
            }
        }
        if let Some(types) = property.get("type") {
            let listed: Vec<&str> = match types {
                Value::String(t) => vec![t.as_str()],
                Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                _ => continue,
            };
            let candidates = [
                ("string", json!("aep-conformance")),
                ("boolean", json!(true)),
                ("object", json!({"aep": "conformance"})),
                ("array", json!(["aep-conformance"])),
            ];
            let wrong = candidates.into_iter().find(|(t, _)| !listed.contains(t));
            if let Some((kind, value)) = wrong {
                values.insert(name.clone(), value);
                return Some((
                    Value::Object(values),
                    format!("'{name}' given a {kind} (schema type {types})"),
                ));
            }
        }
        if let Some(minimum) = property.get("minimum").and_then(Value::as_f64) {
            values.insert(name.clone(), json!(minimum - 1.0));
            return Some((
                Value::Object(values),
                format!("'{name}' below its minimum {minimum}"),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_a_typical_tool_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "t"},
                "case": {"oneOf": [{"const": "upper"}, {"const": "lower"}]},
                "n": {"type": ["integer", "null"], "minimum": 0},
                "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}}
            },
            "required": ["text", "case"],
            "$defs": {"tag": {"type": "string"}}
        });
        assert!(
            object_schema_problems(&schema).is_empty(),
            "{:?}",
            object_schema_problems(&schema)
        );
        assert_eq!(
            synthesize(&schema, &schema),
            Some(json!({"text": "aep-conformance", "case": "upper"}))
        );
    }

    #[test]
    fn reports_structural_problems() {
        let schema = json!({
            "type": "array",
            "properties": {"x": {"type": "strng"}, "y": 3},
            "required": "x",
            "anyOf": []
        });
        let problems = object_schema_problems(&schema);
        let joined = problems.join("\n");
        for needle in [
            "/type: the root",
            "/properties/x/type",
            "/properties/y",
            "/required",
            "/anyOf",
        ] {
            assert!(joined.contains(needle), "{needle} in {joined}");
        }
        let dangling = json!({"type": "object", "items": {"$ref": "#/$defs/missing"}});
        let problems = object_schema_problems(&dangling).join("\n");
        assert!(problems.contains("missing"), "{problems}");
    }

    #[test]
    fn synthesizes_within_bounds() {
        let schema = json!({"type": "object", "required": ["a", "b", "c", "d"], "properties": {
            "a": {"type": "integer", "minimum": 5, "maximum": 9},
            "b": {"type": "number", "exclusiveMaximum": 0},
            "c": {"type": "string", "minLength": 20},
            "d": {"type": "array", "minItems": 2, "items": {"type": "boolean"}}
        }});
        let value = synthesize(&schema, &schema).unwrap();
        assert_eq!(value["a"], json!(5));
        assert!(value["b"].as_f64().unwrap() < 0.0);
        assert_eq!(value["c"].as_str().unwrap().len(), 20);
        assert_eq!(value["d"], json!([false, false]));
        assert_eq!(
            synthesize(&json!({}), &json!({"type": "string", "pattern": "^a$"})),
            None
        );
    }

    #[test]
    fn violations_are_rejected_by_the_sdk_validator() {
        let schemas = [
            json!({"type": "object", "additionalProperties": false, "properties": {"a": {"type": "integer"}}}),
            json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
            json!({"type": "object", "properties": {"m": {"enum": [0, 1, 2]}}}),
            json!({"type": "object", "properties": {"s": {"type": ["string", "null"]}}}),
        ];
        for schema in schemas {
            let valid = synthesize(&schema, &schema).unwrap();
            assert!(aep_sdk::config::validate_values(&valid, &schema).is_empty());
            let (invalid, _) = violate(&schema, &valid).unwrap();
            assert!(
                !aep_sdk::config::validate_values(&invalid, &schema).is_empty(),
                "{schema} {invalid}"
            );
        }
        assert!(violate(&json!({"type": "object"}), &json!({})).is_none());
    }
}
