//! The gateway's OpenAI Chat Completions surface through a Rust client nobody here wrote:
//! `async-openai` (crates.io) pointed at the gateway's `/v1` lists the models and has the
//! scripted `echo` model answer the same question whole and streamed, and both answers
//! must agree (text, finish reason, usage). The wire details are `gateway_openai.rs`'s;
//! this checks that a typed third-party client parses what the gateway sends. The
//! official Python SDK's test is `conformance/peers/tests/gateway_openai_sdk.rs`.

use crate::gateway_openai_support as support;

use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::chat::{
    ChatCompletionRequestUserMessageArgs, ChatCompletionStreamOptions, CompletionUsage,
    CreateChatCompletionRequest, CreateChatCompletionRequestArgs, FinishReason, Role,
};
use futures::StreamExt;
use support::{SCRIPTED, Scripted, gateway, registry};

/// Bound on every answer.
const BOUND: Duration = Duration::from_secs(20);

fn client(base_url: &str) -> Client<OpenAIConfig> {
    let config = OpenAIConfig::new()
        .with_api_base(format!("{base_url}/v1"))
        .with_api_key("unused");
    let http = reqwest::Client::builder().timeout(BOUND).build().unwrap();
    Client::with_config(config).with_http_client(http)
}

fn ask(model: &str, text: &str) -> CreateChatCompletionRequest {
    let message = ChatCompletionRequestUserMessageArgs::default()
        .content(text)
        .build()
        .unwrap();
    CreateChatCompletionRequestArgs::default()
        .model(model)
        .messages([message.into()])
        .build()
        .unwrap()
}

#[tokio::test]
async fn async_openai_lists_the_models_and_a_chat_streamed_and_not_agree() {
    let provider = Scripted::default();
    let scripted = provider.start();
    let gateway = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let client = client(&gateway.base_url);

    let listed = client.models().list().await.expect("the model listing parses");
    assert_eq!(listed.object, "list");
    let ids: Vec<(&str, &str)> = listed
        .data
        .iter()
        .map(|m| (m.id.as_str(), m.owned_by.as_str()))
        .collect();
    for model in ["echo", "tools", "json", "paced", "fail-mid", "limited"] {
        let id = format!("scripted/{model}");
        assert!(ids.contains(&(id.as_str(), SCRIPTED)), "{id} in {ids:?}");
    }
    assert!(ids.contains(&("plain/plain-1", SCRIPTED)), "{ids:?}");
    assert!(listed.data.iter().all(|m| m.object == "model"));
    let one = client.models().retrieve("scripted/echo").await.unwrap();
    assert_eq!(
        (one.id.as_str(), one.owned_by.as_str()),
        ("scripted/echo", SCRIPTED)
    );

    let text = "the quick brown fox jumps";
    let whole = client
        .chat()
        .create(ask("scripted/echo", text))
        .await
        .expect("the whole answer parses");
    assert_eq!(whole.object, "chat.completion");
    assert_eq!(whole.model, "scripted/echo");
    assert_eq!(whole.choices.len(), 1);
    let choice = &whole.choices[0];
    assert_eq!(choice.message.role, Role::Assistant);
    assert_eq!(choice.message.content.as_deref(), Some(text));
    assert_eq!(choice.finish_reason, Some(FinishReason::Stop));
    let usage = whole.usage.clone().expect("usage");
    assert_eq!(
        (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens),
        (5, 5, 10)
    );
    assert_eq!(provider.seen.last().model, "echo");

    let mut request = ask("scripted/echo", text);
    request.stream_options = Some(ChatCompletionStreamOptions {
        include_usage: Some(true),
        include_obfuscation: None,
    });
    let mut stream = client
        .chat()
        .create_stream(request)
        .await
        .expect("the stream starts");
    let (mut streamed, mut finish, mut streamed_usage, mut ids, mut chunks) =
        (String::new(), None, None::<CompletionUsage>, Vec::new(), 0);
    let read = tokio::time::timeout(BOUND, async {
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.expect("every chunk parses");
            chunks += 1;
            assert_eq!(chunk.object, "chat.completion.chunk");
            ids.push(chunk.id.clone());
            for choice in &chunk.choices {
                streamed.push_str(choice.delta.content.as_deref().unwrap_or_default());
                finish = choice.finish_reason.or(finish);
            }
            if let Some(usage) = chunk.usage {
                assert!(chunk.choices.is_empty(), "usage comes in a chunk of its own");
                streamed_usage = Some(usage);
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the stream ended ([DONE]) within the bound");
    // A first role chunk, one per word, the finish and the usage.
    assert!(chunks >= 4, "{chunks} chunks");
    assert!(ids.iter().all(|id| *id == ids[0]), "one id: {ids:?}");
    assert_eq!(streamed, text, "the same text as the whole answer");
    assert_eq!(finish, choice.finish_reason);
    assert_eq!(streamed_usage, whole.usage);
    assert_eq!(provider.seen.requests.lock().unwrap().len(), 2);
}
