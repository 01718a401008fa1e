//! Every resolution failure code, each produced by a real misconfiguration of the host
//! or of an extension.

use crate::common;

use aep_host::catalog::ToolResource;
use aep_host::registry::{ExtensionEntry, Registry};
use aep_host::{ErrorCode, HostError};
use aep_sdk::protocol::ProtocolVersion;
use aep_sdk::testing::spawn;
use common::{catalog, dead_url, manifest_router, manifest_with_tools, utilities, utilities_router};
use serde_json::json;

const LATEST: ProtocolVersion = ProtocolVersion::LATEST;

/// Resolves one AEP-backed Tool resource against an extension registered as `id` at `url`.
async fn resolve_aep(id: &str, url: &str, contribution: &str) -> HostError {
    let mut registry = Registry::new();
    registry.register(id, url, LATEST).unwrap();
    let catalog = catalog(registry);
    catalog
        .add(ToolResource::aep("the.tool", id, contribution))
        .unwrap();
    catalog.resolve("the.tool").await.unwrap_err()
}

async fn resolve_direct(url: &str, tool: &str) -> HostError {
    let catalog = catalog(Registry::new());
    catalog.add(ToolResource::mcp("the.tool", url, tool)).unwrap();
    catalog.resolve("the.tool").await.unwrap_err()
}

#[tokio::test]
async fn tool_not_found_an_agent_refers_to_an_undeclared_tool() {
    let catalog = catalog(Registry::new());
    catalog
        .add(ToolResource::mcp(
            "hash",
            "http://127.0.0.1:1/mcp",
            "hash_compute",
        ))
        .unwrap();
    let error = catalog.resolve("hash.compute").await.unwrap_err();
    assert_eq!(error.code, ErrorCode::ToolNotFound);
    assert_eq!(error.target.as_deref(), Some("hash.compute"));
    assert_eq!(
        catalog.set_enabled("nope", true).unwrap_err().code,
        ErrorCode::ToolNotFound
    );
    let error = catalog.invoke("nope", json!({})).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::ToolNotFound);
}

#[tokio::test]
async fn tool_disabled_and_enabled_again() {
    let (server, counts) = utilities().await;
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &server.base_url, LATEST)
        .unwrap();
    let catalog = catalog(registry);
    catalog
        .add(ToolResource::aep("hash", "aep.utilities", "hash.compute").enabled(false))
        .unwrap();
    let error = catalog.resolve("hash").await.unwrap_err();
    assert_eq!(error.code, ErrorCode::ToolDisabled);
    let error = catalog.invoke("hash", json!({"text": "x"})).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::ToolDisabled);
    assert!(counts.snapshot().is_empty(), "a disabled tool costs no request");
    assert!(catalog.resolve_enabled().await.tools.is_empty());

    catalog.set_enabled("hash", true).unwrap();
    assert_eq!(
        catalog.resolve("hash").await.unwrap().display_name,
        "Compute SHA-256"
    );
}

#[tokio::test]
async fn extension_unreachable_nothing_listens_at_the_configured_url() {
    let url = dead_url().await;
    let error = resolve_aep("aep.utilities", &url, "hash.compute").await;
    assert_eq!(error.code, ErrorCode::ExtensionUnreachable, "{error}");
    assert!(error.message.contains(&url), "{error}");

    let error = resolve_direct(&format!("{url}/mcp"), "hash_compute").await;
    assert_eq!(error.code, ErrorCode::ExtensionUnreachable, "{error}");
}

#[tokio::test]
async fn extension_unreachable_no_base_url_is_registered_for_the_extension() {
    let catalog = catalog(Registry::new());
    catalog
        .add(ToolResource::aep("hash", "aep.utilities", "hash.compute"))
        .unwrap();
    let error = catalog.resolve("hash").await.unwrap_err();
    assert_eq!(error.code, ErrorCode::ExtensionUnreachable);
    assert!(error.message.contains("not registered"), "{error}");
}

#[tokio::test]
async fn extension_identity_mismatch_a_url_registered_under_the_wrong_id() {
    let (server, _) = utilities().await;
    let error = resolve_aep("acme.weather", &server.base_url, "hash.compute").await;
    assert_eq!(error.code, ErrorCode::ExtensionIdentityMismatch, "{error}");
    assert!(
        error.message.contains("'acme.weather'") && error.message.contains("'aep.utilities'"),
        "{error}"
    );
}

#[tokio::test]
async fn protocol_incompatible_an_extension_that_serves_another_revision() {
    // An outdated extension that answers the 2026-08-01 route with a 1.0 document.
    let manifest = manifest_with_tools("acme.old", "1.0", json!([]));
    let server = spawn(manifest_router(manifest, None)).await;
    let error = resolve_aep("acme.old", &server.base_url, "x").await;
    assert_eq!(error.code, ErrorCode::ProtocolIncompatible, "{error}");

    // The host pinned to 1.0 talks to the utilities extension: exact match, it works.
    let (utilities, _) = utilities().await;
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &utilities.base_url, ProtocolVersion::V1)
        .unwrap();
    let manifest = registry.manifest("aep.utilities").await.unwrap();
    assert_eq!(manifest.protocol_version, ProtocolVersion::V1);
}

#[tokio::test]
async fn aep_descriptor_invalid_a_manifest_that_breaks_the_rules() {
    let duplicated = manifest_with_tools(
        "acme.broken",
        "2026-08-01",
        json!([
            {"id": "hash", "displayName": "Hash", "mcp": {"server": "utilities", "tool": "hash_compute"}},
            {"id": "hash", "displayName": "Hash again", "mcp": {"server": "utilities", "tool": "hash_compute"}}
        ]),
    );
    let with_schema = manifest_with_tools(
        "acme.broken",
        "2026-08-01",
        json!([{"id": "hash", "displayName": "Hash", "inputSchema": {"type": "object"},
                "mcp": {"server": "utilities", "tool": "hash_compute"}}]),
    );
    for manifest in [duplicated, with_schema] {
        let server = spawn(manifest_router(manifest, Some(utilities_router()))).await;
        let error = resolve_aep("acme.broken", &server.base_url, "hash").await;
        assert_eq!(error.code, ErrorCode::AepDescriptorInvalid, "{error}");
    }
}

#[tokio::test]
async fn aep_tool_not_found_a_contribution_the_extension_does_not_have() {
    let (server, counts) = utilities().await;
    let error = resolve_aep("aep.utilities", &server.base_url, "hash.sha512").await;
    assert_eq!(error.code, ErrorCode::AepToolNotFound, "{error}");
    assert!(
        error.message.contains("hash.compute, json.compact"),
        "lists what exists: {error}"
    );
    assert_eq!(
        counts.get("http:GET /.well-known/aep"),
        2,
        "discovered again once before failing"
    );
}

#[tokio::test]
async fn a_contribution_added_by_a_redeployed_extension_is_found_by_discovering_again() {
    let tool = |id: &str, mcp_tool: &str| json!({"id": id, "displayName": id, "mcp": {"server": "utilities", "tool": mcp_tool}});
    let old = manifest_with_tools("acme.grow", "2026-08-01", json!([tool("hash", "hash_compute")]));
    let new = manifest_with_tools(
        "acme.grow",
        "2026-08-01",
        json!([tool("hash", "hash_compute"), tool("stats", "text_stats")]),
    );
    let switch = common::Switch::new(manifest_router(old, Some(utilities_router())));
    let server = spawn(switch.router()).await;
    let mut registry = Registry::new();
    registry.register("acme.grow", &server.base_url, LATEST).unwrap();
    let catalog = catalog(registry);
    catalog
        .add(ToolResource::aep("hash", "acme.grow", "hash"))
        .unwrap();
    catalog
        .add(ToolResource::aep("stats", "acme.grow", "stats"))
        .unwrap();
    catalog.resolve("hash").await.unwrap();
    switch.replace(manifest_router(new, Some(utilities_router())));
    assert_eq!(catalog.resolve("stats").await.unwrap().display_name, "stats");
}

#[tokio::test]
async fn aep_mcp_server_not_found_a_contribution_maps_to_an_undeclared_server() {
    // A hand-written manifest with a typo in one contribution's server id: that tool
    // fails with aep_mcp_server_not_found, the extension's other tool still resolves.
    let manifest = manifest_with_tools(
        "acme.typo",
        "2026-08-01",
        json!([
            {"id": "hash", "displayName": "Hash", "mcp": {"server": "utility", "tool": "hash_compute"}},
            {"id": "stats", "displayName": "Stats", "mcp": {"server": "utilities", "tool": "text_stats"}}
        ]),
    );
    let server = spawn(manifest_router(manifest, Some(utilities_router()))).await;
    let mut registry = Registry::new();
    registry.register("acme.typo", &server.base_url, LATEST).unwrap();
    let catalog = catalog(registry);
    catalog.add_extension_tools("acme.typo").await.unwrap();
    let error = catalog.resolve("hash").await.unwrap_err();
    assert_eq!(error.code, ErrorCode::AepMcpServerNotFound, "{error}");
    assert_eq!(error.target.as_deref(), Some("utility"));
    let stats = catalog.resolve("stats").await.unwrap();
    assert_eq!(stats.display_name, "Stats");
}

#[tokio::test]
async fn mcp_tool_not_found_a_mapping_or_direct_reference_to_a_missing_tool() {
    let manifest = manifest_with_tools(
        "acme.stale",
        "2026-08-01",
        json!([{"id": "hash", "displayName": "Hash", "mcp": {"server": "utilities", "tool": "hash_sha512"}}]),
    );
    let server = spawn(manifest_router(manifest, Some(utilities_router()))).await;
    let error = resolve_aep("acme.stale", &server.base_url, "hash").await;
    assert_eq!(error.code, ErrorCode::McpToolNotFound, "{error}");
    assert!(error.message.contains("hash_sha512"), "{error}");

    let (utilities, _) = utilities().await;
    let error = resolve_direct(&format!("{}/mcp", utilities.base_url), "hash-compute").await;
    assert_eq!(error.code, ErrorCode::McpToolNotFound, "{error}");
}

#[tokio::test]
async fn endpoint_invalid_urls_that_are_not_http_or_carry_credentials() {
    for url in [
        "http://user:secret@127.0.0.1:1/mcp",
        "ftp://user:secret@127.0.0.1/mcp",
        "ftp://127.0.0.1/mcp",
        "127.0.0.1:1/mcp",
    ] {
        let error = resolve_direct(url, "hash_compute").await;
        assert_eq!(error.code, ErrorCode::EndpointInvalid, "{url}: {error}");
        assert!(
            !error.message.contains("secret"),
            "credentials are not echoed: {error}"
        );
    }
    for flag in [
        "x=ftp://127.0.0.1:1",
        "x=http://admin:secret@127.0.0.1:1",
        "x=ftp://admin:secret@127.0.0.1:1",
        "x=not a url",
    ] {
        let error = ExtensionEntry::parse_flag(flag, LATEST).unwrap_err();
        assert_eq!(error.code, ErrorCode::EndpointInvalid, "{flag}: {error}");
        assert!(
            !error.message.contains("secret"),
            "credentials are not echoed: {error}"
        );
    }
}

#[tokio::test]
async fn invalid_arguments_are_refused_before_the_call_with_the_path() {
    let (server, counts) = utilities().await;
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &server.base_url, LATEST)
        .unwrap();
    let catalog = catalog(registry);
    catalog.add_extension_tools("aep.utilities").await.unwrap();
    let cases = [
        ("hash.compute", json!({}), "arguments.text: is required"),
        (
            "hash.compute",
            json!({"text": 42}),
            "arguments.text: expected string, got integer",
        ),
        (
            "text.case",
            json!({"text": "x", "case": "sideways"}),
            "arguments.case: must be one of",
        ),
        (
            "text.stats",
            json!({"text": "x", "skip_blank_lines": "yes"}),
            "arguments.skip_blank_lines",
        ),
        (
            "hash.compute",
            json!(["abc"]),
            "arguments: expected object, got array",
        ),
    ];
    for (tool, arguments, expected) in cases {
        let error = catalog.invoke(tool, arguments).await.unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArguments, "{error}");
        assert!(error.message.contains(expected), "{tool}: {error}");
    }
    assert_eq!(counts.get("mcp:tools/call"), 0, "nothing was sent");
    // A tool error is a result, not an Err.
    let output = catalog
        .invoke("json.compact", json!({"json": "{oops"}))
        .await
        .unwrap();
    assert!(output.is_error);
    assert!(output.text().starts_with("not valid JSON"), "{}", output.text());
}
