//! An MCP server (not an AEP extension) whose tool list the test changes, optionally
//! announcing the change with `notifications/tools/list_changed`.

use std::future::Future;
use std::sync::{Arc, Mutex};

use axum::Router;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{MaybeSendFuture, NotificationContext, Peer, RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};
use serde_json::json;

#[derive(Clone, Default)]
pub struct Dynamic {
    tools: Arc<Mutex<Vec<String>>>,
    peers: Arc<Mutex<Vec<Peer<RoleServer>>>>,
}

impl Dynamic {
    pub fn new(tools: &[&str]) -> Self {
        let server = Self::default();
        server.set_tools(tools);
        server
    }

    /// Changes the list without telling anyone.
    pub fn set_tools(&self, tools: &[&str]) {
        *self.tools.lock().unwrap() = tools.iter().map(|t| t.to_string()).collect();
    }

    /// Changes the list and sends `notifications/tools/list_changed` to every session.
    pub async fn set_tools_and_notify(&self, tools: &[&str]) {
        self.set_tools(tools);
        let peers = self.peers.lock().unwrap().clone();
        for peer in peers {
            let _ = peer.notify_tool_list_changed().await;
        }
    }

    /// Served at `/mcp`.
    pub fn router(&self) -> Router {
        let handler = self.clone();
        let service = StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        Router::new().route_service("/mcp", service)
    }
}

fn tool(name: &str) -> Tool {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    let serde_json::Value::Object(schema) = schema else {
        unreachable!()
    };
    Tool::new(name.to_owned(), format!("The {name} tool."), Arc::new(schema))
}

impl ServerHandler for Dynamic {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.tools.lock().unwrap().iter().map(|n| tool(n)).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.tools.lock().unwrap().iter().any(|t| *t == request.name) {
            return Err(ErrorData::invalid_params(
                format!("tool '{}' not found", request.name),
                None,
            ));
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("{} ran", request.name))]).into())
    }

    fn on_initialized(
        &self,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.peers.lock().unwrap().push(context.peer.clone());
        std::future::ready(())
    }
}
