//! JSON Schemas: generated from Rust types here, checked by `Validator` (see
//! `validator`; feature `config`).
//!
//! Generated schemas serve tool inputs and outputs and option
//! sets alike: draft 2020-12, subschemas inlined, no `$schema` member, and only the
//! `format` values that JSON Schema defines.
//!
//! schemars describes Rust's number types with formats of its own (`uint`, `uint8`..,
//! `int32`.., `float`, `double`). JSON Schema validators do not know them (Ajv, under the
//! MCP Inspector, warns `unknown format "uint" ignored in schema`) and strict
//! function-calling APIs reject them, so they are removed here; the range they stood for
//! is kept as `minimum`/`maximum` where it fits a JSON number exactly (schemars already
//! writes `minimum: 0` for unsigned types and both bounds for 8- and 16-bit ones).
//!
//! ```
//! #[derive(schemars::JsonSchema)]
//! #[allow(dead_code)]
//! struct Page { size: usize, offset: i32, ratio: f64 }
//!
//! let schema = aep_sdk::schema::schema_for::<Page>();
//! let size = &schema["properties"]["size"];
//! assert_eq!(size["type"], "integer");
//! assert_eq!(size["minimum"], 0);
//! assert!(size.get("format").is_none());
//! assert_eq!(schema["properties"]["offset"]["maximum"], i32::MAX);
//! assert!(schema["properties"]["ratio"].get("format").is_none());
//! ```

#[cfg(feature = "config")]
pub mod validator;

#[cfg(feature = "config")]
pub use validator::{Issue, IssueKind, Rules, Step, Validator, schema_problems};

use schemars::generate::SchemaSettings;
use schemars::transform::{RecursiveTransform, Transform};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value, json};

/// The `format` values JSON Schema 2020-12 defines (validation vocabulary, section 7.3).
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The schema of what `T` deserializes from (tool arguments, option values).
pub fn schema_for<T: JsonSchema>() -> Map<String, Value> {
    generate::<T>(SchemaSettings::draft2020_12())
}

/// The schema of what `T` serializes to (tool results).
pub fn schema_for_output<T: JsonSchema>() -> Map<String, Value> {
    generate::<T>(SchemaSettings::draft2020_12().for_serialize())
}

fn generate<T: JsonSchema>(settings: SchemaSettings) -> Map<String, Value> {
    let settings = settings
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .with_transform(RecursiveTransform(standard_formats));
    match settings.into_generator().into_root_schema_for::<T>().to_value() {
        Value::Object(object) => object,
        // `true`/`false` schemas: an object schema that accepts the same.
        Value::Bool(true) => Map::new(),
        _ => Map::from_iter([("not".to_owned(), json!({}))]),
    }
}

/// Removes non-standard `format` values from one (sub)schema, keeping the integer
/// ranges they stood for. Run over every subschema of a generated schema; also usable
/// on a hand-written schema with [`standardize`].
fn standard_formats(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    let Some(format) = object.get("format").and_then(Value::as_str) else {
        return;
    };
    if STANDARD_FORMATS.contains(&format) {
        return;
    }
    // Ranges that fit a JSON number exactly (wider ones are left to the type).
    let range: Option<(i64, i64)> = match format {
        "int8" => Some((i8::MIN.into(), i8::MAX.into())),
        "int16" => Some((i16::MIN.into(), i16::MAX.into())),
        "int32" => Some((i32::MIN.into(), i32::MAX.into())),
        "uint8" => Some((0, u8::MAX.into())),
        "uint16" => Some((0, u16::MAX.into())),
        "uint32" => Some((0, u32::MAX.into())),
        _ => None,
    };
    let unsigned = format.starts_with("uint");
    object.remove("format");
    if let Some((min, max)) = range {
        object.entry("minimum").or_insert(json!(min));
        object.entry("maximum").or_insert(json!(max));
    } else if unsigned {
        object.entry("minimum").or_insert(json!(0));
    }
}

/// Narrows optional members to their value type: a property that is not `required` and
/// whose schema also allows `null` (`Option<T>`: `"type": ["boolean", "null"]`, or an
/// `anyOf` with a `{"type": "null"}` branch) is described as the value type alone.
/// Absent and `null` both deserialize to `None`, so no accepted input is lost, and
/// single-type schemas are what strict tool-schema dialects take (the MCP Inspector's
/// `--strict` portability check warns about type arrays). For input schemas only: a
/// serialized `None` is `null`.
pub fn optional_without_null(schema: &mut Value) {
    if let Ok(mut wrapped) = Schema::try_from(std::mem::take(schema)) {
        RecursiveTransform(narrow_optional).transform(&mut wrapped);
        *schema = wrapped.to_value();
    }
}

fn narrow_optional(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    let required: Vec<String> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    let Some(Value::Object(properties)) = object.get_mut("properties") else {
        return;
    };
    for (name, property) in properties.iter_mut() {
        if required.contains(name) {
            continue;
        }
        let Some(property) = property.as_object_mut() else {
            continue;
        };
        if let Some(Value::Array(types)) = property.get_mut("type") {
            types.retain(|t| t != "null");
            if let [single] = types.as_slice() {
                let single = single.clone();
                property.insert("type".into(), single);
            }
        }
        let branches = property.get("anyOf").and_then(Value::as_array).cloned();
        if let Some(branches) = branches {
            let kept: Vec<Value> = branches
                .into_iter()
                .filter(|b| *b != json!({"type": "null"}))
                .collect();
            match kept.as_slice() {
                [Value::Object(single)] => {
                    property.remove("anyOf");
                    for (key, value) in single {
                        property.entry(key.clone()).or_insert_with(|| value.clone());
                    }
                }
                _ => {
                    property.insert("anyOf".into(), Value::Array(kept));
                }
            }
        }
    }
}

/// Applies the same shaping to a schema written by hand or produced elsewhere: every
/// non-standard `format` is removed (with its integer range kept as bounds).
///
/// ```
/// let mut schema = serde_json::json!({"type": "object", "properties": {"n": {"type": "integer", "format": "uint64"}}});
/// aep_sdk::schema::standardize(&mut schema);
/// assert_eq!(schema["properties"]["n"], serde_json::json!({"type": "integer", "minimum": 0}));
/// ```
pub fn standardize(schema: &mut Value) {
    if let Ok(mut wrapped) = Schema::try_from(std::mem::take(schema)) {
        RecursiveTransform(standard_formats).transform(&mut wrapped);
        *schema = wrapped.to_value();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Every {
        a: u8,
        b: u16,
        c: u32,
        d: u64,
        e: usize,
        f: i8,
        g: i16,
        h: i32,
        i: i64,
        j: isize,
        k: f32,
        l: f64,
        m: Option<u32>,
        n: Vec<u64>,
        o: std::num::NonZeroU32,
        when: Nested,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        #[schemars(extend("format" = "date-time"))]
        at: String,
        count: u128,
    }

    fn formats(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(object) => {
                if let Some(Value::String(format)) = object.get("format") {
                    found.push(format.clone());
                }
                object.values().for_each(|v| formats(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| formats(v, found)),
            _ => {}
        }
    }

    #[test]
    fn only_standard_formats_remain_and_ranges_are_kept() {
        let schema = Value::Object(schema_for::<Every>());
        let mut found = Vec::new();
        formats(&schema, &mut found);
        assert_eq!(found, ["date-time"], "{schema:#}");
        let p = &schema["properties"];
        assert_eq!(
            (p["a"]["minimum"].clone(), p["a"]["maximum"].clone()),
            (json!(0), json!(255))
        );
        assert_eq!(p["c"]["maximum"], json!(u32::MAX));
        assert_eq!(p["d"]["minimum"], json!(0));
        assert!(p["d"].get("maximum").is_none());
        assert_eq!(p["e"]["minimum"], json!(0));
        assert_eq!(p["h"]["minimum"], json!(i32::MIN));
        assert!(p["i"].get("minimum").is_none());
        assert_eq!(p["o"]["minimum"], json!(1));
        assert_eq!(p["n"]["items"]["minimum"], json!(0));
        assert_eq!(p["when"]["properties"]["count"]["minimum"], json!(0));
        assert_eq!(p["k"], json!({"type": "number"}));
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Optionals {
        flag: Option<bool>,
        nested: Option<Nested>,
        needed: Option<u8>,
    }

    #[test]
    fn optional_members_lose_their_null() {
        let mut schema = Value::Object(schema_for::<Optionals>());
        optional_without_null(&mut schema);
        let p = &schema["properties"];
        assert_eq!(p["flag"], json!({"type": "boolean"}), "{schema:#}");
        assert_eq!(p["nested"]["type"], "object", "{schema:#}");
        assert!(p["nested"].get("anyOf").is_none(), "{schema:#}");
        assert_eq!(p["needed"]["type"], "integer");
        let mut required =
            json!({"type": "object", "properties": {"n": {"type": ["string", "null"]}}, "required": ["n"]});
        optional_without_null(&mut required);
        assert_eq!(
            required["properties"]["n"]["type"],
            json!(["string", "null"]),
            "required members keep null"
        );
    }

    #[test]
    fn output_schemas_are_shaped_too() {
        let schema = Value::Object(schema_for_output::<Vec<usize>>());
        assert_eq!(schema["items"], json!({"type": "integer", "minimum": 0}));
    }
}
