//! Every co-hosted MCP server of the bundled extensions, checked by peers nobody here
//! wrote: the official MCP conformance suite (the scenarios of `SERVER_SCENARIOS`; the
//! rest are in `baseline.txt`), the MCP Inspector CLI and the official Python SDK
//! clients 1.x and 2.x (legacy, auto and 2026-07-28 modes), each listing and calling
//! every read-only tool with no warning. The template's output gets the same in
//! `templates/tests/render.rs`.

mod common;

use aep_peers::{Peers, PythonSdk, SERVER_SCENARIOS};
use aep_sdk::server::AepExtension;
use common::{TwoServers, serve};

/// Each MCP endpoint to check, with the read-only tools it must let a client call.
async fn endpoints() -> Vec<(String, Vec<&'static str>)> {
    let utilities = serve(aep_utilities::Utilities.into_extension().unwrap()).await;
    let two = serve(TwoServers.into_extension().unwrap()).await;
    vec![
        (
            format!("{utilities}/mcp"),
            vec![
                "hash_compute",
                "json_compact",
                "text_case",
                "text_stats",
                "count_slowly",
            ],
        ),
        (format!("{two}/mcp/text"), vec!["reverse", "repeat"]),
        (format!("{two}/mcp/math"), vec!["add"]),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_mcp_conformance_suite_passes_every_applicable_scenario() {
    let Some(peers) = Peers::require() else { return };
    let mut failures = Vec::new();
    for (url, _) in endpoints().await {
        for scenario in SERVER_SCENARIOS {
            if let Err(error) = peers.mcp_scenario(&url, scenario).await {
                failures.push(error);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_inspector_cli_lists_and_calls_every_read_only_tool_without_warnings() {
    let Some(peers) = Peers::require() else { return };
    for (url, tools) in endpoints().await {
        let called = peers
            .inspector_lists_and_calls(&url)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(called, tools, "{url}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_python_clients_list_and_call_every_read_only_tool() {
    let Some(peers) = Peers::require() else { return };
    for (url, tools) in endpoints().await {
        for sdk in PythonSdk::ALL {
            let calls = peers
                .python_client(sdk, &url)
                .await
                .unwrap_or_else(|e| panic!("{sdk:?} against {url}: {e}"));
            let called: Vec<&str> = calls.iter().filter_map(|c| c["tool"].as_str()).collect();
            assert_eq!(called, tools, "{sdk:?} against {url}");
            for call in &calls {
                // json_compact gets the text "x", not JSON: its tool error is the answer.
                let expected_error = call["tool"] == "json_compact";
                assert_eq!(call["result"]["isError"], expected_error, "{sdk:?}: {call}");
            }
        }
    }
}
