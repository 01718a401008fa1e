//! The gateway's OpenAI Chat Completions surface on the wire (plain HTTP, every byte
//! checked): the model listing, a chat streamed and not, the mapping of every supported
//! member into the AEP request, tool calls, capability refusals, bad input, provider
//! failures before and after the headers, an extension that goes away mid-stream, and a
//! client that goes away cancelling the provider. The providers are an SDK extension in
//! process (`gateway_openai_support`), `aep-openai` in front of the fake OpenAI server,
//! and two extensions sharing a provider id. The official SDKs' tests are
//! `gateway_async_openai.rs` and `conformance/peers/tests/gateway_openai_sdk.rs`.

use crate::gateway_openai_support as support;

use std::time::Duration;

use aep_openai_compatible::config::UpstreamConfig;
use aep_openai_compatible::flavor::Flavor;
use aep_openai_compatible::openai::OpenAiExtension;
use aep_openai_compatible::upstream::Upstream;
use aep_sdk::prelude::*;
use aep_sdk::server::{BearerAuth, Extension, ModelProvider};
use aep_sdk::testing::{ExtensionServer, ServeOptions, eventually, serve};
use futures::StreamExt;
use serde_json::{Value, json};
use support::{SCRIPTED, Scripted, gateway, registry};

/// Bound on every answer.
const BOUND: Duration = Duration::from_secs(20);

fn http() -> reqwest::Client {
    reqwest::Client::builder().timeout(BOUND).build().unwrap()
}

async fn get(url: &str) -> (u16, Value) {
    let response = http().get(url).send().await.expect("an answer");
    (
        response.status().as_u16(),
        response.json().await.unwrap_or(Value::Null),
    )
}

async fn post(base: &str, body: &Value) -> (u16, Value) {
    let url = format!("{base}/v1/chat/completions");
    let response = http().post(url).json(body).send().await.expect("an answer");
    (
        response.status().as_u16(),
        response.json().await.unwrap_or(Value::Null),
    )
}

/// A streamed chat read to its end: the status, the content type and every `data:`.
async fn stream(base: &str, body: &Value) -> (u16, String, Vec<String>) {
    let url = format!("{base}/v1/chat/completions");
    let response = http().post(url).json(body).send().await.expect("an answer");
    let status = response.status().as_u16();
    let kind = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = response.text().await.expect("the whole stream within the bound");
    (status, kind, data_of(&text))
}

fn data_of(text: &str) -> Vec<String> {
    text.split("\n\n")
        .filter_map(|event| event.strip_prefix("data: ").map(str::to_owned))
        .collect()
}

fn chunks(events: &[String]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| *e != "[DONE]")
        .map(|e| serde_json::from_str(e).unwrap_or_else(|error| panic!("{error}: {e}")))
        .collect()
}

fn content_of(chunks: &[Value]) -> String {
    chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect()
}

fn ask(model: &str, text: &str) -> Value {
    json!({"model": model, "messages": [{"role": "user", "content": text}]})
}

/// `aep-openai` in front of the fake OpenAI server.
async fn aep_openai() -> (fake_openai::Fake, ExtensionServer) {
    let fake = fake_openai::Fake::start().await;
    let config = UpstreamConfig::new(Flavor::OpenAi, &fake.base_url).unwrap();
    let upstream = Upstream::new(config, Vec::new()).unwrap();
    let extension = aep_openai_compatible::build(OpenAiExtension(upstream)).unwrap();
    (fake, serve(extension, ServeOptions::new()))
}

/// A provider `echo` with model `e1`, answering with the extension's id.
struct Named(&'static str);

impl ModelProvider for Named {
    async fn chat_stream(&self, _request: ChatRequest, _ctx: RequestContext) -> Result<ChatStream, AepError> {
        Ok(ChatStream::from_updates([ChatUpdate::text(self.0)]))
    }
}

fn named(id: &'static str) -> ExtensionServer {
    let descriptor = ModelProviderDescriptor {
        models: Some(vec![ModelDescriptor::new("e1")]),
        ..ModelProviderDescriptor::new("echo", "Echo")
    };
    let extension = Extension::builder(id, id, "1.0.0")
        .model_provider(descriptor, Named(id))
        .build()
        .unwrap();
    serve(extension, ServeOptions::new())
}

#[tokio::test]
async fn models_are_listed_as_provider_slash_model_owned_by_their_extension() {
    let scripted = Scripted::default().start();
    let (_fake, openai) = aep_openai().await;
    let (one, two) = (named("acme.one"), named("acme.two"));
    let gateway = gateway(
        registry(&[
            (SCRIPTED, &scripted.base_url),
            ("aep.openai-compatible", &openai.base_url),
            ("acme.one", &one.base_url),
            ("acme.two", &two.base_url),
        ]),
        None,
    );
    let base = &gateway.base_url;
    let (status, list) = get(&format!("{base}/v1/models")).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["object"], "list");
    let ids: Vec<(&str, &str)> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["id"].as_str().unwrap(), m["owned_by"].as_str().unwrap()))
        .collect();
    for expected in [
        ("scripted/echo", SCRIPTED),
        ("scripted/paced", SCRIPTED),
        ("plain/plain-1", SCRIPTED),
        // Discovered through aep-openai's /models (the fake lists smollm2).
        ("openai/smollm2", "aep.openai-compatible"),
        // Two extensions with a provider `echo`: neither is preferred.
        ("acme.one/echo/e1", "acme.one"),
        ("acme.two/echo/e1", "acme.two"),
    ] {
        assert!(ids.contains(&expected), "{expected:?} in {ids:?}");
    }
    assert!(!ids.iter().any(|(id, _)| *id == "echo/e1"), "{ids:?}");
    assert_eq!(list["data"][0]["object"], "model");

    let (status, model) = get(&format!("{base}/v1/models/openai/smollm2")).await;
    assert_eq!(status, 200);
    assert_eq!(
        model,
        json!({"id": "openai/smollm2", "object": "model", "created": 0, "owned_by": "aep.openai-compatible"})
    );
    let (status, error) = get(&format!("{base}/v1/models/nope/nothing")).await;
    assert_eq!(status, 404);
    assert_eq!(error["error"]["code"], "model_not_found");
    // The full form reaches its own extension.
    let (_, answer) = post(base, &ask("acme.two/echo/e1", "x")).await;
    assert_eq!(answer["choices"][0]["message"]["content"], "acme.two");
}

#[tokio::test]
async fn a_chat_streamed_and_not_agree_and_every_member_reaches_the_provider() {
    let provider = Scripted::default();
    let scripted = provider.start();
    let gateway = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let base = &gateway.base_url;
    let text = "the quick brown fox";

    let (status, whole) = post(base, &ask("scripted/echo", text)).await;
    assert_eq!(status, 200, "{whole}");
    assert_eq!(whole["object"], "chat.completion");
    assert!(whole["id"].as_str().unwrap().starts_with("chatcmpl-"));
    assert_eq!(whole["model"], "scripted/echo");
    let choice = &whole["choices"][0];
    assert_eq!(
        (
            &choice["index"],
            &choice["message"]["role"],
            &choice["finish_reason"]
        ),
        (&json!(0), &json!("assistant"), &json!("stop"))
    );
    assert_eq!(choice["message"]["content"], text);
    assert_eq!(
        whole["usage"],
        json!({"prompt_tokens": 4, "completion_tokens": 4, "total_tokens": 8})
    );

    let mut body = ask("scripted/echo", text);
    body["stream"] = json!(true);
    body["stream_options"] = json!({"include_usage": true});
    let (status, kind, events) = stream(base, &body).await;
    assert_eq!((status, kind.as_str()), (200, "text/event-stream"));
    assert_eq!(events.last().map(String::as_str), Some("[DONE]"));
    let chunks = chunks(&events);
    assert_eq!(chunks[0]["choices"][0]["delta"], json!({"role": "assistant"}));
    assert!(
        chunks
            .iter()
            .all(|c| c["object"] == "chat.completion.chunk" && c["id"] == chunks[0]["id"])
    );
    assert_eq!(content_of(&chunks), text, "the same text as the whole answer");
    let finish = &chunks[chunks.len() - 2];
    assert_eq!(finish["choices"][0]["finish_reason"], "stop");
    assert_eq!(finish["usage"], Value::Null);
    let usage = chunks.last().unwrap();
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(usage["usage"], whole["usage"]);
    // Without include_usage: no usage chunk, no usage member.
    body["stream_options"] = json!(null);
    let (_, _, plain) = stream(base, &body).await;
    assert!(super_chunks_lack_usage(&plain));

    // Every supported member, as the provider received it.
    let everything = json!({
        "model": "scripted/echo",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "developer", "content": [{"type": "text", "text": "really"}]},
            {"role": "user", "name": "ann", "content": [
                {"type": "text", "text": "what is this"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{\"city\":\"Oslo\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "cold"},
            {"role": "user", "content": "and now"}
        ],
        "temperature": 0.2, "top_p": 0.5, "max_completion_tokens": 33, "stop": ["END", "STOP"], "seed": 11,
        "presence_penalty": 0.5, "reasoning_effort": "low", "parallel_tool_calls": false,
        "tools": [{"type": "function", "function": {"name": "lookup", "description": "Weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
        "tool_choice": "required",
        "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": {"type": "object"}, "strict": true}},
        "metadata": {"run": "7"}, "user": "u-1", "store": false, "n": 1
    });
    let (status, answer) = post(base, &everything).await;
    assert_eq!(status, 200, "{answer}");
    let seen = serde_json::to_value(provider.seen.last()).unwrap();
    assert_eq!(seen["model"], "echo");
    assert_eq!(
        seen["messages"],
        json!([
            {"role": "system", "contents": [{"kind": "text", "text": "be brief"}]},
            {"role": "system", "contents": [{"kind": "text", "text": "really"}]},
            {"role": "user", "authorName": "ann", "contents": [
                {"kind": "text", "text": "what is this"},
                {"kind": "image", "mediaType": "image/png", "data": "iVBORw0KGgo="}]},
            {"role": "assistant", "contents": [{"kind": "toolCall",
                "toolCall": {"id": "c1", "name": "lookup", "arguments": {"city": "Oslo"}}}]},
            {"role": "tool", "contents": [{"kind": "toolResult",
                "toolResult": {"callId": "c1", "result": "cold", "isError": false}}]},
            {"role": "user", "contents": [{"kind": "text", "text": "and now"}]}
        ])
    );
    assert_eq!(
        seen["options"],
        json!({"temperature": 0.2, "maxOutputTokens": 33, "topP": 0.5, "seed": 11,
            "stopSequences": ["END", "STOP"],
            "responseFormat": {"type": "json_schema", "json_schema": {"name": "answer", "schema": {"type": "object"}, "strict": true}},
            "additionalOptions": {"tool_choice": "required", "presence_penalty": 0.5,
                "reasoning_effort": "low", "parallel_tool_calls": false}})
    );
    assert_eq!(seen["tools"][0]["name"], "lookup");
    assert_eq!(seen["metadata"], json!({"run": "7"}));
}

/// No chunk of a stream without `include_usage` has a `usage` member.
fn super_chunks_lack_usage(events: &[String]) -> bool {
    chunks(events).iter().all(|c| c.get("usage").is_none()) && events.last().is_some_and(|e| e == "[DONE]")
}

#[tokio::test]
async fn a_tool_call_round_trip_streamed_and_not() {
    let scripted = Scripted::default().start();
    let gateway = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let base = &gateway.base_url;
    let tools =
        json!([{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]);
    let mut body = ask("scripted/tools", "weather in Oslo?");
    body["tools"] = tools.clone();

    let (status, whole) = post(base, &body).await;
    assert_eq!(status, 200, "{whole}");
    let message = &whole["choices"][0]["message"];
    assert_eq!(whole["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(message["content"], Value::Null);
    assert_eq!(
        message["tool_calls"],
        json!([{"id": "call_lookup_1", "type": "function",
            "function": {"name": "lookup", "arguments": "{\"city\":\"Oslo\"}"}}])
    );

    body["stream"] = json!(true);
    let (_, _, events) = stream(base, &body).await;
    let chunks = chunks(&events);
    let deltas: Vec<&Value> = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0))
        .collect();
    assert_eq!(deltas.len(), 2, "{chunks:?}");
    assert_eq!(
        deltas[0],
        &json!({"index": 0, "id": "call_lookup_1", "type": "function", "function": {"name": "lookup", "arguments": ""}})
    );
    assert_eq!(
        deltas[1],
        &json!({"index": 0, "function": {"arguments": "{\"city\":\"Oslo\"}"}})
    );
    assert_eq!(
        chunks.last().unwrap()["choices"][0]["finish_reason"],
        "tool_calls"
    );

    // The client runs the tool and sends the answer back.
    let next = json!({"model": "scripted/tools", "tools": tools, "messages": [
        body["messages"][0], message, {"role": "tool", "tool_call_id": "call_lookup_1", "content": "-3 C"}]});
    let (status, answer) = post(base, &next).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["choices"][0]["message"]["content"], "the tool said -3 C");
}

#[tokio::test]
async fn what_a_provider_does_not_declare_is_refused_saying_so() {
    let scripted = Scripted::default().start();
    let gateway = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let base = &gateway.base_url;
    let schema = json!({"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "object"}}});
    let image = json!([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]}]);
    for (member, value, param) in [
        ("response_format", schema.clone(), "response_format"),
        (
            "response_format",
            json!({"type": "json_object"}),
            "response_format",
        ),
        (
            "tools",
            json!([{"type": "function", "function": {"name": "f"}}]),
            "tools",
        ),
        ("messages", image, "messages"),
    ] {
        let mut body = ask("plain/plain-1", "x");
        body[member] = value;
        let (status, error) = post(base, &body).await;
        assert_eq!(status, 400, "{member}: {error}");
        assert_eq!(error["error"]["type"], "invalid_request_error");
        assert_eq!(error["error"]["param"], param);
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("plain/plain-1") && message.contains("does not declare"),
            "{message}"
        );
    }
    // Where it is declared, the format reaches the provider and the JSON comes back.
    let mut body = ask("scripted/json", "x");
    body["response_format"] = schema;
    let (status, answer) = post(base, &body).await;
    assert_eq!(status, 200, "{answer}");
    let content = answer["choices"][0]["message"]["content"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(content).unwrap(),
        json!({"answer": 42})
    );
    // A provider that answers in one piece still streams.
    let mut body = ask("plain/plain-1", "one piece");
    body["stream"] = json!(true);
    let (status, _, events) = stream(base, &body).await;
    assert_eq!(status, 200);
    assert_eq!(content_of(&chunks(&events)), "one piece");
}

#[tokio::test]
async fn bad_input_is_answered_in_openais_envelope_and_never_hangs() {
    let scripted = Scripted::default().start();
    let gateway = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let base = &gateway.base_url;
    let url = format!("{base}/v1/chat/completions");
    let raw = |body: &'static str, kind: &'static str| {
        let url = url.clone();
        async move {
            let response = http()
                .post(url)
                .header("content-type", kind)
                .body(body)
                .send()
                .await
                .unwrap();
            (
                response.status().as_u16(),
                response.json::<Value>().await.unwrap(),
            )
        }
    };
    let (status, error) = raw("{\"model\": ", "application/json").await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(error["error"]["type"], "invalid_request_error");
    assert!(
        error["error"]["message"].as_str().unwrap().contains("JSON"),
        "{error}"
    );
    assert_eq!(
        error["error"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["message", "type", "param", "code"]
    );
    let (status, _) = raw("{}", "text/plain").await;
    assert_eq!(status, 415);
    let (status, error) = raw("[1]", "application/json").await;
    assert_eq!(
        (status, &error["error"]["type"]),
        (400, &json!("invalid_request_error"))
    );

    let cases = [
        (
            json!({"model": "scripted/echo"}),
            "messages",
            "missing_required_parameter",
        ),
        (json!({"model": 5, "messages": []}), "model", "invalid_type"),
        (
            json!({"model": "scripted/echo", "messages": []}),
            "messages",
            "empty_array",
        ),
        (
            json!({"model": "scripted/echo", "messages": [{"role": "wizard", "content": "x"}]}),
            "messages[0].role",
            "invalid_value",
        ),
        (
            json!({"model": "scripted/echo", "messages": [{"role": "user", "content": "x"}], "temperature": "warm"}),
            "temperature",
            "invalid_type",
        ),
        (
            json!({"model": "scripted/echo", "messages": [{"role": "user", "content": "x"}], "n": 3}),
            "n",
            "unsupported_parameter",
        ),
    ];
    for (body, param, code) in cases {
        let (status, error) = post(base, &body).await;
        assert_eq!(status, 400, "{body}: {error}");
        assert_eq!(
            (&error["error"]["param"], &error["error"]["code"]),
            (&json!(param), &json!(code)),
            "{error}"
        );
    }
    let mut unknown = ask("scripted/echo", "x");
    unknown["top_k"] = json!(5);
    let (status, error) = post(base, &unknown).await;
    assert_eq!(status, 400);
    assert_eq!(
        error["error"]["message"],
        "Unrecognized request argument supplied: top_k"
    );

    for stream in [false, true] {
        let mut body = ask("nobody/nothing", "x");
        body["stream"] = json!(stream);
        let (status, error) = post(base, &body).await;
        assert_eq!(status, 404, "{error}");
        assert_eq!(
            error["error"],
            json!({"message": "The model `nobody/nothing` does not exist or you do not have access to it.",
                "type": "invalid_request_error", "param": "model", "code": "model_not_found"})
        );
    }
    let (status, _) = get(&url).await;
    assert_eq!(status, 405);
}

#[tokio::test]
async fn provider_failures_map_to_openai_statuses_before_and_after_the_headers() {
    let scripted = Scripted::default().start();
    let gateway_server = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let base = &gateway_server.base_url;

    // After the headers: one chunk, then the error event, and no [DONE].
    let mut body = ask("scripted/fail-mid", "x");
    body["stream"] = json!(true);
    let (status, _, events) = stream(base, &body).await;
    assert_eq!(status, 200);
    assert_eq!(content_of(&chunks(&events[..events.len() - 1])), "partial ");
    let last: Value = serde_json::from_str(events.last().unwrap()).unwrap();
    assert_eq!(last["error"]["type"], "server_error", "{last}");
    assert!(
        last["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the upstream broke"),
        "{last}"
    );
    assert!(!events.iter().any(|e| e == "[DONE]"));
    // Before the headers: a 502.
    let (status, error) = post(base, &ask("scripted/fail-mid", "x")).await;
    assert_eq!(
        (status, &error["error"]["type"]),
        (502, &json!("server_error")),
        "{error}"
    );

    for stream in [false, true] {
        let mut body = ask("scripted/limited", "x");
        body["stream"] = json!(stream);
        let (status, error) = post(base, &body).await;
        assert_eq!(status, 429, "{error}");
        assert_eq!(error["error"]["code"], "rate_limit_exceeded");
        assert!(error["error"]["message"].as_str().unwrap().contains("slow down"));
    }
    // The gateway's own credential, when it has one.
    let guarded = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), Some("gateway-token"));
    let (status, error) = post(&guarded.base_url, &ask("scripted/echo", "x")).await;
    assert_eq!(status, 401, "{error}");
    assert!(error["error"]["message"].is_string());
    let response = http()
        .post(format!("{}/v1/chat/completions", guarded.base_url))
        .bearer_auth("gateway-token")
        .json(&ask("scripted/echo", "x"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn an_extension_that_requires_a_token_the_gateway_lacks_is_a_502_not_a_401() {
    // It lists its models without credentials, then refuses the chat.
    let extension = Scripted::default()
        .extension_builder()
        .bearer_auth(BearerAuth::new("extension-token").public_discovery(true))
        .build()
        .unwrap();
    let locked = serve(extension, ServeOptions::new());
    let gateway = gateway(registry(&[(SCRIPTED, &locked.base_url)]), None);
    let (status, error) = post(&gateway.base_url, &ask("plain/plain-1", "x")).await;
    assert_eq!(status, 502, "{error}");
    assert_eq!(error["error"]["code"], "upstream_unauthorized");
    assert!(
        !error["error"]["message"].as_str().unwrap().contains("127.0.0.1"),
        "{error}"
    );
}

#[tokio::test]
async fn an_extension_that_goes_away_mid_stream_ends_the_stream_with_an_error_event() {
    let scripted = Scripted::default().start();
    let gateway = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let base = gateway.base_url.clone();
    let mut body = ask("scripted/paced", "x");
    body["stream"] = json!(true);
    let response = http()
        .post(format!("{base}/v1/chat/completions"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut bytes = response.bytes_stream();
    let mut text = String::new();
    while text.matches("tick").count() < 2 {
        let piece = bytes.next().await.expect("more").expect("bytes");
        text.push_str(&String::from_utf8_lossy(&piece));
    }
    // Its runtime, connections and all, goes away.
    drop(scripted);
    let rest = tokio::time::timeout(BOUND, async {
        while let Some(Ok(piece)) = bytes.next().await {
            text.push_str(&String::from_utf8_lossy(&piece));
        }
    })
    .await;
    assert!(rest.is_ok(), "the stream ended within the bound");
    let events = data_of(&text);
    let last: Value = serde_json::from_str(events.last().unwrap()).unwrap();
    assert!(
        last["error"]["message"].as_str().unwrap().contains("broke off"),
        "{last}"
    );
    assert!(!events.iter().any(|e| e == "[DONE]"));
    // Gone for good: the next chat is a 503.
    let (status, error) = post(&base, &ask("scripted/echo", "x")).await;
    assert_eq!(status, 503, "{error}");
    assert_eq!(error["error"]["code"], "extension_unreachable");
}

#[tokio::test]
async fn a_client_that_goes_away_cancels_the_provider_streamed_and_not() {
    let provider = Scripted::default();
    let scripted = provider.start();
    let gateway = gateway(registry(&[(SCRIPTED, &scripted.base_url)]), None);
    let url = format!("{}/v1/chat/completions", gateway.base_url);
    let mut body = ask("scripted/paced", "x");
    body["stream"] = json!(true);
    let response = http().post(&url).json(&body).send().await.unwrap();
    let mut bytes = response.bytes_stream();
    let mut seen = String::new();
    while seen.matches("tick").count() < 3 {
        seen.push_str(&String::from_utf8_lossy(&bytes.next().await.unwrap().unwrap()));
    }
    drop(bytes);
    eventually("the provider's token trips", || provider.seen.cancelled() == 1).await;
    let ticks = provider.seen.ticks();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        provider.seen.ticks() <= ticks + 1,
        "the provider stopped producing"
    );

    // Non-streamed: the client gives up waiting.
    body["stream"] = json!(false);
    let gave_up = reqwest::Client::new()
        .post(&url)
        .json(&body)
        .timeout(Duration::from_millis(300))
        .send()
        .await;
    assert!(gave_up.is_err_and(|e| e.is_timeout()));
    eventually("the provider's token trips again", || {
        provider.seen.cancelled() == 2
    })
    .await;
}
