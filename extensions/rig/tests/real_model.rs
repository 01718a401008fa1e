//! Against real inference servers with a real model: llama-cpp-python's
//! OpenAI-compatible server and llama.cpp's own `llama-server`, serving
//! SmolLM2-135M-Instruct ([`aep_peers::model`], installed by
//! `conformance/peers/install.sh`). The model is tiny and its words are
//! often nonsense: these tests check the shape of the exchange, never the wording.
//!
//! - `aep-rig --provider openai` (rig's OpenAI provider, Chat Completions) in front of
//!   it passes the conformance suite strictly, streams real tokens, and a dropped
//!   stream stops the generation (the server runs one generation at a time and does
//!   not interrupt it for the next request, `--interrupt_requests False`, so a
//!   generation that stops early was stopped by its client going away; the server
//!   logs `Disconnected from client`); the same in front of `llama-server` with one
//!   slot, which logs `stop: cancel task`.
//! - A rig agent on `aep-openai` in front of it gets a real answer.

mod common;

use std::time::Duration;

use aep_openai_compatible::config::UpstreamConfig;
use aep_openai_compatible::flavor::Flavor;
use aep_openai_compatible::openai::OpenAiExtension;
use aep_openai_compatible::upstream::Upstream;
use aep_peers::model::{MODEL, ModelServer, short};
use aep_rig::model::aep_model;
use aep_sdk::client::Client;
use aep_sdk::protocol::FinishReason;
use aep_sdk::testing::spawn;
use common::start_binary;
use futures::StreamExt;
use rig_core::streaming::{Item, StreamEvent};

/// Bound on one exchange with the real model (two shared cores).
const SLOW: Duration = Duration::from_secs(120);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real model: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn aep_rig_in_front_of_llama_cpp_python_conforms_streams_and_cancels() {
    let Some(real) = ModelServer::llm_server().await else {
        return;
    };
    in_front_of(&real, "Disconnected from client").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs llama-server: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn aep_rig_in_front_of_llama_server_conforms_streams_and_cancels() {
    // One slot: the next request after a dropped stream is served only once it is freed.
    let Some(real) = ModelServer::llama_server(&["--parallel", "1"]).await else {
        return;
    };
    in_front_of(&real, "stop: cancel task").await;
}

/// `aep-rig --provider openai --base-url <real>/v1`: real tokens, `/chat` usage, strict
/// conformance, and a dropped stream that the server logs as `cancelled` (its own words).
async fn in_front_of(real: &ModelServer, cancelled: &str) {
    let base = format!("{}/v1", real.base_url);
    let (_running, probe) = start_binary(
        &[
            "--provider",
            "openai",
            "--base-url",
            &base,
            "--model",
            MODEL,
            "--read-timeout",
            "120s",
            "--stream-start-wait",
            "5s",
        ],
        // llama-cpp-python takes any key; rig's OpenAI provider needs one.
        &[("AEP_RIG_API_KEY", "unused-by-llama-cpp-python")],
    )
    .await;
    let client = Client::builder(probe.base_url().as_str())
        .read_timeout(SLOW)
        .build()
        .unwrap();

    // Real tokens stream, several updates, and finish.
    let mut stream = client
        .chat_stream("rig", &short("Count from one to five.", 16))
        .await
        .unwrap();
    let mut texts = Vec::new();
    let mut finish = None;
    while let Some(update) = stream.next().await {
        let update = update.expect("a real stream without errors");
        let text = update.text_delta();
        if !text.is_empty() {
            texts.push(text);
        }
        finish = update.finish_reason.or(finish);
    }
    assert!(
        texts.len() >= 2,
        "real tokens arrive as several updates: {texts:?}"
    );
    assert!(
        matches!(finish, Some(FinishReason::Stop | FinishReason::Length)),
        "{finish:?}"
    );

    // /chat: rig's unary reply, real text and the usage the server counted, the token
    // limit reaching the model.
    let answer = client.chat("rig", &short("Say hello.", 12)).await.unwrap();
    assert!(!answer.all_text().trim().is_empty(), "real text");
    let usage = answer.usage.expect("usage on /chat");
    assert!(
        usage.input_tokens.unwrap_or(0) > 0 && usage.output_tokens.unwrap_or(0) > 0,
        "{usage:?}"
    );
    assert!(usage.output_tokens.unwrap() <= 12, "{usage:?}");

    // The conformance suite, strictly.
    let options = aep_conformance::Options {
        provider: Some("rig".to_owned()),
        model: Some(MODEL.to_owned()),
        strict: true,
        request_timeout: SLOW,
        check_timeout: Duration::from_secs(300),
        ..aep_conformance::Options::default()
    };
    let report = aep_conformance::check_with(client.base_url().as_str(), &options).await;
    let failed: Vec<String> = report
        .failed()
        .iter()
        .map(|r| format!("{}: {:?} {:?}", r.id, r.reason, r.details))
        .collect();
    assert!(
        failed.is_empty(),
        "aep-rig in front of the real model:\n{}",
        failed.join("\n")
    );

    // A dropped stream stops the generation.
    let before = real.log_text().matches(cancelled).count();
    let mut stream = client
        .chat_stream("rig", &short("Write a very long story about the sea.", 400))
        .await
        .unwrap();
    let mut deltas = 0;
    while deltas < 3 {
        if !stream.next().await.unwrap().unwrap().text_delta().is_empty() {
            deltas += 1;
        }
    }
    drop(stream);
    tokio::time::timeout(Duration::from_secs(60), async {
        while real.log_text().matches(cancelled).count() == before {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap_or_else(|_| {
        panic!(
            "the model server logs the disconnect; its log:\n{}",
            real.log_text()
        )
    });
    // And serves the next request (it would still be writing the story otherwise).
    let next = client.chat("rig", &short("Say yes.", 4)).await.unwrap();
    assert!(next.usage.unwrap().output_tokens.unwrap() <= 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real model: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn a_rig_agent_on_aep_openai_answers_from_the_real_model() {
    let Some(real) = ModelServer::llm_server().await else {
        return;
    };
    let mut config = UpstreamConfig::new(Flavor::OpenAi, &real.base_url).unwrap();
    config.tuning.first_byte_timeout = SLOW;
    config.tuning.idle_timeout = Duration::from_secs(60);
    let extension =
        aep_openai_compatible::build(OpenAiExtension(Upstream::new(config, Vec::new()).unwrap())).unwrap();
    let server = spawn(extension.router()).await;
    let client = Client::builder(&server.base_url)
        .read_timeout(SLOW)
        .build()
        .unwrap();

    let agent = rig_agent::AgentBuilder::new(aep_model(client, "openai", MODEL))
        .preamble("Answer in one short sentence.")
        .temperature(0.0)
        .max_tokens(24)
        .build();

    // Awaited: rig's unary call, AEP /chat.
    let response = agent.prompt("Say hello.").await.expect("a real answer");
    assert!(!response.output().trim().is_empty(), "real text");
    assert_eq!(response.completion_calls.len(), 1);
    assert!(
        matches!(
            response.completion_calls[0].finish_reason,
            Some(rig_core::completion::FinishReason::Stop | rig_core::completion::FinishReason::Length)
        ),
        "{:?}",
        response.completion_calls
    );
    let output_tokens = response.usage.output_tokens.expect("usage reported");
    assert!(output_tokens > 0 && output_tokens <= 24, "{:?}", response.usage);

    // Streamed: rig's streamed call, AEP /chat/stream, real deltas.
    let mut stream = agent.prompt("Name a colour.").stream();
    let mut deltas = 0;
    let mut finished = false;
    while let Some(item) = stream.next().await {
        match item.expect("a real stream without errors") {
            rig_agent::agent::MultiTurnStreamItem::StreamAssistantItem(Item::Event(StreamEvent::Text {
                ..
            })) => deltas += 1,
            rig_agent::agent::MultiTurnStreamItem::FinalResponse(final_response) => {
                finished = true;
                assert!(!final_response.output().trim().is_empty());
            }
            _ => {}
        }
    }
    assert!(finished, "the run ends with its final response");
    assert!(deltas >= 2, "real tokens arrive as several deltas: {deltas}");
}
