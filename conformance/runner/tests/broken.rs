//! Deliberately broken extensions, each violating one rule, each failing exactly the
//! expected checks; every check id is failed by at least one of them. And the reference
//! they are derived from passes every check, strictly, with none skipped.

mod broken {
    pub mod corrupt;
    pub mod fixtures;
    pub mod reference;
}

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;

use aep_conformance::{CATALOG, Options, Report, Status, check_with};
use aep_sdk::server::AepExtension;
use aep_sdk::testing::spawn;
use broken::fixtures::{Fixture, fixtures};
use broken::reference::Reference;
use futures::StreamExt;

fn strict() -> Options {
    Options {
        strict: true,
        ..Options::default()
    }
}

fn failed(report: &Report) -> BTreeSet<&'static str> {
    report.failed().iter().map(|r| r.id).collect()
}

#[test]
fn every_check_is_failed_by_some_fixture() {
    let fixtures = fixtures();
    let covered: BTreeSet<&str> = fixtures.iter().flat_map(|f| f.expected.iter().copied()).collect();
    let never: Vec<&str> = CATALOG
        .iter()
        .map(|c| c.id)
        .filter(|id| !covered.contains(id))
        .collect();
    assert!(
        never.is_empty(),
        "no broken fixture fails these checks: {never:?}"
    );
    for fixture in &fixtures {
        for id in fixture.expected {
            assert!(
                aep_conformance::info(id).is_some(),
                "{}: unknown check id {id}",
                fixture.name
            );
        }
    }
    let names: BTreeSet<&str> = fixtures.iter().map(|f| f.name).collect();
    assert_eq!(names.len(), fixtures.len(), "fixture names are unique");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reference_passes_every_check_strictly() {
    let reference = Reference::default();
    let calls = reference.destructive_calls.clone();
    let server = spawn(reference.into_extension().expect("valid declaration").router()).await;
    let report = check_with(&server.base_url, &strict()).await;
    println!("{}", report.to_table(false));
    report.assert_success();
    let skipped: Vec<&str> = report.skipped().iter().map(|r| r.id).collect();
    assert!(
        skipped.is_empty(),
        "every check applies to the reference: {skipped:?}"
    );
    assert_eq!(report.results.len(), CATALOG.len());
    // The call rule: read-only tools were called, the others never.
    let calls_detail = &report.get("6.tools.call").expect("ran").details;
    assert!(
        calls_detail.iter().any(|d| d.starts_with("reference/echo_text")),
        "{calls_detail:?}"
    );
    assert!(
        calls_detail.iter().any(|d| d.starts_with("reference/add")),
        "{calls_detail:?}"
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "an unannotated or destructive tool was called"
    );
}

async fn run(fixture: &Fixture) -> Result<(), String> {
    let server = spawn((fixture.build)()).await;
    let report = check_with(&server.base_url, &strict()).await;
    let found = failed(&report);
    let expected: BTreeSet<&str> = fixture.expected.iter().copied().collect();
    if found == expected {
        return Ok(());
    }
    Err(format!(
        "fixture '{}' ({}): expected to fail {expected:?}, failed {found:?}\n{}",
        fixture.name,
        fixture.breaks,
        report.to_table(false)
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_broken_fixture_fails_exactly_its_checks() {
    let only = std::env::var("AEP_FIXTURE").ok();
    let selected: Vec<&Fixture> = fixtures()
        .into_iter()
        .filter(|f| only.as_deref().is_none_or(|o| o == f.name))
        .collect();
    let outcomes: Vec<Result<(), String>> = futures::stream::iter(selected.iter().map(|f| run(f)))
        .buffer_unordered(4)
        .collect()
        .await;
    let errors: Vec<String> = outcomes.into_iter().filter_map(Result::err).collect();
    assert!(
        errors.is_empty(),
        "{} fixture(s) wrong:\n\n{}",
        errors.len(),
        errors.join("\n\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recommended_checks_warn_without_strict() {
    let fixture = fixtures()
        .into_iter()
        .find(|f| f.name == "stream-no-accel-buffering")
        .expect("fixture exists");
    let server = spawn((fixture.build)()).await;
    let report = check_with(&server.base_url, &Options::default()).await;
    assert!(report.is_success(), "{}", report.to_table(false));
    let warned: Vec<&str> = report.warned().iter().map(|r| r.id).collect();
    assert_eq!(warned, ["3.stream.accel-buffering"]);
    assert_eq!(
        report.get("3.stream.accel-buffering").map(|r| r.status),
        Some(Status::Warned)
    );
}

/// Legal choices of foreign extensions (the C# reference's V1 alias, MCP servers that
/// speak only the session revision) pass by default with a warning, and fail when asked
/// for: `--strict`, or `--revision 1.0` for the alias.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legal_foreign_choices_warn_by_default() {
    for (name, check) in [
        ("v1-canonical-alias", "1.discovery.v1-exact"),
        ("mcp-stateless-broken", "6.mcp.stateless"),
    ] {
        let fixture = fixtures()
            .into_iter()
            .find(|f| f.name == name)
            .expect("fixture exists");
        let server = spawn((fixture.build)()).await;
        let report = check_with(&server.base_url, &Options::default()).await;
        assert!(report.is_success(), "{name}: {}", report.to_table(false));
        let warned: Vec<&str> = report.warned().iter().map(|r| r.id).collect();
        assert_eq!(warned, [check], "{name}");
        let table = report.to_table(false);
        if name == "v1-canonical-alias" {
            assert!(table.contains("hosts speaking V1"), "{table}");
            let v1_only = Options {
                revisions: aep_conformance::Revisions::V1,
                ..Options::default()
            };
            let report = check_with(&server.base_url, &v1_only).await;
            assert_eq!(
                failed(&report),
                BTreeSet::from([check]),
                "{}",
                report.to_table(false)
            );
            assert_eq!(
                report.get(check).map(|r| r.level),
                Some(aep_conformance::Level::Required)
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_token_is_sent_on_every_request_mcp_included() {
    use axum::extract::Request;
    use axum::middleware::Next;
    let guarded = broken::corrupt::hook(Reference::router(), |request: Request, next: Next| async move {
        let authorized = request
            .headers()
            .get(http::header::AUTHORIZATION)
            .is_some_and(|v| v == "Bearer s3cret");
        if !authorized {
            return broken::corrupt::aep_error(401, "unauthorized");
        }
        next.run(request).await
    });
    let server = spawn(guarded).await;
    let with_token = Options {
        bearer_token: Some("s3cret".into()),
        ..strict()
    };
    let report = check_with(&server.base_url, &with_token).await;
    report.assert_success();
    assert!(report.skipped().is_empty(), "{}", report.to_table(false));
    let without = check_with(&server.base_url, &strict()).await;
    assert!(failed(&without).contains("1.discovery.v1"));
}
