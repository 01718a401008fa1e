//! The official MCP conformance suite, every client scenario (as `conformance list
//! --client` names them), against `aep-mcp-everything-client` (the host's MCP client
//! pool), with the `client:` list of `conformance-baseline.yml` as the suite's
//! expected-failures file: an unexpected failure and a stale entry both fail. The
//! scenarios run one at a time rather than with `--suite all`, which starts them all at
//! once: `sse-retry` times the client's reconnection (500 ms retry, 450 to 700 ms
//! accepted). The suite's verdict reads only the checks, so the scenarios the client
//! must pass also need the client to have exited 0. The result table is written to
//! `target/mcp-conformance/everything-client.md` (the guide's conformance chapter shows it).

mod common;

use std::path::Path;

use aep_peers::{Peers, Run};
use common::{baseline_file, passed, suite, write_result_table};
use serde_json::Value;

/// The scenarios the client must pass (issues 19 and 26): not in the baseline, and the
/// client itself exits 0 on them (but those of [`GIVES_UP`]).
const REQUIRED: [&str; 20] = [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    // OAuth (the host's client, headless): discovery, client identity, scope, token
    // endpoint authentication, pre-registration, and the 2025-03-26 fallbacks.
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
];

/// Required scenarios in which the client is meant to give up (the suite allows it an
/// error exit there): it must exit 1 with this reason on stderr. In scope-retry-limit
/// every token is refused with 403 `insufficient_scope` for a scope it already has.
const GIVES_UP: [(&str, &str); 1] = [("auth/scope-retry-limit", "signing in again would not help")];

const CLIENT: &str = env!("CARGO_BIN_EXE_aep-mcp-everything-client");

/// The `client:` entries of the baseline (a YAML list of plain scalars).
fn baseline_client() -> Vec<String> {
    let text = std::fs::read_to_string(baseline_file()).expect("read the baseline");
    let mut entries = Vec::new();
    let mut in_client = false;
    for line in text.lines() {
        let code = line.split('#').next().unwrap_or_default().trim_end();
        if code.is_empty() {
            continue;
        }
        if !code.starts_with(' ') {
            in_client = code.trim() == "client:";
            continue;
        }
        if in_client && let Some(entry) = code.trim().strip_prefix("- ") {
            entries.push(entry.trim().to_owned());
        }
    }
    entries
}

/// The client scenarios with the revisions they belong to, from `conformance list --client`.
async fn scenarios(peers: &Peers) -> Vec<(String, String)> {
    let run = peers
        .run(&suite(), &["list".to_owned(), "--client".to_owned()])
        .await;
    assert_eq!(run.code, Some(0), "{}", run.describe());
    run.stdout
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(|entry| match entry.split_once(" [") {
            Some((name, revisions)) => (
                name.to_owned(),
                revisions.trim_end_matches(']').replace(',', ", "),
            ),
            None => (entry.to_owned(), String::new()),
        })
        .collect()
}

/// The checks of the one scenario run in `out` (`<scenario>-<timestamp>/checks.json`,
/// under `auth/` for the auth scenarios).
fn checks(out: &Path) -> Option<Vec<Value>> {
    let mut dirs = vec![out.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.file_name().is_some_and(|n| n == "checks.json") {
                let text = std::fs::read_to_string(&path).ok()?;
                return serde_json::from_str(&text).ok();
            }
        }
    }
    None
}

/// One scenario through the suite's client mode with `baseline` as expected failures.
async fn run_scenario(peers: &Peers, scenario: &str, baseline: &Path) -> (Run, Option<Vec<Value>>) {
    let out = std::env::temp_dir().join(format!(
        "aep-everything-client-{}-{}",
        scenario.replace('/', "-"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&out);
    let args = [
        "client",
        "--command",
        CLIENT,
        "--scenario",
        scenario,
        "--expected-failures",
        &baseline.display().to_string(),
        "-o",
        &out.display().to_string(),
    ]
    .map(String::from);
    let run = peers.run(&suite(), &args).await;
    let checks = checks(&out);
    let _ = std::fs::remove_dir_all(&out);
    (run, checks)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

#[test]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
fn every_client_scenario_passes_or_is_in_the_baseline() {
    let Some(peers) = Peers::require() else { return };
    // The suite splits --command on spaces.
    assert!(!CLIENT.contains(char::is_whitespace), "{CLIENT}");
    runtime().block_on(async {
        let scenarios = scenarios(&peers).await;
        let names: Vec<&str> = scenarios.iter().map(|(n, _)| n.as_str()).collect();
        for required in REQUIRED {
            assert!(
                names.contains(&required),
                "the suite lists no {required}: {names:?}"
            );
        }
        let baseline = baseline_client();
        for entry in &baseline {
            assert!(
                names.contains(&entry.as_str()),
                "baseline entry {entry} is no client scenario of the suite (it would never go stale)"
            );
            assert!(
                !REQUIRED.contains(&entry.as_str()),
                "{entry} must pass, not be in the baseline"
            );
        }

        let mut table = Vec::new();
        let mut failures = Vec::new();
        for (scenario, revisions) in &scenarios {
            let (run, checks) = run_scenario(&peers, scenario, &baseline_file()).await;
            let Some(checks) = checks else {
                failures.push(format!("{scenario}: no checks.json\n{}", run.describe()));
                continue;
            };
            let pass = passed(&checks);
            if run.code != Some(0) {
                failures.push(format!("{scenario}:\n{}", run.describe()));
            }
            // The suite's verdict reads only the checks; the required scenarios also need
            // the client to have finished cleanly, or to have given up for the right reason.
            if REQUIRED.contains(&scenario.as_str()) {
                let failed = run.stderr.contains("Client exited with code");
                match GIVES_UP.iter().find(|(s, _)| s == scenario) {
                    Some((_, reason))
                        if !(run.stderr.contains("Client exited with code 1")
                            && run.stderr.contains(reason)) =>
                    {
                        failures.push(format!(
                            "{scenario}: the client must give up ({reason})\n{}",
                            run.describe()
                        ));
                    }
                    Some(_) => {}
                    None if failed => {
                        failures.push(format!("{scenario}: the client failed\n{}", run.describe()))
                    }
                    None => {}
                }
            }
            table.push((scenario.clone(), revisions.clone(), pass));
        }
        write_table(&table);
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
        let passing = table.iter().filter(|(_, _, pass)| *pass).count();
        assert_eq!(
            passing + baseline.len(),
            table.len(),
            "every scenario passes or is in the baseline"
        );
    });
}

fn write_table(table: &[(String, String, bool)]) {
    let mut text = String::from("| scenario | revisions | result |\n|---|---|---|\n");
    for (scenario, revisions, pass) in table {
        let result = if *pass { "pass" } else { "fail (baseline)" };
        text.push_str(&format!("| `{scenario}` | {revisions} | {result} |\n"));
    }
    write_result_table("everything-client.md", &text);
}

#[test]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
fn a_stale_client_baseline_entry_fails_the_run() {
    let Some(peers) = Peers::require() else { return };
    runtime().block_on(async {
        let stale =
            std::env::temp_dir().join(format!("aep-stale-client-baseline-{}.yml", std::process::id()));
        std::fs::write(&stale, "server: []\nclient:\n  - tools_call\n").expect("write a baseline");
        let (run, checks) = run_scenario(&peers, "tools_call", &stale).await;
        let _ = std::fs::remove_file(&stale);
        assert!(
            checks.as_deref().is_some_and(passed),
            "tools_call passes\n{}",
            run.describe()
        );
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
