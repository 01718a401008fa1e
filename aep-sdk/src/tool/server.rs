//! [`ToolServer`]: an rmcp `ServerHandler` serving a fixed table of tools.

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use tokio_util::sync::CancellationToken;

use super::{JsonObject, error_result};

/// What a tool call knows besides its arguments.
#[derive(Debug, Clone)]
pub struct ToolContext {
    cancellation: CancellationToken,
    meta: Option<JsonObject>,
}

impl ToolContext {
    /// A context for calling a tool directly (tests).
    pub fn new(cancellation: CancellationToken) -> Self {
        Self {
            cancellation,
            meta: None,
        }
    }

    /// Cancelled when the client cancels the call or goes away.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// The request's `_meta` (progress token, client metadata, trace context), if the
    /// client sent one.
    pub fn meta(&self) -> Option<&JsonObject> {
        self.meta.as_ref()
    }

    /// The progress token the client sent in `_meta.progressToken` (a string or an
    /// integer), if any: progress notifications for this call must carry it.
    pub fn progress_token(&self) -> Option<&serde_json::Value> {
        self.meta.as_ref()?.get("progressToken")
    }

    /// The same context carrying `meta` as the request's `_meta` (tests, direct calls).
    pub fn with_meta(mut self, meta: JsonObject) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// Calls one tool on the state `S`: arguments in, MCP result out.
pub type ToolCall<S> = fn(Arc<S>, JsonObject, ToolContext) -> BoxFuture<'static, CallToolResult>;

/// One tool of a [`ToolServer`]: its `tools/list` entry and how to call it.
pub struct ToolDef<S> {
    /// The `tools/list` entry (name, description, schemas, annotations).
    pub tool: Tool,
    /// The call.
    pub call: ToolCall<S>,
}

impl<S> ToolDef<S> {
    /// A tool named `name` with an input schema, called through `call`.
    pub fn new(name: &str, input_schema: Arc<JsonObject>, call: ToolCall<S>) -> Self {
        let tool = Tool::new_with_raw(name.to_owned(), None, input_schema);
        Self { tool, call }
    }

    /// Sets the description.
    pub fn description(mut self, description: &str) -> Self {
        self.tool.description = Some(description.to_owned().into());
        self
    }

    /// Sets the human-readable title.
    pub fn title(mut self, title: &str) -> Self {
        self.tool.title = Some(title.to_owned());
        self
    }

    /// Sets the output schema.
    pub fn output_schema(mut self, schema: Arc<JsonObject>) -> Self {
        self.tool.output_schema = Some(schema);
        self
    }

    /// Sets the annotations (read-only, destructive, idempotent, open-world hints).
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.tool.annotations = Some(annotations);
        self
    }
}

/// An MCP server over a fixed set of tools, all called on one shared state `S`.
pub struct ToolServer<S> {
    state: Arc<S>,
    calls: Arc<[(String, ToolCall<S>)]>,
    listed: Arc<Vec<Tool>>,
    info: Arc<Implementation>,
}

impl<S> Clone for ToolServer<S> {
    fn clone(&self) -> Self {
        Self {
            state: self.state.clone(),
            calls: self.calls.clone(),
            listed: self.listed.clone(),
            info: self.info.clone(),
        }
    }
}

impl<S: Send + Sync + 'static> ToolServer<S> {
    /// A server named `name`/`version` (its MCP `serverInfo`) serving `tools` on `state`.
    pub fn new(state: Arc<S>, name: &str, version: &str, tools: Vec<ToolDef<S>>) -> Self {
        let calls: Vec<_> = tools.iter().map(|t| (t.tool.name.to_string(), t.call)).collect();
        let listed = tools.into_iter().map(|t| t.tool).collect();
        Self {
            state,
            calls: calls.into(),
            listed: Arc::new(listed),
            info: Arc::new(Implementation::new(name, version)),
        }
    }

    /// The `tools/list` entries.
    pub fn tools(&self) -> &[Tool] {
        &self.listed
    }

    /// Calls tool `name` directly, as `tools/call` would.
    pub async fn call(&self, name: &str, arguments: JsonObject, ctx: ToolContext) -> Option<CallToolResult> {
        let (_, call) = self.calls.iter().find(|(n, _)| n == name)?;
        Some(call(self.state.clone(), arguments, ctx).await)
    }
}

impl<S: Send + Sync + 'static> ServerHandler for ToolServer<S> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info((*self.info).clone())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items((*self.listed).clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.listed.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // rmcp moves the request's `_meta` into the context; older clients' `_meta` may
        // still sit on the params.
        let meta = Some(context.meta.0.0)
            .filter(|m| !m.is_empty())
            .or_else(|| request.meta.map(|m| m.0.0).filter(|m| !m.is_empty()));
        let ctx = ToolContext {
            cancellation: context.ct.clone(),
            meta,
        };
        let arguments = request.arguments.unwrap_or_default();
        let Some((_, call)) = self.calls.iter().find(|(n, _)| *n == request.name) else {
            return Err(ErrorData::invalid_params(
                format!("tool '{}' not found", request.name),
                None,
            ));
        };
        // A panicking tool fails its call, not the server.
        let future = std::panic::AssertUnwindSafe(call(self.state.clone(), arguments, ctx));
        let result = match futures::FutureExt::catch_unwind(future).await {
            Ok(result) => result,
            Err(_) => {
                tracing::error!(tool = %request.name, "tool panicked");
                error_result("the tool failed unexpectedly")
            }
        };
        Ok(result.into())
    }
}
