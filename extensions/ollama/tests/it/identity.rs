//! Drop-in identity: manifest, provider descriptor, option set (reference schema and
//! digest), and native options checked before Ollama is called.

use crate::common;

use aep_sdk::client::Client;
use aep_sdk::config::schema_digest_text;
use aep_sdk::protocol::{ModelOptions, ProtocolVersion};
use common::*;
use serde_json::{Value, json};

/// The SDK's fixture of the reference extension's schema, and its digest computed
/// independently (python3 hashlib over the compact JSON).
const REFERENCE_SCHEMA: &str =
    include_str!("../../../../aep-sdk/tests/fixtures/ollama-model-profile-1.0.0.json");
const REFERENCE_DIGEST: &str = "sha256:db13bcf3bc8d35fbfe870f05f23d914c78a2adb6d18ec2c5a27409854838cf11";

#[tokio::test]
async fn manifest_matches_the_reference_identity() {
    let stand = stand().await;
    for revision in ProtocolVersion::ALL {
        let client = Client::builder(&stand.server.base_url)
            .revision(revision)
            .build()
            .unwrap();
        let manifest = client.discover().await.expect("a valid manifest");
        assert_eq!(manifest.extension.id, "Agentstration.Extensions.Ollama");
        assert_eq!(manifest.extension.name, "Ollama");
        assert_eq!(
            manifest.extension.description.as_deref(),
            Some("Agentstration AEP model-provider extension for Ollama.")
        );
        for capability in ["aep.health", "aep.model-provider", "aep.configuration"] {
            assert!(manifest.capabilities.contains_key(capability), "{capability}");
        }
        assert!(!manifest.capabilities.contains_key("aep.tools"));
        let [provider] = manifest.contributions.model_providers.as_slice() else {
            panic!("one provider");
        };
        assert_eq!(
            (provider.id.as_str(), provider.display_name.as_str()),
            ("ollama", "Ollama")
        );
        let c = provider.capabilities;
        assert!(
            c.chat
                && c.streaming
                && c.tools
                && c.thinking
                && c.structured_output
                && c.vision
                && c.model_discovery,
            "{c:?}"
        );
    }
    assert!(stand.fake.requests().is_empty(), "discovery does not call Ollama");
}

#[tokio::test]
async fn option_set_publishes_the_reference_schema_and_digest() {
    let stand = stand().await;
    let catalog = stand.client.configuration().await.expect("catalog");
    let [set] = catalog.option_sets.as_slice() else {
        panic!("one option set: {catalog:?}");
    };
    assert_eq!(set.id, "io.agentstration.ollama/model-profile");
    assert_eq!(
        (set.contribution_kind.as_str(), set.contribution_id.as_str()),
        ("model-provider", "ollama")
    );
    assert_eq!(
        (set.scope.as_str(), set.preferred_version.as_str()),
        ("model-profile", "1.0.0")
    );
    let [version] = set.versions.as_slice() else {
        panic!("one version");
    };
    assert_eq!(version.version, "1.0.0");
    assert_eq!(
        schema_digest_text(REFERENCE_SCHEMA).as_deref(),
        Ok(REFERENCE_DIGEST)
    );
    assert_eq!(version.schema_digest, REFERENCE_DIGEST);
    assert_eq!(
        version.schema,
        serde_json::from_str::<Value>(REFERENCE_SCHEMA).unwrap()
    );
    assert!(set.migrations.is_empty());
}

async fn refused(stand: &Stand, values: Value) -> (Option<u16>, Option<String>, String) {
    let options = ModelOptions {
        native_options: Some(native(values)),
        ..ModelOptions::default()
    };
    let request = with_options(user("llama3.2", "hi"), options);
    let error = fails(stand.client.chat("ollama", &request)).await;
    let stream_error = fails(stand.client.chat_stream("ollama", &request)).await;
    assert_eq!(
        status_code(&error),
        status_code(&stream_error),
        "same answer on /chat/stream"
    );
    let target = error.remote.as_ref().and_then(|r| r.target.clone());
    (
        error.status.map(|s| s.as_u16()),
        target,
        format!("{} {}", error.remote_code().unwrap_or(""), remote_message(&error)),
    )
}

#[tokio::test]
async fn endpoint_mode_generate_and_bad_values_are_refused_before_ollama() {
    let stand = stand().await;
    // The schema only allows "chat": "generate" fails the schema's enum (422), as
    // the reference's own schema check answers it before its provider runs.
    let (status, target, text) = refused(&stand, json!({"endpointMode": "generate"})).await;
    assert_eq!(status, Some(422));
    assert!(text.starts_with("invalid_options"), "{text}");
    assert_eq!(target.as_deref(), Some("values.endpointMode"), "{text}");

    let (status, _, text) = refused(&stand, json!({"mirostat": 3})).await;
    assert_eq!(status, Some(422), "{text}");
    let (status, _, text) = refused(&stand, json!({"numCtx": 4096})).await;
    assert_eq!(status, Some(422), "unknown member: {text}");
    // The schema leaves `think` untyped; the typed profile refuses what Ollama would.
    let (status, _, text) = refused(&stand, json!({"think": "huge"})).await;
    assert_eq!(status, Some(422));
    assert!(text.contains("think must be"), "{text}");

    // A different digest is a schema mismatch.
    let mut options = native(json!({}));
    options.schema_digest = "sha256:00".into();
    let request = with_options(
        user("llama3.2", "hi"),
        ModelOptions {
            native_options: Some(options),
            ..ModelOptions::default()
        },
    );
    let error = fails(stand.client.chat("ollama", &request)).await;
    assert_eq!(status_code(&error), (Some(422), Some("option_schema_mismatch")));

    assert_eq!(stand.fake.request_count("/api/chat"), 0, "Ollama never saw them");
}
