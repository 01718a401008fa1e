//! The MCP client pool: reuse counted at the server, concurrency across extensions,
//! session loss, connection loss, list_changed and the tool-not-found refresh.

use crate::common;

use std::sync::Arc;

use aep_host::ErrorCode;
use aep_host::catalog::{Catalog, ToolResource};
use aep_host::mcp::{McpPool, McpRevision, PoolOptions};
use aep_host::registry::Registry;
use aep_sdk::protocol::ProtocolVersion;
use aep_sdk::testing::spawn;
use common::{
    Counts, Gate, Switch, catalog, counting, dynamic::Dynamic, eventually, sha256, utilities,
    utilities_router,
};
use serde_json::json;

#[tokio::test]
async fn many_calls_share_one_initialize_and_one_tools_list() {
    let (server, counts) = utilities().await;
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &server.base_url, ProtocolVersion::LATEST)
        .unwrap();
    let catalog = catalog(registry);
    let added = catalog.add_extension_tools("aep.utilities").await.unwrap();
    assert_eq!(added.len(), 5);

    let resolved = catalog.resolve_enabled().await;
    assert!(resolved.failures.is_empty(), "{:?}", resolved.failures);
    assert_eq!(resolved.tools.len(), 5);
    const N: usize = 20;
    for i in 0..N {
        let text = format!("call {i}");
        let output = catalog
            .invoke("hash.compute", json!({ "text": text }))
            .await
            .unwrap();
        assert_eq!(output.text(), sha256(&text));
        assert!(!output.is_error);
    }
    // Concurrent calls reuse the same client too.
    let outputs = futures::future::join_all(
        (0..N).map(|i| catalog.invoke("text.stats", json!({ "text": "a b ".repeat(i + 1) }))),
    )
    .await;
    for (i, output) in outputs.into_iter().enumerate() {
        assert_eq!(output.unwrap().structured.unwrap()["words"], 2 * (i + 1));
    }

    assert_eq!(counts.get("mcp:initialize"), 1, "{:?}", counts.snapshot());
    assert_eq!(counts.get("mcp:notifications/initialized"), 1);
    assert_eq!(counts.get("mcp:tools/list"), 1, "{:?}", counts.snapshot());
    assert_eq!(counts.get("mcp:tools/call"), 2 * N);
    assert_eq!(counts.get("http:GET /.well-known/aep"), 1, "one discovery");
    let url = url::Url::parse(&format!("{}/mcp", server.base_url)).unwrap();
    let stats = catalog.pool().stats(&url);
    assert_eq!(
        (stats.connects, stats.tool_lists, stats.calls),
        (1, 1, 2 * N as u64)
    );
}

#[tokio::test]
async fn resolution_across_extensions_runs_concurrently_and_lists_each_server_once() {
    let (a, counts_a) = utilities().await;
    let counts_b = Arc::new(Counts::default());
    let (direct, counts_direct) = utilities().await;
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &a.base_url, ProtocolVersion::LATEST)
        .unwrap();
    // The same extension code registered under another id would fail the identity
    // check; a hand-written manifest gives the second extension its own id.
    let manifest = common::manifest_with_tools(
        "acme.second",
        "2026-08-01",
        json!([
            {"id": "second.hash", "displayName": "Hash (2nd)", "mcp": {"server": "utilities", "tool": "hash_compute"}},
            {"id": "second.stats", "displayName": "Stats (2nd)", "mcp": {"server": "utilities", "tool": "text_stats"}}
        ]),
    );
    let second = spawn(common::manifest_router(
        manifest,
        Some(counting(utilities_router(), counts_b.clone())),
    ))
    .await;
    registry
        .register("acme.second", &second.base_url, ProtocolVersion::LATEST)
        .unwrap();
    let catalog = catalog(registry);
    catalog.add_extension_tools("aep.utilities").await.unwrap();
    catalog.add_extension_tools("acme.second").await.unwrap();
    for name in ["hash_compute", "json_compact", "text_case"] {
        let id = format!("direct.{name}");
        catalog
            .add(ToolResource::mcp(id, format!("{}/mcp", direct.base_url), name))
            .unwrap();
    }
    let ids: Vec<String> = catalog.resources().into_iter().map(|r| r.id).collect();
    assert_eq!(ids.len(), 10);
    // Everything cold: manifests, connections and tool lists are fetched during this call.
    let results = catalog.resolve_many(&ids).await;
    for result in &results {
        assert!(result.is_ok(), "{result:?}");
    }
    for counts in [&counts_a, &counts_b, &counts_direct] {
        assert_eq!(counts.get("mcp:initialize"), 1, "{:?}", counts.snapshot());
        assert_eq!(counts.get("mcp:tools/list"), 1, "{:?}", counts.snapshot());
    }
    assert_eq!(counts_a.get("http:GET /.well-known/aep"), 1);
}

#[tokio::test]
async fn a_server_that_forgets_the_session_gets_one_new_initialize() {
    let counts = Arc::new(Counts::default());
    let switch = Switch::new(utilities_router());
    let server = spawn(counting(switch.router(), counts.clone())).await;
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &server.base_url, ProtocolVersion::LATEST)
        .unwrap();
    let catalog = catalog(registry);
    catalog
        .add(ToolResource::aep("hash", "aep.utilities", "hash.compute"))
        .unwrap();
    for _ in 0..3 {
        catalog.invoke("hash", json!({"text": "before"})).await.unwrap();
    }
    assert_eq!(counts.get("mcp:initialize"), 1);

    // "Restart": a new extension instance (new session store) at the same URL.
    switch.replace(utilities_router());
    for _ in 0..3 {
        let output = catalog.invoke("hash", json!({"text": "after"})).await.unwrap();
        assert_eq!(output.text(), sha256("after"));
    }
    assert_eq!(
        counts.get("mcp:initialize"),
        2,
        "one re-initialize: {:?}",
        counts.snapshot()
    );
    assert_eq!(
        counts.get("mcp:tools/call"),
        6 + 1,
        "the call that met the unknown session is retried once"
    );
}

#[tokio::test]
async fn a_lost_connection_is_a_transport_error_then_the_pool_reconnects() {
    let (server, counts) = utilities().await;
    let gate = Gate::start(server.addr).await;
    let catalog = catalog(Registry::new());
    catalog
        .add(ToolResource::mcp(
            "hash",
            format!("{}/mcp", gate.url()),
            "hash_compute",
        ))
        .unwrap();
    catalog.invoke("hash", json!({"text": "one"})).await.unwrap();
    assert_eq!(counts.get("mcp:initialize"), 1);

    gate.down();
    let error = catalog.invoke("hash", json!({"text": "two"})).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::ExtensionUnreachable, "{error}");

    gate.up();
    let output = catalog.invoke("hash", json!({"text": "three"})).await.unwrap();
    assert_eq!(output.text(), sha256("three"));
    assert_eq!(counts.get("mcp:initialize"), 2, "{:?}", counts.snapshot());
}

#[tokio::test]
async fn list_changed_refreshes_the_cached_tool_list() {
    let server_tools = Dynamic::new(&["alpha"]);
    let counts = Arc::new(Counts::default());
    let server = spawn(counting(server_tools.router(), counts.clone())).await;
    let url = format!("{}/mcp", server.base_url);
    let catalog = catalog(Registry::new());
    catalog.add(ToolResource::mcp("alpha", &url, "alpha")).unwrap();
    catalog.add(ToolResource::mcp("beta", &url, "beta")).unwrap();
    catalog.resolve("alpha").await.unwrap();
    catalog.resolve("alpha").await.unwrap();
    assert_eq!(counts.get("mcp:tools/list"), 1);

    server_tools.set_tools_and_notify(&["alpha", "beta"]).await;
    let parsed = url::Url::parse(&url).unwrap();
    eventually("notifications/tools/list_changed", || {
        catalog.pool().stats(&parsed).list_changed == 1
    })
    .await;
    let tools = catalog.pool().tools(&parsed).await.unwrap();
    assert_eq!(tools.len(), 2, "the notification invalidated the cache");
    assert_eq!(counts.get("mcp:tools/list"), 2);
    let beta = catalog.resolve("beta").await.unwrap();
    assert_eq!(beta.description.as_deref(), Some("The beta tool."));
    assert_eq!(counts.get("mcp:tools/list"), 2, "served from the refreshed cache");
}

#[tokio::test]
async fn a_tool_missing_from_the_cache_triggers_one_refresh() {
    let server_tools = Dynamic::new(&["alpha"]);
    let counts = Arc::new(Counts::default());
    let server = spawn(counting(server_tools.router(), counts.clone())).await;
    let url = format!("{}/mcp", server.base_url);
    let catalog = catalog(Registry::new());
    for name in ["alpha", "gamma", "nothing"] {
        catalog.add(ToolResource::mcp(name, &url, name)).unwrap();
    }
    catalog.resolve("alpha").await.unwrap();

    // Added without a notification: found by refreshing on the miss.
    server_tools.set_tools(&["alpha", "gamma"]);
    let gamma = catalog.invoke("gamma", json!({"n": 1})).await.unwrap();
    assert_eq!(gamma.text(), "gamma ran");
    assert_eq!(counts.get("mcp:tools/list"), 2);
    let error = catalog.resolve("nothing").await.unwrap_err();
    assert_eq!(error.code, ErrorCode::McpToolNotFound);
    assert!(error.message.contains("alpha, gamma"), "{error}");
    assert_eq!(counts.get("mcp:tools/list"), 3, "one refresh per miss");

    // Removed without a notification: the server's "not found" refreshes the list.
    server_tools.set_tools(&["gamma"]);
    let error = catalog.invoke("alpha", json!({"n": 1})).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::McpToolNotFound, "{error}");
    assert_eq!(counts.get("mcp:tools/list"), 4);
    assert_eq!(
        catalog.resolve("alpha").await.unwrap_err().code,
        ErrorCode::McpToolNotFound
    );
}

#[tokio::test]
async fn the_stateless_revision_needs_no_initialize() {
    let (server, counts) = utilities().await;
    let pool = McpPool::with_options(PoolOptions {
        revision: McpRevision::Stateless,
        ..PoolOptions::default()
    });
    let catalog = Catalog::new(Arc::new(Registry::new()), pool);
    catalog
        .add(ToolResource::mcp(
            "hash",
            format!("{}/mcp", server.base_url),
            "hash_compute",
        ))
        .unwrap();
    for _ in 0..3 {
        assert_eq!(
            catalog.invoke("hash", json!({"text": "x"})).await.unwrap().text(),
            sha256("x")
        );
    }
    assert_eq!(counts.get("mcp:initialize"), 0, "{:?}", counts.snapshot());
    assert_eq!(counts.get("mcp:tools/list"), 1);
    assert_eq!(counts.get("mcp:tools/call"), 3);
}
