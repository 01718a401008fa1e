//! The bar of the authoring issue: an extension written exactly as the README's
//! example (tests/words), in its own crate outside this workspace, depending on
//! nothing but `aep-sdk` and `tokio`, builds without warnings, serves as a user starts
//! it, passes the conformance suite strictly for both of its providers, and answers
//! `/chat` with exactly the fold of its `/chat/stream`.

use std::path::{Path, PathBuf};
use std::process::Command;

use aep_conformance::Options;
use aep_sdk::client::Client;
use aep_sdk::protocol::{ChatRequest, Message};
use aep_sdk::server::{ChatStream, collect_stream};
use futures::StreamExt;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("templates/ has a parent")
        .to_owned()
}

/// Writes the crate to target/aep-templates/words and builds it there.
fn build_words() -> PathBuf {
    let root = workspace().join("target/aep-templates");
    let dest = root.join("words");
    let _ = std::fs::remove_dir_all(&dest);
    std::fs::create_dir_all(dest.join("src")).expect("create the crate directory");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/words");
    let manifest = std::fs::read_to_string(source.join("Cargo.toml.in"))
        .expect("read Cargo.toml.in")
        .replace("AEP_SDK", &workspace().join("aep-sdk").display().to_string());
    std::fs::write(dest.join("Cargo.toml"), manifest).expect("write Cargo.toml");
    std::fs::copy(source.join("src/main.rs"), dest.join("src/main.rs")).expect("copy main.rs");
    // Same dependency versions as this workspace: nothing new to download or build.
    std::fs::copy(workspace().join("Cargo.lock"), dest.join("Cargo.lock")).expect("copy Cargo.lock");
    let output = Command::new(env!("CARGO"))
        .args(["build", "--quiet"])
        .current_dir(&dest)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo build runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "words: cargo build failed\n{stderr}");
    assert!(
        !stderr.lines().any(|l| l.starts_with("warning")),
        "words: warnings\n{stderr}"
    );
    let tree = Command::new(env!("CARGO"))
        .args(["tree", "--depth", "1", "--edges", "normal", "--prefix", "none"])
        .current_dir(&dest)
        .output()
        .expect("cargo tree runs");
    let tree = String::from_utf8_lossy(&tree.stdout);
    let direct: Vec<&str> = tree
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(direct, ["aep-sdk", "tokio"], "words depends on more:\n{tree}");
    root.join("target/debug/words")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extension_outside_the_workspace_needs_only_aep_sdk_and_tokio() {
    let binary = tokio::task::spawn_blocking(build_words).await.expect("build");
    let running = aep_peers::start_binary(&binary)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let url = &running.base_url;

    for (provider, model) in [("words", "words-1"), ("oneshot", "oneshot-1")] {
        let options = Options {
            provider: Some(provider.to_owned()),
            model: Some(model.to_owned()),
            strict: true,
            ..Options::default()
        };
        let report = aep_conformance::check_with(url, &options).await;
        let failed: Vec<String> = report
            .failed()
            .into_iter()
            .map(|r| format!("{}: {:?} {:?}", r.id, r.reason, r.details))
            .collect();
        assert!(
            failed.is_empty(),
            "{provider}: failed checks\n{}",
            failed.join("\n")
        );
        assert!(report.counts().passed > 0, "{provider}: nothing passed");

        let client = Client::new(url).expect("client");
        let request = ChatRequest::new(model, vec![Message::user("one two three")]);
        let chat = client.chat(provider, &request).await.expect("/chat");
        let mut updates = Vec::new();
        let mut stream = client
            .chat_stream(provider, &request)
            .await
            .expect("/chat/stream");
        while let Some(update) = stream.next().await {
            updates.push(update.expect("an update"));
        }
        let folded = collect_stream(ChatStream::from_updates(updates))
            .await
            .expect("the stream folds");
        assert_eq!(chat, folded, "{provider}: /chat is not the fold of /chat/stream");
    }
}
