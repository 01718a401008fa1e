//! rig -> AEP: rig's OpenAI provider (Chat Completions) in front of the fake
//! OpenAI-compatible server, served as the AEP provider `rig`: conformance, streamed
//! text, reasoning and tool calls, usage, finish reasons, faults as terminal errors
//! (rig's truncated reply among them), cancellation, and the request mapping.

mod common;

use std::sync::atomic::Ordering;

use aep_rig::providers::{ProviderLookupError, Upstream, known_providers};
use aep_rig::serve::{PROVIDER_ID, RigExtension};
use aep_sdk::client::{Client, ClientError};
use aep_sdk::prelude::*;
use aep_sdk::protocol::{Availability, ModelOptions, ToolDefinition};
use aep_sdk::testing::{TestServer, spawn};
use common::{BOUND, client, eventually};
use fake_openai::Fake;
use futures::StreamExt;
use serde_json::json;

const KEY: &str = "sk-test-key";

struct Stand {
    fake: Fake,
    server: TestServer,
    client: Client,
}

async fn stand_with(models: &[&str]) -> Stand {
    let fake = Fake::start().await;
    let base = format!("{}/v1", fake.base_url);
    let upstream = Upstream::new(
        "openai",
        Some(&base),
        Some(KEY.to_owned()),
        reqwest::Client::new(),
    )
    .unwrap();
    let models = models.iter().map(|m| (*m).to_owned()).collect();
    let extension = RigExtension::new(upstream, models).build().unwrap();
    let server = spawn(extension.router()).await;
    let client = client(&server.base_url);
    Stand { fake, server, client }
}

async fn stand() -> Stand {
    stand_with(&[]).await
}

fn chat(model: &str, text: &str) -> ChatRequest {
    ChatRequest::new(model, vec![Message::user(text)])
}

/// Every update of a stream, and the error that ended it, if any.
async fn read(client: &Client, request: &ChatRequest) -> (Vec<ChatUpdate>, Option<ClientError>) {
    let mut stream = client
        .chat_stream(PROVIDER_ID, request)
        .await
        .expect("the stream opens");
    let mut updates = Vec::new();
    while let Some(item) = tokio::time::timeout(BOUND, stream.next())
        .await
        .expect("an update in time")
    {
        match item {
            Ok(update) => updates.push(update),
            Err(error) => return (updates, Some(error)),
        }
    }
    (updates, None)
}

fn text(updates: &[ChatUpdate]) -> String {
    updates.iter().map(ChatUpdate::text_delta).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformance_suite_passes_strictly() {
    let stand = stand_with(&["smollm2"]).await;
    let options = aep_conformance::Options {
        provider: Some(PROVIDER_ID.to_owned()),
        model: Some("smollm2".to_owned()),
        strict: true,
        ..aep_conformance::Options::default()
    };
    let report = aep_conformance::check_with(&stand.server.base_url, &options).await;
    let failed: Vec<String> = report
        .failed()
        .iter()
        .map(|r| format!("{}: {:?} {:?}", r.id, r.reason, r.details))
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(report.counts().passed > 20, "{:?}", report.counts());
}

#[tokio::test]
async fn text_streams_as_deltas_with_usage_and_a_stop() {
    let stand = stand().await;
    let (updates, error) = read(&stand.client, &chat("smollm2", "hello there world")).await;
    assert!(error.is_none(), "{error:?}");
    let deltas: Vec<String> = updates
        .iter()
        .map(ChatUpdate::text_delta)
        .filter(|t| !t.is_empty())
        .collect();
    assert_eq!(deltas, ["hello ", "there ", "world"]);
    let last = updates.last().unwrap();
    assert_eq!(last.finish_reason, Some(FinishReason::Stop));
    let usage = last.usage.expect("the usage chunk's counts");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (Some(3), Some(3), Some(6))
    );
    assert_eq!(last.model.as_deref(), Some("smollm2"));

    // What rig sent: Chat Completions (not Responses), streamed, with usage asked for,
    // the key as a bearer token.
    let sent = stand.fake.last_request();
    assert_eq!(sent["model"], "smollm2");
    assert_eq!(sent["stream"], true);
    assert_eq!(sent["stream_options"]["include_usage"], true);
    assert_eq!(
        sent["messages"][0],
        json!({"role": "user", "content": "hello there world"})
    );
    let headers = stand.fake.headers();
    assert_eq!(headers[0]["authorization"], format!("Bearer {KEY}"));
}

#[tokio::test]
async fn tool_calls_stream_whole_with_their_arguments_and_finish_tool_calls() {
    let stand = stand().await;
    let (updates, error) = read(&stand.client, &chat("tools", "weather?")).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(text(&updates), "hello ");
    let calls: Vec<_> = updates
        .iter()
        .flat_map(|u| u.contents.iter())
        .filter_map(|c| c.tool_call.clone())
        .collect();
    assert_eq!(calls.len(), 2, "{updates:?}");
    assert_eq!(
        (calls[0].id.as_str(), calls[0].name.as_str(), &calls[0].arguments),
        ("call-1", "weather", &json!({"city": "Paris"}))
    );
    assert_eq!(
        (calls[1].id.as_str(), calls[1].name.as_str(), &calls[1].arguments),
        ("call-2", "time", &json!({}))
    );
    assert_eq!(
        updates.last().unwrap().finish_reason,
        Some(FinishReason::ToolCalls)
    );
}

#[tokio::test]
async fn reasoning_streams_as_aep_reasoning_then_the_answer() {
    let stand = stand().await;
    let (updates, error) = read(&stand.client, &chat("reasoning", "think")).await;
    assert!(error.is_none(), "{error:?}");
    let reasoning: String = updates
        .iter()
        .flat_map(|u| u.contents.iter())
        .filter_map(|c| c.as_reasoning())
        .collect();
    assert_eq!(reasoning, "Let me think.");
    assert_eq!(text(&updates), "Answer.");

    // /chat: rig's unary reply (stream: false upstream), reasoning and text in order.
    let answer = stand
        .client
        .chat(PROVIDER_ID, &chat("reasoning", "think"))
        .await
        .unwrap();
    let contents = &answer.messages[0].contents;
    assert_eq!(contents[0].as_reasoning(), Some("Let me think."));
    assert_eq!(contents[1].as_text(), Some("Answer."));
    assert_ne!(stand.fake.last_request()["stream"], true, "not streamed upstream");
}

#[tokio::test]
async fn chat_answers_in_one_piece_with_the_counted_usage() {
    let stand = stand().await;
    let answer = stand
        .client
        .chat(PROVIDER_ID, &chat("smollm2", "one two three"))
        .await
        .unwrap();
    assert_eq!(answer.all_text(), "one two three");
    assert_eq!(answer.finish_reason, Some(FinishReason::Stop));
    let usage = answer.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (Some(3), Some(3)));
}

#[tokio::test]
async fn a_truncated_reply_is_a_terminal_error_never_a_success() {
    let stand = stand().await;
    // One chunk, then [DONE] without a finish reason: rig's `ProviderError::Truncated`.
    let (updates, error) = read(&stand.client, &chat("no-finish", "x")).await;
    assert_eq!(text(&updates), "partial ");
    assert!(
        updates.iter().all(|u| u.finish_reason.is_none()),
        "no success: {updates:?}"
    );
    let error = error.expect("the stream ends with an error");
    assert_eq!(error.remote_code(), Some("invalid_response"), "{error}");
    assert!(error.to_string().contains("ended before"), "{error}");
    let details = error.remote.as_ref().unwrap().details.clone().unwrap();
    assert_eq!(details["rigError"], "response");
}

#[tokio::test]
async fn upstream_faults_after_the_start_end_the_stream_with_their_error() {
    let stand = stand().await;
    for (model, code, says) in [
        ("error-event", "request_failed", "out of memory"),
        ("reset", "provider_unavailable", "connection broke"),
        ("malformed", "invalid_response", "openai"),
    ] {
        let (updates, error) = read(&stand.client, &chat(model, "x")).await;
        assert_eq!(text(&updates), "partial ", "{model}");
        assert!(
            updates.iter().all(|u| u.finish_reason.is_none()),
            "{model}: {updates:?}"
        );
        let error = error.unwrap_or_else(|| panic!("{model}: the stream ends with an error"));
        assert_eq!(error.remote_code(), Some(code), "{model}: {error}");
        assert!(error.to_string().contains(says), "{model}: {error}");
    }
}

#[tokio::test]
async fn upstream_refusals_before_the_start_keep_their_http_status() {
    let stand = stand().await;
    for (model, status, code) in [
        ("missing", 404, "model_unavailable"),
        ("loading", 503, "provider_unavailable"),
        ("bad", 400, "invalid_request"),
    ] {
        let error = stand
            .client
            .chat_stream(PROVIDER_ID, &chat(model, "x"))
            .await
            .err()
            .unwrap_or_else(|| panic!("{model}: refused before the stream"));
        assert_eq!(error.status.map(|s| s.as_u16()), Some(status), "{model}: {error}");
        assert_eq!(error.remote_code(), Some(code), "{model}: {error}");
        let chat_error = stand
            .client
            .chat(PROVIDER_ID, &chat(model, "x"))
            .await
            .unwrap_err();
        assert_eq!(
            chat_error.remote_code(),
            Some(code),
            "{model} (/chat): {chat_error}"
        );
    }
    let error = stand
        .client
        .chat(PROVIDER_ID, &chat("missing", "x"))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("model 'missing' not found"), "{error}");

    // A refused key is the extension's configuration, not the caller's: 502.
    stand.fake.require_key("another-key");
    let error = stand
        .client
        .chat_stream(PROVIDER_ID, &chat("smollm2", "x"))
        .await
        .err()
        .unwrap();
    assert_eq!(error.status.map(|s| s.as_u16()), Some(502), "{error}");
    assert_eq!(error.remote_code(), Some("request_failed"));
    assert!(
        error.to_string().contains("refused the configured credentials"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_drops_the_upstream_request() {
    let stand = stand().await;
    let mut stream = stand
        .client
        .chat_stream(PROVIDER_ID, &chat("paced", "x"))
        .await
        .unwrap();
    let mut deltas = 0;
    while deltas < 3 {
        let update = stream.next().await.unwrap().unwrap();
        if !update.text_delta().is_empty() {
            deltas += 1;
        }
    }
    assert_eq!(stand.fake.closed(), 0, "the upstream stream is still open");
    drop(stream);
    eventually("the upstream request is dropped", || stand.fake.closed() == 1).await;
    // 2,000 paced words: far from all of them were written.
    assert!(stand.fake.shared.paced_chunks.load(Ordering::SeqCst) < 2000);
}

#[tokio::test]
async fn a_conversation_with_tools_reaches_rig_as_chat_completions_messages() {
    let stand = stand().await;
    let request = ChatRequest {
        tools: vec![ToolDefinition {
            name: "weather".into(),
            description: Some("The weather in a city.".into()),
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        }],
        ..ChatRequest::new(
            "smollm2",
            vec![
                Message::system("Be brief."),
                Message::user("Weather in Paris?"),
                Message::new(
                    Role::Assistant,
                    vec![Content::tool_call("call-9", "weather", json!({"city": "Paris"}))],
                ),
                Message::new(
                    Role::Tool,
                    vec![Content::tool_result("call-9", json!("sunny"), false)],
                ),
                Message::user("And tomorrow?"),
            ],
        )
    };
    let (_, error) = read(&stand.client, &request).await;
    assert!(error.is_none(), "{error:?}");
    let sent = stand.fake.last_request();
    let messages = sent["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "user"], "{sent}");
    assert_eq!(messages[2]["tool_calls"][0]["id"], "call-9");
    assert_eq!(messages[2]["tool_calls"][0]["function"]["name"], "weather");
    assert_eq!(messages[3]["tool_call_id"], "call-9");
    assert_eq!(messages[3]["content"], "sunny");
    assert_eq!(sent["tools"][0]["function"]["name"], "weather");
    assert_eq!(
        sent["tools"][0]["function"]["parameters"]["properties"]["city"]["type"],
        "string"
    );
}

#[tokio::test]
async fn requests_rig_cannot_be_given_are_refused_with_4xx() {
    let stand = stand().await;
    // A result answering a call nobody made.
    let orphan = ChatRequest::new(
        "smollm2",
        vec![
            Message::user("hi"),
            Message::new(
                Role::Tool,
                vec![Content::tool_result("call-x", json!("?"), false)],
            ),
        ],
    );
    let error = stand
        .client
        .chat_stream(PROVIDER_ID, &orphan)
        .await
        .err()
        .unwrap();
    assert_eq!(error.status.map(|s| s.as_u16()), Some(400), "{error}");
    assert!(error.to_string().contains("call-x"), "{error}");
    // No messages.
    let empty = ChatRequest::new("smollm2", vec![]);
    let error = stand.client.chat(PROVIDER_ID, &empty).await.unwrap_err();
    assert_eq!(error.remote_code(), Some("invalid_request"), "{error}");
    // topK has no rig option.
    let mut top_k = chat("smollm2", "hi");
    top_k.options = Some(ModelOptions {
        top_k: Some(3),
        ..ModelOptions::default()
    });
    let error = stand.client.chat(PROVIDER_ID, &top_k).await.unwrap_err();
    assert_eq!(error.remote_code(), Some("invalid_options"), "{error}");
    assert_eq!(stand.fake.requests().len(), 0, "nothing reached the upstream");

    // Options that do map reach the upstream.
    let mut options = chat("smollm2", "hi");
    options.options = Some(ModelOptions {
        temperature: Some(0.25),
        max_output_tokens: Some(9),
        top_p: Some(0.5),
        seed: Some(4),
        stop_sequences: Some(vec!["END".into()]),
        additional_options: Some(serde_json::Map::from_iter([("top_k".to_owned(), json!(2))])),
        ..ModelOptions::default()
    });
    stand.client.chat(PROVIDER_ID, &options).await.unwrap();
    let sent = stand.fake.last_request();
    assert_eq!(sent["temperature"], 0.25);
    assert_eq!(sent["max_tokens"], 9);
    assert_eq!(sent["top_p"], 0.5);
    assert_eq!(sent["seed"], 4);
    assert_eq!(sent["stop"], json!(["END"]));
    assert_eq!(
        sent["top_k"], 2,
        "additionalOptions are merged into the body: {sent}"
    );
}

#[tokio::test]
async fn listed_models_are_the_ones_served() {
    let stand = stand_with(&["smollm2", "tools"]).await;
    let models = stand.client.models(PROVIDER_ID).await.unwrap();
    let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["smollm2", "tools"]);
    let manifest = stand.client.discover().await.unwrap();
    let listed: Vec<String> = manifest.contributions.model_providers[0]
        .models
        .iter()
        .flatten()
        .map(|m| m.id.clone())
        .collect();
    assert_eq!(listed, ["smollm2", "tools"], "the manifest lists the --models");
    let error = stand
        .client
        .chat(PROVIDER_ID, &chat("other", "x"))
        .await
        .unwrap_err();
    assert_eq!(error.status.map(|s| s.as_u16()), Some(404));
    assert_eq!(error.remote_code(), Some("model_unavailable"));
    assert!(error.to_string().contains("smollm2, tools"), "{error}");
    let health = stand.client.provider_health(PROVIDER_ID).await.unwrap();
    assert_eq!(health.status, Availability::Available, "{health:?}");
    assert!(health.details.unwrap().contains(&stand.fake.base_url));

    let open = self::stand().await;
    assert!(open.client.models(PROVIDER_ID).await.unwrap().is_empty());
}

#[tokio::test]
async fn health_probes_the_provider() {
    // Nothing listens on a port just freed: the provider is unreachable.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}/v1");
    let upstream = Upstream::new(
        "openai",
        Some(&base),
        Some(KEY.to_owned()),
        reqwest::Client::new(),
    )
    .unwrap();
    let extension = RigExtension::new(upstream, Vec::new()).into_extension().unwrap();
    let server = spawn(extension.router()).await;
    let health = client(&server.base_url)
        .provider_health(PROVIDER_ID)
        .await
        .unwrap();
    assert_eq!(health.status, Availability::Unreachable, "{health:?}");
    assert!(health.details.unwrap().contains(&base));
}

#[test]
fn provider_names_resolve_as_rig_resolves_them() {
    let http = reqwest::Client::new;
    let key = || Some("k".to_owned());
    for (name, base) in [
        ("openai", "https://api.openai.com/v1"),
        ("groq", "https://api.groq.com/openai/v1"),
        ("deepseek", "https://api.deepseek.com"),
        ("anthropic", "https://api.anthropic.com"),
        ("moonshot", "https://api.moonshot.ai/v1"),
        ("gemini", "https://generativelanguage.googleapis.com"),
        ("ollama", "http://localhost:11434"),
        ("ollama/openai", "http://localhost:11434/v1"),
        ("llamacpp", "http://localhost:8080/v1"),
    ] {
        let upstream = Upstream::new(name, None, key(), http()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            upstream.base_url().starts_with(base),
            "{name}: {}",
            upstream.base_url()
        );
    }
    let custom = Upstream::new("mistral", Some("http://127.0.0.1:1/v1"), key(), http()).unwrap();
    assert_eq!(custom.describe(), "mistral at http://127.0.0.1:1/v1");

    // Local servers need no key; hosted ones do.
    assert!(Upstream::new("llamacpp", None, None, http()).is_ok());
    assert!(Upstream::new("ollama", None, None, http()).is_ok());
    assert_eq!(
        Upstream::new("openai", None, None, http()).unwrap_err(),
        ProviderLookupError::KeyMissing("openai".into())
    );

    // An unknown name lists the known ones.
    let error = Upstream::new("nope", None, key(), http())
        .unwrap_err()
        .to_string();
    for known in [
        "openai",
        "groq",
        "anthropic",
        "gemini",
        "cohere",
        "ollama",
        "zai/anthropic",
    ] {
        assert!(error.contains(known), "{known} missing from: {error}");
    }
    assert!(error.starts_with("unknown provider 'nope'"), "{error}");
    let error = Upstream::new("openai/gemini", None, key(), http())
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown provider 'openai/gemini'"), "{error}");
    assert!(matches!(
        Upstream::new("copilot", None, key(), http()),
        Err(ProviderLookupError::SignInOnly(_))
    ));
    assert!(!known_providers().iter().any(|n| n == "chatgpt"));
}
