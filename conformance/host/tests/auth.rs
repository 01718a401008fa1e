//! A token from host configuration reaches both the extension's AEP routes (canonical
//! client) and its MCP server (pool), and is never printed.

use std::sync::Arc;

use aep_host::catalog::{Catalog, ToolResource};
use aep_host::config::HostConfig;
use aep_host::mcp::McpPool;
use aep_sdk::server::{AepExtension, BearerAuth};
use serde_json::json;

const TOKEN: &str = "host-token-5d2e";

async fn guarded() -> aep_sdk::testing::TestServer {
    let extension = aep_utilities::Utilities
        .extension_builder()
        .bearer_auth(BearerAuth::new(TOKEN))
        .build()
        .unwrap();
    aep_sdk::testing::spawn(extension.router()).await
}

fn config(base: &str, token_env: Option<&str>) -> HostConfig {
    let token = token_env
        .map(|v| format!("token_env = \"{v}\""))
        .unwrap_or_default();
    HostConfig::from_toml(&format!(
        "[extensions.\"aep.utilities\"]\nurl = \"{base}\"\n{token}\n"
    ))
    .unwrap()
}

#[tokio::test]
async fn the_configured_token_reaches_aep_and_mcp() {
    let server = guarded().await;
    // SAFETY of the test: the variable name is unique to this test binary.
    unsafe { std::env::set_var("AEP_HOST_TEST_TOKEN", TOKEN) };
    let registry = config(&server.base_url, Some("AEP_HOST_TEST_TOKEN"))
        .registry()
        .unwrap();
    assert!(
        !format!("{registry:?}").contains(TOKEN),
        "Debug never shows the token"
    );
    let catalog = Catalog::new(Arc::new(registry), McpPool::new());
    catalog
        .add(ToolResource::aep("sha", "aep.utilities", "hash.compute"))
        .unwrap();
    let tool = catalog
        .resolve("sha")
        .await
        .expect("discovery and tools/list with the token");
    assert_eq!(tool.id, "sha");
    let output = catalog
        .invoke("sha", json!({"text": "abc"}))
        .await
        .expect("tools/call with the token");
    assert!(!output.is_error);

    let registry = config(&server.base_url, None).registry().unwrap();
    let catalog = Catalog::new(Arc::new(registry), McpPool::new());
    catalog
        .add(ToolResource::aep("sha", "aep.utilities", "hash.compute"))
        .unwrap();
    let error = catalog.resolve("sha").await.unwrap_err();
    assert!(!error.to_string().contains(TOKEN));

    let missing = config(&server.base_url, Some("AEP_HOST_TEST_UNSET"))
        .registry()
        .unwrap_err();
    assert!(missing.to_string().contains("AEP_HOST_TEST_UNSET"), "{missing}");
}
