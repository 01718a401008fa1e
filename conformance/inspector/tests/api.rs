//! The Inspector's JSON API against real extensions on loopback ports: connect and
//! overview, the streamed chat proxy (frames, timings, stall, cancellation), tools
//! resolved AEP -> MCP, the conformance suite, and every kind of bad input.

mod common;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::{Inspector, fixtures, read_until};
use serde_json::{Value, json};

fn chat(provider: &str, model: &str, text: &str) -> Value {
    json!({"provider": provider, "request": {"model": model, "messages": [{"role": "user", "contents": [{"kind": "text", "text": text}]}]}})
}

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
    let (_, list) = inspector.get("/api/connections").await;
    assert_eq!(list.as_array().map(Vec::len), Some(2), "{list}");

    let id = first["id"].as_str().unwrap();
    let (status, overview) = inspector.get(&format!("/api/connections/{id}/overview")).await;
    assert_eq!(status, 200, "{overview}");
    let tools: Vec<&str> = overview["manifest"]["contributions"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"hash.compute"), "{tools:?}");
    assert_eq!(overview["manifest"]["mcp"]["servers"][0]["id"], "utilities");

    let (status, health) = inspector.get(&format!("/api/connections/{id}/health")).await;
    assert_eq!(status, 200);
    assert_eq!(health["extension"]["status"], "available", "{health}");
    let echo_id = second["id"].as_str().unwrap();
    let (_, health) = inspector.get(&format!("/api/connections/{echo_id}/health")).await;
    assert_eq!(health["providers"][0]["id"], "echo", "{health}");
    assert!(health["providers"][0]["health"]["status"].is_string(), "{health}");

    let (status, raw) = inspector.get(&format!("/api/connections/{id}/manifests")).await;
    assert_eq!(status, 200);
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

    let (status, models) = inspector
        .get(&format!("/api/connections/{echo_id}/providers/echo/models"))
        .await;
    assert_eq!(
        (status, models[0]["id"].clone()),
        (200, json!("echo-1")),
        "{models}"
    );

    let response = inspector
        .http
        .delete(format!("{}/api/connections/{id}", inspector.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    let (status, gone) = inspector.get(&format!("/api/connections/{id}/overview")).await;
    assert_eq!(
        (status, gone["error"]["code"].clone()),
        (404, json!("connection_not_found"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_revision_can_be_chosen() {
    let echo = common::echo().await;
    let inspector = Inspector::start(vec![]).await;
    let (status, v1) = inspector
        .post(
            "/api/connections",
            json!({"url": echo.base_url, "revision": "1.0"}),
        )
        .await;
    assert_eq!((status, v1["revision"].clone()), (201, json!("1.0")), "{v1}");
    let (status, bad) = inspector
        .post(
            "/api/connections",
            json!({"url": echo.base_url, "revision": "0.9"}),
        )
        .await;
    assert_eq!(
        (status, bad["error"]["code"].clone()),
        (400, json!("bad_request")),
        "{bad}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_is_sent_to_the_extension_and_never_echoed() {
    let secret = "s3cret-token-of-the-test";
    let guarded = fixtures::utilities_with_token(secret).await;
    let inspector = Inspector::start(vec![]).await;
    let (status, refused) = inspector
        .post("/api/connections", json!({"url": guarded.base_url}))
        .await;
    assert_eq!(status, 502, "{refused}");
    assert!(
        refused["error"]["message"].as_str().unwrap().contains("401"),
        "{refused}"
    );

    let (status, summary) = inspector
        .post(
            "/api/connections",
            json!({"url": guarded.base_url, "token": secret}),
        )
        .await;
    assert_eq!(status, 201, "{summary}");
    assert_eq!(summary["authenticated"], true);
    let id = summary["id"].as_str().unwrap();
    let mut seen = summary.to_string();
    for path in [
        "/api/connections",
        &format!("/api/connections/{id}/overview"),
        &format!("/api/connections/{id}/health"),
        &format!("/api/connections/{id}/manifests"),
        &format!("/api/connections/{id}/tools"),
    ] {
        let (status, body) = inspector.get(path).await;
        assert_eq!(status, 200, "{path}: {body}");
        seen.push_str(&body.to_string());
    }
    let (status, called) = inspector
        .post(
            &format!("/api/connections/{id}/tools/call"),
            json!({"tool": "hash.compute", "arguments": {"text": "abc"}}),
        )
        .await;
    assert_eq!(status, 200, "the MCP pool sends the token too: {called}");
    seen.push_str(&called.to_string());
    assert!(!seen.contains(secret), "the token reached the page");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_chat_arrives_frame_by_frame_with_timings() {
    let echo = common::echo().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&echo.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let events = inspector
        .events(
            &format!("/api/connections/{id}/chat/stream"),
            chat("echo", "echo-1", "hello there inspector"),
        )
        .await;
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["open", "frame", "frame", "frame", "frame", "end"],
        "{events:?}"
    );
    let first = &events[1].1;
    assert_eq!(first["index"], 1);
    assert_eq!(first["gapMs"], Value::Null);
    assert!(
        first["data"].as_str().unwrap().contains(r#""text":"hello ""#),
        "raw data as sent: {first}"
    );
    assert_eq!(events[2].1["update"]["contents"][0]["text"], "there ");
    let end = &events[5].1;
    assert_eq!(end["text"], "hello there inspector");
    assert_eq!(end["finishReason"], "stop");
    assert_eq!(end["usage"]["outputTokens"], 3);
    assert_eq!(end["frames"], 4);
    assert_eq!(end["gapsMs"].as_array().map(Vec::len), Some(3));
    assert!(end["timeToFirstTokenMs"].as_f64().is_some(), "{end}");

    let (status, once) = inspector
        .post(
            &format!("/api/connections/{id}/chat"),
            chat("echo", "echo-1", "not streamed"),
        )
        .await;
    assert_eq!(status, 200, "{once}");
    assert_eq!(
        once["response"]["messages"][0]["contents"][0]["text"],
        "not streamed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gaps_reasoning_and_tool_calls_are_measured_and_kept_apart() {
    let (models, _) = fixtures::models().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&models.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/api/connections/{id}/chat/stream");
    let events = inspector.events(&path, chat("drip", "drip-1", "go")).await;
    let end = &events.last().unwrap().1;
    let gaps: Vec<f64> = end["gapsMs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_f64().unwrap())
        .collect();
    assert_eq!(gaps.len(), 10, "{end}");
    assert!(
        gaps[..9].iter().all(|g| *g >= 30.0),
        "40 ms apart as sent: {gaps:?}"
    );
    assert!(end["timeToFirstTokenMs"].as_f64().unwrap() >= 30.0, "{end}");

    let events = inspector.events(&path, chat("thinker", "think-1", "why")).await;
    let end = &events.last().unwrap().1;
    assert_eq!(events.last().unwrap().0, "end");
    assert_eq!(end["reasoning"], "Let me think. Done thinking.");
    assert_eq!(end["text"], "The answer is 42.");
    assert_eq!(
        end["toolCalls"],
        json!([{"id": "call-1", "name": "hash_compute", "arguments": {"text": "42"}}])
    );
    assert_eq!(end["finishReason"], "toolCalls");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_stream_is_ended_within_its_bound_and_the_provider_stopped() {
    let (models, ended) = fixtures::models().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&models.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let started = Instant::now();
    let mut body = chat("stall", "stall-1", "go");
    body["stallSeconds"] = json!(0.5);
    let events = inspector
        .events(&format!("/api/connections/{id}/chat/stream"), body)
        .await;
    let elapsed = started.elapsed();
    let (name, failure) = events.last().unwrap();
    assert_eq!(name, "failure", "{events:?}");
    assert_eq!(failure["code"], "stream_stalled");
    assert!(
        failure["message"]
            .as_str()
            .unwrap()
            .contains("no SSE frame from the extension for 0.5 s"),
        "{failure}"
    );
    assert_eq!(failure["summary"]["text"], "first ");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    aep_sdk::testing::eventually("the stalled provider's stream is dropped", || {
        ended.load(Ordering::SeqCst) == 1
    })
    .await;

    let (status, bad) = inspector
        .post(
            &format!("/api/connections/{id}/chat/stream"),
            json!({"provider": "stall", "request": {}, "stallSeconds": -1}),
        )
        .await;
    assert_eq!(
        (status, bad["error"]["code"].clone()),
        (400, json!("bad_request")),
        "{bad}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_goes_away_cancels_the_providers_work() {
    let (models, ended) = fixtures::models().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&models.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut response = inspector
        .open(
            &format!("/api/connections/{id}/chat/stream"),
            chat("stall", "stall-1", "go"),
        )
        .await;
    let seen = read_until(&mut response, "frame").await;
    assert_eq!(seen[1].1["update"]["contents"][0]["text"], "first ");
    assert_eq!(ended.load(Ordering::SeqCst), 0);
    drop(response);
    aep_sdk::testing::eventually("the provider's stream is dropped after the page left", || {
        ended.load(Ordering::SeqCst) == 1
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_chat_says_what_the_extension_said() {
    let echo = common::echo().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&echo.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, error) = inspector
        .post(
            &format!("/api/connections/{id}/chat/stream"),
            chat("nobody", "m", "hi"),
        )
        .await;
    assert_eq!(status, 502, "{error}");
    assert_eq!(error["error"]["code"], "extension_request_failed");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("HTTP 404, provider_unavailable"),
        "{error}"
    );
    let (status, error) = inspector
        .post(
            &format!("/api/connections/{id}/chat"),
            json!({"provider": "echo", "request": {"messages": 3}}),
        )
        .await;
    assert_eq!(
        (status, error["error"]["code"].clone()),
        (400, json!("bad_request")),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_resolve_through_mcp_and_calls_show_their_results() {
    let utilities = common::utilities().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&utilities.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, listed) = inspector.get(&format!("/api/connections/{id}/tools")).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["failures"], json!([]));
    let tools = listed["tools"].as_array().unwrap();
    let stats = tools
        .iter()
        .find(|t| t["id"] == "text.stats")
        .expect("text.stats");
    assert_eq!(stats["displayName"], "Text statistics");
    assert_eq!(stats["metadata"]["category"], "text");
    assert_eq!(stats["origin"]["mcpTool"], "text_stats");
    assert_eq!(stats["hints"]["readOnly"], true);
    assert_eq!(stats["inputSchema"]["properties"]["text"]["type"], "string");
    assert!(stats["outputSchema"].is_object(), "{stats}");

    let call = format!("/api/connections/{id}/tools/call");
    let (status, result) = inspector
        .post(&call, json!({"tool": "text.stats", "arguments": {"text": "two words\nand more", "skip_blank_lines": true}}))
        .await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(
        result["output"]["structured"],
        json!({"characters": 18, "words": 4, "lines": 2})
    );
    assert_eq!(result["output"]["isError"], false);
    assert_eq!(result["outputCheck"], json!({"valid": true, "issues": []}));
    assert!(result["durationMs"].as_f64().unwrap() > 0.0);

    let (_, failed) = inspector
        .post(
            &call,
            json!({"tool": "json.compact", "arguments": {"json": "{nope"}}),
        )
        .await;
    assert_eq!(failed["output"]["isError"], true, "{failed}");
    assert!(
        failed["output"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );

    let (status, invalid) = inspector
        .post(
            &call,
            json!({"tool": "text.case", "arguments": {"text": "x", "case": "sideways"}}),
        )
        .await;
    assert_eq!(status, 422, "{invalid}");
    assert_eq!(invalid["error"]["code"], "invalid_arguments");
    assert!(
        invalid["error"]["message"].as_str().unwrap().contains("case"),
        "{invalid}"
    );

    let (status, unknown) = inspector.post(&call, json!({"tool": "nope"})).await;
    assert_eq!(
        (status, unknown["error"]["code"].clone()),
        (404, json!("tool_not_found")),
        "{unknown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_and_prompts_are_listed_read_and_got() {
    let utilities = common::utilities().await;
    let echo = common::echo().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&utilities.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, listed) = inspector.get(&format!("/api/connections/{id}/mcp")).await;
    assert_eq!(status, 200, "{listed}");
    let server = &listed["servers"][0];
    assert_eq!(server["id"], "utilities");
    assert_eq!(server["url"], format!("{}/mcp", utilities.base_url));
    assert_eq!(
        server["resources"]["resources"][0]["uri"], "docs://utilities/readme",
        "{server}"
    );
    assert_eq!(server["resources"]["resources"][0]["mimeType"], "text/markdown");
    assert_eq!(
        server["resources"]["templates"][0]["uriTemplate"],
        "hash://sha256/{text}"
    );
    let summarize = &server["prompts"][0];
    assert_eq!(summarize["name"], "summarize", "{server}");
    assert_eq!(summarize["arguments"][0]["name"], "text");
    assert_eq!(summarize["arguments"][0]["required"], true);

    let read = format!("/api/connections/{id}/mcp/resources/read");
    let (status, readme) = inspector
        .post(
            &read,
            json!({"server": "utilities", "uri": "docs://utilities/readme"}),
        )
        .await;
    assert_eq!(status, 200, "{readme}");
    assert!(
        readme["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("utilities"),
        "{readme}"
    );
    assert!(readme["durationMs"].as_f64().unwrap() > 0.0);
    let (_, hash) = inspector
        .post(&read, json!({"server": "utilities", "uri": "hash://sha256/abc"}))
        .await;
    assert_eq!(
        hash["result"]["contents"][0]["text"],
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "{hash}"
    );
    let (status, unknown) = inspector
        .post(&read, json!({"server": "utilities", "uri": "docs://nothing"}))
        .await;
    assert_eq!(status, 502, "{unknown}");
    assert_eq!(unknown["error"]["code"], "mcp_request_failed", "{unknown}");
    let (status, no_server) = inspector
        .post(&read, json!({"server": "elsewhere", "uri": "docs://x"}))
        .await;
    assert_eq!(
        (status, no_server["error"]["code"].clone()),
        (404, json!("mcp_server_not_found"))
    );

    let get = format!("/api/connections/{id}/mcp/prompts/get");
    let (status, prompt) = inspector
        .post(
            &get,
            json!({"server": "utilities", "name": "summarize", "arguments": {"text": "A long story.", "style": "bullets"}}),
        )
        .await;
    assert_eq!(status, 200, "{prompt}");
    let text = prompt["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(
        text.contains("bulleted list") && text.contains("A long story."),
        "{prompt}"
    );
    let (status, missing) = inspector
        .post(
            &get,
            json!({"server": "utilities", "name": "summarize", "arguments": {}}),
        )
        .await;
    assert_eq!(
        (status, missing["error"]["code"].clone()),
        (502, json!("mcp_request_failed")),
        "{missing}"
    );

    let plain = inspector.connect(&echo.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, none) = inspector.get(&format!("/api/connections/{plain}/mcp")).await;
    assert_eq!((status, none), (200, json!({"servers": []})));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn option_sets_are_listed_values_checked_and_migrated() {
    let (models, _) = fixtures::models().await;
    let utilities = common::utilities().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&models.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let base = format!("/api/connections/{id}/configuration");
    let (status, catalog) = inspector.get(&base).await;
    assert_eq!(status, 200, "{catalog}");
    let set = &catalog["optionSets"][0];
    assert_eq!(set["id"], fixtures::DRIP_SET);
    assert_eq!(set["contributionId"], "drip");
    assert_eq!(set["preferredVersion"], "2");
    assert_eq!(set["versions"][0]["deprecated"], true);
    assert_eq!(set["migrations"], json!([{"fromVersion": "1", "toVersion": "2"}]));
    for version in set["versions"].as_array().unwrap() {
        assert_eq!(version["digestCheck"]["matches"], true, "{version}");
        assert_eq!(version["digestCheck"]["computed"], version["schemaDigest"]);
    }

    let validate = format!("{base}/validate");
    let (status, good) = inspector
        .post(
            &validate,
            json!({"optionSet": fixtures::DRIP_SET, "version": "2", "values": {"temperature": 1.5, "mode": "fast"}}),
        )
        .await;
    assert_eq!(status, 200, "{good}");
    assert_eq!(good["valid"], true, "{good}");
    assert_eq!(good["schemaDigest"], set["versions"][1]["schemaDigest"]);
    let (_, bad) = inspector
        .post(
            &validate,
            json!({"optionSet": fixtures::DRIP_SET, "version": "2", "values": {"temperature": 3, "mode": "slow", "x": 1}}),
        )
        .await;
    assert_eq!(bad["valid"], false, "{bad}");
    let issues: Vec<(&str, &str)> = bad["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["path"].as_str().unwrap(), i["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        issues,
        [
            ("values.temperature", "maximum"),
            ("values.mode", "enum"),
            ("values.x", "unknown")
        ],
        "{bad}"
    );
    let (status, missing) = inspector
        .post(
            &validate,
            json!({"optionSet": fixtures::DRIP_SET, "version": "9", "values": {}}),
        )
        .await;
    assert_eq!(
        (status, missing["error"]["code"].clone()),
        (404, json!("option_version_unsupported")),
        "{missing}"
    );

    let migrate = format!("{base}/migrate");
    let (status, migrated) = inspector
        .post(
            &migrate,
            json!({"optionSet": fixtures::DRIP_SET, "fromVersion": "1", "toVersion": "2", "values": {"temp": 0.4}}),
        )
        .await;
    assert_eq!(status, 200, "{migrated}");
    assert_eq!(migrated["options"]["version"], "2");
    assert_eq!(
        migrated["options"]["values"],
        json!({"temperature": 0.4, "mode": "careful"})
    );
    assert_eq!(
        migrated["options"]["schemaDigest"],
        set["versions"][1]["schemaDigest"]
    );
    assert_eq!(
        migrated["request"]["fromSchemaDigest"],
        set["versions"][0]["schemaDigest"]
    );
    assert_eq!(migrated["check"], json!({"valid": true, "issues": []}));
    let (status, refused) = inspector
        .post(
            &migrate,
            json!({"optionSet": fixtures::DRIP_SET, "fromVersion": "1", "toVersion": "2", "values": {"temp": "hot"}}),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["error"]["details"]
            .as_array()
            .unwrap()
            .contains(&json!("target: values.temp")),
        "{refused}"
    );
    let (status, backwards) = inspector
        .post(
            &migrate,
            json!({"optionSet": fixtures::DRIP_SET, "fromVersion": "2", "toVersion": "1", "values": {"temperature": 1}}),
        )
        .await;
    assert_eq!(
        (status, backwards["error"]["code"].clone()),
        (422, json!("option_migration_unsupported")),
        "{backwards}"
    );

    let plain = inspector.connect(&utilities.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, none) = inspector
        .get(&format!("/api/connections/{plain}/configuration"))
        .await;
    assert_eq!(
        (status, none["error"]["code"].clone()),
        (404, json!("configuration_not_offered")),
        "{none}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformance_suite_runs_with_progress_and_exports() {
    let utilities = common::utilities().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&utilities.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, none) = inspector
        .get(&format!("/api/connections/{id}/conformance/report.json"))
        .await;
    assert_eq!((status, none["error"]["code"].clone()), (404, json!("no_report")));

    let events = inspector
        .events(
            &format!("/api/connections/{id}/conformance"),
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

    let (status, exported) = inspector
        .get(&format!("/api/connections/{id}/conformance/report.json"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(exported["results"], report["results"]);
    let junit = inspector
        .http
        .get(format!(
            "{}/api/connections/{id}/conformance/report.xml",
            inspector.url
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(junit.headers()["content-type"], "application/xml");
    assert!(junit.text().await.unwrap().contains("<testsuite"));

    let (status, bad) = inspector
        .post(
            &format!("/api/connections/{id}/conformance"),
            json!({"only": ["9.nothing"]}),
        )
        .await;
    assert_eq!(status, 400, "{bad}");
    assert!(bad["error"]["message"].as_str().unwrap().contains("9.nothing"));
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
    let (status, body) = inspector.get("/api/nothing-here").await;
    assert_eq!((status, body["error"]["code"].clone()), (404, json!("not_found")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_origins_cannot_drive_the_inspector() {
    let inspector = Inspector::start(vec!["http://127.0.0.1:8710".into()]).await;
    let api = format!("{}/api/connections", inspector.url);
    let foreign = inspector
        .http
        .post(&api)
        .header("origin", "http://evil.example")
        .json(&json!({"url": "http://127.0.0.1:1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);
    let rebound = inspector
        .http
        .get(&api)
        .header("host", "evil.example:8720")
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), 403);
    let simple = inspector
        .http
        .post(&api)
        .header("content-type", "text/plain")
        .body(r#"{"url":"http://127.0.0.1:1"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(simple.status(), 415);
    let own = inspector
        .http
        .get(&api)
        .header("origin", inspector.url.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(own.status(), 200);
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
        let response = inspector
            .http
            .get(format!("{}{path}", inspector.url))
            .send()
            .await
            .unwrap();
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
    let page = inspector
        .http
        .get(&inspector.url)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
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

/// `(method, path, status, via)` of each exchange, newest first.
fn trace_lines(trace: &Value, base: &str) -> Vec<String> {
    trace["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            let path = x["url"].as_str().unwrap().replace(base, "");
            format!(
                "{} {} {} {}",
                x["method"].as_str().unwrap(),
                path,
                x["status"],
                x["via"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_trace_has_every_exchange_with_secrets_redacted() {
    let secret = "tr4ce-secret-token";
    let guarded = fixtures::utilities_with_token(secret).await;
    let inspector = Inspector::start(vec![]).await;
    let (status, summary) = inspector
        .post(
            "/api/connections",
            json!({"url": guarded.base_url, "token": secret}),
        )
        .await;
    assert_eq!(status, 201, "{summary}");
    let id = summary["id"].as_str().unwrap();
    let trace_path = format!("/api/connections/{id}/trace");
    let (_, trace) = inspector.get(&trace_path).await;
    assert!(trace["covers"].as_str().unwrap().contains("MCP pool"), "{trace}");
    assert_eq!(trace["bypassed"], json!([]), "{trace}");
    let lines = trace_lines(&trace, &guarded.base_url);
    // Connecting: the Inspector's raw manifest fetch, then the SDK client's discovery
    // through the proxy (and the catalog's MCP session).
    assert_eq!(
        lines.last().unwrap(),
        "GET /.well-known/aep 200 inspector",
        "{lines:?}"
    );
    assert!(
        lines.contains(&"GET /.well-known/aep 200 sdk".to_owned()),
        "{lines:?}"
    );
    let before_run = trace["exchanges"][0]["seq"].as_u64().unwrap();

    // A conformance run: its exchanges are in the trace, after those of connecting.
    let events = inspector
        .events(
            &format!("/api/connections/{id}/conformance"),
            json!({"only": ["1.discovery"]}),
        )
        .await;
    let report = &events.last().unwrap().1;
    assert_eq!(report["success"], true, "{report}");
    let proxy_origin = trace["proxy"].as_str().unwrap().to_owned();
    assert!(
        !report.to_string().contains(&proxy_origin),
        "the report names the extension, not the proxy: {report}"
    );
    let (_, trace) = inspector.get(&trace_path).await;
    let run: Vec<&Value> = trace["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["seq"].as_u64().unwrap() > before_run)
        .collect();
    assert!(
        run.iter()
            .any(|x| x["url"] == format!("{}/.well-known/agentstration", guarded.base_url)),
        "{run:?}"
    );
    assert!(run.iter().all(|x| x["via"] == "runner"), "{run:?}");
    let before_call = trace["exchanges"][0]["seq"].as_u64().unwrap();

    // A tool call, through the host's MCP pool.
    let (status, result) = inspector
        .post(
            &format!("/api/connections/{id}/tools/call"),
            json!({"tool": "text.stats", "arguments": {"text": "traced words"}}),
        )
        .await;
    assert_eq!(status, 200, "{result}");
    assert!(result["output"].to_string().contains("words"), "{result}");
    let (_, listed) = inspector.get(&format!("/api/connections/{id}/tools")).await;
    let mcp_url = listed["tools"][0]["origin"]["mcpUrl"].as_str().unwrap();
    assert!(
        mcp_url.starts_with(&guarded.base_url),
        "the page is told the extension's URL, not the proxy's: {mcp_url}"
    );
    let (_, trace) = inspector.get(&trace_path).await;
    let call = trace["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["seq"].as_u64().unwrap() > before_call)
        .find(|x| {
            x["method"] == "POST"
                && x["requestBody"]
                    .as_str()
                    .is_some_and(|b| b.contains("tools/call") && b.contains("text_stats"))
        })
        .unwrap_or_else(|| panic!("no tools/call in the trace: {trace}"));
    assert_eq!(call["url"], format!("{}/mcp", guarded.base_url), "{call}");
    assert_eq!(call["status"], 200, "{call}");
    assert_eq!(call["via"], "mcp", "{call}");
    assert!(
        call["responseBody"].as_str().unwrap().contains("traced")
            || call["responseBody"].as_str().unwrap().starts_with("streamed"),
        "{call}"
    );

    // A resource read, through the same pool.
    let (status, read) = inspector
        .post(
            &format!("/api/connections/{id}/mcp/resources/read"),
            json!({"server": "utilities", "uri": "docs://utilities/readme"}),
        )
        .await;
    assert_eq!(status, 200, "{read}");
    let (_, trace) = inspector.get(&trace_path).await;
    assert!(
        trace["exchanges"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["via"] == "mcp"
                && x["requestBody"]
                    .as_str()
                    .is_some_and(|b| b.contains("resources/read"))),
        "no resources/read in the trace: {trace}"
    );

    for x in trace["exchanges"].as_array().unwrap() {
        let headers = x["headersMs"].as_f64().expect("time to headers");
        let total = x["totalMs"].as_f64().expect("total time");
        assert!(headers >= 0.0 && total >= headers, "{x}");
        if let Some(authorization) = x["requestHeaders"]
            .as_array()
            .unwrap()
            .iter()
            .find(|pair| pair[0] == "authorization")
        {
            assert_eq!(authorization[1], "<redacted>", "{x}");
        }
    }
    let redacted = trace["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| {
            x["requestHeaders"]
                .to_string()
                .contains("\"authorization\",\"<redacted>\"")
        })
        .count();
    assert!(redacted >= 3, "the token went with the requests: {trace}");
    assert!(!trace.to_string().contains(secret), "the token is in the trace");

    // The proxy listens on loopback, answers only to its own Host, and stops on close.
    let proxy: url::Url = trace["proxy"].as_str().unwrap().parse().unwrap();
    assert_eq!(proxy.host_str(), Some("127.0.0.1"));
    let port = proxy.port().unwrap();
    let misdirected = reqwest::Client::new()
        .get(format!("{proxy}.well-known/aep"))
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(misdirected.status(), 421);
    // A request naming no sender is forwarded as it is, and recorded as the proxy's.
    let unnamed = reqwest::Client::new()
        .get(format!("{proxy}aep/health"))
        .bearer_auth(secret)
        .send()
        .await
        .unwrap();
    assert_eq!(unnamed.status(), 200);
    let (_, trace) = inspector.get(&trace_path).await;
    assert_eq!(trace["exchanges"][0]["via"], "proxy", "{trace}");
    assert_eq!(
        trace["exchanges"][0]["url"],
        format!("{}/aep/health", guarded.base_url)
    );
    let (status, _) = inspector.get(&format!("/api/connections/{id}/trace")).await;
    assert_eq!(status, 200);
    let closed = inspector
        .http
        .delete(format!("{}/api/connections/{id}", inspector.url))
        .send()
        .await
        .unwrap();
    assert_eq!(closed.status(), 204);
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err(),
        "the proxy still listens after the connection closed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chats_are_traced_both_ways() {
    let echo = common::echo().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&echo.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, answer) = inspector
        .post(
            &format!("/api/connections/{id}/chat"),
            chat("echo", "echo-1", "not streamed"),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    let (_, trace) = inspector.get(&format!("/api/connections/{id}/trace")).await;
    let newest = &trace["exchanges"][0];
    assert_eq!(
        newest["url"],
        format!("{}/aep/model-providers/echo/chat", echo.base_url),
        "{trace}"
    );
    assert_eq!(newest["via"], "sdk", "{newest}");
    assert_eq!(newest["status"], 200, "{newest}");
    assert!(
        newest["requestBody"].as_str().unwrap().contains("not streamed"),
        "{newest}"
    );
    assert!(
        newest["responseBody"].as_str().unwrap().contains("not streamed"),
        "{newest}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_chat_is_traced_by_its_frame_count() {
    let echo = common::echo().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&echo.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    inspector
        .events(
            &format!("/api/connections/{id}/chat/stream"),
            chat("echo", "echo-1", "hello there inspector"),
        )
        .await;
    let (_, trace) = inspector.get(&format!("/api/connections/{id}/trace")).await;
    let newest = &trace["exchanges"][0];
    assert_eq!(newest["method"], "POST", "{trace}");
    assert_eq!(newest["status"], 200, "{newest}");
    assert_eq!(newest["responseBody"], "streamed, 4 frames", "{newest}");
    assert_eq!(newest["failure"], Value::Null, "{newest}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_options_are_checked_and_sent_as_the_spec_says() {
    let (models, _) = fixtures::models().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&models.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // What the playground does first: the values checked with the configuration rules.
    let (status, refused) = inspector
        .post(
            &format!("/api/connections/{id}/configuration/validate"),
            json!({"optionSet": fixtures::DRIP_SET, "version": "2", "values": {"temperature": 3}}),
        )
        .await;
    assert_eq!(status, 200, "{refused}");
    assert_eq!(refused["valid"], false);
    assert_eq!(refused["issues"][0]["path"], "values.temperature");
    let (_, checked) = inspector
        .post(
            &format!("/api/connections/{id}/configuration/validate"),
            json!({"optionSet": fixtures::DRIP_SET, "version": "2", "values": {"temperature": 1.5, "mode": "fast"}}),
        )
        .await;
    assert_eq!(checked["valid"], true, "{checked}");
    let native = json!({
        "optionSet": checked["optionSet"],
        "version": checked["version"],
        "schemaDigest": checked["schemaDigest"],
        "values": {"temperature": 1.5, "mode": "fast"},
    });
    // Then the chat, with options.nativeOptions and several messages with their roles.
    let request = |native: Value| {
        json!({"provider": "drip", "request": {
            "model": "drip-1",
            "messages": [
                {"role": "system", "contents": [{"kind": "text", "text": "be brief"}]},
                {"role": "user", "contents": [{"kind": "text", "text": "first"}]},
                {"role": "assistant", "contents": [{"kind": "text", "text": "w0"}]},
                {"role": "user", "contents": [{"kind": "text", "text": "again"}]}
            ],
            "options": {"temperature": 0.2, "nativeOptions": native}
        }})
    };
    let events = inspector
        .events(
            &format!("/api/connections/{id}/chat/stream"),
            request(native.clone()),
        )
        .await;
    assert_eq!(events.last().unwrap().0, "end", "{events:?}");
    let (_, trace) = inspector.get(&format!("/api/connections/{id}/trace")).await;
    let sent: Value = serde_json::from_str(trace["exchanges"][0]["requestBody"].as_str().unwrap()).unwrap();
    assert_eq!(sent["options"]["nativeOptions"], native, "{sent}");
    assert_eq!(sent["messages"][2]["role"], "assistant", "{sent}");

    // The extension applies the same rules: values that fail them are refused before
    // the provider runs, and the page is told the extension's code.
    let mut bad = native.clone();
    bad["values"]["temperature"] = json!(3);
    let (status, refused) = inspector
        .post(&format!("/api/connections/{id}/chat/stream"), request(bad))
        .await;
    assert_eq!(status, 502, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("422, invalid_options"), "{refused}");
    let mut stale = native;
    stale["schemaDigest"] = json!("sha256:00");
    let (_, refused) = inspector
        .post(&format!("/api/connections/{id}/chat"), request(stale))
        .await;
    assert!(
        refused["error"].to_string().contains("option_schema_mismatch"),
        "{refused}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_with_nested_objects_and_arrays_is_described_and_called() {
    let orders = fixtures::orders().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&orders.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, listed) = inspector.get(&format!("/api/connections/{id}/tools")).await;
    let tool = &listed["tools"][0];
    assert_eq!(tool["id"], "order.place", "{listed}");
    println!("{}", tool["inputSchema"]);
    let (status, result) = inspector
        .post(
            &format!("/api/connections/{id}/tools/call"),
            json!({"tool": "order.place", "arguments": {
                "customer": {"name": "Ada"},
                "items": [{"sku": "a-1", "quantity": 2}, {"sku": "b-2", "quantity": 3}],
                "tags": ["gift"],
                "note": "",
                "weights": [1.5, 2.25]
            }}),
        )
        .await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(
        result["output"]["structured"],
        json!({"customer": {"name": "Ada", "email": null}, "lines": 2, "quantity": 5, "tags": ["gift"], "note": "", "weight": 3.75}),
        "{result}"
    );
    assert_eq!(result["outputCheck"]["valid"], true, "{result}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_manifest_that_fails_validation_can_be_connected_to_anyway() {
    let invalid = fixtures::invalid_manifest().await;
    let inspector = Inspector::start(vec![]).await;
    let (status, refused) = inspector
        .post("/api/connections", json!({"url": invalid.base_url}))
        .await;
    assert_eq!(status, 502, "{refused}");
    assert_eq!(refused["error"]["code"], "aep_descriptor_invalid");
    let problems = refused["error"]["details"].clone();
    assert!(problems.as_array().unwrap().len() >= 2, "{refused}");

    let (status, summary) = inspector
        .post(
            "/api/connections",
            json!({"url": invalid.base_url, "anyway": true}),
        )
        .await;
    assert_eq!(status, 201, "{summary}");
    assert_eq!(summary["invalid"], problems, "the problems stay with it");
    assert_eq!(summary["extension"]["id"], "test.broken");
    let id = summary["id"].as_str().unwrap();
    let (status, overview) = inspector.get(&format!("/api/connections/{id}/overview")).await;
    assert_eq!(status, 200, "{overview}");
    assert_eq!(overview["manifest"]["contributions"]["tools"][1]["id"], "t");
    let (status, raw) = inspector.get(&format!("/api/connections/{id}/manifests")).await;
    assert_eq!(status, 200, "{raw}");
    let (status, tools) = inspector.get(&format!("/api/connections/{id}/tools")).await;
    assert_eq!(status, 200, "{tools}");
    assert_eq!(tools["tools"], json!([]));
    assert_eq!(tools["failures"][0]["code"], "aep_descriptor_invalid", "{tools}");
    // The extension serves no health route: said, not hidden.
    let (status, health) = inspector.get(&format!("/api/connections/{id}/health")).await;
    assert_eq!(status, 200, "{health}");
    assert!(health["extension"]["error"]["code"].is_string(), "{health}");
    let (status, trace) = inspector.get(&format!("/api/connections/{id}/trace")).await;
    assert_eq!(status, 200);
    assert!(trace["exchanges"].as_array().unwrap().len() >= 2, "{trace}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recording_proxy_changes_no_conformance_verdict() {
    let echo = common::echo().await;
    let inspector = Inspector::start(vec![]).await;
    let id = inspector.connect(&echo.base_url).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let events = inspector
        .events(&format!("/api/connections/{id}/conformance"), json!({}))
        .await;
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
    assert_eq!(verdicts(through), verdicts(&direct), "{through}");
    assert_eq!(through["success"], true, "{through}");
    let (_, trace) = inspector.get(&format!("/api/connections/{id}/trace")).await;
    assert!(
        trace["exchanges"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["via"] == "runner" && x["url"].as_str().unwrap().ends_with("/chat/stream")),
        "the runner's streams are in the trace"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connected_anyway_the_mcp_servers_tools_are_listed_and_called_as_they_are() {
    let half = fixtures::utilities_with_invalid_manifest().await;
    let inspector = Inspector::start(vec![]).await;
    let (status, summary) = inspector
        .post("/api/connections", json!({"url": half.base_url, "anyway": true}))
        .await;
    assert_eq!(status, 201, "{summary}");
    assert!(summary["invalid"].to_string().contains("stats"), "{summary}");
    let id = summary["id"].as_str().unwrap();
    let (status, listed) = inspector.get(&format!("/api/connections/{id}/tools")).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(
        listed["failures"][0]["code"], "aep_descriptor_invalid",
        "{listed}"
    );
    assert_eq!(listed["failures"].as_array().unwrap().len(), 1, "{listed}");
    let ids: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"utilities/text_stats"), "{ids:?}");
    let stats = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "utilities/text_stats")
        .unwrap();
    assert_eq!(
        stats["origin"]["mcpUrl"],
        format!("{}/mcp", half.base_url),
        "{stats}"
    );
    let (status, result) = inspector
        .post(
            &format!("/api/connections/{id}/tools/call"),
            json!({"tool": "utilities/text_stats", "arguments": {"text": "still usable"}}),
        )
        .await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["output"]["structured"]["words"], 2, "{result}");
    // Listing again adds nothing twice.
    let (_, again) = inspector.get(&format!("/api/connections/{id}/tools")).await;
    assert_eq!(again["tools"].as_array().unwrap().len(), ids.len());
}
