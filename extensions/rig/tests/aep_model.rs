//! AEP -> rig: an AEP model provider (a scripted `#[aep_extension]` on a loopback port)
//! as a rig completion model, directly and under a rig-agent agent whose tools are the
//! utilities extension's, resolved by the host's catalog (AEP -> MCP).

mod common;

use std::sync::atomic::Ordering;

use aep_rig::model::aep_model;
use aep_rig::tools::{TOOL_ERROR, catalog_tools};
use aep_sdk::protocol::{ContentKind, Role};
use common::{BOUND, MODEL, catalog, client, eventually, scripted, utilities};
use futures::StreamExt;
use rig_core::completion::{CompletionRequest, FinishReason};
use rig_core::error::{ErrorKind, ProviderError};
use rig_core::message::AssistantContent;
use rig_core::streaming::{Item, StreamEvent};
use serde_json::json;

/// sha256("open sesame"), computed independently.
const DIGEST: &str = "41ef4bb0b23661e66301aac36066912dac037827b4ae63a7b1165a5aa93ed4eb";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rig_agent_calls_a_utilities_tool_through_the_catalog_and_answers_with_its_result() {
    let (model_server, seen) = scripted().await;
    let tools_server = utilities().await;
    let catalog = catalog(&tools_server).await;
    let tools = catalog_tools(&catalog, &["hash.compute"]).await.unwrap();
    assert_eq!(tools[0].name().as_str(), "hash.compute");
    let definition = tools[0].definition();
    assert_eq!(
        definition.parameters["properties"]["text"]["type"], "string",
        "the JSON schema is MCP's: {definition:?}"
    );
    let resolved = catalog.resolve("hash.compute").await.unwrap();
    assert_eq!(Some(definition.description.clone()), resolved.description);
    assert!(!definition.description.is_empty());

    let model = aep_model(client(&model_server.base_url), "agent", MODEL);
    let agent = rig_agent::AgentBuilder::new(model).dynamic_tools(tools).build();
    let prompt = json!({"tool": "hash.compute", "arguments": {"text": "open sesame"}}).to_string();
    let response = tokio::time::timeout(BOUND, agent.prompt(prompt).max_turns(3))
        .await
        .expect("the run ends")
        .expect("the run succeeds");

    assert_eq!(response.output(), format!("The tool said: {DIGEST}"));
    // Two model calls; usage added up from the AEP terminal updates.
    assert_eq!(
        response.completion_calls.len(),
        2,
        "{:?}",
        response.completion_calls
    );
    assert_eq!(response.usage.input_tokens, Some(22));
    assert_eq!(response.usage.output_tokens, Some(10));
    assert_eq!(
        response.completion_calls[0].finish_reason,
        Some(FinishReason::ToolCalls)
    );

    // What the AEP provider was sent: the tool's definition (name, MCP schema), then
    // the assistant's call and the tool's result under the same call id.
    let requests = seen.requests();
    assert_eq!(requests.len(), 2);
    let offered = &requests[0].tools;
    assert_eq!(offered.len(), 1);
    assert_eq!(offered[0].name, "hash.compute");
    assert_eq!(offered[0].parameters["required"], json!(["text"]));
    let second = &requests[1];
    let call = second
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.tool_calls())
        .next()
        .expect("the assistant's call is in the history");
    assert_eq!(
        (call.id.as_str(), call.name.as_str(), &call.arguments),
        ("call_1", "hash.compute", &json!({"text": "open sesame"}))
    );
    let result = second.messages.last().unwrap();
    assert_eq!(result.role, Role::Tool);
    let result = result.contents[0].tool_result.as_ref().unwrap();
    assert_eq!(
        (result.call_id.as_str(), &result.result, result.is_error),
        ("call_1", &json!(DIGEST), false)
    );
    // The reasoning the provider streamed went back as reasoning.
    assert!(
        second
            .messages
            .iter()
            .any(|m| m.contents.iter().any(|c| c.as_reasoning().is_some())),
        "{second:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_failures_reach_the_model_as_error_results_it_can_read() {
    let (model_server, seen) = scripted().await;
    let tools_server = utilities().await;
    let catalog = catalog(&tools_server).await;
    let tools = catalog_tools(&catalog, &["text.case", "json.compact"])
        .await
        .unwrap();
    let model = aep_model(client(&model_server.base_url), "agent", MODEL);
    let agent = rig_agent::AgentBuilder::new(model).dynamic_tools(tools).build();

    // Arguments that fail MCP's input schema: the host refuses them before the call.
    let prompt = json!({"tool": "text.case", "arguments": {"text": "hello"}}).to_string();
    let answer = agent.prompt(prompt).max_turns(3).await.unwrap().output();
    assert!(answer.starts_with("The tool said, an error: "), "{answer}");
    assert!(answer.contains("invalid_arguments"), "{answer}");
    assert!(
        answer.contains("case"),
        "the path of the missing argument: {answer}"
    );

    // The tool's own failure (`isError: true`): its text reaches the model.
    let prompt = json!({"tool": "json.compact", "arguments": {"json": "{not json"}}).to_string();
    let answer = agent.prompt(prompt).max_turns(3).await.unwrap().output();
    assert!(answer.starts_with("The tool said, an error: "), "{answer}");
    assert!(answer.contains("not valid JSON"), "{answer}");
    let last = seen.requests().last().cloned().unwrap();
    let result = last.messages.last().unwrap().contents[0]
        .tool_result
        .clone()
        .unwrap();
    assert!(result.is_error);

    // The adapter's errors directly: kind, code and the model-readable message.
    let tools = catalog_tools(&catalog, &["json.compact", "text.case"])
        .await
        .unwrap();
    let own = tools[0].execute(json!({"json": "{"})).await.unwrap_err();
    assert_eq!(own.code(), Some(TOOL_ERROR));
    assert!(
        own.model_feedback().unwrap().contains("not valid JSON"),
        "{own:?}"
    );
    let refused = tools[1].execute(json!({"text": "x"})).await.unwrap_err();
    assert_eq!(refused.kind(), rig_core::tool::ToolErrorKind::InvalidArgs);
    assert_eq!(refused.code(), Some("invalid_arguments"));
    let ok = tools[1]
        .execute(json!({"text": "abc", "case": "upper"}))
        .await
        .unwrap();
    assert_eq!(ok.as_text(), Some("ABC"));
}

#[tokio::test]
async fn a_tool_that_does_not_resolve_is_an_error_naming_the_host_code() {
    let tools_server = utilities().await;
    let catalog = catalog(&tools_server).await;
    let error = catalog_tools(&catalog, &["hash.compute", "no.such.tool"])
        .await
        .unwrap_err();
    assert_eq!(error.code.as_str(), "tool_not_found");
}

#[tokio::test]
async fn a_stream_carries_deltas_reasoning_a_whole_tool_call_usage_and_the_finish_reason() {
    let (model_server, _seen) = scripted().await;
    let model = aep_model(client(&model_server.base_url), "agent", MODEL);
    let mut request =
        CompletionRequest::new(json!({"tool": "hash.compute", "arguments": {"text": "x"}}).to_string());
    request.tools.push(rig_core::completion::ToolDefinition {
        name: rig_core::message::ToolName::new("hash.compute").unwrap(),
        description: "hash".into(),
        parameters: json!({"type": "object"}),
    });
    let mut stream = model.stream(request).unwrap();
    let mut reasoning = String::new();
    let mut text = String::new();
    let mut calls = Vec::new();
    while let Some(item) = stream.next().await {
        match item.unwrap() {
            Item::Event(StreamEvent::Reasoning { text: delta, .. }) => reasoning.push_str(&delta),
            Item::Event(StreamEvent::Text { text: delta, .. }) => text.push_str(&delta),
            Item::Event(StreamEvent::End {
                content: AssistantContent::ToolCall(call),
                ..
            }) => calls.push(call),
            _ => {}
        }
    }
    assert_eq!(reasoning, "The user wants a tool. ");
    assert_eq!(text, "Calling it.");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].id.wire(), "call_1");
    assert_eq!(calls[0].function.arguments_value(), json!({"text": "x"}));
    let response = stream.finish().await.unwrap();
    assert_eq!(response.finish_reason(), Some(FinishReason::ToolCalls));
    assert_eq!(response.usage.input_tokens, Some(11));
    assert_eq!(response.usage.output_tokens, Some(5));
    assert_eq!(response.usage.total_tokens, Some(16));
    assert_eq!(response.model(), Some(MODEL));
    assert!(response.error.is_none());
    // The streamed reply's raw is the AEP answer its updates add up to.
    assert_eq!(response.raw["finishReason"], "toolCalls");
    assert_eq!(response.raw["messages"][0]["contents"][2]["kind"], "toolCall");

    // A plain streamed echo arrives as several deltas.
    let mut stream = model.stream("one two three four").unwrap();
    let mut deltas = 0;
    while let Some(item) = stream.next().await {
        if let Item::Event(StreamEvent::Text { .. }) = item.unwrap() {
            deltas += 1;
        }
    }
    assert_eq!(deltas, 4);
    assert_eq!(stream.finish().await.unwrap().text(), "one two three four");
}

#[tokio::test]
async fn a_unary_call_goes_to_the_chat_route() {
    let (model_server, seen) = scripted().await;
    let model = aep_model(client(&model_server.base_url), "agent", MODEL);
    let response = model.call("hello there").await.unwrap();
    assert_eq!(response.text(), "hello there");
    assert_eq!(response.finish_reason(), Some(FinishReason::Stop));
    assert_eq!(response.usage.output_tokens, Some(5));
    assert_eq!(
        seen.unary.load(Ordering::SeqCst),
        1,
        "POST .../chat, not the stream"
    );
    assert_eq!(response.raw["messages"][0]["contents"][0]["kind"], "text");
}

#[tokio::test]
async fn every_aep_finish_reason_maps_to_rigs() {
    let (model_server, _seen) = scripted().await;
    let model = aep_model(client(&model_server.base_url), "finish", MODEL);
    let cases = [
        ("stop", FinishReason::Stop),
        ("length", FinishReason::Length),
        ("toolCalls", FinishReason::ToolCalls),
        ("contentFilter", FinishReason::ContentFilter),
        ("other", FinishReason::Other("other".into())),
    ];
    for (aep, rig) in cases {
        let response = model.stream(aep).unwrap().finish().await.unwrap();
        assert_eq!(response.finish_reason(), Some(rig.clone()), "{aep}");
        assert_eq!(response.text(), "done");
        assert_eq!(
            (response.usage.input_tokens, response.usage.output_tokens),
            (Some(7), Some(3)),
            "{aep}"
        );
        let unary = model.call(aep).await.unwrap();
        assert_eq!(unary.finish_reason(), Some(rig), "{aep} (unary)");
    }
}

#[tokio::test]
async fn aep_errors_are_rig_provider_errors_with_the_aep_code_and_message() {
    let (model_server, _seen) = scripted().await;
    let client = client(&model_server.base_url);

    // Refused before the stream: the HTTP status and the AEP error body.
    let model = aep_model(client.clone(), "refuse", MODEL);
    let mut stream = model.stream("hi").unwrap();
    let error = stream.next().await.unwrap().unwrap_err();
    let ProviderError::ProviderResponse(response) = &error else {
        panic!("not a provider response: {error:?}");
    };
    assert_eq!(response.status.map(|s| s.as_u16()), Some(404));
    assert_eq!(response.machine_code().as_deref(), Some("model_unavailable"));
    assert!(
        error.to_string().contains("no model 'scripted-1' here"),
        "{error}"
    );
    assert!(stream.next().await.is_none(), "the error ends the stream");
    let unary = model.call("hi").await.unwrap_err();
    assert_eq!(unary.provider_response_status().map(|s| s.as_u16()), Some(404));

    // Failed after the stream started: the terminal error update, code and message.
    let model = aep_model(client.clone(), "midway", MODEL);
    let mut stream = model.stream("hi").unwrap();
    let first = stream.next().await.unwrap().unwrap();
    assert!(
        matches!(first, Item::Event(StreamEvent::Start { .. })),
        "{first:?}"
    );
    let mut error = None;
    while let Some(item) = stream.next().await {
        if let Err(e) = item {
            error = Some(e);
        }
    }
    let error = error.expect("the stream ends with an error");
    assert_eq!(error.kind(), ErrorKind::ProviderResponse);
    assert_eq!(
        error
            .provider_response()
            .and_then(|r| r.machine_code())
            .as_deref(),
        Some("request_failed")
    );
    assert!(error.to_string().contains("the model crashed"), "{error}");
    assert!(!error.is_retryable());
    let partial = stream.partial();
    assert_eq!(partial.text(), "partial ");
    assert!(partial.error.is_some(), "a failed reply is not a success");

    // An unknown provider: 404 provider_unavailable.
    let model = aep_model(client, "nobody", MODEL);
    let error = model.call("hi").await.unwrap_err();
    assert_eq!(
        error
            .provider_response()
            .and_then(|r| r.machine_code())
            .as_deref(),
        Some("provider_unavailable")
    );

    // Nothing listening: a transport error, retryable.
    let gone = common::client("http://127.0.0.1:9");
    let error = aep_model(gone, "agent", MODEL).call("hi").await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Http);
    assert!(error.is_retryable());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_rig_stream_drops_the_aep_stream() {
    let (model_server, seen) = scripted().await;
    let model = aep_model(client(&model_server.base_url), "endless", MODEL);
    let mut stream = model.stream("go").unwrap();
    let mut texts = 0;
    while texts < 3 {
        if let Item::Event(StreamEvent::Text { .. }) = stream.next().await.unwrap().unwrap() {
            texts += 1;
        }
    }
    assert_eq!(seen.dropped.load(Ordering::SeqCst), 0);
    drop(stream);
    // The provider's stream (its generator and everything it holds) is dropped: it
    // cannot produce anything more.
    eventually("the provider's stream is dropped", || {
        seen.dropped.load(Ordering::SeqCst) == 1
    })
    .await;
    assert!(seen.yielded.load(Ordering::SeqCst) >= 3);
}

#[test]
fn options_aep_cannot_carry_are_refused_not_dropped() {
    let model = aep_model(common::client("http://127.0.0.1:9"), "agent", MODEL);
    let mut request = CompletionRequest::new("hi");
    request.options.parallel_tool_calls = Some(false);
    let error = model
        .stream(request)
        .err()
        .expect("refused before anything is sent");
    assert!(error.to_string().contains("parallel tool calls"), "{error}");

    let mut request = CompletionRequest::new("hi");
    request.tool_choice = Some(rig_core::message::ToolChoice::Required);
    let error = model
        .stream(request)
        .err()
        .expect("refused before anything is sent");
    assert!(error.to_string().contains("tool choice"), "{error}");
}

#[test]
fn what_the_aep_provider_is_sent() {
    use aep_rig::map::request::to_aep_request;
    let mut request = CompletionRequest::new("hi")
        .preamble("Be brief.")
        .temperature(0.5)
        .max_tokens(7);
    request.options.top_p = Some(0.9);
    request.options.seed = Some(42);
    request.options.stop = vec!["END".into()];
    request.additional_params = Some(json!({"top_k": 3}));
    let chat = to_aep_request(request, MODEL).unwrap();
    assert_eq!(chat.model, MODEL);
    assert_eq!(chat.messages[0].role, Role::System);
    assert_eq!(chat.messages[1].contents[0].kind, ContentKind::Text);
    let options = chat.options.unwrap();
    assert_eq!(options.temperature, Some(0.5));
    assert_eq!(options.max_output_tokens, Some(7));
    assert_eq!(options.top_p, Some(0.9));
    assert_eq!(options.seed, Some(42));
    assert_eq!(options.stop_sequences, Some(vec!["END".into()]));
    assert_eq!(options.additional_options.unwrap()["top_k"], 3);
}
