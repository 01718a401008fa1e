//! Connecting: side by side with the overview, the revision, the token, a manifest that
//! fails validation, every kind of bad input, other origins, and the page itself.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{self, Inspector, api, fixtures, id_of};
use crate::ids;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connects_side_by_side_and_shows_the_overview() {
    let utilities = common::utilities().await;
    let echo = common::echo().await;
    let inspector = Inspector::start(vec![]).await;
    let first = inspector.connect(&utilities.base_url).await;
    let second = inspector.connect(&echo.base_url).await;
    assert_eq!(first["extension"]["id"], "aep.utilities");
    assert_eq!(second["extension"]["id"], "aep.examples.echo");
    assert_eq!(first["revision"], "2026-08-01");
    let list = inspector.get_ok("/api/connections").await;
    assert_eq!(list.as_array().map(Vec::len), Some(2), "{list}");

    let id = &id_of(&first);
    let overview = inspector.get_ok(&api(id, "overview")).await;
    let tools = ids(&overview["manifest"]["contributions"]["tools"]);
    assert!(tools.contains(&"hash.compute"), "{tools:?}");
    assert_eq!(overview["manifest"]["mcp"]["servers"][0]["id"], "utilities");

    let health = inspector.get_ok(&api(id, "health")).await;
    assert_eq!(health["extension"]["status"], "available", "{health}");
    let echo_id = &id_of(&second);
    let (_, health) = inspector.get(&api(echo_id, "health")).await;
    assert_eq!(health["providers"][0]["id"], "echo", "{health}");
    assert!(health["providers"][0]["health"]["status"].is_string(), "{health}");

    let raw = inspector.get_ok(&api(id, "manifests")).await;
    assert_eq!(raw["documents"][0]["revision"], "1.0");
    assert_eq!(raw["documents"][0]["status"], 200);
    assert_eq!(
        raw["documents"][1]["url"],
        format!("{}/.well-known/aep", utilities.base_url)
    );
    assert_eq!(
        raw["diff"],
        json!([{"path": "/protocolVersion", "left": "1.0", "right": "2026-08-01"}]),
        "the two revisions differ only in protocolVersion"
    );

    let models = inspector.get_ok(&api(echo_id, "providers/echo/models")).await;
    assert_eq!(models[0]["id"], "echo-1", "{models}");

    inspector.close(id).await;
    inspector
        .get_refused(&api(id, "overview"), 404, "connection_not_found")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_revision_can_be_chosen() {
    let echo = common::echo().await;
    let inspector = Inspector::start(vec![]).await;
    let v1 = inspector
        .connect_with(json!({"url": echo.base_url, "revision": "1.0"}))
        .await;
    assert_eq!(v1["revision"], "1.0", "{v1}");
    inspector
        .post_refused(
            "/api/connections",
            json!({"url": echo.base_url, "revision": "0.9"}),
            400,
            "bad_request",
        )
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_is_sent_to_the_extension_and_never_echoed() {
    let secret = "s3cret-token-of-the-test";
    let guarded = fixtures::utilities_with_token(secret).await;
    let inspector = Inspector::start(vec![]).await;
    // Without the token, the extension's refusal is told.
    let refused = inspector
        .post_expect("/api/connections", json!({"url": guarded.base_url}), 502)
        .await;
    assert!(
        refused["error"]["message"].as_str().unwrap().contains("401"),
        "{refused}"
    );

    let summary = inspector
        .connect_with(json!({"url": guarded.base_url, "token": secret}))
        .await;
    assert_eq!(summary["authenticated"], true);
    let id = &id_of(&summary);
    let mut seen = summary.to_string();
    for path in [
        "/api/connections".to_owned(),
        api(id, "overview"),
        api(id, "health"),
        api(id, "manifests"),
        api(id, "tools"),
    ] {
        seen.push_str(&inspector.get_ok(&path).await.to_string());
    }
    // The MCP pool sends the token too.
    let called = inspector
        .post_ok(
            &api(id, "tools/call"),
            json!({"tool": "hash.compute", "arguments": {"text": "abc"}}),
        )
        .await;
    seen.push_str(&called.to_string());
    assert!(!seen.contains(secret), "the token reached the page");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_manifest_that_fails_validation_can_be_connected_to_anyway() {
    let invalid = fixtures::invalid_manifest().await;
    let inspector = Inspector::start(vec![]).await;
    let refused = inspector
        .post_refused(
            "/api/connections",
            json!({"url": invalid.base_url}),
            502,
            "aep_descriptor_invalid",
        )
        .await;
    let problems = refused["error"]["details"].clone();
    assert!(problems.as_array().unwrap().len() >= 2, "{refused}");

    let summary = inspector
        .connect_with(json!({"url": invalid.base_url, "anyway": true}))
        .await;
    assert_eq!(summary["invalid"], problems, "the problems stay with it");
    assert_eq!(summary["extension"]["id"], "test.broken");
    let id = &id_of(&summary);
    let overview = inspector.get_ok(&api(id, "overview")).await;
    assert_eq!(overview["manifest"]["contributions"]["tools"][1]["id"], "t");
    inspector.get_ok(&api(id, "manifests")).await;
    let tools = inspector.get_ok(&api(id, "tools")).await;
    assert_eq!(tools["tools"], json!([]));
    assert_eq!(tools["failures"][0]["code"], "aep_descriptor_invalid", "{tools}");
    // The extension serves no health route: said, not hidden.
    let health = inspector.get_ok(&api(id, "health")).await;
    assert!(health["extension"]["error"]["code"].is_string(), "{health}");
    let trace = inspector.trace(id).await;
    assert!(trace["exchanges"].as_array().unwrap().len() >= 2, "{trace}");
}

async fn refused(inspector: &Inspector, url: &str) -> Value {
    let started = Instant::now();
    let (status, body) = inspector.post("/api/connections", json!({"url": url})).await;
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "bounded: {:?}",
        started.elapsed()
    );
    assert!(status >= 400, "{url}: {body}");
    body["error"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_a_clear_message() {
    let inspector = Inspector::start(vec![]).await;
    let unreachable = fixtures::unreachable_url().await;
    let error = refused(&inspector, &unreachable).await;
    assert_eq!(error["code"], "extension_unreachable", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("could not reach {unreachable}/.well-known/aep")),
        "{error}"
    );

    let not_aep = fixtures::not_aep().await;
    let error = refused(&inspector, &not_aep.base_url).await;
    assert_eq!(error["code"], "not_an_aep_extension", "{error}");
    assert!(error["message"].as_str().unwrap().contains("HTTP 404"), "{error}");

    let html = fixtures::html_error_page().await;
    let error = refused(&inspector, &html.base_url).await;
    assert_eq!(error["code"], "not_an_aep_extension", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("HTTP 502 with an HTML page (\"502 Bad Gateway\")"),
        "{error}"
    );

    let invalid = fixtures::invalid_manifest().await;
    let error = refused(&inspector, &invalid.base_url).await;
    assert_eq!(error["code"], "aep_descriptor_invalid", "{error}");
    assert!(
        error["details"].as_array().unwrap().len() >= 2,
        "each problem on its own line: {error}"
    );

    let error = refused(&inspector, "ftp://example.com").await;
    assert_eq!(error["code"], "endpoint_invalid", "{error}");
    let error = refused(&inspector, "http://user:pw@127.0.0.1:1").await;
    assert!(
        !error["message"].as_str().unwrap().contains("pw"),
        "credentials not repeated: {error}"
    );
    let error = refused(&inspector, " ").await;
    assert_eq!(error["code"], "bad_request");

    let response = inspector
        .http
        .post(format!("{}/api/connections", inspector.url))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("request body:"),
        "{body}"
    );
    inspector.get_refused("/api/nothing-here", 404, "not_found").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_origins_cannot_drive_the_inspector() {
    let inspector = Inspector::start(vec!["http://127.0.0.1:8710".into()]).await;
    let api = format!("{}/api/connections", inspector.url);
    let http = &inspector.http;
    for (what, request, status) in [
        (
            "another origin",
            http.post(&api)
                .header("origin", "http://evil.example")
                .json(&json!({"url": "http://127.0.0.1:1"})),
            403,
        ),
        (
            "another host (DNS rebinding)",
            http.get(&api).header("host", "evil.example:8720"),
            403,
        ),
        (
            "a simple (CORS-safelisted) request",
            http.post(&api)
                .header("content-type", "text/plain")
                .body(r#"{"url":"http://127.0.0.1:1"}"#),
            415,
        ),
        (
            "its own origin",
            http.get(&api).header("origin", inspector.url.clone()),
            200,
        ),
    ] {
        assert_eq!(request.send().await.unwrap().status(), status, "{what}");
    }
    let (_, config) = inspector.get("/api/config").await;
    assert_eq!(config["urls"], json!(["http://127.0.0.1:8710"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_served_from_the_binary() {
    let inspector = Inspector::start(vec![]).await;
    for (path, kind) in [
        ("/", "text/html"),
        ("/app.js", "text/javascript"),
        ("/dom.js", "text/javascript"),
        ("/api.js", "text/javascript"),
        ("/forms.js", "text/javascript"),
        ("/playground.js", "text/javascript"),
        ("/tools.js", "text/javascript"),
        ("/configuration.js", "text/javascript"),
        ("/app.css", "text/css"),
        ("/favicon.ico", "image/svg+xml"),
    ] {
        let response = inspector.fetch(path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with(kind),
            "{path}"
        );
        assert!(
            response.headers()["content-security-policy"]
                .to_str()
                .unwrap()
                .contains("default-src 'self'")
        );
    }
    let page = inspector.fetch("").await.text().await.unwrap();
    assert!(page.contains(r#"<script type="module" src="/app.js"></script>"#));
    // Every module a served module imports is served too, from this origin.
    for (path, body) in aep_inspector::assets::SCRIPTS {
        for import in body.lines().filter_map(|l| l.strip_prefix("import ")) {
            let target = import
                .split(" from '.")
                .nth(1)
                .and_then(|t| t.strip_suffix("';"))
                .unwrap_or_else(|| panic!("{path}: import not from this origin: {import}"));
            assert!(
                aep_inspector::assets::SCRIPTS.iter().any(|(p, _)| *p == target),
                "{path} imports {target}, which is not served"
            );
        }
    }
    assert!(
        !page.contains("http://") || !page.contains("<script src=\"http"),
        "no CDN"
    );
}
