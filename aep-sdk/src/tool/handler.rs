//! [`ToolServer`]'s MCP side: rmcp's `ServerHandler`, from `initialize` to
//! `prompts/get`.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestMethod, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResponse, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, PromptsCapability,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourcesCapability,
    ServerCapabilities, ServerConfig, SubscribeRequestMethod, SubscribeRequestParams, Tool, ToolsCapability,
    UnsubscribeRequestMethod, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};

use super::completion::completion_info;
use super::context::{LogLevel, ToolContext};
use super::timing::Operation;
use super::{JsonObject, McpRequest, ToolServer};

/// The clock of operation `method`, running when the request is timed.
fn operation(context: &RequestContext<RoleServer>, method: &'static str) -> Operation {
    Operation::start(McpRequest::of(context).and_then(|m| m.timing.as_ref()), method)
}

/// Runs a resource read, prompt get or completion; a panic in it answers an internal
/// error and the server keeps serving.
async fn guarded<T>(
    what: &str,
    call: impl std::future::Future<Output = Result<T, ErrorData>>,
) -> Result<T, ErrorData> {
    match futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(call)).await {
        Ok(result) => result,
        Err(_) => {
            tracing::error!("{what} panicked");
            Err(ErrorData::internal_error(
                format!("the {what} failed unexpectedly"),
                None,
            ))
        }
    }
}

impl<S: Send + Sync + 'static> ToolServer<S> {
    /// The context of one request: its token, `_meta`, HTTP head and caller, the peer.
    fn context(&self, meta: Option<JsonObject>, context: &mut RequestContext<RoleServer>) -> ToolContext {
        // rmcp moves the request's `_meta` into the context; older clients' `_meta` may
        // still sit on the params.
        let meta = Some(std::mem::take(&mut context.meta.0.0))
            .filter(|m| !m.is_empty())
            .or_else(|| meta.filter(|m| !m.is_empty()));
        // The transport put the request's head there for this request alone: take it.
        let head = context.extensions.remove::<http::request::Parts>();
        ToolContext::for_request(
            context.ct.clone(),
            meta,
            head,
            context.peer.clone(),
            self.level.clone(),
        )
    }

    /// Runs tool `name`, if it exists and is switched on.
    async fn call_mcp(
        &self,
        name: &str,
        arguments: JsonObject,
        ctx: ToolContext,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(entry) = self.entry(name) else {
            let reason = match self.calls.iter().any(|e| e.name == name) {
                true => "is switched off",
                false => "not found",
            };
            return Err(ErrorData::invalid_params(format!("tool '{name}' {reason}"), None));
        };
        Ok(self.run(entry, arguments, ctx).await.into())
    }

    /// Whether a resource or template of this server names `uri`.
    fn serves(&self, uri: &str) -> bool {
        self.resources.iter().any(|r| r.resource.uri == uri)
            || self.templates.iter().any(|t| t.matcher.matches(uri).is_some())
    }

    fn listed_tools(&self) -> Vec<Tool> {
        self.listed
            .iter()
            .filter(|t| self.enabled(&t.name))
            .cloned()
            .collect()
    }
}

impl<S: Send + Sync + 'static> ServerHandler for ToolServer<S> {
    #[allow(deprecated)] // MCP logging: see LogLevel
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::default();
        capabilities.logging = Some(JsonObject::new());
        if !self.calls.is_empty() {
            let mut tools = ToolsCapability::default();
            tools.list_changed = self.switch.is_some().then_some(true);
            capabilities.tools = Some(tools);
        }
        if !self.resources.is_empty() || !self.templates.is_empty() {
            let mut resources = ResourcesCapability::default();
            resources.subscribe = self.subscriptions.is_some().then_some(true);
            capabilities.resources = Some(resources);
        }
        if !self.completions.is_empty() {
            capabilities.completions = Some(JsonObject::new());
        }
        if !self.prompts.is_empty() {
            capabilities.prompts = Some(PromptsCapability::default());
        }
        ServerConfig::new(capabilities).with_server_info((*self.info).clone())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Some(switch) = &self.switch {
            switch.subscribe(context.peer);
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let _operation = operation(&context, "tools/list");
        Ok(ListToolsResult::with_all_items(self.listed_tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.listed
            .iter()
            .find(|t| t.name == name && self.enabled(name))
            .cloned()
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let operation = operation(&context, "tools/call");
        // Before the context gives up the request's `_meta` and head.
        #[cfg(feature = "otel")]
        let span = crate::telemetry::enabled().then(|| {
            let params_meta = request.meta.as_ref().map(|m| &m.0.0);
            crate::telemetry::mcp::tool_call(&context, params_meta, &request.name)
        });
        let ctx = self.context(request.meta.take().map(|m| m.0.0), &mut context);
        let arguments = request.arguments.take().unwrap_or_default();
        #[cfg(feature = "otel")]
        if let Some(span) = span {
            use tracing::Instrument;
            let result = self
                .call_mcp(&request.name, arguments, ctx)
                .instrument(span.clone())
                .await;
            crate::telemetry::mcp::finished(&span, &result);
            operation.finish(Some(&request.name));
            return result;
        }
        let result = self.call_mcp(&request.name, arguments, ctx).await;
        operation.finish(Some(&request.name));
        result
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let _operation = operation(&context, "resources/list");
        let resources = self.resources.iter().map(|r| r.resource.clone()).collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let _operation = operation(&context, "resources/templates/list");
        let templates = self.templates.iter().map(|t| t.template.clone()).collect();
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let _operation = operation(&context, "resources/read");
        let ctx = self.context(request.meta.map(|m| m.0.0), &mut context);
        let uri = request.uri;
        // A fixed URI wins over a template that also matches it.
        let read = match self.resources.iter().find(|r| r.resource.uri == uri) {
            Some(resource) => Some((resource.read, JsonObject::new())),
            None => self
                .templates
                .iter()
                .find_map(|t| Some((t.read, t.matcher.matches(&uri)?))),
        };
        let Some((read, variables)) = read else {
            return Err(ErrorData::resource_not_found(
                format!("no resource matches '{uri}'"),
                Some(serde_json::json!({ "uri": uri })),
            ));
        };
        let contents = guarded("resource read", read(self.state.clone(), uri, variables, ctx)).await?;
        Ok(ReadResourceResult::new(contents).into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let _operation = operation(&context, "resources/subscribe");
        let Some(subscriptions) = &self.subscriptions else {
            return Err(ErrorData::method_not_found::<SubscribeRequestMethod>());
        };
        if !self.serves(&request.uri) {
            return Err(ErrorData::resource_not_found(
                format!("no resource matches '{}'", request.uri),
                Some(serde_json::json!({ "uri": request.uri })),
            ));
        }
        self.subscribed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(request.uri);
        subscriptions.register(context.peer, &self.subscribed);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let _operation = operation(&context, "resources/unsubscribe");
        if self.subscriptions.is_none() {
            return Err(ErrorData::method_not_found::<UnsubscribeRequestMethod>());
        }
        self.subscribed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&request.uri);
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let _operation = operation(&context, "completion/complete");
        if self.completions.is_empty() {
            return Err(ErrorData::method_not_found::<CompleteRequestMethod>());
        }
        let ctx = self.context(request.meta.map(|m| m.0.0), &mut context);
        let Some(def) = self
            .completions
            .iter()
            .find(|c| c.matches(&request.r#ref, &request.argument.name))
        else {
            // Nothing to suggest for this argument: an empty list, as MCP asks.
            return Ok(CompleteResult::new(completion_info(Vec::new())));
        };
        let values = guarded(
            "completion",
            (def.complete)(self.state.clone(), request.argument.value, ctx),
        )
        .await?;
        Ok(CompleteResult::new(completion_info(values)))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let _operation = operation(&context, "prompts/list");
        let prompts = self.prompts.iter().map(|p| p.prompt.clone()).collect();
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let _operation = operation(&context, "prompts/get");
        let ctx = self.context(request.meta.map(|m| m.0.0), &mut context);
        let Some(prompt) = self.prompts.iter().find(|p| p.prompt.name == request.name) else {
            return Err(ErrorData::invalid_params(
                format!("prompt '{}' not found", request.name),
                None,
            ));
        };
        let arguments = request.arguments.unwrap_or_default();
        Ok(
            guarded("prompt", (prompt.get)(self.state.clone(), arguments, ctx))
                .await?
                .into(),
        )
    }

    #[allow(deprecated)] // MCP logging: see LogLevel
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let _operation = operation(&context, "logging/setLevel");
        *self.level.lock().unwrap_or_else(|e| e.into_inner()) = LogLevel::from_rmcp(request.level);
        Ok(())
    }
}
