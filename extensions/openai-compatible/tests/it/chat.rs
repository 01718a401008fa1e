//! Chats through each extension in front of the stand-in: what the upstream receives,
//! what the AEP client gets, on both routes.

use crate::common;

use aep_openai_compatible::flavor::Flavor;
use aep_sdk::protocol::{ChatRequest, ChatResponse, FinishReason, Message, ToolDefinition};
use aep_sdk::server::{ChatStream, collect_stream};
use common::{FLAVORS, stand, stand_with};
use serde_json::json;

#[tokio::test]
async fn text_streams_word_by_word_and_chat_answers_in_one_piece() {
    for flavor in FLAVORS {
        let stand = stand(flavor).await;
        let updates = stand.stream("smollm2", "one two three").await.unwrap();
        let text: Vec<String> = updates
            .iter()
            .map(|u| u.text_delta())
            .filter(|t| !t.is_empty())
            .collect();
        assert_eq!(text, ["one ", "two ", "three"], "{flavor:?}");
        let last = updates.last().unwrap();
        assert_eq!(last.finish_reason, Some(FinishReason::Stop), "{flavor:?}");
        // aep-openai asks for the usage chunk; the drop-ins keep the reference's body.
        assert_eq!(last.usage.is_some(), flavor == Flavor::OpenAi, "{flavor:?}");
        let sent = stand.fake.last_request();
        assert_eq!(sent["stream"], true);
        assert_eq!(
            sent["stream_options"].is_object(),
            flavor == Flavor::OpenAi,
            "{flavor:?} {sent}"
        );
        assert_eq!(
            sent["messages"],
            json!([{"role": "user", "content": "one two three"}])
        );

        // /chat asks for the answer in one piece, as the reference does: same text and
        // finish as the fold of the stream, and the usage the upstream reports there.
        let request = ChatRequest::new("smollm2", vec![Message::user("one two three")]);
        let chat: ChatResponse = stand.client.chat(stand.provider(), &request).await.unwrap();
        assert_eq!(stand.fake.last_request()["stream"], false);
        assert!(stand.fake.last_request().get("stream_options").is_none());
        let folded = collect_stream(ChatStream::from_updates(updates)).await.unwrap();
        assert_eq!(
            (chat.all_text(), chat.finish_reason),
            (folded.all_text(), folded.finish_reason),
            "{flavor:?}"
        );
        assert_eq!(chat.all_text(), "one two three");
        let usage = chat.usage.expect("usage on /chat");
        assert_eq!((usage.input_tokens, usage.output_tokens), (Some(3), Some(3)));
    }
}

#[tokio::test]
async fn include_usage_flag_turns_the_usage_chunk_on_for_a_drop_in() {
    let stand = stand_with(Flavor::LlamaCpp, |c| c.tuning.include_usage = true).await;
    let updates = stand.stream("smollm2", "a b").await.unwrap();
    let usage = updates.last().unwrap().usage.expect("usage from the usage chunk");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (Some(3), Some(2), Some(5))
    );
    assert_eq!(
        stand.fake.last_request()["stream_options"],
        json!({"include_usage": true})
    );
}

#[tokio::test]
async fn fragmented_tool_calls_arrive_whole_with_their_ids() {
    for flavor in FLAVORS {
        let stand = stand(flavor).await;
        let mut request = ChatRequest::new("tools", vec![Message::user("weather in Paris?")]);
        request.tools = vec![ToolDefinition {
            name: "weather".into(),
            description: None,
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        }];
        let updates = stand.stream_request(&request).await.unwrap();
        let last = updates.last().unwrap();
        assert_eq!(last.finish_reason, Some(FinishReason::ToolCalls));
        let calls: Vec<_> = updates
            .iter()
            .flat_map(|u| u.contents.iter())
            .filter_map(|c| c.tool_call.as_ref())
            .collect();
        assert_eq!(calls.len(), 2, "{flavor:?}");
        assert_eq!(
            (calls[0].id.as_str(), calls[0].name.as_str()),
            ("call-1", "weather")
        );
        assert_eq!(calls[0].arguments, json!({"city": "Paris"}));
        assert_eq!(
            (calls[1].id.as_str(), &calls[1].arguments),
            ("call-2", &json!({}))
        );
        let sent = stand.fake.last_request();
        assert_eq!(
            sent["tools"],
            json!([{"type": "function", "function": {"name": "weather", "description": null,
                     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}])
        );
    }
}

#[tokio::test]
async fn reasoning_deltas_become_reasoning_content() {
    let stand = stand(Flavor::LlamaCpp).await;
    let request = ChatRequest::new("reasoning", vec![Message::user("why?")]);
    let chat = stand.client.chat("llamacpp", &request).await.unwrap();
    let streamed = collect_stream(ChatStream::from_updates(
        stand.stream_request(&request).await.unwrap(),
    ))
    .await
    .unwrap();
    for answer in [chat, streamed] {
        let contents = &answer.messages[0].contents;
        assert_eq!(contents[0].data.as_ref().unwrap()["text"], "Let me think.");
        assert_eq!(contents[1].text.as_deref(), Some("Answer."));
    }
}

#[tokio::test]
async fn comments_events_and_blank_lines_are_skipped() {
    let stand = stand(Flavor::LocalAi).await;
    let updates = stand.stream("noisy", "x y").await.unwrap();
    let text: String = updates.iter().map(|u| u.text_delta()).collect();
    assert_eq!(text, "x y");
}

#[tokio::test]
async fn native_options_reach_the_body_and_localai_sends_its_key() {
    let stand = stand(Flavor::LlamaCpp).await;
    let native = json!({"optionSet": "io.agentstration.llamacpp/model-profile", "version": "1.0.0",
        "schemaDigest": aep_openai_compatible::profile::LLAMACPP_DIGEST,
        "values": {"minP": 0.05, "chatTemplateKwargs": {"enable_thinking": true}, "additionalOptions": {"cache_prompt": false}}});
    let mut request = ChatRequest::new("smollm2", vec![Message::user("hi")]);
    request.options = Some(
        serde_json::from_value(json!({"temperature": 0.5, "topK": 40, "nativeOptions": native})).unwrap(),
    );
    stand.stream_request(&request).await.unwrap();
    let sent = stand.fake.last_request();
    assert_eq!(
        (
            sent["min_p"].clone(),
            sent["top_k"].clone(),
            sent["cache_prompt"].clone()
        ),
        (json!(0.05), json!(40), json!(false))
    );
    assert_eq!(sent["chat_template_kwargs"], json!({"enable_thinking": true}));

    let stand = stand_with(Flavor::LocalAi, |c| {
        c.api_key = Some(aep_openai_compatible::config::ApiKey::new("s3cret"))
    })
    .await;
    stand.fake.require_key("s3cret");
    stand.stream("smollm2", "hi").await.unwrap();
    // Refused values never reach LocalAI (the schema answers 422 first).
    let native = json!({"optionSet": "io.agentstration.localai/model-profile", "version": "1.0.0",
        "schemaDigest": aep_openai_compatible::profile::LOCALAI_DIGEST, "values": {"metadata": {"mcp_servers": "x"}}});
    let mut request = ChatRequest::new("smollm2", vec![Message::user("hi")]);
    request.options = Some(serde_json::from_value(json!({"nativeOptions": native})).unwrap());
    let before = stand.fake.requests().len();
    let error = stand.client.chat("localai", &request).await.unwrap_err();
    let remote = error.remote.unwrap();
    assert_eq!(
        (remote.code.as_str(), remote.message.as_str()),
        ("invalid_options", "Option 'values.metadata' is not supported.")
    );
    assert_eq!(stand.fake.requests().len(), before);
}
