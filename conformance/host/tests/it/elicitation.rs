//! The pool's elicitation policy against an rmcp server whose tool sends
//! `elicitation/create` in the middle of a call: with `AcceptDefaults` the client
//! declares form elicitation and accepts with each property's schema default; a
//! required field without a default is declined; without a policy nothing is declared
//! and the request is declined, as before.

use std::sync::Arc;

use aep_host::mcp::{ElicitationPolicy, McpPool, PoolOptions};
use aep_sdk::testing::spawn;
use axum::Router;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Value, json};

/// Tools `profile` (every field has a default) and `signup` (a required email without
/// one). Each answers with what the client declared and what it answered:
/// `{"declared": <capabilities.elicitation>, "answer": <ElicitResult>}`.
#[derive(Clone)]
struct Asking;

fn schema_of(tool: &str) -> Value {
    match tool {
        "profile" => json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
                "verified": {"type": "boolean", "default": true},
                "nickname": {"type": "string"},
            },
        }),
        _ => json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "email": {"type": "string", "format": "email"},
            },
            "required": ["name", "email"],
        }),
    }
}

impl ServerHandler for Asking {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let empty = Arc::new(serde_json::Map::new());
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("profile", "Asks for a profile.", empty.clone()),
            Tool::new("signup", "Asks for an email.", empty),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let declared = context
            .peer
            .peer_info()
            .and_then(|info| info.capabilities.elicitation.clone());
        let params: ElicitRequestParams = serde_json::from_value(json!({
            "mode": "form",
            "message": format!("{} please", request.name),
            "requestedSchema": schema_of(&request.name),
        }))
        .expect("a form elicitation");
        let answer = context
            .peer
            .create_elicitation(params)
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let text = json!({"declared": declared, "answer": answer}).to_string();
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

async fn server() -> (aep_sdk::testing::TestServer, url::Url) {
    let service = StreamableHttpService::new(
        || Ok(Asking),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let server = spawn(Router::new().route_service("/mcp", service)).await;
    let url = url::Url::parse(&format!("{}/mcp", server.base_url)).unwrap();
    (server, url)
}

async fn ask(pool: &McpPool, url: &url::Url, tool: &str) -> Value {
    let result = pool.call(url, tool, serde_json::Map::new()).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let text = serde_json::to_value(&result).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    serde_json::from_str(&text).unwrap()
}

fn accepting() -> McpPool {
    McpPool::with_options(PoolOptions {
        elicitation: Some(ElicitationPolicy::AcceptDefaults),
        ..PoolOptions::default()
    })
}

#[tokio::test]
async fn accept_defaults_declares_form_elicitation_and_answers_with_the_schema_defaults() {
    let (_server, url) = server().await;
    let pool = accepting();
    let seen = ask(&pool, &url, "profile").await;
    assert_eq!(seen["declared"], json!({"form": {}}));
    assert_eq!(
        seen["answer"],
        json!({
            "action": "accept",
            "content": {"name": "John Doe", "age": 30, "status": "active", "verified": true},
        })
    );
    assert_eq!(pool.stats(&url).elicitations, 1);
    pool.close().await;
}

#[tokio::test]
async fn accept_defaults_declines_when_a_required_field_has_no_default() {
    let (_server, url) = server().await;
    let pool = accepting();
    let seen = ask(&pool, &url, "signup").await;
    assert_eq!(seen["answer"], json!({"action": "decline"}));
    // Answered by the policy (declining), over the same connection as before.
    let again = ask(&pool, &url, "profile").await;
    assert_eq!(again["answer"]["action"], "accept");
    let stats = pool.stats(&url);
    assert_eq!((stats.elicitations, stats.connects), (2, 1));
    pool.close().await;
}

#[tokio::test]
async fn without_a_policy_nothing_is_declared_and_the_request_is_declined() {
    let (_server, url) = server().await;
    let pool = McpPool::new();
    let seen = ask(&pool, &url, "profile").await;
    assert_eq!(seen["declared"], Value::Null);
    assert_eq!(seen["answer"], json!({"action": "decline"}));
    assert_eq!(pool.stats(&url).elicitations, 0);
    pool.close().await;
}
