//! The provider forms of the guide (model providers) and the crate docs, as a user writes them: a
//! `chat_stream!` block that `yield`s updates, and a method answering in one piece.
//! `/chat` equals the fold of `/chat/stream` for both; ids and names may be constants; `?` in a stream ends it with a
//! terminal error update; dropping the stream cancels the work inside it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use aep_sdk::client::Client;
use aep_sdk::prelude::*;
use aep_sdk::testing::spawn;
use futures::StreamExt;

const ID: &str = "acme.words";
const NAME: &str = "Words";

#[derive(Clone, Default)]
struct Words {
    /// Words the slow provider produced before it was dropped.
    produced: Arc<AtomicUsize>,
}

#[aep_extension(id = ID, name = NAME)]
impl Words {
    /// Streams the words back, one every 20 ms.
    #[model_provider(id = "words", models = ["words-1"])]
    async fn words(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let text = request.last_user_text().unwrap_or_default().to_owned();
        Ok(chat_stream! {
            for word in text.split_inclusive(' ') {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                yield ChatUpdate::text(word).with_model("words-1");
            }
            // ending without a terminal update means finishReason "stop"
        })
    }

    /// Answers in one piece; /chat/stream streams it as one update and a finish.
    #[model_provider(id = ONESHOT, display_name = format!("One {}", "shot"), models = ["oneshot-1"])]
    async fn oneshot(&self, _request: ChatRequest) -> Result<ChatResponse, AepError> {
        Ok(ChatResponse::text("done").with_usage(Usage::new(1, 1)))
    }

    /// Reasons, calls a tool, then fails with `?` when asked to.
    #[model_provider(id = "tools", models = ["t"], tools, thinking)]
    async fn tools(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let fail = request.last_user_text().unwrap_or_default() == "fail";
        Ok(chat_stream! {
            yield ChatUpdate::reasoning("look it ").with_model("t");
            yield ChatUpdate::reasoning("up");
            if fail {
                Err(AepError::request_failed("the upstream broke"))?;
            }
            yield ChatUpdate::tool_call("c1", "weather", serde_json::json!({"city": "Oslo"}));
            yield ChatUpdate::finish(FinishReason::ToolCalls).with_usage(Usage::new(3, 2));
        })
    }

    /// Says hi.
    #[tool(id = TOOL_ID, display_name = concat!("Say ", "hi"), read_only)]
    async fn say_hi(&self) -> String {
        "hi".to_owned()
    }

    /// Counts every word it produces; never ends by itself.
    #[model_provider(id = "endless", models = ["e"])]
    async fn endless(&self, _request: ChatRequest) -> Result<ChatStream, AepError> {
        let produced = self.produced.clone();
        Ok(chat_stream! {
            loop {
                tokio::time::sleep(Duration::from_millis(5)).await;
                produced.fetch_add(1, Ordering::SeqCst);
                yield ChatUpdate::text("more ");
            }
        })
    }
}

const ONESHOT: &str = "oneshot";
const TOOL_ID: &str = "words.hi";

fn ask(model: &str, text: &str) -> ChatRequest {
    ChatRequest::new(model, vec![Message::user(text)])
}

/// `/chat/stream` folded the way the protocol says, by hand.
async fn streamed(client: &Client, provider: &str, request: &ChatRequest) -> Vec<ChatUpdate> {
    let mut updates = client.chat_stream(provider, request).await.unwrap();
    let mut all = Vec::new();
    while let Some(update) = updates.next().await {
        all.push(update.unwrap());
    }
    all
}

#[tokio::test]
async fn chat_equals_the_fold_of_chat_stream_for_both_forms() {
    let server = spawn(Words::default().into_extension().unwrap().router()).await;
    let client = Client::new(&server.base_url).unwrap();
    // Constants and expressions name the extension and providers.
    let manifest = client.discover().await.unwrap();
    assert_eq!(
        (manifest.extension.id.as_str(), manifest.extension.name.as_str()),
        (ID, NAME)
    );
    let oneshot = manifest
        .contributions
        .model_providers
        .iter()
        .find(|p| p.id == ONESHOT)
        .unwrap();
    assert_eq!(oneshot.display_name, "One shot");
    let tool = &manifest.contributions.tools[0];
    assert_eq!(
        (
            tool.id.as_str(),
            tool.display_name.as_str(),
            tool.mcp.tool.as_str()
        ),
        (TOOL_ID, "Say hi", "say_hi")
    );

    let request = ask("words-1", "one two three");
    let updates = streamed(&client, "words", &request).await;
    let text: String = updates.iter().map(ChatUpdate::text_delta).collect();
    assert_eq!(text, "one two three");
    assert_eq!(updates.last().unwrap().finish_reason, Some(FinishReason::Stop));
    let chat = client.chat("words", &request).await.unwrap();
    assert_eq!(chat.all_text(), text);
    assert_eq!(chat.finish_reason, Some(FinishReason::Stop));
    assert_eq!(chat.model.as_deref(), Some("words-1"));

    let request = ask("oneshot-1", "x");
    let chat = client.chat("oneshot", &request).await.unwrap();
    assert_eq!(chat, ChatResponse::text("done").with_usage(Usage::new(1, 1)));
    let updates = streamed(&client, "oneshot", &request).await;
    assert_eq!(updates.len(), 2, "{updates:?}");
    assert_eq!(updates[0].text_delta(), "done");
    assert_eq!(updates[1].finish_reason, Some(FinishReason::Stop));
    assert_eq!(updates[1].usage, Some(Usage::new(1, 1)));

    let request = ask("t", "weather?");
    let chat = client.chat("tools", &request).await.unwrap();
    let message = &chat.messages[0];
    assert_eq!(message.contents[0].as_reasoning(), Some("look it up"));
    let calls: Vec<&ToolCall> = message.tool_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_eq!((calls[0].id.as_str(), calls[0].name.as_str()), ("c1", "weather"));
    assert_eq!(chat.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(chat.usage, Some(Usage::new(3, 2)));
    let updates = streamed(&client, "tools", &request).await;
    assert_eq!(
        updates.last().unwrap().finish_reason,
        Some(FinishReason::ToolCalls)
    );
}

#[tokio::test]
async fn a_question_mark_ends_the_stream_with_a_terminal_error() {
    let server = spawn(Words::default().into_extension().unwrap().router()).await;
    let client = Client::new(&server.base_url).unwrap();
    let request = ask("t", "fail");
    // The client reads the terminal `finishReason: "error"` update as the stream's error.
    let mut updates = client.chat_stream("tools", &request).await.unwrap();
    let mut before = 0;
    let error = loop {
        match updates.next().await.expect("a terminal update") {
            Ok(_) => before += 1,
            Err(error) => break error,
        }
    };
    assert_eq!(before, 2, "two reasoning updates, then the error");
    assert_eq!(error.remote_code(), Some("request_failed"));
    assert!(updates.next().await.is_none());
    let error = client.chat("tools", &request).await.unwrap_err();
    assert_eq!(error.remote_code(), Some("request_failed"));
}

#[tokio::test]
async fn dropping_the_stream_cancels_the_work_inside_it() {
    let words = Words::default();
    let produced = words.produced.clone();
    let server = spawn(words.into_extension().unwrap().router()).await;
    let client = Client::new(&server.base_url).unwrap();
    let mut updates = client.chat_stream("endless", &ask("e", "go")).await.unwrap();
    for _ in 0..3 {
        updates.next().await.unwrap().unwrap();
    }
    drop(updates);
    // The server notices the closed connection and drops the stream; production stops.
    let mut last = produced.load(Ordering::SeqCst);
    let mut stable = 0;
    for _ in 0..200 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let now = produced.load(Ordering::SeqCst);
        stable = if now == last { stable + 1 } else { 0 };
        last = now;
        if stable >= 10 {
            return;
        }
    }
    panic!("the provider kept producing after the client left ({last} words)");
}
