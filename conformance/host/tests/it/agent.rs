//! The agent loop end to end with an in-process scripted model provider: a model
//! answer that asks for `hash.compute` leads to a real MCP call, and the digest appears
//! in the final answer.

use crate::common;

use aep_host::ErrorCode;
use aep_host::agent::{Agent, AgentEvent, AgentStop};
use aep_host::catalog::Catalog;
use aep_host::demo::{SCRIPTED_EXTENSION_ID, SCRIPTED_MODEL_ID, SCRIPTED_PROVIDER_ID, scripted_extension};
use aep_host::models::{self, ModelRef};
use aep_host::registry::Registry;
use aep_sdk::protocol::{ChatRequest, ContentKind, Message, ProtocolVersion, Role};
use aep_sdk::testing::{TestServer, spawn};
use common::{Counts, catalog, sha256, utilities};
use std::sync::Arc;

struct Setup {
    catalog: Catalog,
    counts: Arc<Counts>,
    _servers: (TestServer, TestServer),
}

async fn setup(tool: &str) -> Setup {
    let (tools, counts) = utilities().await;
    let model = spawn(scripted_extension(tool).unwrap().router()).await;
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &tools.base_url, ProtocolVersion::LATEST)
        .unwrap();
    registry
        .register(SCRIPTED_EXTENSION_ID, &model.base_url, ProtocolVersion::LATEST)
        .unwrap();
    let catalog = catalog(registry);
    catalog.add_extension_tools("aep.utilities").await.unwrap();
    Setup {
        catalog,
        counts,
        _servers: (tools, model),
    }
}

fn model() -> ModelRef {
    ModelRef::new(SCRIPTED_EXTENSION_ID, SCRIPTED_PROVIDER_ID, SCRIPTED_MODEL_ID)
}

#[tokio::test]
async fn a_model_that_asks_for_hash_compute_gets_a_real_mcp_call_and_answers_with_the_digest() {
    let setup = setup("hash.compute").await;
    let tools = setup.catalog.resolve_enabled().await.tools;
    let agent = Agent::new(&setup.catalog, model()).tools(tools);
    let mut events = Vec::new();
    let outcome = agent
        .run(
            vec![Message::user(r#"What is the SHA-256 of "open sesame"?"#)],
            &mut |e: &AgentEvent| events.push(e.clone()),
        )
        .await
        .unwrap();

    let digest = sha256("open sesame");
    assert!(outcome.answer.contains(&digest), "{}", outcome.answer);
    assert_eq!(outcome.steps, 2);
    assert!(matches!(outcome.stop, AgentStop::Answered(_)));
    assert_eq!(setup.counts.get("mcp:tools/call"), 1, "a real MCP call");
    // user, assistant (tool call), tool (result), assistant (answer)
    let roles: Vec<Role> = outcome.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool, Role::Assistant]);
    let result = outcome.messages[2].contents[0].tool_result.as_ref().unwrap();
    assert_eq!(
        (result.call_id.as_str(), &result.result, result.is_error),
        ("call_1", &serde_json::json!(digest), false)
    );
    assert_eq!(
        outcome.messages[1].contents.last().unwrap().kind,
        ContentKind::ToolCall
    );
    // Streamed: the answer came as several deltas, the tool traffic as events.
    let deltas = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::TextDelta(_)))
        .count();
    assert!(deltas > 3, "{events:?}");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolCall(c) if c.name == "hash.compute"))
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolResult { outcome: Ok(o), .. } if o.text() == digest))
    );
}

#[tokio::test]
async fn bad_tool_arguments_go_back_to_the_model_as_a_tool_error() {
    // The scripted model sends {"text": ...} to text.case, which also needs `case`.
    let setup = setup("text.case").await;
    let tools = vec![setup.catalog.resolve("text.case").await.unwrap()];
    let agent = Agent::new(&setup.catalog, model()).tools(tools);
    let outcome = agent
        .run(vec![Message::user("shout")], &mut |_: &AgentEvent| {})
        .await
        .unwrap();
    let result = outcome.messages[2].contents[0].tool_result.as_ref().unwrap();
    assert!(result.is_error);
    assert_eq!(result.result["error"]["code"], "invalid_arguments");
    assert!(
        outcome.answer.starts_with("text.case failed:"),
        "{}",
        outcome.answer
    );
    assert!(
        outcome.answer.contains("arguments.case: is required"),
        "{}",
        outcome.answer
    );
    assert_eq!(setup.counts.get("mcp:tools/call"), 0);
}

#[tokio::test]
async fn the_step_limit_stops_a_model_that_keeps_calling_tools() {
    let setup = setup("hash.compute").await;
    let tools = setup.catalog.resolve_enabled().await.tools;
    let agent = Agent::new(&setup.catalog, model()).tools(tools).max_steps(1);
    let outcome = agent
        .run(vec![Message::user("hash \"x\"")], &mut |_: &AgentEvent| {})
        .await
        .unwrap();
    assert_eq!(outcome.stop, AgentStop::StepLimit);
    assert_eq!(outcome.steps, 1);
    assert_eq!(
        setup.counts.get("mcp:tools/call"),
        1,
        "the requested call still ran"
    );
}

#[tokio::test]
async fn chat_without_tools_and_provider_checks() {
    let setup = setup("hash.compute").await;
    let registry: &Registry = setup.catalog.registry();
    let request = ChatRequest::new(SCRIPTED_MODEL_ID, vec![Message::user("echo me back")]);
    let response = models::chat(registry, &model(), &request).await.unwrap();
    assert_eq!(response.all_text(), "echo me back");

    let wrong = ModelRef::new(SCRIPTED_EXTENSION_ID, "ollama", "llama3.2");
    let error = models::chat(registry, &wrong, &request).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::ModelProviderNotFound, "{error}");
    let unknown = ModelRef::new("acme.nothing", "x", "y");
    let error = models::chat_stream(registry, &unknown, &request)
        .await
        .err()
        .unwrap();
    assert_eq!(error.code, ErrorCode::ExtensionUnreachable, "{error}");
    // Provider ids match case-insensitively, as the routes do.
    let upper = ModelRef::new(SCRIPTED_EXTENSION_ID, "SCRIPTED", SCRIPTED_MODEL_ID);
    assert_eq!(
        models::chat(registry, &upper, &request).await.unwrap().all_text(),
        "echo me back"
    );
}
