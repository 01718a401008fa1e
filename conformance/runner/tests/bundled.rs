//! The bundled extensions pass every applicable check: the SDK's echo example (a model
//! provider), the utilities extension (MCP tools) and the Ollama extension in front of
//! the fake Ollama, each started in-process.

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
    assert_eq!(calls.len(), 5, "{calls:?}");
}

/// The one-line form an extension's own tests use, on `#[tokio::test]`'s default
/// current-thread runtime.
#[tokio::test]
async fn check_works_in_a_plain_tokio_test() {
    let server = spawn(echo::extension().expect("valid declaration").router()).await;
    let report = aep_conformance::check(&server.base_url).await;
    report.assert_success();
    assert!(report.is_success() && report.failed().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ollama_extension_in_front_of_fake_ollama_passes_every_applicable_check() {
    let fake = fake_ollama::FakeOllama::start().await;
    let config = aep_ollama::config::OllamaConfig::with_url(&fake.base_url()).expect("a valid URL");
    let extension = aep_ollama::OllamaExtension::new(config)
        .expect("client")
        .into_extension()
        .expect("valid declaration");
    let server = spawn(extension.router()).await;
    let report = check_with(&server.base_url, &strict()).await;
    println!("{}", report.to_table(false));
    report.assert_success();
    // Its option set is checked end to end; it declares no MCP server and is not
    // deterministic, so those checks are the only ones skipped.
    for id in [
        "5.config.catalog",
        "5.config.digest",
        "5.config.options.valid",
        "5.config.options.unknown-set",
        "5.config.options.unknown-version",
        "5.config.options.digest-mismatch",
        "5.config.options.invalid-values",
        "5.config.migrate.errors",
        "3.stream.cancellation",
        "4.errors.oversized",
    ] {
        assert_eq!(report.get(id).map(|r| r.status), Some(Status::Passed), "{id}");
    }
    let skipped: Vec<&str> = ids(&report, Status::Skipped);
    for id in &skipped {
        assert!(
            id.starts_with("6.")
                || id.starts_with("1.manifest.tools")
                || [
                    "1.manifest.mcp-servers",
                    "3.stream.matches-chat",
                    "5.config.migrate"
                ]
                .contains(id),
            "{id} skipped: {:?}",
            report.get(id).and_then(|r| r.reason.clone())
        );
    }
}
