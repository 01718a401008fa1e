//! The official MCP conformance suite, every server scenario, against the everything
//! server, on both MCP revisions the suite tests, with `conformance-baseline.yml` as the
//! suite's expected-failures file: an unexpected failure and a stale entry both fail.
//! The result table is written to `target/mcp-conformance/everything-server.md` (the
//! guide's conformance chapter shows it).

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use aep_peers::Peers;
use common::{baseline_file, passed, serve_everything, suite, write_result_table};
use serde_json::Value;

const REVISIONS: [&str; 2] = ["2025-06-18", "2025-11-25"];

/// Each scenario's checks in `out` (`server-<scenario>-<timestamp>/checks.json`).
fn results(out: &Path) -> BTreeMap<String, Vec<Value>> {
    const TIME: usize = "-2026-12-01T15-14-19-533Z".len();
    let mut results = BTreeMap::new();
    for entry in std::fs::read_dir(out).expect("the suite wrote results").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(scenario) = name.strip_prefix("server-").filter(|s| s.len() > TIME) else {
            continue;
        };
        let scenario = scenario[..scenario.len() - TIME].to_owned();
        let text = std::fs::read_to_string(entry.path().join("checks.json")).expect("checks.json");
        let checks: Vec<Value> = serde_json::from_str(&text).expect("checks.json is JSON");
        results.insert(scenario, checks);
    }
    results
}

#[test]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
fn every_server_scenario_passes_or_is_in_the_baseline() {
    let Some(peers) = Peers::require() else { return };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let (_server, url) = serve_everything().await;
        let suite = suite();
        let baseline = baseline_file();
        let mut table = BTreeMap::<String, Vec<(String, bool)>>::new();
        let mut failures = Vec::new();
        for revision in REVISIONS {
            let out = std::env::temp_dir().join(format!("aep-everything-{revision}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&out);
            let args = [
                "server",
                "--url",
                &url,
                "--suite",
                "all",
                "--spec-version",
                revision,
                "--expected-failures",
                &baseline.display().to_string(),
                "-o",
                &out.display().to_string(),
            ]
            .map(String::from);
            let run = peers.run(&suite, &args).await;
            let results = results(&out);
            let _ = std::fs::remove_dir_all(&out);
            assert!(
                results.len() >= 20,
                "{revision}: too few scenarios ran\n{}",
                run.describe()
            );
            if run.code != Some(0) {
                failures.push(format!("{revision}:\n{}", run.describe()));
            }
            for (scenario, checks) in results {
                table
                    .entry(scenario)
                    .or_default()
                    .push((revision.to_owned(), passed(&checks)));
            }
        }
        write_table(&table);
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    });
}

fn write_table(table: &BTreeMap<String, Vec<(String, bool)>>) {
    let mut text = String::from("| scenario | 2025-06-18 | 2025-11-25 |\n|---|---|---|\n");
    for (scenario, runs) in table {
        let cell = |revision: &str| match runs.iter().find(|(r, _)| r == revision) {
            Some((_, true)) => "pass",
            Some((_, false)) => "fail (baseline)",
            None => "not in this revision",
        };
        text.push_str(&format!(
            "| `{scenario}` | {} | {} |\n",
            cell(REVISIONS[0]),
            cell(REVISIONS[1])
        ));
    }
    write_result_table("everything-server.md", &text);
}

#[test]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
fn a_stale_baseline_entry_fails_the_run() {
    let Some(peers) = Peers::require() else { return };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let (_server, url) = serve_everything().await;
        let stale = std::env::temp_dir().join(format!("aep-stale-baseline-{}.yml", std::process::id()));
        std::fs::write(&stale, "server:\n  - ping\n").expect("write a baseline");
        let suite = suite();
        let out = std::env::temp_dir().join(format!("aep-stale-results-{}", std::process::id()));
        let args = [
            "server",
            "--url",
            &url,
            "--scenario",
            "ping",
            "--expected-failures",
        ]
        .map(String::from)
        .into_iter()
        .chain([
            stale.display().to_string(),
            "-o".to_owned(),
            out.display().to_string(),
        ])
        .collect::<Vec<_>>();
        let run = peers.run(&suite, &args).await;
        let _ = std::fs::remove_file(&stale);
        let _ = std::fs::remove_dir_all(&out);
        assert_eq!(
            run.code,
            Some(1),
            "a passing scenario in the baseline fails\n{}",
            run.describe()
        );
        assert!(
            run.stdout.contains("Stale baseline entries"),
            "{}",
            run.describe()
        );
    });
}
