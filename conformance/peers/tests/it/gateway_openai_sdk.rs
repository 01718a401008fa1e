//! The gateway's OpenAI Chat Completions surface (`aep-host gateway`'s `/v1`) against the
//! official OpenAI Python SDK (`openai` 2.x in the py1 venv, driven by
//! `python/openai_gateway_client.py`):
//!
//! - the model listing (`<provider>/<model>`, owned by the extension);
//! - a chat whole and streamed (`stream_options.include_usage`) that agree;
//! - a tool-call round trip with the scripted `tools` model, the first step whole and
//!   through the SDK's stream helper (which accumulates the tool-call deltas);
//! - the SDK's exceptions for what the gateway refuses or reports: `NotFoundError` for an
//!   unknown model, `RateLimitError` for a provider's 429, `APIError` for an error event
//!   in a stream;
//! - closing the SDK's stream cancelling the provider while the SDK's process lives on;
//! - `aep-openai` in front of the real small model (`target/peers/bin/llm-server`), when
//!   installed: a chat with usage and a tool call that `tool_choice` names.
//!
//! The providers are the scripted SDK extension of `conformance/host/tests/it/gateway_openai_support`.
//! Each test needs the peers (the last also the llm server), so each is `#[ignore]`: CI
//! runs them with `--include-ignored` after installing them.

#[path = "../../../host/tests/it/gateway_openai_support/mod.rs"]
mod support;

use std::process::Stdio;
use std::time::{Duration, Instant};

use aep_peers::model::{MODEL, ModelServer};
use aep_peers::{Peers, RunningBinary, start_binary_with, workspace_binary};
use serde_json::{Value, json};
use support::{SCRIPTED, Scripted, gateway, registry};
use tokio::io::{AsyncBufReadExt, BufReader};

const SCRIPT: &str = "openai_gateway_client.py";

/// Bound on anything the tests wait for.
const BOUND: Duration = Duration::from_secs(30);

/// The SDK client against `base` doing `args`: its JSON lines. It must exit 0 without a
/// warning on stderr.
async fn sdk(peers: &Peers, base: &str, args: &[&str]) -> Vec<Value> {
    let mut all = vec![base];
    all.extend_from_slice(args);
    let stdout = peers
        .py1(SCRIPT, &all)
        .await
        .clean()
        .unwrap_or_else(|e| panic!("{SCRIPT} {args:?}:\n{e}"));
    stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// [`sdk`] printing exactly one line.
async fn sdk_one(peers: &Peers, base: &str, args: &[&str]) -> Value {
    let lines = sdk(peers, base, args).await;
    assert_eq!(lines.len(), 1, "{args:?}: {lines:?}");
    lines.into_iter().next().unwrap()
}

/// A tool call's `arguments`, which must be a JSON text.
fn arguments(call: &Value) -> Value {
    let text = call["arguments"].as_str().unwrap_or_else(|| panic!("{call}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("arguments {text:?}: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn the_sdk_lists_the_models_as_provider_slash_model_owned_by_the_extension() {
    let Some(peers) = Peers::require() else { return };
    let scripted = Scripted::default().start();
    let gateway = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let models = sdk(&peers, &gateway.base_url, &["models"]).await;
    let mut ids: Vec<&str> = models.iter().map(|m| m["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "plain/plain-1",
            "scripted/echo",
            "scripted/fail-mid",
            "scripted/json",
            "scripted/limited",
            "scripted/paced",
            "scripted/tools"
        ]
    );
    for model in &models {
        assert_eq!(
            (&model["object"], &model["owned_by"]),
            (&json!("model"), &json!(SCRIPTED)),
            "{model}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn a_chat_whole_and_streamed_through_the_sdk_agree() {
    let Some(peers) = Peers::require() else { return };
    let provider = Scripted::default();
    let scripted = provider.start();
    let gateway = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let base = &gateway.base_url;
    let text = "the quick brown fox";
    let ask = ["chat", "--model", "scripted/echo", "--text", text];

    let whole = sdk_one(&peers, base, &ask).await;
    assert_eq!(whole["object"], "chat.completion");
    assert_eq!(whole["model"], "scripted/echo");
    assert!(whole["id"].as_str().unwrap().starts_with("chatcmpl-"), "{whole}");
    assert_eq!(whole["text"], text);
    assert_eq!(whole["finish_reason"], "stop");
    assert_eq!(whole["tool_calls"], json!([]));
    assert_eq!(
        whole["usage"],
        json!({"prompt_tokens": 4, "completion_tokens": 4, "total_tokens": 8})
    );
    assert_eq!(provider.seen.last().model, "echo");

    let streamed = sdk_one(
        &peers,
        base,
        &[&ask[..], &["--stream", "--include-usage"]].concat(),
    )
    .await;
    assert_eq!(streamed["text"], whole["text"], "{streamed}");
    assert_eq!(streamed["finish_reason"], whole["finish_reason"]);
    assert_eq!(streamed["usage"], whole["usage"]);
    assert_eq!(streamed["model"], "scripted/echo");
    assert_eq!(streamed["objects"], json!(["chat.completion.chunk"]));
    assert_eq!(
        streamed["ids"].as_array().map(Vec::len),
        Some(1),
        "one id: {streamed}"
    );
    assert_eq!(streamed["usage_choices"], 0, "usage in a chunk of its own");
    // The role chunk, one per word, the finish and the usage chunk.
    assert!(streamed["chunks"].as_u64().unwrap() >= 7, "{streamed}");

    // Without include_usage the SDK sees no usage.
    let plain = sdk_one(&peers, base, &[&ask[..], &["--stream"]].concat()).await;
    assert_eq!(plain["text"], text);
    assert_eq!(plain["usage"], Value::Null, "{plain}");
    assert_eq!(provider.seen.requests.lock().unwrap().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn a_tool_call_round_trip_through_the_sdk_whole_and_with_its_stream_helper() {
    let Some(peers) = Peers::require() else { return };
    let provider = Scripted::default();
    let scripted = provider.start();
    let gateway = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let base = &gateway.base_url;
    let ask = [
        "tools",
        "--model",
        "scripted/tools",
        "--text",
        "weather in Oslo?",
        "--result",
        "-3 C",
    ];
    for stream in [false, true] {
        let args = if stream {
            [&ask[..], &["--stream"]].concat()
        } else {
            ask.to_vec()
        };
        let steps = sdk(&peers, base, &args).await;
        assert_eq!(steps.len(), 2, "stream {stream}: {steps:?}");
        let call = &steps[0];
        assert_eq!(
            (&call["step"], &call["finish_reason"], &call["content"]),
            (&json!("call"), &json!("tool_calls"), &Value::Null),
            "stream {stream}: {call}"
        );
        let calls = call["tool_calls"].as_array().unwrap();
        assert_eq!(calls.len(), 1, "{call}");
        assert_eq!(
            (&calls[0]["id"], &calls[0]["type"], &calls[0]["name"]),
            (&json!("call_lookup_1"), &json!("function"), &json!("lookup"))
        );
        assert_eq!(arguments(&calls[0]), json!({"city": "Oslo"}));
        assert_eq!(
            steps[1],
            json!({"step": "answer", "text": "the tool said -3 C", "finish_reason": "stop"}),
            "stream {stream}"
        );

        // What the provider got back: the SDK's own answer message and the tool's result.
        let seen = serde_json::to_value(provider.seen.last()).unwrap();
        assert_eq!(seen["tools"][0]["name"], "lookup");
        let messages = seen["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3, "{seen}");
        assert_eq!(
            messages[1],
            json!({"role": "assistant", "contents": [{"kind": "toolCall",
                "toolCall": {"id": "call_lookup_1", "name": "lookup", "arguments": {"city": "Oslo"}}}]})
        );
        assert_eq!(
            messages[2],
            json!({"role": "tool", "contents": [{"kind": "toolResult",
                "toolResult": {"callId": "call_lookup_1", "result": "-3 C", "isError": false}}]})
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn what_the_gateway_refuses_or_reports_is_the_sdks_exception() {
    let Some(peers) = Peers::require() else { return };
    let scripted = Scripted::default().start();
    let gateway = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let base = &gateway.base_url;
    for stream in [&[][..], &["--stream"]] {
        let ask = [&["chat", "--model", "nobody/nothing", "--text", "x"][..], stream].concat();
        let answer = sdk_one(&peers, base, &ask).await;
        assert_eq!(
            answer["error"],
            json!({"class": "NotFoundError", "status": 404, "type": "invalid_request_error",
                "code": "model_not_found", "param": "model",
                "message": "The model `nobody/nothing` does not exist or you do not have access to it."}),
            "{ask:?}"
        );

        let ask = [
            &["chat", "--model", "scripted/limited", "--text", "x"][..],
            stream,
        ]
        .concat();
        let answer = sdk_one(&peers, base, &ask).await;
        let error = &answer["error"];
        assert_eq!(
            (&error["class"], &error["status"], &error["code"]),
            (
                &json!("RateLimitError"),
                &json!(429),
                &json!("rate_limit_exceeded")
            ),
            "{answer}"
        );
        assert!(
            error["message"].as_str().unwrap().contains("slow down"),
            "{answer}"
        );
    }
    // After the headers: the error event ends the stream, and the SDK raises it.
    let ask = ["chat", "--model", "scripted/fail-mid", "--text", "x", "--stream"];
    let answer = sdk_one(&peers, base, &ask).await;
    let error = &answer["error"];
    assert_eq!(
        (&error["class"], &error["status"], &error["type"]),
        (&json!("APIError"), &Value::Null, &json!("server_error")),
        "{answer}"
    );
    assert!(
        error["message"].as_str().unwrap().contains("the upstream broke"),
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn closing_the_sdks_stream_cancels_the_provider() {
    let Some(peers) = Peers::require() else { return };
    let provider = Scripted::default();
    let scripted = provider.start();
    let gateway = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let args = [
        gateway.base_url.as_str(),
        "drop",
        "--model",
        "scripted/paced",
        "--after",
        "3",
        "--hold",
    ];
    let mut child = peers
        .py1_command(SCRIPT, &args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the SDK client starts");
    let stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(BOUND, lines.next_line())
        .await
        .expect("the client closes its stream within the bound")
        .unwrap();
    let Some(line) = line else {
        let output = child.wait_with_output().await.unwrap();
        panic!("the client ended: {}", String::from_utf8_lossy(&output.stderr));
    };
    let report: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(
        report,
        json!({"closed": true, "chunks": 3, "text": "tick tick tick "})
    );

    // The SDK's process holds on (its client and all): the close is what trips the token.
    let deadline = Instant::now() + BOUND;
    while provider.seen.cancelled() == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        provider.seen.cancelled(),
        1,
        "the provider's token tripped within the bound"
    );
    assert!(
        child.try_wait().unwrap().is_none(),
        "the SDK's process was still alive when the provider was cancelled"
    );
    assert_eq!(provider.seen.requests.lock().unwrap().len(), 1);

    drop(stdin);
    let output = tokio::time::timeout(BOUND, child.wait_with_output())
        .await
        .expect("the client ends when its stdin closes")
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(provider.seen.cancelled(), 1);
}

// ---- the real small model ---------------------------------------------------------------

/// What `aep-openai` is built from ([`workspace_binary`]).
const AEP_OPENAI_SOURCES: &[&str] = &[
    "Cargo.lock",
    "extensions/openai-compatible/Cargo.toml",
    "extensions/openai-compatible/src",
    "aep-sdk/Cargo.toml",
    "aep-sdk/src",
    "aep-sdk-macros/Cargo.toml",
    "aep-sdk-macros/src",
];

/// The `aep-openai` binary in front of `real`.
async fn aep_openai(real: &ModelServer) -> RunningBinary {
    let binary = workspace_binary("aep-openai-compatible", "aep-openai", AEP_OPENAI_SOURCES)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let args = [
        "--endpoint",
        real.base_url.as_str(),
        "--first-byte-timeout",
        "120s",
        "--idle-timeout",
        "60s",
    ];
    start_binary_with(&binary, &args)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers and the real model: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn the_sdk_through_the_gateway_and_aep_openai_to_the_real_model() {
    let Some(peers) = Peers::require() else { return };
    let Some(real) = ModelServer::llm_server().await else {
        return;
    };
    let extension = aep_openai(&real).await;
    let gateway = gateway(registry(&[("aep.openai-compatible", &extension.base_url)]), None);
    let base = &gateway.base_url;
    let model = format!("openai/{MODEL}");

    let models = sdk(&peers, base, &["--timeout", "120", "models"]).await;
    assert!(
        models.contains(&json!({"id": model, "object": "model", "owned_by": "aep.openai-compatible"})),
        "{models:?}"
    );

    // A chat, whole and streamed: real text, and the usage the server counted within the
    // token limit that reached it. llama-cpp-python (0.3.36) has no `stream_options`: its
    // streams carry no usage, so the streamed answer's usage chunk says null and is only
    // checked when it has counts.
    let ask = [
        "--timeout",
        "120",
        "chat",
        "--model",
        &model,
        "--text",
        "Say hello.",
        "--max-tokens",
        "12",
        "--temperature",
        "0",
    ];
    for streamed in [false, true] {
        let args = if streamed {
            [&ask[..], &["--stream", "--include-usage"]].concat()
        } else {
            ask.to_vec()
        };
        let answer = sdk_one(&peers, base, &args).await;
        assert!(
            !answer["text"].as_str().unwrap_or_default().trim().is_empty(),
            "streamed {streamed}: real text: {answer}"
        );
        assert!(
            matches!(answer["finish_reason"].as_str(), Some("stop" | "length")),
            "streamed {streamed}: {answer}"
        );
        if streamed {
            assert!(
                answer["chunks"].as_u64().unwrap() >= 3,
                "real tokens stream: {answer}"
            );
        }
        let usage = &answer["usage"];
        if streamed && usage.is_null() {
            continue;
        }
        let (prompt, completion) = (
            usage["prompt_tokens"].as_u64().unwrap_or(0),
            usage["completion_tokens"].as_u64().unwrap_or(0),
        );
        assert!(
            prompt > 0 && (1..=12).contains(&completion),
            "streamed {streamed}: {answer}"
        );
        assert_eq!(usage["total_tokens"], prompt + completion, "{answer}");
    }

    // A tool call: the small model calls one only when tool_choice names it (llama.cpp then
    // constrains the arguments to the function's schema).
    let called = sdk_one(
        &peers,
        base,
        &[
            "--timeout",
            "120",
            "tool-choice",
            "--model",
            &model,
            "--text",
            "What is the weather in Paris?",
            "--function",
            "get_weather",
        ],
    )
    .await;
    let calls = called["tool_calls"]
        .as_array()
        .unwrap_or_else(|| panic!("{called}"));
    assert!(!calls.is_empty(), "a tool call came back: {called}");
    assert_eq!(calls[0]["name"], "get_weather", "{called}");
    assert!(arguments(&calls[0]).is_object(), "{called}");
    assert!(
        !calls[0]["id"].as_str().unwrap_or_default().is_empty(),
        "{called}"
    );
}
