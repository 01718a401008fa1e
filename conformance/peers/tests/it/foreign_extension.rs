//! A foreign AEP extension written in Python (FastAPI + the official MCP SDK 1.x's
//! FastMCP, `python/foreign_ext.py`), and its variants with the C# reference's legal
//! choices: the canonical document on the V1 route, provider health `loading`, optional
//! members written as `null`. `aep-conformance` must pass each by default, and `aep-host`
//! must discover it, resolve and call its tools through MCP and chat with its provider.

use std::process::ExitCode;

use aep_conformance::{Options, Revisions, Status};
use aep_host::cli::{Cli, run};
use aep_peers::{Peers, PythonExtension};
use clap::Parser;

const VARIANTS: &[&[&str]] = &[
    &[],
    &["--v1-canonical"],
    &["--health-loading"],
    &["--nulls"],
    &["--v1-canonical", "--health-loading", "--nulls"],
];

async fn start(peers: &Peers, flags: &[&str]) -> PythonExtension {
    peers
        .python_extension(flags)
        .await
        .unwrap_or_else(|e| panic!("{flags:?}: {e}"))
}

/// Runs `aep-host args...` in-process; returns its exit code and output.
async fn aep_host(args: &[&str]) -> (ExitCode, String) {
    let cli = Cli::try_parse_from(std::iter::once("aep-host").chain(args.iter().copied()))
        .unwrap_or_else(|e| panic!("{args:?}: {e}"));
    let mut out = Vec::new();
    let code = run(cli, &mut out)
        .await
        .unwrap_or_else(|e| panic!("aep-host {args:?}: {e}"));
    (code, String::from_utf8_lossy(&out).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn conformance_runner_passes_the_python_extension_and_its_variants() {
    let Some(peers) = Peers::require() else { return };
    for flags in VARIANTS {
        let extension = start(&peers, flags).await;
        let report = aep_conformance::check_with(&extension.base_url, &Options::default()).await;
        let table = report.to_table(false);
        assert!(report.is_success(), "{flags:?}:\n{table}");
        // Only the legal choices warn: the session-only MCP server, and the V1 alias.
        let mut expected = vec!["6.mcp.stateless"];
        if flags.contains(&"--v1-canonical") {
            expected.insert(0, "1.discovery.v1-exact");
        }
        let warned: Vec<&str> = report.warned().iter().map(|r| r.id).collect();
        assert_eq!(warned, expected, "{flags:?}:\n{table}");
        if flags.contains(&"--health-loading") {
            let health = report.get("3.provider.health").expect("ran");
            assert_eq!(health.status, Status::Passed, "{table}");
            assert!(
                health
                    .details
                    .iter()
                    .any(|d| d.contains("loading (model is loading)")),
                "{table}"
            );
        }
        if flags.contains(&"--v1-canonical") {
            let v1 = Options {
                revisions: Revisions::V1,
                ..Options::default()
            };
            let report = aep_conformance::check_with(&extension.base_url, &v1).await;
            let failed: Vec<&str> = report.failed().iter().map(|r| r.id).collect();
            assert_eq!(failed, ["1.discovery.v1-exact"], "{}", report.to_table(false));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn aep_host_discovers_resolves_calls_and_chats_with_the_python_extension() {
    let Some(peers) = Peers::require() else { return };
    for flags in VARIANTS {
        let extension = start(&peers, flags).await;
        let url = extension.base_url.as_str();
        let registered = format!("py.echo={url}");

        let (code, out) = aep_host(&["discover", url, "--id", "py.echo"]).await;
        assert_eq!(code, ExitCode::SUCCESS, "{flags:?}: {out}");
        assert!(out.contains("tool contribution py.reverse"), "{out}");
        assert!(out.contains("    health: available"), "{out}");
        let provider_health = if flags.contains(&"--health-loading") {
            "provider echo health: loading (model is loading), not serving"
        } else {
            "provider echo health: available"
        };
        assert!(out.contains(provider_health), "{flags:?}: {out}");

        let (code, out) = aep_host(&["-e", &registered, "tools", "--json"]).await;
        assert_eq!(code, ExitCode::SUCCESS, "{out}");
        let tools: serde_json::Value = serde_json::from_str(&out).unwrap();
        let ids: Vec<&str> = tools
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["id"].as_str())
            .collect();
        assert_eq!(ids, ["py.add", "py.reverse"], "{out}");

        let (code, out) = aep_host(&["-e", &registered, "call", "py.reverse", r#"{"text":"abc"}"#]).await;
        assert_eq!(code, ExitCode::SUCCESS, "{out}");
        assert!(out.contains("cba"), "{out}");
        let (code, out) = aep_host(&["-e", &registered, "call", "py.add", r#"{"a":2,"b":40}"#]).await;
        assert_eq!(code, ExitCode::SUCCESS, "{out}");
        assert!(out.contains("42"), "{out}");

        let (code, out) = aep_host(&[
            "-e",
            &registered,
            "chat",
            "-m",
            "py.echo/echo/echo-1",
            "hello",
            "big",
            "world",
        ])
        .await;
        assert_eq!(code, ExitCode::SUCCESS, "{flags:?}: {out}");
        assert!(out.contains("hello big world"), "{flags:?}: {out}");

        // A V1 host refuses the canonical alias, as the runner warns.
        if flags.contains(&"--v1-canonical") {
            let cli = Cli::try_parse_from(["aep-host", "--revision", "1.0", "discover", url]).unwrap();
            let error = run(cli, &mut Vec::new())
                .await
                .expect_err("a V1 host refuses the alias");
            assert!(error.to_string().contains("protocol"), "{error}");
        }
    }
}
