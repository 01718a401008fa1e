//! The `aep-rig` binary as a user runs it: flags, a key file, the models it lists, a
//! chat through it to the fake OpenAI-compatible server, and a clear error for an
//! unknown provider.

mod common;

use std::process::Command;

use aep_sdk::protocol::{ChatRequest, FinishReason, Message};
use common::start_binary as start;
use fake_openai::Fake;
use futures::StreamExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_rigs_openai_provider_with_a_key_file() {
    let fake = Fake::start().await;
    fake.require_key("sk-from-file");
    let dir = std::env::temp_dir().join(format!("aep-rig-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key_file = dir.join("key");
    std::fs::write(&key_file, "sk-from-file\n").unwrap();
    let base = format!("{}/v1", fake.base_url);
    let (_running, client) = start(
        &[
            "--provider",
            "openai",
            "--base-url",
            &base,
            "--api-key-file",
            key_file.to_str().unwrap(),
            "--model",
            "smollm2",
            "--model",
            "tools",
        ],
        &[("AEP_RIG_API_KEY", "sk-not-this-one")],
    )
    .await;

    let manifest = client.discover().await.unwrap();
    assert_eq!(manifest.extension.id, "aep.rig");
    assert_eq!(manifest.contributions.model_providers[0].id, "rig");
    let models: Vec<String> = client
        .models("rig")
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(models, ["smollm2", "tools"]);

    let request = ChatRequest::new("smollm2", vec![Message::user("through the binary")]);
    let mut stream = client.chat_stream("rig", &request).await.unwrap();
    let mut text = String::new();
    let mut finish = None;
    while let Some(update) = stream.next().await {
        let update = update.unwrap();
        text.push_str(&update.text_delta());
        finish = update.finish_reason.or(finish);
    }
    assert_eq!(text, "through the binary");
    assert_eq!(finish, Some(FinishReason::Stop));
    // The file's key, trimmed, won over the environment's.
    assert_eq!(fake.headers()[0]["authorization"], "Bearer sk-from-file");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_unknown_provider_is_a_clear_error_listing_the_known_ones() {
    let output = Command::new(env!("CARGO_BIN_EXE_aep-rig"))
        .args(["--provider", "nope", "--listen", "127.0.0.1:0"])
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with("aep-rig: unknown provider 'nope'"), "{stderr}");
    for known in [
        "openai",
        "groq",
        "deepseek",
        "anthropic",
        "gemini",
        "cohere",
        "ollama",
        "llamacpp",
    ] {
        assert!(stderr.contains(known), "{known} missing from: {stderr}");
    }
    // A hosted provider without a key says how to give one.
    let output = Command::new(env!("CARGO_BIN_EXE_aep-rig"))
        .args(["--provider", "groq"])
        .env_remove("AEP_RIG_API_KEY")
        .env_remove("AEP_RIG_API_KEY_FILE")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--api-key-file"));
}

#[test]
fn help_lists_the_options() {
    let output = Command::new(env!("CARGO_BIN_EXE_aep-rig"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--provider",
        "--base-url",
        "--api-key-file",
        "AEP_RIG_API_KEY",
        "--model",
        "--connect-timeout",
        "--read-timeout",
        "--stream-start-wait",
        "--listen",
        "--bearer-token-file",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
}
