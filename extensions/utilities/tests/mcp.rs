//! The utilities extension over MCP with rmcp's real client (Streamable HTTP), and its
//! AEP manifest mapping every contribution to a tool that exists.

mod common;

use aep_sdk::client::Client;
use common::{call, connect, start, text_of};
use serde_json::{Value, json};

fn schema_of(tools: &[rmcp::model::Tool], name: &str) -> Value {
    let tool = tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("tool {name} listed"));
    Value::Object((*tool.input_schema).clone())
}

#[tokio::test]
async fn initialize_and_list_tools_with_schemas() {
    let server = start().await;
    let client = connect(&format!("{}/mcp", server.base_url)).await;
    let info = client.peer_info().expect("initialize result");
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("aep.utilities")
    );
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "count_slowly",
            "hash_compute",
            "json_compact",
            "text_case",
            "text_stats"
        ]
    );

    let hash = tools.iter().find(|t| t.name == "hash_compute").unwrap();
    assert_eq!(
        hash.description.as_deref(),
        Some("Compute the lowercase hex SHA-256 digest of UTF-8 text.")
    );
    let annotations = hash.annotations.as_ref().unwrap();
    assert_eq!(
        (annotations.read_only_hint, annotations.idempotent_hint),
        (Some(true), Some(true))
    );
    assert_eq!(
        schema_of(&tools, "hash_compute"),
        json!({
            "type": "object",
            "properties": {"text": {"type": "string", "description": "The text to hash, as UTF-8."}},
            "required": ["text"]
        })
    );
    // Strict-client shape: no $schema, $defs inlined (no $ref), root object.
    for tool in &tools {
        let schema = Value::Object((*tool.input_schema).clone());
        let text = schema.to_string();
        assert!(
            !text.contains("$schema") && !text.contains("$ref") && !text.contains("$defs"),
            "{text}"
        );
        assert_eq!(schema["type"], "object");
    }
    let case = schema_of(&tools, "text_case");
    assert_eq!(case["required"], json!(["text", "case"]));
    let variants: Vec<&str> = case["properties"]["case"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["const"].as_str().unwrap())
        .collect();
    assert_eq!(variants, ["upper", "lower", "title"], "{case}");
    assert_eq!(
        case["properties"]["case"]["description"],
        "Target case: `upper`, `lower` or `title`."
    );
    let stats = schema_of(&tools, "text_stats");
    assert_eq!(
        stats["required"],
        json!(["text"]),
        "Option parameters are optional"
    );
    assert!(stats["properties"]["skip_blank_lines"].is_object());
    let stats_tool = tools.iter().find(|t| t.name == "text_stats").unwrap();
    let output = Value::Object(
        (**stats_tool
            .output_schema
            .as_ref()
            .expect("structured tools have an output schema"))
        .clone(),
    );
    assert_eq!(output["type"], "object");
    assert_eq!(output["required"], json!(["characters", "words", "lines"]));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn call_every_tool() {
    let server = start().await;
    let client = connect(&format!("{}/mcp", server.base_url)).await;

    let result = call(&client, "hash_compute", json!({"text": "abc"})).await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        text_of(&result),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );

    let result = call(&client, "json_compact", json!({"json": "{ \"a\" : [1, 2] }"})).await;
    assert_eq!(
        (result.is_error, text_of(&result)),
        (Some(false), r#"{"a":[1,2]}"#.to_owned())
    );

    let result = call(&client, "json_compact", json!({"json": "{oops"})).await;
    assert_eq!(
        result.is_error,
        Some(true),
        "a tool failure is a result with isError, not a protocol error"
    );
    assert!(
        text_of(&result).starts_with("not valid JSON"),
        "{}",
        text_of(&result)
    );

    let result = call(
        &client,
        "text_case",
        json!({"text": "hello wide world", "case": "title"}),
    )
    .await;
    assert_eq!(text_of(&result), "Hello Wide World");
    let result = call(&client, "text_case", json!({"text": "MiXeD", "case": "lower"})).await;
    assert_eq!(text_of(&result), "mixed");

    let result = call(
        &client,
        "text_stats",
        json!({"text": "one two\n\nthree\n", "skip_blank_lines": true}),
    )
    .await;
    let expected = json!({"characters": 15, "words": 3, "lines": 2});
    assert_eq!(result.structured_content, Some(expected.clone()));
    let copy: Value = serde_json::from_str(&text_of(&result)).expect("text copy is the same JSON");
    assert_eq!(copy, expected);
    let result = call(&client, "text_stats", json!({"text": "a\n\nb"})).await;
    assert_eq!(result.structured_content.unwrap()["lines"], 3);

    let result = call(&client, "text_case", json!({"text": "x", "case": "sideways"})).await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        text_of(&result).contains("'case'"),
        "the error names the argument: {}",
        text_of(&result)
    );
    let result = call(&client, "hash_compute", json!({})).await;
    assert_eq!(result.is_error, Some(true));
    assert!(text_of(&result).contains("text"), "{}", text_of(&result));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn manifest_maps_every_contribution_to_a_listed_tool() {
    let server = start().await;
    let manifest = Client::new(&server.base_url).unwrap().discover().await.unwrap();
    assert!(manifest.capabilities.contains_key("aep.tools"));
    assert!(!manifest.capabilities.contains_key("aep.model-provider"));
    assert_eq!(manifest.contributions.tools.len(), 5);
    let servers = manifest.mcp_servers();
    assert_eq!(servers.len(), 1);
    assert_eq!(
        (servers[0].id.as_str(), servers[0].endpoint.as_str()),
        ("utilities", "/mcp")
    );
    let hash = manifest
        .contributions
        .tools
        .iter()
        .find(|t| t.id == "hash.compute")
        .unwrap();
    assert_eq!(hash.display_name, "Compute SHA-256");
    let stats = manifest
        .contributions
        .tools
        .iter()
        .find(|t| t.id == "text.stats")
        .unwrap();
    assert_eq!(stats.metadata.as_ref().unwrap()["category"], "text");

    let base = aep_sdk::validate::parse_base_url(&server.base_url).unwrap();
    for contribution in &manifest.contributions.tools {
        let declared = servers
            .iter()
            .find(|s| s.id == contribution.mcp.server)
            .expect("declared server");
        let url = aep_sdk::validate::resolve_mcp_endpoint(&base, &declared.endpoint).unwrap();
        let client = connect(url.as_str()).await;
        let tools = client.list_all_tools().await.unwrap();
        assert!(
            tools.iter().any(|t| t.name == contribution.mcp.tool),
            "{} maps to a listed tool",
            contribution.id
        );
        client.cancel().await.unwrap();
    }
    // The manifest never carries a schema.
    let raw: Value = reqwest::get(format!("{}/.well-known/aep", server.base_url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(aep_sdk::validate::validate_manifest_json(&raw).is_empty());
    assert!(!raw.to_string().contains("inputSchema"));
}
