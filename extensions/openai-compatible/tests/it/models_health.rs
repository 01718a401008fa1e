//! Model discovery and health per flavour, against the stand-in.

use crate::common;

use std::sync::atomic::Ordering;

use aep_openai_compatible::flavor::Flavor;
use aep_sdk::protocol::Availability;
use common::{serve, stand, tuning};
use serde_json::json;

#[tokio::test]
async fn each_flavour_lists_models_its_way() {
    let stand_llama = stand(Flavor::LlamaCpp).await;
    let models = stand_llama.client.models("llamacpp").await.unwrap();
    let value = serde_json::to_value(&models).unwrap();
    assert_eq!(value[0]["id"], "smollm2");
    assert_eq!(
        value[0]["capabilities"],
        json!(["chat", "streaming", "structuredOutput", "tools"])
    );
    assert_eq!(value[0]["metadata"]["contextLength"], "8192");

    let stand_local = stand(Flavor::LocalAi).await;
    let value = serde_json::to_value(stand_local.client.models("localai").await.unwrap()).unwrap();
    assert_eq!(value.as_array().unwrap().len(), 1, "{value}");
    assert_eq!(
        value[0]["capabilities"],
        json!(["chat", "streaming", "tools", "reasoning"])
    );
    stand_local
        .fake
        .shared
        .no_capabilities_route
        .store(true, Ordering::SeqCst);
    let error = stand_local.client.models("localai").await.unwrap_err();
    assert_eq!(error.status.map(|s| s.as_u16()), Some(502));
    assert_eq!(error.remote.unwrap().code, "provider_incompatible");

    let stand_openai = stand(Flavor::OpenAi).await;
    let value = serde_json::to_value(stand_openai.client.models("openai").await.unwrap()).unwrap();
    assert_eq!(value[0]["capabilities"], json!(["chat", "streaming", "tools"]));
}

#[tokio::test]
async fn health_is_available_loading_unavailable_or_unreachable() {
    for flavor in [Flavor::LlamaCpp, Flavor::LocalAi, Flavor::OpenAi] {
        let stand = stand(flavor).await;
        let provider = stand.provider();
        assert_eq!(
            stand.client.provider_health(provider).await.unwrap().status,
            Availability::Available,
            "{flavor:?}"
        );
        stand.fake.require_key("k");
        let health = stand.client.provider_health(provider).await.unwrap();
        assert_eq!(
            (health.status, health.details.as_deref()),
            (Availability::Unavailable, Some("Invalid API Key")),
            "{flavor:?}"
        );
    }
    let stand = stand(Flavor::LlamaCpp).await;
    stand.fake.set_loading(true);
    let health = stand.client.provider_health("llamacpp").await.unwrap();
    assert_eq!(
        (health.status, health.details.as_deref()),
        (Availability::Loading, Some("Loading model"))
    );

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = aep_openai_compatible::config::UpstreamConfig::new(
        Flavor::LocalAi,
        &format!("http://127.0.0.1:{port}"),
    )
    .unwrap();
    config.tuning = tuning(Flavor::LocalAi);
    let (_server, client) = serve(config).await;
    assert_eq!(
        client.provider_health("localai").await.unwrap().status,
        Availability::Unreachable
    );
}

#[tokio::test]
async fn orchestrators_get_healthy_on_get_health() {
    let stand = stand(Flavor::LocalAi).await;
    let answer = reqwest::get(format!("{}/health", stand.server.base_url))
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.text().await.unwrap(), "Healthy");
}
