//! Resolution merges AEP presentation data with MCP's schemas and annotations; a
//! direct-MCP Tool resource works; a TOML configuration drives the same catalog.

use crate::common;

use aep_host::catalog::ToolResource;
use aep_host::config::HostConfig;
use aep_host::registry::Registry;
use aep_sdk::protocol::ProtocolVersion;
use common::{catalog, sha256, utilities};
use serde_json::json;

#[tokio::test]
async fn an_aep_tool_merges_presentation_with_mcp_schemas_and_annotations() {
    let (server, _) = utilities().await;
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &server.base_url, ProtocolVersion::LATEST)
        .unwrap();
    let catalog = catalog(registry);
    catalog.add_extension_tools("aep.utilities").await.unwrap();

    let hash = catalog.resolve("hash.compute").await.unwrap();
    assert_eq!(hash.display_name, "Compute SHA-256", "from the AEP contribution");
    assert_eq!(
        hash.description.as_deref(),
        Some("Compute the lowercase hex SHA-256 digest of UTF-8 text."),
        "the contribution has none, so MCP's"
    );
    assert_eq!(
        hash.input_schema,
        json!({"type": "object", "properties": {"text": {"type": "string", "description": "The text to hash, as UTF-8."}},
               "required": ["text"]})
    );
    assert_eq!(
        (hash.hints.read_only, hash.hints.idempotent),
        (Some(true), Some(true))
    );
    assert_eq!(hash.origin.extension.as_deref(), Some("aep.utilities"));
    assert_eq!(hash.origin.contribution.as_deref(), Some("hash.compute"));
    assert_eq!(hash.origin.mcp_server.as_deref(), Some("utilities"));
    assert_eq!(hash.origin.mcp_url.as_str(), format!("{}/mcp", server.base_url));
    assert_eq!(hash.origin.mcp_tool, "hash_compute");

    let stats = catalog.resolve("text.stats").await.unwrap();
    assert_eq!(stats.metadata["category"], "text", "AEP metadata");
    let output = stats.output_schema.expect("MCP output schema");
    assert_eq!(output["required"], json!(["characters", "words", "lines"]));

    // The whole tool serializes without any model-provider type: plain JSON.
    let value = serde_json::to_value(&hash).unwrap();
    assert_eq!(value["origin"]["mcpTool"], "hash_compute");
    assert_eq!(value["hints"], json!({"readOnly": true, "idempotent": true}));
}

#[tokio::test]
async fn a_direct_mcp_tool_resource_works_without_aep() {
    let (server, counts) = utilities().await;
    let catalog = catalog(Registry::new());
    let mut resource = ToolResource::mcp("sha", format!("{}/mcp", server.base_url), "hash_compute");
    resource.description = Some("Hash it.".into());
    catalog.add(resource).unwrap();
    let tool = catalog.resolve("sha").await.unwrap();
    assert_eq!(tool.display_name, "hash_compute", "no AEP data: the MCP name");
    assert_eq!(
        tool.description.as_deref(),
        Some("Hash it."),
        "the resource's override"
    );
    assert!(tool.origin.extension.is_none() && tool.metadata.is_empty());
    let output = catalog.invoke("sha", json!({"text": "abc"})).await.unwrap();
    assert_eq!(output.text(), sha256("abc"));
    assert_eq!(
        output.content,
        vec![json!({"type": "text", "text": sha256("abc")})]
    );
    assert_eq!(counts.get("http:GET /.well-known/aep"), 0, "no AEP discovery");
}

#[tokio::test]
async fn a_toml_configuration_declares_extensions_and_tools() {
    let (server, _) = utilities().await;
    let text = format!(
        r#"
        [extensions."aep.utilities"]
        url = "{base}"
        revision = "1.0"

        [tools.sha]
        extension = "aep.utilities"
        contribution = "hash.compute"
        display_name = "SHA-256"

        [tools.direct_stats]
        mcp_url = "{base}/mcp"
        mcp_tool = "text_stats"

        [tools.off]
        extension = "aep.utilities"
        contribution = "text.case"
        enabled = false
        "#,
        base = server.base_url
    );
    let config = HostConfig::from_toml(&text).unwrap();
    let registry = config.registry().unwrap();
    assert_eq!(
        registry.get("aep.utilities").unwrap().revision,
        ProtocolVersion::V1
    );
    let catalog = catalog(registry);
    for resource in config.tool_resources().unwrap() {
        catalog.add(resource).unwrap();
    }
    let resolved = catalog.resolve_enabled().await;
    assert!(resolved.failures.is_empty(), "{:?}", resolved.failures);
    let names: Vec<(&str, &str)> = resolved
        .tools
        .iter()
        .map(|t| (t.id.as_str(), t.display_name.as_str()))
        .collect();
    assert_eq!(names, [("direct_stats", "text_stats"), ("sha", "SHA-256")]);
}
