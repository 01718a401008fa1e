//! The gateway's `/mcp` (`aep-host gateway`) against software nobody here wrote:
//!
//! - the utilities extension and a second one (two MCP servers) behind it: the official MCP conformance suite's scenarios
//!   for any server (`server-initialize`, `ping`, `tools-list`,
//!   `dns-rebinding-protection`, ... and `logging-set-level`), the MCP Inspector CLI
//!   listing and calling, each official Python client mode; then the Python SDKs'
//!   progress, log levels and cancellation (`count_slowly`, listed as
//!   `text.count_slowly`) relayed through the gateway;
//! - the everything server behind it as direct Tool -> MCP sources: the suite's tool
//!   scenarios, which call its fixed tools through the gateway.
//!
//! Server-to-client requests (sampling, elicitation) are not relayed, and the gateway
//! serves tools only (no resources or prompts), so those scenarios are not run here.

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use aep_host::catalog::{Catalog, ToolResource};
use aep_host::gateway::Gateway;
use aep_host::mcp::McpPool;
use aep_host::registry::Registry;
use aep_peers::{Peers, PythonSdk, SERVER_SCENARIOS, checks_pass};
use aep_sdk::protocol::ProtocolVersion;
use aep_sdk::server::AepExtension;
use aep_sdk::testing::{ExtensionServer, ServeOptions, serve};
use common::progress::{cancellation, progress_and_levels};

/// The suite's tool scenarios that the everything server behind the gateway must pass.
const TOOL_SCENARIOS: &[&str] = &[
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-with-progress",
    "tools-call-error",
];

fn gateway(catalog: Catalog) -> ExtensionServer {
    let gateway = Gateway::new(Arc::new(catalog)).discover_tools(true);
    serve(gateway.extension().expect("the gateway"), ServeOptions::new())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn two_extensions_behind_the_gateway_pass_every_peer() {
    let Some(peers) = Peers::require() else { return };
    let utilities = serve(
        aep_utilities::Utilities.into_extension().unwrap(),
        ServeOptions::new(),
    );
    let two = serve(common::TwoServers.into_extension().unwrap(), ServeOptions::new());
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &utilities.base_url, ProtocolVersion::LATEST)
        .unwrap();
    registry
        .register("peers.two-servers", &two.base_url, ProtocolVersion::LATEST)
        .unwrap();
    let served = gateway(Catalog::new(Arc::new(registry), McpPool::new()));
    let url = format!("{}/mcp", served.base_url);

    let called = peers
        .check_mcp_endpoint(&url)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        called.iter().any(|t| t == "text.stats"),
        "the Inspector called the tools by their AEP ids: {called:?}"
    );
    // The official Python client lists both extensions' tools (three MCP servers behind
    // one endpoint) and calls the read-only ones.
    let lines = peers
        .python_client(PythonSdk::V1, &url)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let tools: Vec<&str> = lines.iter().filter_map(|l| l["tool"].as_str()).collect();
    for tool in ["text.stats", "hash.compute", "reverse", "add"] {
        assert!(
            tools.contains(&tool),
            "{tool} not called through the gateway: {tools:?}"
        );
    }
    peers
        .mcp_scenario(&url, "logging-set-level")
        .await
        .unwrap_or_else(|e| panic!("{e}"));

    for sdk in [PythonSdk::V1, PythonSdk::V2("legacy")] {
        let report = peers
            .python_progress_of(sdk, &url, "text.count_slowly")
            .await
            .unwrap_or_else(|e| panic!("{sdk:?}: {e}"));
        progress_and_levels(sdk, &report);
        let latency = cancellation(sdk, &report);
        eprintln!("{sdk:?} through the gateway: last notification {latency:?} after notifications/cancelled");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn the_suites_tool_scenarios_pass_with_the_everything_server_behind_the_gateway() {
    let Some(peers) = Peers::require() else { return };
    let everything = serve(
        aep_mcp_everything::Everything::default()
            .into_extension()
            .unwrap(),
        ServeOptions::new(),
    );
    let upstream = format!("{}/mcp", everything.base_url);
    // Each of its tools as a direct source, under its own name.
    let pool = McpPool::new();
    let tools = pool
        .tools(&upstream.parse().unwrap())
        .await
        .expect("the everything server lists");
    let catalog = Catalog::new(Arc::new(Registry::new()), pool);
    for tool in tools.iter() {
        catalog
            .add(ToolResource::mcp(
                tool.name.as_ref(),
                &upstream,
                tool.name.as_ref(),
            ))
            .unwrap();
    }
    let served = gateway(catalog);
    let url = format!("{}/mcp", served.base_url);

    let results = peers.mcp_suite(&url).await.unwrap_or_else(|e| panic!("{e}"));
    let mut table = BTreeMap::new();
    for (scenario, checks) in &results {
        table.insert(scenario.as_str(), checks_pass(checks));
    }
    eprintln!("the suite through the gateway: {table:?}");
    let required = SERVER_SCENARIOS
        .iter()
        .chain(TOOL_SCENARIOS)
        .chain(["logging-set-level"].iter());
    let failed: Vec<String> = required
        .filter(|s| table.get(**s) != Some(&true))
        .map(|s| {
            format!(
                "{s}: {}",
                serde_json::to_string_pretty(&results.get(*s)).unwrap_or_default()
            )
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}
