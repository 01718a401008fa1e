//! Model discovery (`/api/tags` + cached `/api/show`) and health (`/api/version`).

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use fake_ollama::{FakeOllama, Fault, ModelSpec, capability};

#[tokio::test]
async fn models_with_metadata_and_capabilities() {
    let stand = stand().await;
    let models = stand.client.models("ollama").await.expect("models");
    let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        ids,
        ["llama3.2:latest", "qwen3:8b", "gemma3:4b"],
        "the embedding model is left out"
    );

    let qwen = &models[1];
    assert_eq!(qwen.display_name, "qwen3:8b");
    let meta = qwen.metadata.as_ref().expect("metadata");
    assert_eq!(meta["parameterSize"], "8.2B");
    assert_eq!(meta["quantizationLevel"], "Q4_K_M");
    assert_eq!(meta["family"], "qwen3");
    assert_eq!(meta["format"], "gguf");
    assert_eq!(meta["contextLength"], "40960");
    assert_eq!(meta["ollamaCapabilities"], "completion,tools,thinking");
    assert_eq!(meta["digest"].len(), 64);
    assert_eq!(
        qwen.capabilities.as_deref().unwrap(),
        ["chat", "streaming", "structuredOutput", "tools", "thinking"]
    );
    let gemma = &models[2];
    assert_eq!(
        gemma.capabilities.as_deref().unwrap(),
        ["chat", "streaming", "structuredOutput", "vision"]
    );
    assert_eq!(gemma.metadata.as_ref().unwrap()["parameterSize"], "4.3B");
    let llama = &models[0];
    assert_eq!(
        llama.capabilities.as_deref().unwrap(),
        ["chat", "streaming", "structuredOutput", "tools"]
    );
}

#[tokio::test]
async fn show_is_cached_across_listings_and_never_called_per_chat() {
    let stand = stand().await;
    let fake = &stand.fake;
    stand.client.models("ollama").await.unwrap();
    for model in ["llama3.2", "qwen3:8b", "gemma3:4b", "nomic-embed-text"] {
        assert_eq!(fake.show_calls(model), 1, "{model}");
    }
    for _ in 0..3 {
        stand.client.models("ollama").await.unwrap();
        stand
            .client
            .chat("ollama", &user("qwen3:8b", "hi"))
            .await
            .unwrap();
        stream_ok(&stand.client, &user("llama3.2", "hi")).await;
    }
    for model in ["llama3.2", "qwen3:8b", "gemma3:4b", "nomic-embed-text"] {
        assert_eq!(
            fake.show_calls(model),
            1,
            "{model}: no /api/show per chat or per listing"
        );
    }
    assert_eq!(
        fake.request_count("/api/tags"),
        4,
        "the list itself is always fresh"
    );

    // A new model is described once; the others stay cached.
    fake.add_model(
        ModelSpec::new("mistral:7b")
            .parameter_size("7.2B")
            .capabilities([capability::COMPLETION, capability::TOOLS]),
    );
    let models = stand.client.models("ollama").await.unwrap();
    assert!(models.iter().any(|m| m.id == "mistral:7b"));
    assert_eq!(fake.show_calls("mistral:7b"), 1);
    assert_eq!(fake.show_calls("qwen3:8b"), 1);
    stand.client.models("ollama").await.unwrap();
    assert_eq!(fake.show_calls("mistral:7b"), 1);

    // A re-pulled model (new digest) is described again.
    fake.remove_model("qwen3:8b");
    let mut repulled = ModelSpec::new("qwen3:8b").family("qwen3").capabilities([
        capability::COMPLETION,
        capability::TOOLS,
        capability::THINKING,
        capability::VISION,
    ]);
    repulled.digest = "f".repeat(64);
    fake.add_model(repulled);
    let models = stand.client.models("ollama").await.unwrap();
    assert_eq!(fake.show_calls("qwen3:8b"), 2);
    let qwen = models.iter().find(|m| m.id == "qwen3:8b").unwrap();
    assert!(qwen.capabilities.as_ref().unwrap().contains(&"vision".to_owned()));
}

#[tokio::test]
async fn a_failing_show_leaves_the_model_listed_without_capabilities() {
    let stand = stand_with(|_| {}).await;
    stand.fake.set_models(vec![ModelSpec::new("solo:1b")]);
    stand.fake.fail_next_on("/api/show", Fault::http(500, "boom"));
    let models = stand.client.models("ollama").await.unwrap();
    assert_eq!(models.len(), 1);
    assert_eq!(models[0].capabilities, None);
    assert_eq!(models[0].metadata.as_ref().unwrap()["parameterSize"], "7.6B");
    // Not cached: described on the next listing.
    let models = stand.client.models("ollama").await.unwrap();
    assert!(models[0].capabilities.is_some());
    assert_eq!(stand.fake.request_count("/api/show"), 2);
}

#[tokio::test]
async fn listing_errors() {
    let mut stand = stand().await;
    stand
        .fake
        .fail_next_on("/api/tags", Fault::http(500, "disk on fire"));
    let error = fails(stand.client.models("ollama")).await;
    assert_eq!(status_code(&error), (Some(502), Some("request_failed")));
    assert!(remote_message(&error).contains("disk on fire"), "{error}");

    stand.fake.stop().await;
    let error = fails(stand.client.models("ollama")).await;
    assert_eq!(status_code(&error), (Some(502), Some("provider_unavailable")));
    assert!(remote_message(&error).contains("unreachable"), "{error}");
}

#[tokio::test]
async fn health_follows_ollama() {
    let fake = FakeOllama::builder().version("0.13.1").start().await;
    let (_server, client) = serve(test_config(&fake.base_url())).await;
    let health = client.provider_health("ollama").await.unwrap();
    assert_eq!(health.status, aep_sdk::protocol::Availability::Available);
    assert!(
        health.details.as_deref().unwrap_or_default().contains("0.13.1"),
        "{health:?}"
    );
    assert_eq!(fake.request_count("/api/version"), 1);

    let mut fake = fake;
    fake.stop().await;
    let health = client.provider_health("ollama").await.unwrap();
    assert_eq!(health.status, aep_sdk::protocol::Availability::Unreachable);
    assert!(!health.is_serving());
    let details = health.details.unwrap_or_default();
    assert!(
        details.contains("unreachable") && details.contains(&fake.base_url()),
        "{details}"
    );
    // The extension itself stays healthy.
    let own = client.health().await.unwrap();
    assert_eq!(own.status, aep_sdk::protocol::Availability::Available);

    fake.restart().await.unwrap();
    let health = client.provider_health("ollama").await.unwrap();
    assert_eq!(health.status, aep_sdk::protocol::Availability::Available);

    fake.fail_next_on("/api/version", Fault::http(500, "starting up"));
    let health = client.provider_health("ollama").await.unwrap();
    assert_eq!(health.status, aep_sdk::protocol::Availability::Unavailable);
    assert!(health.details.unwrap_or_default().contains("starting up"));
}

#[tokio::test]
async fn a_hanging_probe_is_bounded() {
    let stand = stand_with(|c| c.probe_timeout = Duration::from_millis(400)).await;
    stand.fake.fail_next_on("/api/version", Fault::Hang);
    let started = Instant::now();
    let health = stand.client.provider_health("ollama").await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(health.status, aep_sdk::protocol::Availability::Unavailable);
    assert!(health.details.unwrap_or_default().contains("400 ms"));

    stand.fake.fail_next_on("/api/tags", Fault::Hang);
    let started = Instant::now();
    let error = fails(stand.client.models("ollama")).await;
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(status_code(&error), (Some(504), Some("timeout")));
}
