//! The conformance screen: the checks to choose from, the suite run with progress and
//! exported, exactly the chosen checks run, and the same verdicts through the
//! Inspector's recording proxy as run directly.

use serde_json::{Value, json};

use crate::common::{self, Inspector, api};
use crate::exchanges;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformance_suite_runs_with_progress_and_exports() {
    let utilities = common::utilities().await;
    let (inspector, id) = Inspector::connected(&utilities.base_url).await;
    let report_json = api(&id, "conformance/report.json");
    inspector.get_refused(&report_json, 404, "no_report").await;

    let events = inspector
        .events(
            &api(&id, "conformance"),
            json!({"only": ["1.discovery", "6.tools"]}),
        )
        .await;
    let (last, report) = events.last().unwrap();
    assert_eq!(last, "report", "{events:?}");
    assert_eq!(report["success"], true, "{report}");
    let results = report["results"].as_array().unwrap();
    assert!(
        results
            .iter()
            .any(|r| r["id"] == "1.discovery.v1" && r["status"] == "passed"),
        "{report}"
    );
    assert!(
        results
            .iter()
            .all(|r| r["level"].is_string() && r["section"].is_string())
    );
    let progress: Vec<&Value> = events
        .iter()
        .filter(|(n, _)| n == "progress")
        .map(|(_, d)| d)
        .collect();
    assert_eq!(progress.len(), results.len() * 2, "a start and a done per check");
    assert_eq!(progress[0]["status"], Value::Null);
    assert_eq!(progress[1]["status"], "passed");

    let exported = inspector.get_ok(&report_json).await;
    assert_eq!(exported["results"], report["results"]);
    let junit = inspector.fetch(&api(&id, "conformance/report.xml")).await;
    assert_eq!(junit.headers()["content-type"], "application/xml");
    assert!(junit.text().await.unwrap().contains("<testsuite"));

    let bad = inspector
        .post_expect(&api(&id, "conformance"), json!({"only": ["9.nothing"]}), 400)
        .await;
    assert!(bad["error"]["message"].as_str().unwrap().contains("9.nothing"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_checks_to_choose_from_are_the_runners_catalogue_and_run_exactly_as_chosen() {
    let utilities = common::utilities().await;
    let (inspector, id) = Inspector::connected(&utilities.base_url).await;
    let listed = inspector.get_ok("/api/checks").await;
    let checks = listed["checks"].as_array().unwrap();
    assert_eq!(checks.len(), aep_conformance::CATALOG.len());
    for (check, info) in checks.iter().zip(aep_conformance::CATALOG) {
        assert_eq!(
            check,
            &json!({"id": info.id, "level": info.level.as_str(), "section": info.section, "description": info.description})
        );
    }

    // `5.config.migrate` as a pattern also selects `5.config.migrate.errors`; chosen
    // from the list, it runs alone.
    let chosen = ["5.config.migrate", "1.health"];
    let events = inspector
        .events(&api(&id, "conformance"), json!({"checks": chosen}))
        .await;
    let (last, report) = events.last().unwrap();
    assert_eq!(last, "report", "{events:?}");
    let ran: Vec<&str> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ran, ["1.health", "5.config.migrate"], "{report}");
    let started: Vec<&Value> = events
        .iter()
        .filter(|(n, d)| n == "progress" && d["status"].is_null())
        .map(|(_, d)| &d["id"])
        .collect();
    assert_eq!(started, [&json!("1.health"), &json!("5.config.migrate")]);
    assert!(events.iter().all(|(n, d)| n != "progress" || d["total"] == 2));
    let exported = inspector.get_ok(&api(&id, "conformance/report.json")).await;
    assert_eq!(exported["results"], report["results"]);

    for (body, says) in [
        (json!({"checks": ["1.health", "1.nothing"]}), "1.nothing"),
        (json!({"checks": []}), "at least one"),
        (json!({"checks": ["1.health"], "only": ["1"]}), "not both"),
    ] {
        let refused = inspector
            .post_refused(&api(&id, "conformance"), body, 400, "bad_request")
            .await;
        assert!(
            refused["error"]["message"].as_str().unwrap().contains(says),
            "{refused}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recording_proxy_changes_no_conformance_verdict() {
    let (echo, inspector, id) = Inspector::connected_to_echo().await;
    let events = inspector.events(&api(&id, "conformance"), json!({})).await;
    let through = &events.last().unwrap().1;
    let direct = aep_conformance::check_with(&echo.base_url, &aep_conformance::Options::default()).await;
    let direct = serde_json::to_value(&direct).unwrap();
    let verdicts = |report: &Value| -> Vec<(String, String)> {
        report["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["id"].as_str().unwrap().to_owned(),
                    r["status"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    assert!(verdicts(&direct).len() > 20);
    let differ: Vec<_> = verdicts(through)
        .into_iter()
        .zip(verdicts(&direct))
        .filter(|(t, d)| t != d)
        .collect();
    let detail = |report: &Value, id: &str| {
        report["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .cloned()
    };
    let why: Vec<_> = differ
        .iter()
        .map(|((id, _), _)| (detail(through, id), detail(&direct, id)))
        .collect();
    assert_eq!(verdicts(through).len(), verdicts(&direct).len(), "{through}");
    assert!(differ.is_empty(), "through the proxy, then direct: {why:#?}");
    assert_eq!(through["success"], true, "{through}");
    let trace = inspector.trace(&id).await;
    assert!(
        exchanges(&trace)
            .any(|x| x["via"] == "runner" && x["url"].as_str().unwrap().ends_with("/chat/stream")),
        "the runner's streams are in the trace"
    );
}
