//! Against a real inference server with a real model: llama-cpp-python's
//! OpenAI-compatible server (real llama.cpp inference on the CPU) serving
//! SmolLM2-135M-Instruct, installed by `conformance/peers/install.sh` as
//! `target/peers/bin/llm-server` ([`aep_peers::model`]). Missing, the test is ignored
//! (CI runs it). The model is tiny and its words are often nonsense: this checks the
//! shape of the exchange (real tokens stream, usage is counted, finish reasons,
//! conformance, cancellation reaching the model), never the wording.
//!
//! The server runs with `--interrupt_requests False`: one generation at a time, a new
//! request waits for the running one instead of cutting it. So when a dropped stream's
//! generation stops early, it is the disconnect that stopped it, and the server's log
//! says `Disconnected from client`.

mod common;

use std::time::Duration;

use aep_host::agent::{Agent, AgentEvent, AgentStop};
use aep_host::catalog::Catalog;
use aep_host::mcp::McpPool;
use aep_host::models::ModelRef;
use aep_host::registry::Registry;
use aep_openai_compatible::config::UpstreamConfig;
use aep_openai_compatible::flavor::Flavor;
use aep_peers::model::{MODEL, ModelServer, short};
use aep_sdk::protocol::{FinishReason, Message, ModelOptions, ProtocolVersion};
use aep_sdk::server::AepExtension;
use aep_sdk::testing::spawn;
use futures::StreamExt;

async fn extension_in_front(flavor: Flavor, real: &ModelServer) -> common::Stand2 {
    let mut config = UpstreamConfig::new(flavor, &real.base_url).expect("endpoint");
    config.tuning.first_byte_timeout = Duration::from_secs(120);
    config.tuning.idle_timeout = Duration::from_secs(60);
    let (server, client) = common::serve(config).await;
    common::Stand2 {
        server,
        client,
        flavor,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real model: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn real_tokens_usage_conformance_cancellation_and_an_agent_turn() {
    let Some(real) = ModelServer::llm_server().await else {
        return;
    };

    for flavor in [Flavor::OpenAi, Flavor::LlamaCpp] {
        let stand = extension_in_front(flavor, &real).await;
        let provider = flavor.provider_id();

        // Real tokens stream, one update per token or so, and finish.
        let mut stream = stand
            .client
            .chat_stream(provider, &short("Count from one to five.", 16))
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
            "{flavor:?}: real tokens arrive as several updates: {texts:?}"
        );
        assert!(
            matches!(finish, Some(FinishReason::Stop | FinishReason::Length)),
            "{flavor:?}: {finish:?}"
        );

        // /chat: real text and the usage the server counted.
        let answer = stand
            .client
            .chat(provider, &short("Say hello.", 12))
            .await
            .unwrap();
        assert!(!answer.all_text().trim().is_empty(), "{flavor:?}: real text");
        let usage = answer.usage.expect("usage on /chat");
        assert!(
            usage.input_tokens.unwrap_or(0) > 0 && usage.output_tokens.unwrap_or(0) > 0,
            "{flavor:?}: {usage:?}"
        );
        assert!(
            usage.output_tokens.unwrap() <= 12,
            "{flavor:?}: the token limit reached the model: {usage:?}"
        );

        // The conformance suite in front of the real server.
        let options = aep_conformance::Options {
            provider: Some(provider.to_owned()),
            model: Some(MODEL.to_owned()),
            request_timeout: Duration::from_secs(120),
            check_timeout: Duration::from_secs(300),
            ..aep_conformance::Options::default()
        };
        let report = aep_conformance::check_with(&stand.server.base_url, &options).await;
        let failed: Vec<String> = report
            .failed()
            .iter()
            .map(|r| format!("{}: {:?} {:?}", r.id, r.reason, r.details))
            .collect();
        assert!(
            failed.is_empty(),
            "{flavor:?} in front of the real model:\n{}",
            failed.join("\n")
        );
    }

    // A dropped stream stops the generation: the server sees the client go away and
    // serves the next request (it runs one generation at a time and does not interrupt).
    let stand = extension_in_front(Flavor::OpenAi, &real).await;
    let before = real.log_text().matches("Disconnected from client").count();
    let mut stream = stand
        .client
        .chat_stream("openai", &short("Write a very long story about the sea.", 400))
        .await
        .unwrap();
    for _ in 0..3 {
        stream.next().await.unwrap().unwrap();
    }
    drop(stream);
    tokio::time::timeout(Duration::from_secs(30), async {
        while real.log_text().matches("Disconnected from client").count() == before {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the model server logs the disconnect");
    let next = stand.client.chat("openai", &short("Say yes.", 4)).await.unwrap();
    assert!(next.usage.unwrap().output_tokens.unwrap() <= 4);

    // The host's agent loop with a tool offered: whatever the small model does with it,
    // every turn is well-formed and the loop ends.
    let tools = spawn(aep_utilities::Utilities.into_extension().unwrap().router()).await;
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &tools.base_url, ProtocolVersion::LATEST)
        .unwrap();
    registry
        .register(
            "aep.openai-compatible",
            &stand.server.base_url,
            ProtocolVersion::LATEST,
        )
        .unwrap();
    let catalog = Catalog::new(std::sync::Arc::new(registry), McpPool::new());
    catalog.add_extension_tools("aep.utilities").await.unwrap();
    let offered: Vec<_> = catalog
        .resolve_enabled()
        .await
        .tools
        .into_iter()
        .filter(|t| t.id == "text.case")
        .collect();
    assert_eq!(offered.len(), 1);
    let agent = Agent::new(&catalog, ModelRef::new("aep.openai-compatible", "openai", MODEL))
        .tools(offered)
        .max_steps(3)
        .options(ModelOptions {
            max_output_tokens: Some(48),
            temperature: Some(0.0),
            ..ModelOptions::default()
        });
    let mut events = Vec::new();
    let outcome = agent
        .run(
            vec![Message::user("Use the tool to write 'hello' in upper case.")],
            &mut |e: &AgentEvent| events.push(e.clone()),
        )
        .await
        .expect("the agent loop runs against the real model");
    assert!(outcome.steps >= 1);
    assert!(
        matches!(outcome.stop, AgentStop::Answered(_) | AgentStop::StepLimit),
        "{:?}",
        outcome.stop
    );
    assert!(!events.is_empty());

    // `aep-host demo` with AEP_OPENAI_BASE_URL: the demo's chat goes through aep-openai
    // to the real model.
    let options = aep_host::demo::DemoOptions {
        ollama: None,
        openai: Some(real.base_url.clone()),
        model: Some(MODEL.to_owned()),
    };
    let mut out = Vec::new();
    let report = aep_host::demo::run_with(&mut out, options)
        .await
        .expect("the demo runs with the real model");
    let printed = String::from_utf8(out).unwrap();
    assert!(printed.contains("aep-openai in front of"), "{printed}");
    assert!(
        printed.contains(&format!("model aep.openai-compatible/openai/{MODEL}")),
        "{printed}"
    );
    assert!(!report.digest.is_empty());
}
