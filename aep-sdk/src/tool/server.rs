//! [`ToolServer`]: an rmcp `ServerHandler` serving a fixed table of tools.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, Implementation, Tool, ToolAnnotations};

use super::context::{LogLevel, SessionLevel, ToolContext};
use super::result::error_result;
use super::subscriptions::SessionSubscriptions;
use super::{
    CompletionDef, JsonObject, PromptDef, ResourceDef, ResourceTemplateDef, Subscriptions, ToolSwitch,
};

/// Calls one tool on the state `S`: arguments in, MCP result out.
pub type ToolFn<S> = fn(Arc<S>, JsonObject, ToolContext) -> BoxFuture<'static, CallToolResult>;

/// One tool of a [`ToolServer`]: its `tools/list` entry and how to call it.
pub struct ToolDef<S> {
    /// The `tools/list` entry (name, description, schemas, annotations).
    pub tool: Tool,
    /// The call.
    pub call: ToolFn<S>,
    /// How long a call may run (else the server's default, if any).
    pub timeout: Option<Duration>,
    /// Whether each progress report restarts the timeout.
    pub timeout_resets_on_progress: bool,
    /// The OAuth scopes a call needs (empty: the extension's default).
    pub scopes: Vec<String>,
}

impl<S> ToolDef<S> {
    /// A tool named `name` with an input schema, called through `call`.
    pub fn new(name: &str, input_schema: Arc<JsonObject>, call: ToolFn<S>) -> Self {
        let tool = Tool::new_with_raw(name.to_owned(), None, input_schema);
        Self {
            tool,
            call,
            timeout: None,
            timeout_resets_on_progress: false,
            scopes: Vec::new(),
        }
    }

    /// The OAuth scopes a call needs (instead of the extension's default).
    pub fn scopes<I: IntoIterator<Item = T>, T: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Lets a call that reports progress ([`ToolContext::progress`]) run longer: each
    /// report restarts its timeout.
    pub fn timeout_resets_on_progress(mut self) -> Self {
        self.timeout_resets_on_progress = true;
        self
    }

    /// Bounds each call: past `timeout` the call is cancelled (its token trips, its
    /// future is dropped) and answers a tool error saying so.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
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

/// One callable tool: its name, call and bound.
pub(super) struct Entry<S> {
    pub(super) name: String,
    call: ToolFn<S>,
    timeout: Option<Duration>,
    resets_on_progress: bool,
}

/// How a call ended.
enum Outcome {
    Done(std::thread::Result<CallToolResult>),
    TimedOut(Duration),
    SessionEnded,
}

/// Resolves on the next progress report, never without a listener.
async fn progressed_once(activity: &Option<Arc<tokio::sync::Notify>>) {
    match activity {
        Some(activity) => activity.notified().await,
        None => std::future::pending().await,
    }
}

/// An MCP server over a fixed set of tools, resources and prompts, all served from one
/// shared state `S`.
///
/// It advertises exactly what it has: `tools` (with `listChanged` when it has a
/// [`ToolSwitch`]), `resources` when it has resources or templates (with `subscribe`
/// when it has [`Subscriptions`]), `prompts` when it has prompts, `completions` when it
/// has completions, and `logging` ([`ToolContext::log`] honours `logging/setLevel`).
pub struct ToolServer<S> {
    pub(super) state: Arc<S>,
    pub(super) calls: Arc<[Entry<S>]>,
    pub(super) listed: Arc<Vec<Tool>>,
    pub(super) resources: Arc<[ResourceDef<S>]>,
    pub(super) templates: Arc<[ResourceTemplateDef<S>]>,
    pub(super) prompts: Arc<[PromptDef<S>]>,
    pub(super) completions: Arc<[CompletionDef<S>]>,
    pub(super) switch: Option<ToolSwitch>,
    pub(super) subscriptions: Option<Subscriptions>,
    /// The URIs this session subscribed to.
    pub(super) subscribed: SessionSubscriptions,
    pub(super) info: Arc<Implementation>,
    default_timeout: Option<Duration>,
    pub(super) level: SessionLevel,
    scopes: Arc<super::McpScopes>,
}

/// A clone is the same server, sharing everything (a session's log level and
/// subscriptions included); [`ToolServer::session`] makes a new session's handler.
impl<S> Clone for ToolServer<S> {
    fn clone(&self) -> Self {
        Self {
            state: self.state.clone(),
            calls: self.calls.clone(),
            listed: self.listed.clone(),
            resources: self.resources.clone(),
            templates: self.templates.clone(),
            prompts: self.prompts.clone(),
            completions: self.completions.clone(),
            switch: self.switch.clone(),
            subscriptions: self.subscriptions.clone(),
            subscribed: self.subscribed.clone(),
            info: self.info.clone(),
            default_timeout: self.default_timeout,
            level: self.level.clone(),
            scopes: self.scopes.clone(),
        }
    }
}

impl<S> ToolServer<S> {
    /// The handler of a new MCP session: the same tools, resources, prompts and state,
    /// with a session's own log level (`info` until `logging/setLevel`) and no
    /// subscriptions yet. [`ExtensionBuilder::tool_server`](crate::server::ExtensionBuilder::tool_server)
    /// calls it for each session.
    pub fn session(&self) -> Self {
        Self {
            subscribed: SessionSubscriptions::default(),
            level: Arc::new(Mutex::new(LogLevel::Info)),
            ..self.clone()
        }
    }
}

impl<S: Send + Sync + 'static> ToolServer<S> {
    /// A server named `name`/`version` (its MCP `serverInfo`) serving `tools` on `state`.
    pub fn new(state: Arc<S>, name: &str, version: &str, tools: Vec<ToolDef<S>>) -> Self {
        let calls: Vec<_> = tools
            .iter()
            .map(|t| Entry {
                name: t.tool.name.to_string(),
                call: t.call,
                timeout: t.timeout,
                resets_on_progress: t.timeout_resets_on_progress,
            })
            .collect();
        let mut scopes = super::McpScopes::new();
        for tool in tools.iter().filter(|t| !t.scopes.is_empty()) {
            scopes = scopes.tool(&tool.tool.name, tool.scopes.iter().cloned());
        }
        let listed = tools.into_iter().map(|t| t.tool).collect();
        Self {
            state,
            calls: calls.into(),
            listed: Arc::new(listed),
            resources: Arc::new([]),
            templates: Arc::new([]),
            prompts: Arc::new([]),
            completions: Arc::new([]),
            switch: None,
            subscriptions: None,
            subscribed: SessionSubscriptions::default(),
            info: Arc::new(Implementation::new(name, version)),
            default_timeout: None,
            level: Arc::new(Mutex::new(LogLevel::Info)),
            scopes: Arc::new(scopes),
        }
    }

    /// Serves `resources` (fixed URIs) too.
    pub fn resources(mut self, resources: Vec<ResourceDef<S>>) -> Self {
        let mut scopes = (*self.scopes).clone();
        for r in resources.iter().filter(|r| !r.scopes.is_empty()) {
            scopes = scopes.resource(&r.resource.uri, r.scopes.iter().cloned());
        }
        self.scopes = Arc::new(scopes);
        self.resources = resources.into();
        self
    }

    /// Serves `templates` (URI templates) too.
    pub fn resource_templates(mut self, templates: Vec<ResourceTemplateDef<S>>) -> Self {
        let mut scopes = (*self.scopes).clone();
        for t in templates.iter().filter(|t| !t.scopes.is_empty()) {
            scopes = scopes.resource_template(&t.template.uri_template, t.scopes.iter().cloned());
        }
        self.scopes = Arc::new(scopes);
        self.templates = templates.into();
        self
    }

    /// Serves `prompts` too.
    pub fn prompts(mut self, prompts: Vec<PromptDef<S>>) -> Self {
        let mut scopes = (*self.scopes).clone();
        for p in prompts.iter().filter(|p| !p.scopes.is_empty()) {
            scopes = scopes.prompt(&p.prompt.name, p.scopes.iter().cloned());
        }
        self.scopes = Arc::new(scopes);
        self.prompts = prompts.into();
        self
    }

    /// The OAuth scopes its tools, resources and prompts declare
    /// ([`ExtensionBuilder::tool_server`](crate::server::ExtensionBuilder::tool_server)
    /// mounts the server with them).
    pub fn required_scopes(&self) -> super::McpScopes {
        (*self.scopes).clone()
    }

    /// Answers `completion/complete` with `completions` (and advertises `completions`).
    pub fn completions(mut self, completions: Vec<CompletionDef<S>>) -> Self {
        self.completions = completions.into();
        self
    }

    /// Accepts resource subscriptions, told of changes through `subscriptions` (and
    /// advertises `resources.subscribe`).
    pub fn subscriptions(mut self, subscriptions: Subscriptions) -> Self {
        self.subscriptions = Some(subscriptions);
        self
    }

    /// Lets `switch` enable and disable the tools while the server runs.
    pub fn switch(mut self, switch: ToolSwitch) -> Self {
        self.switch = Some(switch);
        self
    }

    /// Bounds every call of a tool that has no timeout of its own.
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = Some(timeout);
        self
    }

    /// The `tools/list` entries (switched-off tools included).
    pub fn tools(&self) -> &[Tool] {
        &self.listed
    }

    /// Calls tool `name` directly, as `tools/call` would; `None` if there is no such
    /// tool or it is switched off.
    pub async fn call(&self, name: &str, arguments: JsonObject, ctx: ToolContext) -> Option<CallToolResult> {
        let entry = self.entry(name)?;
        Some(self.run(entry, arguments, ctx).await)
    }

    /// The enabled tool `name`.
    pub(super) fn entry(&self, name: &str) -> Option<&Entry<S>> {
        self.calls
            .iter()
            .find(|e| e.name == name)
            .filter(|e| self.enabled(&e.name))
    }

    pub(super) fn enabled(&self, name: &str) -> bool {
        self.switch.as_ref().is_none_or(|s| s.is_enabled(name))
    }

    /// Runs one call within its bound; a panicking tool fails its call, not the server.
    pub(super) async fn run(
        &self,
        entry: &Entry<S>,
        arguments: JsonObject,
        ctx: ToolContext,
    ) -> CallToolResult {
        let cancellation = ctx.cancellation().clone();
        let bound = entry.timeout.or(self.default_timeout).or(ctx.default_timeout());
        // Only a bound that progress restarts needs to hear of progress.
        let activity =
            (bound.is_some() && entry.resets_on_progress).then(|| Arc::new(tokio::sync::Notify::new()));
        let ctx = match &activity {
            Some(activity) => ctx.with_activity(activity.clone()),
            None => ctx,
        };
        let session_end = ctx.session_end().cloned();
        let future = std::panic::AssertUnwindSafe((entry.call)(self.state.clone(), arguments, ctx));
        let guarded = futures::FutureExt::catch_unwind(future);
        let outcome = match (bound, session_end) {
            (None, None) => Outcome::Done(guarded.await),
            (bound, session_end) => {
                tokio::pin!(guarded);
                let sleep = |bound: Option<Duration>| async move {
                    match bound {
                        Some(bound) => tokio::time::sleep(bound).await,
                        None => std::future::pending().await,
                    }
                };
                let ended = async {
                    match &session_end {
                        Some(end) => end.cancelled().await,
                        None => std::future::pending().await,
                    }
                };
                tokio::pin!(ended);
                loop {
                    tokio::select! {
                        // The call first: one that is done at once (most are) never
                        // registers with the session's token or the timer.
                        biased;
                        result = &mut guarded => break Outcome::Done(result),
                        () = sleep(bound) => break Outcome::TimedOut(bound.unwrap_or_default()),
                        () = &mut ended => break Outcome::SessionEnded,
                        // A progress report restarts the bound (a new sleep), if allowed.
                        () = progressed_once(&activity) => {}
                    }
                }
            }
        };
        match outcome {
            Outcome::Done(Ok(result)) => result,
            Outcome::Done(Err(_)) => {
                tracing::error!(tool = %entry.name, "tool panicked");
                error_result("the tool failed unexpectedly")
            }
            Outcome::SessionEnded => {
                // Nobody is left to read the answer; the token tells the work to stop.
                cancellation.cancel();
                tracing::debug!(tool = %entry.name, "MCP session ended during the call");
                error_result(format!(
                    "tool '{}' was cancelled: its MCP session ended",
                    entry.name
                ))
            }
            Outcome::TimedOut(bound) => {
                cancellation.cancel();
                tracing::warn!(tool = %entry.name, ?bound, "tool call timed out");
                error_result(format!(
                    "tool '{}' did not finish within {} ms and was cancelled",
                    entry.name,
                    bound.as_millis()
                ))
            }
        }
    }
}
