//! The test stand: a fake Ollama, `aep-ollama` in front of it on a loopback port,
//! and the canonical AEP client.
#![allow(dead_code)]

use std::time::Duration;

use aep_ollama::OllamaExtension;
use aep_ollama::config::OllamaConfig;
use aep_sdk::client::{Client, ClientError, UpdateStream};
use aep_sdk::protocol::{ChatRequest, ChatUpdate, Message, ModelOptions, VersionedOptions};
use aep_sdk::server::AepExtension;
use aep_sdk::testing::{TestServer, spawn};
use fake_ollama::FakeOllama;
use futures::StreamExt;
use serde_json::Value;

/// Upper bound of any single wait in these tests.
pub const BOUND: Duration = Duration::from_secs(10);

pub struct Stand {
    pub fake: FakeOllama,
    pub server: TestServer,
    pub client: Client,
}

/// Short timeouts so that fault tests end fast: connect 1 s, idle 3 s, probe 2 s,
/// stream start wait 2 s.
pub fn test_config(url: &str) -> OllamaConfig {
    OllamaConfig {
        connect_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(3),
        probe_timeout: Duration::from_secs(2),
        stream_start_wait: Duration::from_secs(2),
        ..OllamaConfig::with_url(url).expect("a valid URL")
    }
}

/// `aep-ollama` serving in front of `url`.
pub async fn serve(config: OllamaConfig) -> (TestServer, Client) {
    let extension = OllamaExtension::new(config)
        .expect("client")
        .into_extension()
        .expect("a valid declaration");
    let server = spawn(extension.router()).await;
    let client = Client::builder(&server.base_url)
        .read_timeout(BOUND)
        .build()
        .expect("client");
    (server, client)
}

pub async fn stand() -> Stand {
    stand_with(|_| {}).await
}

pub async fn stand_with(adjust: impl FnOnce(&mut OllamaConfig)) -> Stand {
    let fake = FakeOllama::start().await;
    let mut config = test_config(&fake.base_url());
    adjust(&mut config);
    let (server, client) = serve(config).await;
    Stand { fake, server, client }
}

pub fn user(model: &str, text: &str) -> ChatRequest {
    ChatRequest::new(model, vec![Message::user(text)])
}

pub fn with_options(mut request: ChatRequest, options: ModelOptions) -> ChatRequest {
    request.options = Some(options);
    request
}

/// `options.nativeOptions` for the model-profile option set.
pub fn native(values: Value) -> VersionedOptions {
    VersionedOptions {
        option_set: aep_ollama::profile::OPTION_SET_ID.to_owned(),
        version: aep_ollama::profile::OPTION_SET_VERSION.to_owned(),
        schema_digest: aep_ollama::profile::SCHEMA_DIGEST.to_owned(),
        values,
    }
}

/// Every item of a stream, up to its end (bounded).
pub async fn drain(mut stream: UpdateStream) -> Vec<Result<ChatUpdate, ClientError>> {
    tokio::time::timeout(BOUND, async {
        let mut items = Vec::new();
        while let Some(item) = stream.next().await {
            items.push(item);
        }
        items
    })
    .await
    .expect("the stream ends in time")
}

/// Streams a chat and returns its updates, asserting there was no error.
pub async fn stream_ok(client: &Client, request: &ChatRequest) -> Vec<ChatUpdate> {
    let stream = tokio::time::timeout(BOUND, client.chat_stream("ollama", request))
        .await
        .expect("in time")
        .expect("the stream starts");
    drain(stream)
        .await
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .expect("no error update")
}

/// Streams a chat that starts (HTTP 200) and ends with a terminal error update.
pub async fn stream_err(client: &Client, request: &ChatRequest) -> (Vec<ChatUpdate>, ClientError) {
    let stream = tokio::time::timeout(BOUND, client.chat_stream("ollama", request))
        .await
        .expect("in time")
        .expect("the stream starts");
    let mut updates = Vec::new();
    for item in drain(stream).await {
        match item {
            Ok(update) => updates.push(update),
            Err(error) => return (updates, error),
        }
    }
    panic!("the stream ended without an error: {updates:?}");
}

/// The error of a call that must fail (bounded).
pub async fn fails<T>(call: impl std::future::Future<Output = Result<T, ClientError>>) -> ClientError {
    match tokio::time::timeout(BOUND, call).await.expect("in time") {
        Ok(_) => panic!("the call must fail"),
        Err(error) => error,
    }
}

/// `(HTTP status, AEP code)` of an error the extension answered.
pub fn status_code(error: &ClientError) -> (Option<u16>, Option<&str>) {
    (error.status.map(|s| s.as_u16()), error.remote_code())
}

pub fn remote_message(error: &ClientError) -> String {
    error
        .remote
        .as_ref()
        .map(|r| r.message.clone())
        .unwrap_or_default()
}

/// All text deltas of the updates.
pub fn text_of(updates: &[ChatUpdate]) -> String {
    updates.iter().map(ChatUpdate::text_delta).collect()
}

/// All reasoning deltas of the updates.
pub fn reasoning_of(updates: &[ChatUpdate]) -> String {
    updates
        .iter()
        .flat_map(|u| u.contents.iter())
        .filter_map(|c| c.as_reasoning())
        .collect()
}
