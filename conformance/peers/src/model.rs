//! A real model behind a real inference server, for the tests that need real tokens:
//! SmolLM2-135M-Instruct (Q4_1 gguf) served by llama-cpp-python's OpenAI-compatible server
//! ([`ModelServer::llm_server`], `target/peers/bin/llm-server`) or by llama.cpp's own C++
//! `llama-server` ([`ModelServer::llama_server`], `target/peers/bin/llama-server`), both
//! installed by `install.sh`. The model is tiny and its words are often nonsense: tests
//! check the shape of an exchange, never the wording.
//!
//! Each server runs on its own loopback port, logs to `target/<name>-<port>.log` and is
//! killed when the [`ModelServer`] is dropped.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use aep_sdk::protocol::{ChatRequest, Message, ModelOptions};
use tokio::process::{Child, Command};

/// The model's name on both servers (`--model_alias`, `--alias`).
pub const MODEL: &str = "smollm2";

/// A chat with [`MODEL`]: one user message, at most `max_tokens` tokens, temperature 0.
pub fn short(text: &str, max_tokens: u32) -> ChatRequest {
    ChatRequest {
        options: Some(ModelOptions {
            max_output_tokens: Some(max_tokens),
            temperature: Some(0.0),
            ..ModelOptions::default()
        }),
        ..ChatRequest::new(MODEL, vec![Message::user(text)])
    }
}

/// How long a server may take to load the model (two shared cores).
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(120);

/// A running model server.
pub struct ModelServer {
    /// `http://127.0.0.1:<port>`, without `/v1`.
    pub base_url: String,
    /// Its stdout and stderr.
    pub log: PathBuf,
    child: Child,
}

/// The installed program `name` (in [`crate::peers_dir`]'s `bin`), or `None` with a
/// notice (a panic under CI, which installs it).
fn installed(name: &str) -> Option<PathBuf> {
    let path = crate::peers_dir().join("bin").join(name);
    if path.exists() {
        return Some(path);
    }
    let message = format!("{name} is not installed: bash conformance/peers/install.sh");
    assert!(std::env::var_os("CI").is_none(), "{message} (CI installs it)");
    eprintln!("NOTICE: {message}; skipping");
    None
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

impl ModelServer {
    /// llama-cpp-python's server, one generation at a time (`--interrupt_requests False`:
    /// a new request waits for the running one instead of cutting it, so a generation that
    /// stops early was stopped by its client going away). Ready once `/v1/models` answers.
    pub async fn llm_server() -> Option<Self> {
        let program = installed("llm-server")?;
        let port = free_port();
        let args = [
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--model_alias",
            MODEL,
            "--interrupt_requests",
            "False",
        ]
        .map(str::to_owned);
        let server = Self::spawn("llm-server", program, port, &args);
        server.ready("/v1/models").await;
        Some(server)
    }

    /// llama.cpp's `llama-server` with `args` added (e.g. `--parallel 1`), not waiting for
    /// the model: it listens at once and answers 503 `Loading model` until it has loaded
    /// ([`ModelServer::ready`] waits for that).
    pub fn llama_server_loading(args: &[&str]) -> Option<Self> {
        let program = installed("llama-server")?;
        let port = free_port();
        let mut all: Vec<String> = [
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--alias",
            MODEL,
            "--ctx-size",
            "2048",
        ]
        .map(str::to_owned)
        .to_vec();
        all.extend(args.iter().map(|a| (*a).to_owned()));
        Some(Self::spawn("llama-server", program, port, &all))
    }

    /// llama.cpp's `llama-server` with `args` added, once `/health` says it is ready.
    pub async fn llama_server(args: &[&str]) -> Option<Self> {
        let server = Self::llama_server_loading(args)?;
        server.ready("/health").await;
        Some(server)
    }

    fn spawn(name: &str, program: PathBuf, port: u16, args: &[String]) -> Self {
        let log = crate::repo_root().join(format!("target/{name}-{port}.log"));
        let file = std::fs::File::create(&log).expect("the server's log file");
        let child = Command::new(&program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(file.try_clone().expect("the log file, twice"))
            .stderr(file)
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("{} starts: {e}", program.display()));
        Self {
            base_url: format!("http://127.0.0.1:{port}"),
            log,
            child,
        }
    }

    /// Waits (at most [`LOAD_TIMEOUT`]) until `GET path` answers 2xx; panics with the
    /// server's log otherwise, or when the server exits first.
    pub async fn ready(&self, path: &str) {
        let url = format!("{}{path}", self.base_url);
        let ok = tokio::time::timeout(LOAD_TIMEOUT, async {
            while !reqwest::get(&url).await.is_ok_and(|r| r.status().is_success()) {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
        .await;
        assert!(
            ok.is_ok(),
            "{url} did not answer 2xx within {LOAD_TIMEOUT:?}; the server's log:\n{}",
            self.log_text()
        );
    }

    /// What the server logged so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The server's process id, if it still runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }
}
