//! The model playground: the streamed chat proxy (frames, timings, gaps, reasoning and
//! tool calls, a stall, a page that goes away), refusals, and native options.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Inspector, api, fixtures, read_until};
use crate::{chat, drip_values};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_chat_arrives_frame_by_frame_with_timings() {
    let (_echo, inspector, id) = Inspector::connected_to_echo().await;
    let events = inspector
        .events(
            &api(&id, "chat/stream"),
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

    let once = inspector
        .post_ok(&api(&id, "chat"), chat("echo", "echo-1", "not streamed"))
        .await;
    assert_eq!(
        once["response"]["messages"][0]["contents"][0]["text"],
        "not streamed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gaps_reasoning_and_tool_calls_are_measured_and_kept_apart() {
    let (models, _) = fixtures::models().await;
    let (inspector, id) = Inspector::connected(&models.base_url).await;
    let path = api(&id, "chat/stream");
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
    let (inspector, id) = Inspector::connected(&models.base_url).await;
    let started = Instant::now();
    let mut body = chat("stall", "stall-1", "go");
    body["stallSeconds"] = json!(0.5);
    let events = inspector.events(&api(&id, "chat/stream"), body).await;
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

    let negative = json!({"provider": "stall", "request": {}, "stallSeconds": -1});
    inspector
        .post_refused(&api(&id, "chat/stream"), negative, 400, "bad_request")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_goes_away_cancels_the_providers_work() {
    let (models, ended) = fixtures::models().await;
    let (inspector, id) = Inspector::connected(&models.base_url).await;
    let mut response = inspector
        .open(&api(&id, "chat/stream"), chat("stall", "stall-1", "go"))
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
    let (_echo, inspector, id) = Inspector::connected_to_echo().await;
    let error = inspector
        .post_refused(
            &api(&id, "chat/stream"),
            chat("nobody", "m", "hi"),
            502,
            "extension_request_failed",
        )
        .await;
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("HTTP 404, provider_unavailable"),
        "{error}"
    );
    let not_a_request = json!({"provider": "echo", "request": {"messages": 3}});
    inspector
        .post_refused(&api(&id, "chat"), not_a_request, 400, "bad_request")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_options_are_checked_and_sent_as_the_spec_says() {
    let (models, _) = fixtures::models().await;
    let (inspector, id) = Inspector::connected(&models.base_url).await;
    // What the playground does first: the values checked with the configuration rules.
    let validate = api(&id, "configuration/validate");
    let refused = inspector
        .post_ok(&validate, drip_values("2", json!({"temperature": 3})))
        .await;
    assert_eq!(refused["valid"], false);
    assert_eq!(refused["issues"][0]["path"], "values.temperature");
    let values = json!({"temperature": 1.5, "mode": "fast"});
    let checked = inspector
        .post_ok(&validate, drip_values("2", values.clone()))
        .await;
    assert_eq!(checked["valid"], true, "{checked}");
    let native = json!({
        "optionSet": checked["optionSet"],
        "version": checked["version"],
        "schemaDigest": checked["schemaDigest"],
        "values": values,
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
        .events(&api(&id, "chat/stream"), request(native.clone()))
        .await;
    assert_eq!(events.last().unwrap().0, "end", "{events:?}");
    let trace = inspector.trace(&id).await;
    let sent: Value = serde_json::from_str(trace["exchanges"][0]["requestBody"].as_str().unwrap()).unwrap();
    assert_eq!(sent["options"]["nativeOptions"], native, "{sent}");
    assert_eq!(sent["messages"][2]["role"], "assistant", "{sent}");

    // The extension applies the same rules: values that fail them are refused before
    // the provider runs, and the page is told the extension's code.
    let mut bad = native.clone();
    bad["values"]["temperature"] = json!(3);
    let refused = inspector
        .post_expect(&api(&id, "chat/stream"), request(bad), 502)
        .await;
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("422, invalid_options"), "{refused}");
    let mut stale = native;
    stale["schemaDigest"] = json!("sha256:00");
    let (_, refused) = inspector.post(&api(&id, "chat"), request(stale)).await;
    assert!(
        refused["error"].to_string().contains("option_schema_mismatch"),
        "{refused}"
    );
}
