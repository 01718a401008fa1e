//! Golden wire documents for every AEP protocol type (spec section 2).
//!
//! Each golden `tests/golden/NAME.json` comes in three forms:
//! - `NAME.json`: the canonical document, exactly as this SDK writes it (no `null`s,
//!   absent optional members omitted);
//! - `NAME.csharp.json`: the same document as the C# reference writes it
//!   (System.Text.Json, `JsonSerializerDefaults.Web`): compact, default encoder escapes
//!   (`\u00E9`, `\u003C`, `\u002B`, ...), every optional member present, `null` when absent;
//! - `NAME.unknown.json`: the canonical document plus unknown members at several levels.
//!
//! Every form must parse to the same value, and that value must write back exactly the
//! canonical document.

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::path::PathBuf;

use aep_sdk::protocol::{
    Availability, CapabilityDescriptor, ChatRequest, ChatResponse, ChatUpdate, ConfigurationCatalog, Content,
    ContentKind, Contributions, ErrorBody, ErrorResponse, ExtensionIdentity, FinishReason, Health,
    JsonSchemaFormat, Manifest, McpDescriptor, Message, MigrationEdge, MigrationRequest, MigrationResponse,
    ModelDescriptor, ModelOptions, ModelProviderDescriptor, OptionSet, OptionSetVersion, ProtocolVersion,
    ProviderCapabilities, REASONING_MEDIA_TYPE, ResponseFormat, Role, ToolContribution, ToolDefinition,
    Usage, VersionedOptions,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// Golden harness
// ---------------------------------------------------------------------------------------

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
}

fn read_golden(file: &str) -> String {
    let path = golden_dir().join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn parse<T: DeserializeOwned>(file: &str, text: &str) -> T {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut deserializer)
        .unwrap_or_else(|e| panic!("{file} does not parse as {}: {e}", std::any::type_name::<T>()))
}

/// Number of `null` values anywhere in `value`.
fn count_nulls(value: &Value) -> usize {
    match value {
        Value::Null => 1,
        Value::Array(items) => items.iter().map(count_nulls).sum(),
        Value::Object(members) => members.values().map(count_nulls).sum(),
        _ => 0,
    }
}

/// `value` without its `null` members (the canonical form of a C#-style document).
fn strip_null_members(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(strip_null_members).collect()),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), strip_null_members(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// JSON paths of the members of `document` that `canonical` does not have. Panics if
/// `document` is not `canonical` plus extra members.
fn extra_members(document: &Value, canonical: &Value, path: &str, extras: &mut Vec<String>) {
    match (document, canonical) {
        (Value::Object(doc), Value::Object(canon)) => {
            for (key, value) in doc {
                let member_path = format!("{path}.{key}");
                match canon.get(key) {
                    Some(expected) => extra_members(value, expected, &member_path, extras),
                    None => extras.push(member_path),
                }
            }
            for key in canon.keys() {
                assert!(
                    doc.contains_key(key),
                    "{path}.{key} is missing from the unknown-member golden"
                );
            }
        }
        (Value::Array(doc), Value::Array(canon)) => {
            assert_eq!(doc.len(), canon.len(), "array length differs at {path}");
            for (i, (value, expected)) in doc.iter().zip(canon).enumerate() {
                extra_members(value, expected, &format!("{path}[{i}]"), extras);
            }
        }
        (value, expected) => assert_eq!(value, expected, "value differs at {path}"),
    }
}

/// Checks golden `name` for type `T`:
/// - canonical: parse, write, equal as JSON values; it holds no `null`;
/// - C#-style: exactly the canonical document plus `null` members (when the type has
///   optional members), parses to the same value;
/// - unknown members: the canonical document plus at least two unknown members (also
///   below the top level when the type nests protocol objects), parses to the same value.
fn check_golden<T>(name: &str, has_optional_members: bool, nests_typed_objects: bool)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let canonical_file = format!("{name}.json");
    let canonical_text = read_golden(&canonical_file);
    let canonical: Value = parse(&canonical_file, &canonical_text);
    assert_eq!(
        count_nulls(&canonical),
        0,
        "{canonical_file}: a canonical document never writes null"
    );

    let value: T = parse(&canonical_file, &canonical_text);
    let written = serde_json::to_value(&value).expect("serialize");
    assert_eq!(
        written, canonical,
        "{canonical_file}: re-serialized document differs"
    );
    let written_text = serde_json::to_string(&value).expect("serialize");
    assert!(
        !written_text.contains("null"),
        "{canonical_file}: writer emitted null: {written_text}"
    );

    let csharp_file = format!("{name}.csharp.json");
    let csharp_text = read_golden(&csharp_file);
    let csharp: Value = parse(&csharp_file, &csharp_text);
    assert_eq!(
        strip_null_members(&csharp),
        canonical,
        "{csharp_file} is not {canonical_file} plus nulls"
    );
    if has_optional_members {
        assert!(
            count_nulls(&csharp) > 0,
            "{csharp_file} writes no null for absent optional members"
        );
    }
    let from_csharp: T = parse(&csharp_file, &csharp_text);
    assert_eq!(from_csharp, value, "{csharp_file} parses to a different value");
    assert_eq!(
        serde_json::to_value(&from_csharp).expect("serialize"),
        canonical,
        "{csharp_file}: written form"
    );

    let unknown_file = format!("{name}.unknown.json");
    let unknown_text = read_golden(&unknown_file);
    let unknown: Value = parse(&unknown_file, &unknown_text);
    let mut extras = Vec::new();
    extra_members(&unknown, &canonical, "$", &mut extras);
    assert!(
        extras.len() >= 2,
        "{unknown_file}: expected several unknown members, found {extras:?}"
    );
    if nests_typed_objects {
        assert!(
            extras
                .iter()
                .any(|p| p.matches('.').count() > 1 || p.contains('[')),
            "{unknown_file}: expected unknown members below the top level, found {extras:?}"
        );
    }
    let from_unknown: T = parse(&unknown_file, &unknown_text);
    assert_eq!(from_unknown, value, "{unknown_file} parses to a different value");
    assert_eq!(
        serde_json::to_value(&from_unknown).expect("serialize"),
        canonical,
        "{unknown_file}: written form"
    );
}

macro_rules! goldens {
    ($($test:ident: $ty:ty => $name:literal, optional: $optional:literal, nested: $nested:literal;)*) => {
        $(
            #[test]
            fn $test() {
                check_golden::<$ty>($name, $optional, $nested);
            }
        )*
        const GOLDEN_NAMES: &[&str] = &[$($name),*];
    };
}

goldens! {
    golden_manifest: Manifest => "manifest", optional: true, nested: true;
    golden_manifest_minimal_v1: Manifest => "manifest_minimal_v1", optional: true, nested: true;
    golden_extension_identity: ExtensionIdentity => "extension_identity", optional: true, nested: false;
    golden_capability_descriptor: CapabilityDescriptor => "capability_descriptor", optional: true, nested: false;
    golden_capability_descriptor_tools: CapabilityDescriptor => "capability_descriptor_tools", optional: true, nested: false;
    golden_contributions: Contributions => "contributions", optional: true, nested: true;
    golden_tool_contribution: ToolContribution => "tool_contribution", optional: true, nested: true;
    golden_tool_contribution_full: ToolContribution => "tool_contribution_full", optional: false, nested: true;
    golden_mcp_descriptor: McpDescriptor => "mcp_descriptor", optional: false, nested: true;
    golden_model_provider_descriptor: ModelProviderDescriptor => "model_provider_descriptor", optional: true, nested: true;
    golden_model_provider_descriptor_minimal: ModelProviderDescriptor => "model_provider_descriptor_minimal", optional: true, nested: true;
    golden_provider_capabilities: ProviderCapabilities => "provider_capabilities", optional: false, nested: false;
    golden_model_descriptor: ModelDescriptor => "model_descriptor", optional: true, nested: false;
    golden_model_descriptor_full: ModelDescriptor => "model_descriptor_full", optional: false, nested: false;
    golden_health: Health => "health", optional: true, nested: false;
    golden_health_unavailable: Health => "health_unavailable", optional: false, nested: false;
    golden_chat_request: ChatRequest => "chat_request", optional: true, nested: true;
    golden_chat_request_format_text: ChatRequest => "chat_request_format_text", optional: true, nested: true;
    golden_chat_request_format_json_object: ChatRequest => "chat_request_format_json_object", optional: true, nested: true;
    golden_message: Message => "message", optional: true, nested: true;
    golden_message_with_author: Message => "message_with_author", optional: true, nested: true;
    golden_content_text: Content => "content_text", optional: true, nested: false;
    golden_content_image_data: Content => "content_image_data", optional: true, nested: false;
    golden_content_image_uri: Content => "content_image_uri", optional: true, nested: false;
    golden_content_file: Content => "content_file", optional: true, nested: false;
    golden_content_structured: Content => "content_structured", optional: true, nested: false;
    golden_content_structured_typed: Content => "content_structured_typed", optional: true, nested: false;
    golden_content_reasoning: Content => "content_reasoning", optional: true, nested: false;
    golden_content_tool_call: Content => "content_tool_call", optional: true, nested: true;
    golden_content_tool_result: Content => "content_tool_result", optional: true, nested: true;
    golden_chat_response: ChatResponse => "chat_response", optional: true, nested: true;
    golden_chat_response_tool_calls: ChatResponse => "chat_response_tool_calls", optional: true, nested: true;
    golden_chat_update: ChatUpdate => "chat_update", optional: true, nested: true;
    golden_chat_update_final: ChatUpdate => "chat_update_final", optional: true, nested: true;
    golden_chat_update_error: ChatUpdate => "chat_update_error", optional: true, nested: true;
    golden_usage: Usage => "usage", optional: true, nested: false;
    golden_error_response: ErrorResponse => "error_response", optional: false, nested: true;
    golden_error_response_minimal: ErrorResponse => "error_response_minimal", optional: true, nested: true;
    golden_configuration_catalog: ConfigurationCatalog => "configuration_catalog", optional: true, nested: true;
    golden_option_set: OptionSet => "option_set", optional: true, nested: true;
    golden_option_set_with_migrations: OptionSet => "option_set_with_migrations", optional: false, nested: true;
    golden_option_set_version: OptionSetVersion => "option_set_version", optional: false, nested: false;
    golden_migration_edge: MigrationEdge => "migration_edge", optional: false, nested: false;
    golden_versioned_options: VersionedOptions => "versioned_options", optional: false, nested: false;
    golden_migration_request: MigrationRequest => "migration_request", optional: false, nested: false;
    golden_migration_response: MigrationResponse => "migration_response", optional: false, nested: true;
}

/// Every file in `tests/golden` belongs to a checked golden, and every golden has its
/// three forms.
#[test]
fn every_golden_file_is_checked() {
    let mut on_disk = BTreeSet::new();
    for entry in std::fs::read_dir(golden_dir()).expect("golden dir") {
        let file = entry
            .expect("dir entry")
            .file_name()
            .into_string()
            .expect("utf-8 name");
        on_disk.insert(file);
    }
    let mut expected = BTreeSet::new();
    for name in GOLDEN_NAMES {
        for suffix in ["json", "csharp.json", "unknown.json"] {
            expected.insert(format!("{name}.{suffix}"));
        }
    }
    assert_eq!(on_disk, expected);
}

fn golden_value(name: &str) -> Value {
    let file = format!("{name}.json");
    parse(&file, &read_golden(&file))
}

fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("serialize")
}

// ---------------------------------------------------------------------------------------
// The SDK's own constructors write the canonical goldens
// ---------------------------------------------------------------------------------------

#[test]
fn constructors_write_the_canonical_content_goldens() {
    let png = golden_value("content_image_data")["data"]
        .as_str()
        .expect("data")
        .to_owned();
    assert_eq!(
        to_json(&Content::image_base64("image/png", png)),
        golden_value("content_image_data")
    );
    assert_eq!(
        to_json(&Content::image_uri(
            "image/jpeg",
            "https://example.com/sky.jpg?size=large&fmt=jpg"
        )),
        golden_value("content_image_uri")
    );
    assert_eq!(
        to_json(&Content::reasoning(
            "The user wants the weather, so I call get_weather."
        )),
        golden_value("content_reasoning")
    );
    assert_eq!(
        to_json(&Content::tool_call(
            "call_1",
            "get_weather",
            json!({"city": "Paris"})
        )),
        golden_value("content_tool_call")
    );
    assert_eq!(
        to_json(&Content::tool_result(
            "call_1",
            json!({"error": "city not found"}),
            true
        )),
        golden_value("content_tool_result")
    );
    assert_eq!(
        to_json(&Content::structured(
            json!({"type": "Point", "coordinates": [2.35, 48.85]}),
            Some("application/geo+json".into())
        )),
        golden_value("content_structured_typed")
    );
    assert_eq!(
        to_json(&Content::text("Hello, \"world\" <b>&</b> naïve café 🌤\n")),
        golden_value("content_text")
    );
}

#[test]
fn reasoning_golden_is_structured_content_with_the_reasoning_media_type() {
    let content: Content = serde_json::from_value(golden_value("content_reasoning")).expect("parse");
    assert_eq!(content.kind, ContentKind::Structured);
    assert_eq!(content.media_type.as_deref(), Some(REASONING_MEDIA_TYPE));
    assert_eq!(REASONING_MEDIA_TYPE, "application/vnd.aep.reasoning+json");
    assert_eq!(
        content.as_reasoning(),
        Some("The user wants the weather, so I call get_weather.")
    );
    assert_eq!(content.as_text(), None);
}

#[test]
fn terminal_error_update_golden_is_what_failure_writes() {
    let update = ChatUpdate::failure(ErrorBody::new(
        "provider_unavailable",
        "Ollama stopped answering.",
    ));
    assert!(update.is_terminal());
    assert_eq!(to_json(&update), golden_value("chat_update_error"));
    assert_eq!(
        serde_json::to_string(&update).expect("serialize"),
        r#"{"contents":[],"finishReason":"error","error":{"code":"provider_unavailable","message":"Ollama stopped answering."}}"#
    );
}

#[test]
fn chat_request_golden_options_parse_to_the_expected_values() {
    let request: ChatRequest = serde_json::from_value(golden_value("chat_request")).expect("parse");
    let options = request.options.as_ref().expect("options");
    assert_eq!(options.temperature, Some(0.7));
    assert_eq!(options.max_output_tokens, Some(512));
    assert_eq!(options.seed, Some(-42));
    assert_eq!(
        options.stop_sequences.as_deref(),
        Some(&["</answer>".to_owned(), "\n\n".to_owned()][..])
    );
    match &options.response_format {
        Some(ResponseFormat::JsonSchema { json_schema }) => {
            assert_eq!(json_schema.name.as_deref(), Some("weather_report"));
            assert_eq!(json_schema.strict, Some(true));
            assert_eq!(json_schema.schema["required"], json!(["summary"]));
        }
        other => panic!("expected a json_schema response format, got {other:?}"),
    }
    let native = options.native_options.as_ref().expect("nativeOptions");
    assert_eq!(native.option_set, "io.agentstration.ollama/model-profile");
    assert_eq!(native.values["contextSize"], json!(8192));
    let additional = options.additional_options.as_ref().expect("additionalOptions");
    assert_eq!(additional["num_predict"], json!(256));
    assert_eq!(request.tools.len(), 2);
    assert_eq!(request.tools[1].description, None);
    assert_eq!(request.messages[3].role, Role::Tool);

    let text: ChatRequest = serde_json::from_value(golden_value("chat_request_format_text")).expect("parse");
    assert_eq!(
        text.options.and_then(|o| o.response_format),
        Some(ResponseFormat::Text)
    );
    let object: ChatRequest =
        serde_json::from_value(golden_value("chat_request_format_json_object")).expect("parse");
    assert_eq!(
        object.options.and_then(|o| o.response_format),
        Some(ResponseFormat::JsonObject)
    );
}

#[test]
fn csharp_null_lists_read_as_empty() {
    let request: ChatRequest =
        serde_json::from_str(&read_golden("chat_request_format_text.csharp.json")).expect("parse");
    assert!(request.tools.is_empty());
    let manifest: Manifest =
        serde_json::from_str(&read_golden("manifest_minimal_v1.csharp.json")).expect("parse");
    assert!(manifest.contributions.tools.is_empty());
    assert_eq!(manifest.mcp, None);
    let set: OptionSet = serde_json::from_str(&read_golden("option_set.csharp.json")).expect("parse");
    assert!(set.migrations.is_empty());
}

#[test]
fn unknown_capability_names_are_kept_in_order() {
    let manifest: Manifest = serde_json::from_value(golden_value("manifest")).expect("parse");
    let names: Vec<&str> = manifest.capabilities.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "aep.health",
            "aep.model-provider",
            "aep.tools",
            "aep.configuration",
            "x.acme.preview"
        ]
    );
    let preview = manifest
        .capability("x.acme.preview")
        .expect("unknown capability kept");
    assert_eq!(preview.version, "0.1");
    assert_eq!(
        preview.metadata.as_ref().map(|m| m["since"].clone()),
        Some(json!(2026))
    );
    let written = serde_json::to_string(&manifest).expect("serialize");
    let order: Vec<usize> = names
        .iter()
        .map(|n| written.find(&format!("\"{n}\"")).expect("written"))
        .collect();
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "capabilities reordered: {written}"
    );
}

// ---------------------------------------------------------------------------------------
// Enum strings
// ---------------------------------------------------------------------------------------

fn enum_string<T: Serialize>(value: T) -> String {
    match serde_json::to_value(value).expect("serialize") {
        Value::String(s) => s,
        other => panic!("enum written as {other}"),
    }
}

#[test]
fn role_strings() {
    let expected = [
        (Role::System, "system"),
        (Role::User, "user"),
        (Role::Assistant, "assistant"),
        (Role::Tool, "tool"),
    ];
    for (role, text) in expected {
        assert_eq!(enum_string(role), text);
        assert_eq!(serde_json::from_value::<Role>(json!(text)).expect("parse"), role);
    }
}

#[test]
fn content_kind_strings() {
    let expected = [
        (ContentKind::Text, "text"),
        (ContentKind::Image, "image"),
        (ContentKind::File, "file"),
        (ContentKind::Structured, "structured"),
        (ContentKind::ToolCall, "toolCall"),
        (ContentKind::ToolResult, "toolResult"),
    ];
    for (kind, text) in expected {
        assert_eq!(enum_string(kind), text);
        assert_eq!(
            serde_json::from_value::<ContentKind>(json!(text)).expect("parse"),
            kind
        );
    }
}

#[test]
fn finish_reason_strings() {
    let expected = [
        (FinishReason::Stop, "stop"),
        (FinishReason::Length, "length"),
        (FinishReason::ToolCalls, "toolCalls"),
        (FinishReason::ContentFilter, "contentFilter"),
        (FinishReason::Error, "error"),
        (FinishReason::Other, "other"),
    ];
    for (reason, text) in expected {
        assert_eq!(enum_string(reason), text);
        assert_eq!(
            serde_json::from_value::<FinishReason>(json!(text)).expect("parse"),
            reason
        );
    }
    assert_eq!(
        serde_json::to_string(&ChatUpdate::finish(FinishReason::ContentFilter)).expect("serialize"),
        r#"{"contents":[],"finishReason":"contentFilter"}"#
    );
}

/// Health status is an open string (spec section 1): the reference's llama.cpp and LocalAI
/// extensions answer `loading` and `unreachable`; anything else is kept as sent.
#[test]
fn health_status_is_an_open_string() {
    for (wire, status, serving) in [
        ("available", Availability::Available, true),
        ("unavailable", Availability::Unavailable, false),
        ("loading", Availability::Loading, false),
        ("unreachable", Availability::Unreachable, false),
        ("degraded", Availability::Degraded, false),
        ("warming-up", Availability::Other("warming-up".into()), false),
        ("Available", Availability::Other("Available".into()), false),
    ] {
        let text = format!(r#"{{"status":"{wire}","details":"d"}}"#);
        let health: Health = serde_json::from_str(&text).expect(wire);
        assert_eq!(health.status, status);
        assert_eq!(health.is_serving(), serving, "{wire}");
        assert_eq!(
            serde_json::to_string(&health).unwrap(),
            text,
            "written back as sent"
        );
    }
    let nulls: Health = serde_json::from_str(r#"{"status":"loading","details":null}"#).unwrap();
    assert_eq!(
        nulls,
        Health {
            status: Availability::Loading,
            details: None
        }
    );
    assert!(serde_json::from_str::<Health>(r#"{"status":3}"#).is_err());
}

#[test]
fn availability_and_response_format_strings() {
    assert_eq!(enum_string(Availability::Available), "available");
    assert_eq!(enum_string(Availability::Unavailable), "unavailable");
    assert_eq!(to_json(&Health::available()), json!({"status": "available"}));
    assert_eq!(to_json(&ResponseFormat::Text), json!({"type": "text"}));
    assert_eq!(
        to_json(&ResponseFormat::JsonObject),
        json!({"type": "json_object"})
    );
    let schema = ResponseFormat::JsonSchema {
        json_schema: JsonSchemaFormat {
            name: Some("r".into()),
            schema: json!({"type": "object"}),
            description: None,
            strict: None,
        },
    };
    assert_eq!(
        to_json(&schema),
        json!({"type": "json_schema", "json_schema": {"name": "r", "schema": {"type": "object"}}})
    );
}

#[test]
fn unknown_enum_values_are_rejected() {
    // Each case: a valid document, then the same document with one enum value replaced.
    fn check<T: DeserializeOwned + Debug>(valid: Value, pointer: &str, invalid: &[&str]) {
        serde_json::from_value::<T>(valid.clone()).unwrap_or_else(|e| panic!("{valid} should parse: {e}"));
        for bad in invalid {
            let mut document = valid.clone();
            *document.pointer_mut(pointer).expect("pointer") = json!(bad);
            let result = serde_json::from_value::<T>(document.clone());
            assert!(result.is_err(), "{document} should be rejected, got {result:?}");
        }
    }
    let message = json!({"role": "user", "contents": [{"kind": "text", "text": "hi"}]});
    check::<Message>(message.clone(), "/role", &["developer", "function", ""]);
    check::<Message>(
        message,
        "/contents/0/kind",
        &["audio", "tool_call", "reasoning", "thinking"],
    );
    let response = json!({"messages": [], "finishReason": "stop"});
    check::<ChatResponse>(
        response,
        "/finishReason",
        &["tool_calls", "content_filter", "end_turn", "cancelled"],
    );
    let update = json!({"contents": [], "finishReason": "stop"});
    check::<ChatUpdate>(update.clone(), "/finishReason", &["done", "tool_calls"]);
    let update = json!({"contents": [], "role": "assistant"});
    check::<ChatUpdate>(update, "/role", &["model"]);
    // Health status is not an enum: see `health_status_is_an_open_string`.
    let options = json!({"responseFormat": {"type": "json_object"}});
    check::<ModelOptions>(options, "/responseFormat/type", &["json", "jsonObject", "xml"]);
}

// ---------------------------------------------------------------------------------------
// protocolVersion
// ---------------------------------------------------------------------------------------

#[test]
fn protocol_version_strings() {
    assert_eq!(ProtocolVersion::V1.as_str(), "1.0");
    assert_eq!(ProtocolVersion::V2026_08_01.as_str(), "2026-08-01");
    assert_eq!(to_json(&ProtocolVersion::V1), json!("1.0"));
    assert_eq!(to_json(&ProtocolVersion::V2026_08_01), json!("2026-08-01"));
    assert_eq!(ProtocolVersion::V1.to_string(), "1.0");
    assert_eq!(
        serde_json::from_value::<ProtocolVersion>(json!("1.0")).expect("parse"),
        ProtocolVersion::V1
    );
    assert_eq!(
        serde_json::from_value::<ProtocolVersion>(json!("2026-08-01")).expect("parse"),
        ProtocolVersion::V2026_08_01
    );
    assert_eq!("1.0".parse::<ProtocolVersion>(), Ok(ProtocolVersion::V1));
    assert_eq!(
        ProtocolVersion::from_wire("2026-08-01"),
        Ok(ProtocolVersion::V2026_08_01)
    );
    assert_eq!(ProtocolVersion::V1.discovery_path(), "/.well-known/agentstration");
    assert_eq!(ProtocolVersion::V2026_08_01.discovery_path(), "/.well-known/aep");
}

#[test]
fn any_other_protocol_version_is_rejected() {
    for other in [
        "1",
        "1.0.0",
        "1.1",
        "2.0",
        "2026-09-18",
        "2026-8-1",
        "2026-08-01 ",
        " 1.0",
        "",
        "V1",
        "latest",
    ] {
        let error = ProtocolVersion::from_wire(other).expect_err(other);
        assert_eq!(error.0, other);
        assert!(other.parse::<ProtocolVersion>().is_err(), "{other:?} parsed");
        assert!(
            serde_json::from_value::<ProtocolVersion>(json!(other)).is_err(),
            "{other:?} deserialized"
        );
    }
    // Numbers and nulls are not protocol versions either.
    for other in [json!(1.0), json!(1), json!(null)] {
        assert!(
            serde_json::from_value::<ProtocolVersion>(other.clone()).is_err(),
            "{other} deserialized"
        );
    }
    // A whole manifest with another revision does not parse.
    let mut manifest = golden_value("manifest_minimal_v1");
    serde_json::from_value::<Manifest>(manifest.clone()).expect("control document parses");
    manifest["protocolVersion"] = json!("2026-09-18");
    assert!(serde_json::from_value::<Manifest>(manifest).is_err());
}

// ---------------------------------------------------------------------------------------
// Absent optional members are omitted when writing
// ---------------------------------------------------------------------------------------

fn written(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("serialize")
}

#[test]
fn absent_optional_members_are_omitted() {
    assert_eq!(written(&Usage::default()), "{}");
    assert_eq!(written(&ModelOptions::default()), "{}");
    assert_eq!(written(&Contributions::default()), r#"{"modelProviders":[]}"#);
    assert_eq!(written(&ChatUpdate::default()), r#"{"contents":[]}"#);
    assert_eq!(written(&ChatResponse::default()), r#"{"messages":[]}"#);
    assert_eq!(written(&ConfigurationCatalog::default()), r#"{"optionSets":[]}"#);
    assert_eq!(written(&McpDescriptor::default()), r#"{"servers":[]}"#);
    assert_eq!(written(&Health::available()), r#"{"status":"available"}"#);
    assert_eq!(
        written(&ErrorBody::new("invalid_request", "bad")),
        r#"{"code":"invalid_request","message":"bad"}"#
    );
    assert_eq!(
        written(&CapabilityDescriptor::new("1.0", None)),
        r#"{"version":"1.0"}"#
    );
    assert_eq!(
        written(&ModelDescriptor::new("llama3.2")),
        r#"{"id":"llama3.2","displayName":"llama3.2"}"#
    );
    assert_eq!(
        written(&ModelProviderDescriptor::new("echo", "Echo")),
        r#"{"id":"echo","displayName":"Echo","capabilities":{"chat":true,"streaming":true,"tools":false,"thinking":false,"structuredOutput":false,"vision":false,"modelDiscovery":false}}"#
    );
    assert_eq!(
        written(&Message::user("hi")),
        r#"{"role":"user","contents":[{"kind":"text","text":"hi"}]}"#
    );
    assert_eq!(
        written(&ChatRequest::new("m", vec![])),
        r#"{"model":"m","messages":[]}"#
    );
    assert_eq!(
        written(&ExtensionIdentity {
            id: "a".into(),
            name: "A".into(),
            version: "1".into(),
            description: None
        }),
        r#"{"id":"a","name":"A","version":"1"}"#
    );
    assert_eq!(
        written(&ToolDefinition {
            name: "now".into(),
            description: None,
            parameters: json!({"type": "object"})
        }),
        r#"{"name":"now","parameters":{"type":"object"}}"#
    );
    assert_eq!(
        written(&MigrationEdge {
            from_version: "1".into(),
            to_version: "2".into()
        }),
        r#"{"fromVersion":"1","toVersion":"2"}"#
    );
    let set = OptionSet {
        id: "s".into(),
        contribution_kind: "model-provider".into(),
        contribution_id: "p".into(),
        scope: "model-profile".into(),
        preferred_version: "1".into(),
        versions: vec![],
        migrations: vec![],
    };
    assert_eq!(
        written(&set),
        r#"{"id":"s","contributionKind":"model-provider","contributionId":"p","scope":"model-profile","preferredVersion":"1","versions":[]}"#
    );

    // A C#-style manifest full of nulls writes back without any.
    let manifest: Manifest =
        serde_json::from_str(&read_golden("manifest_minimal_v1.csharp.json")).expect("parse");
    assert_eq!(
        written(&manifest),
        r#"{"protocolVersion":"1.0","extension":{"id":"acme.hello","name":"Hello","version":"0.1.0"},"capabilities":{"aep.health":{"version":"1.0","endpoint":"/aep/health"}},"contributions":{"modelProviders":[]}}"#
    );
}

#[test]
fn missing_provider_capabilities_take_the_reference_defaults() {
    let capabilities: ProviderCapabilities = serde_json::from_str("{}").expect("parse");
    assert_eq!(capabilities, ProviderCapabilities::default());
    assert!(capabilities.chat && capabilities.streaming);
    assert!(!capabilities.tools && !capabilities.thinking && !capabilities.structured_output);
    assert!(!capabilities.vision && !capabilities.model_discovery);
    let partial: ProviderCapabilities =
        serde_json::from_str(r#"{"streaming":false,"vision":true}"#).expect("parse");
    assert!(partial.chat && !partial.streaming && partial.vision);
}

#[test]
fn tool_result_is_error_defaults_to_false() {
    for document in [
        json!({"kind": "toolResult", "toolResult": {"callId": "c", "result": 1}}),
        json!({"kind": "toolResult", "toolResult": {"callId": "c", "result": 1, "isError": null}}),
    ] {
        let content: Content = serde_json::from_value(document).expect("parse");
        assert!(!content.tool_result.expect("toolResult").is_error);
    }
}
