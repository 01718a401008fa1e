//! End to end with the Ollama extension: host + `extensions/utilities` + `aep-ollama`
//! in front of the fake Ollama. A model answer that asks for `hash.compute` leads to a
//! real MCP call, the digest travels back to the model as a tool message, and it
//! appears in the final answer.

use crate::common;

use aep_host::agent::{Agent, AgentEvent, AgentStop};
use aep_host::models::ModelRef;
use aep_host::registry::Registry;
use aep_ollama::config::OllamaConfig;
use aep_ollama::{EXTENSION_ID, OllamaExtension, PROVIDER_ID};
use aep_sdk::protocol::{Message, ProtocolVersion};
use aep_sdk::server::AepExtension;
use aep_sdk::testing::spawn;
use common::{catalog, sha256, utilities};
use fake_ollama::{FakeOllama, Reply, ToolCall};
use serde_json::{Value, json};

#[tokio::test]
async fn an_ollama_model_that_asks_for_hash_compute_gets_the_digest_through_mcp() {
    let fake = FakeOllama::start().await;
    let ollama = OllamaExtension::new(OllamaConfig::with_url(&fake.base_url()).unwrap())
        .unwrap()
        .into_extension()
        .unwrap();
    let ollama = spawn(ollama.router()).await;
    let (tools, counts) = utilities().await;

    let mut registry = Registry::new();
    registry
        .register(EXTENSION_ID, &ollama.base_url, ProtocolVersion::LATEST)
        .unwrap();
    registry
        .register("aep.utilities", &tools.base_url, ProtocolVersion::LATEST)
        .unwrap();
    let catalog = catalog(registry);
    catalog.add_extension_tools("aep.utilities").await.unwrap();
    let hash = catalog.resolve("hash.compute").await.unwrap();

    let text = "the quick brown fox";
    let digest = sha256(text);
    // Turn 1: the model asks for the tool. Turn 2: it answers from the tool message.
    fake.enqueue(Reply::tool_calls(vec![ToolCall::new(
        "hash.compute",
        json!({ "text": text }),
    )]));
    fake.enqueue(Reply::text(&format!(
        "The SHA-256 digest of \"{text}\" is {digest}."
    )));

    let agent = Agent::new(&catalog, ModelRef::new(EXTENSION_ID, PROVIDER_ID, "llama3.2")).tools(vec![hash]);
    let mut events = Vec::new();
    let outcome = agent
        .run(
            vec![Message::user(format!(
                "What is the SHA-256 digest of \"{text}\"?"
            ))],
            &mut |e: &AgentEvent| events.push(e.clone()),
        )
        .await
        .unwrap();

    assert!(matches!(outcome.stop, AgentStop::Answered(_)), "{outcome:?}");
    assert_eq!(outcome.steps, 2);
    assert!(outcome.answer.contains(&digest), "{}", outcome.answer);
    assert_eq!(
        counts.get("mcp:tools/call"),
        1,
        "a real MCP call: {:?}",
        counts.snapshot()
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolResult { outcome: Ok(o), .. } if o.text() == digest))
    );

    // What Ollama received: the tool definition with MCP's schema on turn 1, and on
    // turn 2 the tool message carrying the digest the MCP server computed.
    let chats: Vec<Value> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/chat")
        .filter_map(|r| r.body)
        .collect();
    assert_eq!(chats.len(), 2, "{chats:?}");
    let function = &chats[0]["tools"][0]["function"];
    assert_eq!(function["name"], "hash.compute");
    assert_eq!(function["parameters"]["required"], json!(["text"]));
    let messages = chats[1]["messages"].as_array().unwrap();
    let tool_message = messages
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("a tool message");
    assert!(
        tool_message["content"].as_str().unwrap().contains(&digest),
        "{tool_message}"
    );
    assert_eq!(tool_message["tool_name"], "hash.compute");
    let assistant = messages
        .iter()
        .find(|m| m["role"] == "assistant")
        .expect("the assistant's call");
    assert_eq!(
        assistant["tool_calls"][0]["function"]["arguments"],
        json!({ "text": text })
    );
}

#[tokio::test]
async fn the_demo_uses_ollama_when_ollama_host_answers() {
    let fake = FakeOllama::start().await;
    let digest = sha256(aep_host::demo::DEMO_TEXT);
    fake.enqueue(Reply::tool_calls(vec![ToolCall::new(
        "hash.compute",
        json!({ "text": aep_host::demo::DEMO_TEXT }),
    )]));
    fake.enqueue(Reply::text(&format!("The digest is {digest}.")));
    let options = aep_host::demo::DemoOptions {
        ollama: Some(fake.base_url()),
        model: None,
        openai: None,
    };
    let mut out = Vec::new();
    let report = aep_host::demo::run_with(&mut out, options).await.unwrap();
    let printed = String::from_utf8(out).unwrap();
    assert!(printed.contains("aep-ollama in front of Ollama"), "{printed}");
    assert!(
        printed.contains(&format!("model {EXTENSION_ID}/{PROVIDER_ID}/llama3.2")),
        "{printed}"
    );
    assert!(printed.contains("-> tool call hash.compute"), "{printed}");
    assert!(report.answer.contains(&digest), "{}", report.answer);
    let chats = fake
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/chat")
        .count();
    assert_eq!(chats, 2);
    let first = fake
        .requests()
        .into_iter()
        .find(|r| r.path == "/api/chat")
        .unwrap()
        .body
        .unwrap();
    assert_eq!(
        first["messages"][0]["role"], "system",
        "a real model gets the system prompt"
    );
}

#[tokio::test]
async fn the_demo_falls_back_to_the_scripted_model_when_ollama_is_down() {
    let options = aep_host::demo::DemoOptions {
        ollama: Some(common::dead_url().await),
        model: None,
        openai: None,
    };
    let mut out = Vec::new();
    let report = aep_host::demo::run_with(&mut out, options).await.unwrap();
    let printed = String::from_utf8(out).unwrap();
    assert!(
        printed.contains("not reachable") && printed.contains("using the scripted model"),
        "{printed}"
    );
    assert!(report.answer.contains(&sha256(aep_host::demo::DEMO_TEXT)));
}
