//! The bundled extensions pass every applicable check: the SDK's echo example (a model
//! provider) and the utilities extension (MCP tools), each started in-process.

#[path = "../../../aep-sdk/examples/echo.rs"]
#[allow(dead_code)]
mod echo;

use aep_conformance::{Options, Report, Status, check_with};
use aep_sdk::server::AepExtension;
use aep_sdk::testing::spawn;

fn strict() -> Options {
    Options {
        strict: true,
        ..Options::default()
    }
}

fn ids(report: &Report, status: Status) -> Vec<&'static str> {
    report
        .results
        .iter()
        .filter(|r| r.status == status)
        .map(|r| r.id)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_example_passes_every_applicable_check() {
    let server = spawn(echo::extension().expect("valid declaration").router()).await;
    let report = check_with(&server.base_url, &strict()).await;
    println!("{}", report.to_table(false));
    report.assert_success();
    // What does not apply to a provider-only extension is skipped, and nothing else.
    let skipped = ids(&report, Status::Skipped);
    for id in &skipped {
        assert!(
            id.starts_with("5.")
                || id.starts_with("6.")
                || id.starts_with("1.manifest.tools")
                || *id == "1.manifest.mcp-servers",
            "{id} skipped: {:?}",
            report.get(id).and_then(|r| r.reason.clone())
        );
    }
    for id in [
        "3.stream.matches-chat",
        "3.stream.cancellation",
        "4.errors.oversized",
        "2.json.enums",
    ] {
        assert_eq!(report.get(id).map(|r| r.status), Some(Status::Passed), "{id}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn utilities_extension_passes_every_applicable_check() {
    let extension = aep_utilities::Utilities
        .into_extension()
        .expect("valid declaration");
    let server = spawn(extension.router()).await;
    let report = check_with(&server.base_url, &strict()).await;
    println!("{}", report.to_table(false));
    report.assert_success();
    for id in [
        "6.mcp.reachable",
        "6.mcp.initialize",
        "6.mcp.stateless",
        "6.tools.contribution-maps",
        "6.tools.schemas",
        "6.tools.call",
        "1.manifest.tools.no-schema",
    ] {
        assert_eq!(report.get(id).map(|r| r.status), Some(Status::Passed), "{id}");
    }
    // Every read-only tool was called.
    let calls = &report.get("6.tools.call").expect("ran").details;
    assert_eq!(calls.len(), 4, "{calls:?}");
}
