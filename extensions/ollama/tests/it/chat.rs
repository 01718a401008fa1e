//! Every mapping, asserted twice: on the request the fake Ollama received and on the
//! AEP answer, through `/chat/stream` and `/chat`.

use crate::common;

use aep_sdk::protocol::{
    ChatRequest, Content, ContentKind, FinishReason, JsonSchemaFormat, Message, ModelOptions,
    REASONING_MEDIA_TYPE, ResponseFormat, Role, ToolDefinition, Usage,
};
use common::*;
use fake_ollama::{Counters, Reply, ToolCall};
use serde_json::{Map, Value, json};

fn counters(prompt: u64, eval: u64) -> Counters {
    Counters {
        prompt_eval_count: prompt,
        eval_count: eval,
        total_duration: 1_000,
        ..Counters::default()
    }
}

#[tokio::test]
async fn text_roles_usage_and_model_streamed() {
    let stand = stand().await;
    stand
        .fake
        .enqueue(Reply::text("Hello there, friend!").counters(counters(12, 5)));
    let request = ChatRequest::new(
        "llama3.2",
        vec![
            Message::system("Be brief."),
            Message::user("Hi"),
            Message::assistant("Hello."),
            Message::new(Role::User, vec![Content::text("How "), Content::text("are you?")]),
        ],
    );
    let updates = stream_ok(&stand.client, &request).await;

    let sent = stand.fake.last_chat().expect("Ollama got the chat");
    assert_eq!(
        sent,
        json!({
            "model": "llama3.2",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello."},
                {"role": "user", "content": "How are you?"}
            ],
            "stream": true
        })
    );

    assert_eq!(text_of(&updates), "Hello there, friend!");
    assert!(updates.len() >= 3, "one update per delta: {updates:?}");
    assert!(
        updates
            .iter()
            .all(|u| u.role == Some(Role::Assistant) && u.model.as_deref() == Some("llama3.2"))
    );
    let last = updates.last().unwrap();
    assert_eq!(last.finish_reason, Some(FinishReason::Stop));
    assert_eq!(last.usage, Some(Usage::new(12, 5)));
    assert!(
        updates[..updates.len() - 1]
            .iter()
            .all(|u| u.finish_reason.is_none())
    );
}

#[tokio::test]
async fn text_non_streamed() {
    let stand = stand().await;
    stand
        .fake
        .enqueue(Reply::text("Hello there!").counters(counters(3, 2)));
    let response = stand
        .client
        .chat("ollama", &user("llama3.2", "Hi"))
        .await
        .expect("an answer");
    assert_eq!(response.all_text(), "Hello there!");
    assert_eq!(response.messages.len(), 1);
    assert_eq!(response.messages[0].role, Role::Assistant);
    assert_eq!(
        response.messages[0].contents.len(),
        1,
        "deltas folded into one text"
    );
    assert_eq!(response.model.as_deref(), Some("llama3.2"));
    assert_eq!(response.finish_reason, Some(FinishReason::Stop));
    assert_eq!(response.usage, Some(Usage::new(3, 2)));
    // /chat folds Ollama's stream (no idle timeout during a long generation).
    assert_eq!(stand.fake.last_chat().unwrap()["stream"], json!(true));
}

#[tokio::test]
async fn options_and_native_options() {
    let stand = stand().await;
    let additional: Map<String, Value> = json!({"repeat_penalty": 1.1, "top_k": 1})
        .as_object()
        .unwrap()
        .clone();
    let options = ModelOptions {
        temperature: Some(0.25),
        top_p: Some(0.9),
        top_k: Some(40),
        seed: Some(7),
        max_output_tokens: Some(64),
        stop_sequences: Some(vec!["END".into(), "\n\n".into()]),
        additional_options: Some(additional),
        native_options: Some(native(json!({
            "think": false,
            "keepAlive": "10m",
            "contextSize": 8192,
            "numGpu": 1,
            "numThread": 4,
            "numBatch": 32,
            "mirostat": 2,
            "endpointMode": "chat",
            "additionalOptions": {"min_p": 0.05, "temperature": 0.9, "num_keep": 5}
        }))),
        ..ModelOptions::default()
    };
    let request = with_options(user("llama3.2", "Hi"), options);
    let response = stand.client.chat("ollama", &request).await.expect("an answer");
    assert_eq!(response.all_text(), "Hi");
    let sent = stand.fake.last_chat().unwrap();
    assert_eq!(
        sent["options"],
        json!({
            "repeat_penalty": 1.1,
            "top_k": 40,
            "min_p": 0.05,
            "temperature": 0.25,
            "num_keep": 5,
            "top_p": 0.9,
            "seed": 7,
            "num_predict": 64,
            "stop": ["END", "\n\n"],
            "num_ctx": 8192,
            "num_gpu": 1,
            "num_thread": 4,
            "num_batch": 32,
            "mirostat": 2
        }),
        "named options win over the additional ones"
    );
    assert_eq!(sent["think"], json!(false));
    assert_eq!(sent["keep_alive"], json!("10m"));
    assert!(sent.get("format").is_none());

    // A bare number of seconds goes as a number (Ollama refuses "300").
    let request = with_options(
        user("llama3.2", "Hi"),
        ModelOptions {
            native_options: Some(native(json!({"keepAlive": "300"}))),
            ..ModelOptions::default()
        },
    );
    let updates = stream_ok(&stand.client, &request).await;
    assert_eq!(text_of(&updates), "Hi");
    let sent = stand.fake.last_chat().unwrap();
    assert_eq!(sent["keep_alive"], json!(300));
    assert!(sent.get("options").is_none() && sent.get("think").is_none());
}

#[tokio::test]
async fn max_output_tokens_and_length_finish() {
    let stand = stand().await;
    // The fake's echo honours num_predict with done_reason "length".
    let request = with_options(
        user("llama3.2", "one two three four five"),
        ModelOptions {
            max_output_tokens: Some(2),
            ..ModelOptions::default()
        },
    );
    let updates = stream_ok(&stand.client, &request).await;
    assert_eq!(text_of(&updates), "one two");
    assert_eq!(updates.last().unwrap().finish_reason, Some(FinishReason::Length));
    let response = stand.client.chat("ollama", &request).await.unwrap();
    assert_eq!(
        (response.all_text().as_str(), response.finish_reason),
        ("one two", Some(FinishReason::Length))
    );
    assert_eq!(
        stand.fake.last_chat().unwrap()["options"],
        json!({"num_predict": 2})
    );
}

#[tokio::test]
async fn response_formats() {
    let stand = stand().await;
    let schema = json!({"type": "object", "properties": {"echo": {"type": "string"}}, "required": ["echo"]});
    let cases = [
        (ResponseFormat::Text, None),
        (ResponseFormat::JsonObject, Some(json!("json"))),
        (
            ResponseFormat::JsonSchema {
                json_schema: JsonSchemaFormat {
                    name: Some("echo".into()),
                    schema: schema.clone(),
                    description: None,
                    strict: Some(true),
                },
            },
            Some(schema.clone()),
        ),
    ];
    for (format, expected) in cases {
        let request = with_options(
            user("llama3.2", "ping"),
            ModelOptions {
                response_format: Some(format.clone()),
                ..ModelOptions::default()
            },
        );
        let response = stand.client.chat("ollama", &request).await.expect("an answer");
        let sent = stand.fake.last_chat().unwrap();
        assert_eq!(sent.get("format"), expected.as_ref(), "{format:?}");
        // The answer is the model's JSON text, as text content.
        if expected.is_some() {
            let answer: Value = serde_json::from_str(&response.all_text()).expect("JSON text");
            assert_eq!(answer, json!({"echo": "ping"}));
        } else {
            assert_eq!(response.all_text(), "ping");
        }
    }
}

#[tokio::test]
async fn thinking_as_reasoning_content() {
    let stand = stand().await;
    stand
        .fake
        .enqueue(Reply::text("Four.").thinking("Two plus two is four."));
    let request = with_options(
        user("qwen3:8b", "2+2?"),
        ModelOptions {
            native_options: Some(native(json!({"think": "high"}))),
            ..ModelOptions::default()
        },
    );
    let updates = stream_ok(&stand.client, &request).await;
    assert_eq!(stand.fake.last_chat().unwrap()["think"], json!("high"));
    assert_eq!(reasoning_of(&updates), "Two plus two is four.");
    assert_eq!(text_of(&updates), "Four.");
    let first = &updates[0].contents[0];
    assert_eq!(first.kind, ContentKind::Structured);
    assert_eq!(first.media_type.as_deref(), Some(REASONING_MEDIA_TYPE));
    assert!(first.data.as_ref().unwrap()["text"].is_string());
    // Reasoning comes before the text.
    let first_text = updates.iter().position(|u| !u.text_delta().is_empty()).unwrap();
    let last_reasoning = updates
        .iter()
        .rposition(|u| u.contents.iter().any(|c| c.as_reasoning().is_some()))
        .unwrap();
    assert!(last_reasoning < first_text);

    // Non-streamed: one reasoning content, then one text. `think` omitted: Ollama's
    // default (a thinking model thinks) and no `think` member sent.
    stand
        .fake
        .enqueue(Reply::text("Four.").thinking("Two plus two is four."));
    let response = stand
        .client
        .chat("ollama", &user("qwen3:8b", "2+2?"))
        .await
        .unwrap();
    assert!(stand.fake.last_chat().unwrap().get("think").is_none());
    let contents = &response.messages[0].contents;
    assert_eq!(contents.len(), 2, "{contents:?}");
    assert_eq!(contents[0].as_reasoning(), Some("Two plus two is four."));
    assert_eq!(contents[1].as_text(), Some("Four."));

    // think: false stops it.
    let request = with_options(
        user("qwen3:8b", "2+2?"),
        ModelOptions {
            native_options: Some(native(json!({"think": false}))),
            ..ModelOptions::default()
        },
    );
    stand
        .fake
        .enqueue(Reply::text("Four.").thinking("Two plus two is four."));
    let updates = stream_ok(&stand.client, &request).await;
    assert_eq!(reasoning_of(&updates), "");
    assert_eq!(text_of(&updates), "Four.");
}

fn weather_tool() -> ToolDefinition {
    ToolDefinition {
        name: "get_weather".into(),
        description: Some("Current weather".into()),
        parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    }
}

#[tokio::test]
async fn tool_definitions_and_calls_across_chunks_streamed() {
    let stand = stand().await;
    stand.fake.enqueue(
        Reply::new()
            .tool_call_chunk(vec![
                ToolCall::new("get_weather", json!({"city": "Paris"})).with_id("call_paris"),
            ])
            .tool_call_chunk(vec![
                ToolCall::new("get_weather", json!({"city": "Oslo"})).without_id(),
                ToolCall::new("get_time", json!({})).without_id(),
            ])
            .counters(counters(30, 9)),
    );
    let mut request = user("llama3.2", "Weather in Paris and Oslo?");
    request.tools = vec![
        weather_tool(),
        ToolDefinition {
            name: "get_time".into(),
            description: None,
            parameters: Value::Null,
        },
    ];
    let updates = stream_ok(&stand.client, &request).await;

    let sent = stand.fake.last_chat().unwrap();
    assert_eq!(
        sent["tools"],
        json!([
            {"type": "function", "function": {"name": "get_weather", "description": "Current weather",
             "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
            {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}
        ])
    );

    let with_calls: Vec<_> = updates
        .iter()
        .filter(|u| u.contents.iter().any(|c| c.kind == ContentKind::ToolCall))
        .collect();
    assert_eq!(with_calls.len(), 2, "calls keep Ollama's chunking: {updates:?}");
    let calls: Vec<_> = updates
        .iter()
        .flat_map(|u| u.contents.iter())
        .filter_map(|c| c.tool_call.clone())
        .collect();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0].id, "call_paris", "Ollama's id is kept");
    assert_eq!(
        (calls[0].name.as_str(), &calls[0].arguments),
        ("get_weather", &json!({"city": "Paris"}))
    );
    assert_eq!(
        (calls[1].name.as_str(), &calls[1].arguments),
        ("get_weather", &json!({"city": "Oslo"}))
    );
    assert_eq!(
        (calls[2].name.as_str(), &calls[2].arguments),
        ("get_time", &json!({}))
    );
    for generated in &calls[1..] {
        assert!(
            generated.id.starts_with("call_") && generated.id.len() > 10,
            "{}",
            generated.id
        );
    }
    assert_ne!(calls[1].id, calls[2].id, "generated ids are unique");
    let last = updates.last().unwrap();
    assert_eq!(last.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(last.usage, Some(Usage::new(30, 9)));
}

#[tokio::test]
async fn tool_calls_non_streamed() {
    let stand = stand().await;
    let reply = || {
        Reply::new()
            .content("Let me check.")
            .tool_call_chunk(vec![ToolCall::new("get_weather", json!({"city": "Paris"}))])
            .tool_call_chunk(vec![
                ToolCall::new("get_weather", json!({"city": "Rome"})).without_id(),
            ])
    };
    stand.fake.enqueue(reply());
    stand.fake.enqueue(reply());
    let mut request = user("llama3.2", "Weather?");
    request.tools = vec![weather_tool()];
    let first = stand.client.chat("ollama", &request).await.unwrap();
    let second = stand.client.chat("ollama", &request).await.unwrap();
    assert_eq!(first.finish_reason, Some(FinishReason::ToolCalls));
    let message = &first.messages[0];
    assert_eq!(message.text(), "Let me check.");
    let calls: Vec<_> = message.tool_calls().cloned().collect();
    assert_eq!(calls.len(), 2);
    assert!(
        calls[0].id.starts_with("call_") && calls[0].id.len() == 13,
        "Ollama's own id: {}",
        calls[0].id
    );
    assert_eq!(calls[1].arguments, json!({"city": "Rome"}));
    let second_ids: Vec<_> = second.messages[0].tool_calls().map(|c| c.id.clone()).collect();
    assert_ne!(calls[1].id, second_ids[1], "a generated id is fresh every time");
}

#[tokio::test]
async fn tool_history_and_results() {
    let stand = stand().await;
    let request = ChatRequest {
        tools: vec![weather_tool()],
        ..ChatRequest::new(
            "llama3.2",
            vec![
                Message::user("Weather in Paris?"),
                Message::new(
                    Role::Assistant,
                    vec![
                        Content::reasoning("I should call the tool."),
                        Content::tool_call("call_1", "get_weather", json!({"city": "Paris"})),
                        Content::tool_call("call_2", "get_weather", json!("{\"city\":\"Lyon\"}")),
                    ],
                ),
                Message::new(
                    Role::Tool,
                    vec![
                        Content::tool_result("call_1", json!({"temp": 21}), false),
                        Content::tool_result("call_2", json!("station offline"), true),
                    ],
                ),
                Message::user("Thanks"),
            ],
        )
    };
    let response = stand.client.chat("ollama", &request).await.expect("an answer");
    assert_eq!(response.all_text(), "Thanks");
    let sent = stand.fake.last_chat().unwrap();
    assert_eq!(
        sent["messages"],
        json!([
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "", "thinking": "I should call the tool.", "tool_calls": [
                {"id": "call_1", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                {"id": "call_2", "function": {"name": "get_weather", "arguments": {"city": "Lyon"}}}
            ]},
            {"role": "tool", "content": "{\"temp\":21}", "tool_name": "get_weather", "tool_call_id": "call_1"},
            {"role": "tool", "content": "Error: station offline", "tool_name": "get_weather", "tool_call_id": "call_2"},
            {"role": "user", "content": "Thanks"}
        ])
    );

    // Arguments that are not an object are refused before Ollama.
    let bad = ChatRequest::new(
        "llama3.2",
        vec![Message::new(
            Role::Assistant,
            vec![Content::tool_call("c", "f", json!([1, 2]))],
        )],
    );
    let before = stand.fake.request_count("/api/chat");
    let error = fails(stand.client.chat("ollama", &bad)).await;
    assert_eq!(status_code(&error), (Some(400), Some("invalid_request")));
    assert!(
        remote_message(&error).contains("must be a JSON object"),
        "{error}"
    );
    assert_eq!(stand.fake.request_count("/api/chat"), before);
}

const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

#[tokio::test]
async fn images_inline_and_data_uris() {
    let stand = stand().await;
    let request = ChatRequest::new(
        "gemma3:4b",
        vec![Message::new(
            Role::User,
            vec![
                Content::text("What are these?"),
                Content::image_base64("image/png", PNG_BASE64),
                Content::image_uri("image/png", format!("data:image/png;base64,{PNG_BASE64}")),
                Content::image_base64("image/png", format!("data:image/png;base64,{PNG_BASE64}")),
            ],
        )],
    );
    let updates = stream_ok(&stand.client, &request).await;
    assert_eq!(text_of(&updates), "What are these?");
    let sent = stand.fake.last_chat().unwrap();
    assert_eq!(
        sent["messages"],
        json!([{"role": "user", "content": "What are these?", "images": [PNG_BASE64, PNG_BASE64, PNG_BASE64]}])
    );
    let response = stand.client.chat("ollama", &request).await.unwrap();
    assert_eq!(response.all_text(), "What are these?");
}

#[tokio::test]
async fn remote_image_uris_are_refused() {
    let stand = stand().await;
    let request = ChatRequest::new(
        "gemma3:4b",
        vec![Message::new(
            Role::User,
            vec![
                Content::text("What is this?"),
                Content::image_uri("image/png", "https://example.com/cat.png"),
            ],
        )],
    );
    for error in [
        fails(stand.client.chat("ollama", &request)).await,
        fails(stand.client.chat_stream("ollama", &request)).await,
    ] {
        assert_eq!(
            status_code(&error),
            (Some(400), Some("invalid_request")),
            "{error}"
        );
        let message = remote_message(&error);
        assert!(
            message.contains("https://example.com/cat.png")
                && message.contains("inline")
                && message.contains("data:"),
            "{message}"
        );
        assert_eq!(
            error.remote.as_ref().and_then(|r| r.target.as_deref()),
            Some("messages[0].contents[1].uri")
        );
    }
    let bad = ChatRequest::new(
        "gemma3:4b",
        vec![Message::new(
            Role::User,
            vec![Content::image_base64("image/png", "not base64!")],
        )],
    );
    let error = fails(stand.client.chat("ollama", &bad)).await;
    assert_eq!(status_code(&error), (Some(400), Some("invalid_request")));
    assert_eq!(stand.fake.request_count("/api/chat"), 0);
}

#[tokio::test]
async fn structured_content_and_files() {
    let stand = stand().await;
    let request = ChatRequest::new(
        "llama3.2",
        vec![Message::new(
            Role::User,
            vec![
                Content::text("Summarize: "),
                Content::structured(json!({"rows": [1, 2]}), Some("application/json".into())),
            ],
        )],
    );
    let response = stand.client.chat("ollama", &request).await.unwrap();
    assert_eq!(
        stand.fake.last_chat().unwrap()["messages"][0]["content"],
        json!("Summarize: {\"rows\":[1,2]}")
    );
    assert_eq!(response.all_text(), "Summarize: {\"rows\":[1,2]}");

    let mut pdf = Content::image_base64("application/pdf", PNG_BASE64);
    pdf.kind = ContentKind::File;
    let request = ChatRequest::new("llama3.2", vec![Message::new(Role::User, vec![pdf])]);
    let error = fails(stand.client.chat("ollama", &request)).await;
    assert_eq!(status_code(&error), (Some(400), Some("invalid_request")));
    assert!(remote_message(&error).contains("application/pdf"), "{error}");
}
