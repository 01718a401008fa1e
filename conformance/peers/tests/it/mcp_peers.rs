//! Every co-hosted MCP server of the bundled extensions, checked by peers nobody here
//! wrote: the official MCP conformance suite (`SERVER_SCENARIOS`, and the
//! `CAPABILITY_SCENARIOS` of what each server advertises; the rest are in `baseline.txt`,
//! which must stay exact), the MCP Inspector CLI and the official Python SDK
//! clients 1.x and 2.x (legacy, auto and 2026-07-28 modes), each listing and calling
//! every read-only tool with no warning. The template's output gets the same in
//! `templates/tests/render.rs`; resources, prompts, progress, logging and cancellation
//! are in `resources_prompts.rs` and `progress_logging.rs`.

use crate::common;

use std::collections::BTreeSet;

use aep_peers::{CAPABILITY_SCENARIOS, Peers, PythonSdk, SERVER_SCENARIOS, checks_pass, scenarios_for};
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
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn official_mcp_conformance_suite_passes_every_applicable_scenario() {
    let Some(peers) = Peers::require() else { return };
    let mut failures = Vec::new();
    let mut ran = Vec::new();
    for (url, _) in endpoints().await {
        let capabilities = peers.capabilities(&url).await.unwrap_or_else(|e| panic!("{e}"));
        let scenarios = scenarios_for(&capabilities);
        for scenario in &scenarios {
            if let Err(error) = peers.mcp_scenario(&url, scenario).await {
                failures.push(error);
            }
        }
        ran.push((url, scenarios));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // What each server advertises decides: utilities has everything, the two servers of
    // TwoServers only tools (and logging, which every SDK server advertises).
    let extra = |i: usize| ran[i].1[SERVER_SCENARIOS.len()..].to_vec();
    assert_eq!(
        extra(0),
        ["logging-set-level", "resources-list", "prompts-list"],
        "{}",
        ran[0].0
    );
    assert_eq!(extra(1), ["logging-set-level"], "{}", ran[1].0);
    assert_eq!(extra(2), ["logging-set-level"], "{}", ran[2].0);
}

/// `baseline.txt` names exactly the suite's server scenarios that are not run, each once;
/// a stale line fails: a name the suite does not list, one that is also run, or one that
/// passes against utilities (the server with every capability): the whole suite runs
/// against it once, as `--expected-failures` would, and a passing scenario must be run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn the_baseline_names_exactly_the_scenarios_not_run_and_none_of_them_passes() {
    let Some(peers) = Peers::require() else { return };
    let baseline = aep_peers::baseline().unwrap_or_else(|e| panic!("{e}"));
    let listed = peers.mcp_scenario_names().await.unwrap_or_else(|e| panic!("{e}"));
    let run: BTreeSet<&str> = SERVER_SCENARIOS
        .iter()
        .copied()
        .chain(CAPABILITY_SCENARIOS.iter().map(|(_, s)| *s))
        .collect();
    let mut problems = Vec::new();
    for entry in &baseline {
        if !listed.contains(&entry.scenario) {
            problems.push(format!("stale: `{}` is no scenario of the suite", entry.scenario));
        }
        if run.contains(entry.scenario.as_str()) {
            problems.push(format!("stale: `{}` is run, yet in the baseline", entry.scenario));
        }
    }
    for scenario in &run {
        if !listed.iter().any(|l| l == scenario) {
            problems.push(format!("`{scenario}` is run but the suite has no such scenario"));
        }
    }
    for scenario in &listed {
        if !run.contains(scenario.as_str()) && !baseline.iter().any(|e| &e.scenario == scenario) {
            problems.push(format!(
                "`{scenario}` is neither run nor in baseline.txt (with why)"
            ));
        }
    }
    let utilities = serve(aep_utilities::Utilities.into_extension().unwrap()).await;
    let results = peers
        .mcp_suite(&format!("{utilities}/mcp"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for scenario in &listed {
        if !results.contains_key(scenario) {
            problems.push(format!("the suite run has no result for `{scenario}`"));
        }
    }
    for entry in &baseline {
        if results
            .get(&entry.scenario)
            .is_some_and(|checks| checks_pass(checks))
        {
            problems.push(format!(
                "stale: `{}` passes against utilities now; run it instead ({})",
                entry.scenario, entry.reason
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
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
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
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
