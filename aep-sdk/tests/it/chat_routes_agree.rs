//! `/chat` folds the same provider stream that `/chat/stream` sends, and the two must
//! agree on every field: text, reasoning, tool calls, role, model, usage and
//! `finishReason`, including the implicit `stop` of a stream that ends without a
//! terminal update. The streamed side is folded here, independently of the SDK's fold.

use aep_sdk::client::Client;
use aep_sdk::prelude::*;
use aep_sdk::protocol::{ContentKind, Usage};
use aep_sdk::testing::spawn;
use futures::StreamExt;
use serde_json::json;

#[derive(Clone, Default)]
struct Scripted;

fn with_model(update: ChatUpdate, model: &str) -> ChatUpdate {
    ChatUpdate {
        model: Some(model.to_owned()),
        ..update
    }
}

/// The updates of each scenario, named by `metadata.scenario`.
fn script(scenario: &str) -> Vec<ChatUpdate> {
    let words = || {
        vec![
            ChatUpdate::text("Hello, "),
            with_model(ChatUpdate::text("world"), "m-1"),
        ]
    };
    match scenario {
        "terminal" => [words(), vec![ChatUpdate::finish(FinishReason::Length)]].concat(),
        "implicit-stop" => words(),
        "usage" => [
            words(),
            vec![ChatUpdate {
                usage: Some(Usage::new(7, 2)),
                ..ChatUpdate::finish(FinishReason::Stop)
            }],
        ]
        .concat(),
        "usage-implicit-stop" => [
            words(),
            vec![ChatUpdate {
                usage: Some(Usage::new(3, 4)),
                ..ChatUpdate::default()
            }],
        ]
        .concat(),
        "tool-calls" => vec![
            ChatUpdate {
                contents: vec![Content::reasoning("need the "), Content::reasoning("weather")],
                role: Some(Role::Assistant),
                ..ChatUpdate::default()
            },
            ChatUpdate::text("Checking."),
            ChatUpdate {
                contents: vec![
                    Content::tool_call("c1", "weather", json!({"city": "Oslo"})),
                    Content::tool_call("c2", "time", json!({})),
                ],
                ..ChatUpdate::default()
            },
            with_model(ChatUpdate::finish(FinishReason::ToolCalls), "m-2"),
        ],
        "tool-calls-implicit-stop" => vec![ChatUpdate {
            contents: vec![Content::tool_call("c1", "weather", json!({"city": "Oslo"}))],
            role: Some(Role::Assistant),
            ..ChatUpdate::default()
        }],
        other => panic!("unknown scenario {other}"),
    }
}

const SCENARIOS: &[&str] = &[
    "terminal",
    "implicit-stop",
    "usage",
    "usage-implicit-stop",
    "tool-calls",
    "tool-calls-implicit-stop",
];

#[aep_extension(id = "t.agree", name = "Agree", version = "1.0.0")]
impl Scripted {
    #[model_provider(id = "scripted", models = ["m"])]
    async fn scripted(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let scenario = request
            .metadata
            .as_ref()
            .and_then(|m| m.get("scenario"))
            .and_then(|s| s.as_str());
        let updates = script(scenario.unwrap_or("terminal"));
        Ok(ChatStream::new(futures::stream::iter(
            updates.into_iter().map(Ok),
        )))
    }
}

/// What both routes must say, as plain values.
#[derive(Debug, PartialEq)]
struct Answer {
    role: Option<Role>,
    text: String,
    reasoning: String,
    tool_calls: Vec<(String, String, serde_json::Value)>,
    model: Option<String>,
    usage: Option<Usage>,
    finish_reason: Option<FinishReason>,
}

fn read(contents: &[Content], answer: &mut Answer) {
    for content in contents {
        if let Some(text) = content.as_text() {
            answer.text.push_str(text);
        } else if let Some(reasoning) = content.as_reasoning() {
            answer.reasoning.push_str(reasoning);
        } else if content.kind == ContentKind::ToolCall {
            let call = content
                .tool_call
                .as_ref()
                .expect("a toolCall content holds its call");
            answer
                .tool_calls
                .push((call.id.clone(), call.name.clone(), call.arguments.clone()));
        }
    }
}

fn empty() -> Answer {
    Answer {
        role: None,
        text: String::new(),
        reasoning: String::new(),
        tool_calls: Vec::new(),
        model: None,
        usage: None,
        finish_reason: None,
    }
}

#[tokio::test]
async fn chat_and_stream_agree_on_every_field() {
    let server = spawn(Scripted.into_extension().unwrap().router()).await;
    let client = Client::new(&server.base_url).unwrap();
    for scenario in SCENARIOS {
        let mut request = ChatRequest::new("m", vec![Message::user("hi")]);
        request.metadata = Some(serde_json::Map::from_iter([(
            "scenario".to_owned(),
            json!(scenario),
        )]));

        let response = client.chat("scripted", &request).await.unwrap();
        assert_eq!(response.messages.len(), 1, "{scenario}");
        let message = &response.messages[0];
        let mut chat = Answer {
            role: Some(message.role),
            model: response.model.clone(),
            usage: response.usage,
            finish_reason: response.finish_reason,
            ..empty()
        };
        read(&message.contents, &mut chat);

        let mut streamed = empty();
        let mut updates = client.chat_stream("scripted", &request).await.unwrap();
        while let Some(update) = updates.next().await {
            let update = update.unwrap();
            streamed.role = streamed.role.or(update.role);
            streamed.model = update.model.clone().or(streamed.model);
            streamed.usage = update.usage.or(streamed.usage);
            streamed.finish_reason = update.finish_reason;
            read(&update.contents, &mut streamed);
        }
        // A message's role is always set; the stream's is the provider's or assistant.
        streamed.role = streamed.role.or(Some(Role::Assistant));

        assert_eq!(chat, streamed, "scenario {scenario}");
        let expected = match *scenario {
            "terminal" => FinishReason::Length,
            "tool-calls" => FinishReason::ToolCalls,
            _ => FinishReason::Stop,
        };
        assert_eq!(chat.finish_reason, Some(expected), "scenario {scenario}");
    }
}
