//! JSON Schemas of tool inputs and outputs, shaped for strict MCP clients.

use std::sync::Arc;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

use super::JsonObject;

fn generate<T: JsonSchema>(settings: SchemaSettings) -> JsonObject {
    let settings = settings.with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let schema = settings.into_generator().into_root_schema_for::<T>();
    match serde_json::to_value(schema) {
        Ok(Value::Object(object)) => object,
        Ok(Value::Bool(_)) | Ok(_) | Err(_) => JsonObject::new(),
    }
}

/// Shapes a schema for strict clients: no `$schema`, no root `title`/`description`, and
/// a root `type: "object"` with `properties` (added when missing).
pub fn strict_schema(mut schema: JsonObject) -> JsonObject {
    schema.remove("$schema");
    schema.remove("title");
    schema.remove("description");
    if schema.get("type").is_none() {
        schema.insert("type".into(), json!("object"));
    }
    if schema.get("type") == Some(&json!("object")) && schema.get("properties").is_none() {
        schema.insert("properties".into(), json!({}));
    }
    schema
}

/// The input schema of a tool whose arguments are `T` (what `T` deserializes from):
/// root `type: "object"`, subschemas inlined (`$ref` remains only for recursive types),
/// no `$schema` key.
pub fn input_schema<T: JsonSchema>() -> Arc<JsonObject> {
    Arc::new(strict_schema(generate::<T>(SchemaSettings::draft2020_12())))
}

/// The output schema of a tool returning `T` (what `T` serializes to). A `T` that is
/// not an object is described as `{"result": T}`, the shape its result is sent in.
pub fn output_schema<T: JsonSchema>() -> Arc<JsonObject> {
    let mut schema = generate::<T>(SchemaSettings::draft2020_12().for_serialize());
    schema.remove("$schema");
    if schema.get("type") == Some(&json!("object")) {
        return Arc::new(strict_schema(schema));
    }
    let mut defs = schema.remove("$defs");
    let mut wrapped = JsonObject::new();
    wrapped.insert("type".into(), json!("object"));
    wrapped.insert("properties".into(), json!({ "result": Value::Object(schema) }));
    wrapped.insert("required".into(), json!(["result"]));
    if let Some(defs) = defs.take() {
        wrapped.insert("$defs".into(), defs);
    }
    Arc::new(wrapped)
}
