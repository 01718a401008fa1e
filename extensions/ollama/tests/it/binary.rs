//! The `aep-ollama` binary: `OLLAMA_HOST` without a scheme, `--listen`, and a chat
//! through it, as a user would run it.

use crate::common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use aep_sdk::client::Client;
use common::*;
use fake_ollama::FakeOllama;

/// Kills the child when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

#[tokio::test]
async fn the_binary_serves_in_front_of_ollama_host() {
    let fake = FakeOllama::start().await;
    let listen = format!("127.0.0.1:{}", free_port());
    let child = Command::new(env!("CARGO_BIN_EXE_aep-ollama"))
        .args(["--listen", &listen])
        // As Ollama's users write it: no scheme.
        .env("OLLAMA_HOST", fake.addr().to_string())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let _running = Running(child);

    let client = Client::builder(&format!("http://{listen}"))
        .read_timeout(BOUND)
        .build()
        .unwrap();
    let started = Instant::now();
    let manifest = loop {
        match client.discover().await {
            Ok(manifest) => break manifest,
            Err(_) if started.elapsed() < BOUND => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(error) => panic!("the binary never answered: {error}"),
        }
    };
    assert_eq!(manifest.extension.id, "Agentstration.Extensions.Ollama");
    let updates = stream_ok(&client, &user("llama3.2", "hello from the binary")).await;
    assert_eq!(text_of(&updates), "hello from the binary");
    assert_eq!(fake.request_count("/api/chat"), 1);
}

#[test]
fn help_lists_the_options() {
    let output = Command::new(env!("CARGO_BIN_EXE_aep-ollama"))
        .arg("--help")
        .output()
        .expect("the binary runs");
    let help = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--ollama-url",
        "OLLAMA_HOST",
        "--listen",
        "--connect-timeout",
        "--idle-timeout",
        "--probe-timeout",
        "--stream-start-wait",
        "--max-line-bytes",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
}
