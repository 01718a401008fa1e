//! [`Extension`] and its builder: identity, providers, tools and MCP servers in;
//! manifest and `axum::Router` out.

use crate::validate::Problem;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use bytes::Bytes;
use tokio_util::sync::CancellationToken;
use tower_http::catch_panic::CatchPanicLayer;

use super::access::{McpAccess, OriginPolicy};
use super::args::ServeArgs;
use super::auth::{self, BearerAuth, Gate, OAuth, ScopePolicy};
use super::body::BodyLimits;
use super::mcp::{McpMount, Timing};
use super::metrics::{self, Metrics};
use super::provider::ModelProvider;
use super::routes::{self, Registered, RequestCheck, Shared};
use crate::protocol::{
    CapabilityDescriptor, Contributions, ExtensionIdentity, Manifest, McpDescriptor, ModelProviderDescriptor,
    ProtocolVersion, ToolContribution, capability, paths,
};
use crate::tool::McpScopes;
use crate::{AepError, Error};

/// Default interval of `: keep-alive` comments during a silent stream.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// How the router treats requests: limits, timeouts, access.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) limits: BodyLimits,
    pub(crate) mcp_access: McpAccess,
    pub(crate) auth: Option<BearerAuth>,
    pub(crate) oauth: Option<OAuth>,
    /// The base URL resources are named after when `oauth` names none: the listen
    /// address, once known.
    pub(crate) public_url: Option<String>,
    pub(crate) scopes: ScopePolicy,
    /// Routes that need no credential.
    pub(crate) public_paths: Vec<String>,
    /// The bound on tool calls that have none of their own (`--tool-timeout`).
    pub(crate) tool_timeout: Option<Duration>,
    /// Whether Prometheus metrics are recorded.
    pub(crate) metrics: bool,
}

impl Settings {
    /// What `args` change: one place for [`ExtensionBuilder::serve_args`] and
    /// [`Extension::serve_with`].
    ///
    /// [`ExtensionBuilder::serve_args`]: ExtensionBuilder::serve_args
    pub(crate) fn apply(&mut self, args: &ServeArgs) -> Result<(), Error> {
        if args.metrics_listen.is_some() || crate::telemetry::metrics_enabled() {
            self.metrics = true;
        }
        if let Some(token) = args.bearer_token()? {
            self.auth = Some(BearerAuth::new(token).public_discovery(args.public_discovery));
        }
        if let Some(url) = &args.public_url {
            self.public_url = Some(url.trim().to_owned());
        }
        if let Some(oauth) = args.oauth()? {
            self.oauth = Some(oauth);
        }
        let access = &mut self.mcp_access;
        access.allowed_hosts.extend(args.allowed_hosts.iter().cloned());
        access
            .allowed_origins
            .extend(args.allowed_origins.iter().cloned());
        if let Some(timeout) = args.tool_timeout {
            self.tool_timeout = Some(timeout);
        }
        Ok(())
    }
}

/// A configured extension: serve it with [`Extension::serve`] or take its
/// [`Extension::router`] to mount it yourself.
///
/// ```
/// use aep_sdk::server::Extension;
///
/// let extension = Extension::builder("acme.empty", "Empty", "1.0.0").build().unwrap();
/// let manifest = extension.manifest(aep_sdk::protocol::ProtocolVersion::V1);
/// assert!(manifest.capabilities.contains_key("aep.health"));
/// let _router: axum::Router = extension.router();
/// ```
///
/// Clones are cheap and share their state (the [`Extension::open_streams`] counter and
/// the shutdown token): keep one to watch the server that
/// [`Extension::serve_listener`] runs with the other.
#[derive(Clone)]
pub struct Extension {
    manifest: Manifest,
    shared: Arc<Shared>,
    routes: Router,
    pub(crate) mcp: Vec<McpMount>,
    pub(crate) settings: Settings,
    pub(crate) shutdown: CancellationToken,
    metrics: Option<Arc<Metrics>>,
}

impl Extension {
    /// Starts declaring an extension with its identity.
    pub fn builder(
        id: impl Into<String>,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> ExtensionBuilder {
        ExtensionBuilder {
            identity: ExtensionIdentity {
                id: id.into(),
                name: name.into(),
                version: version.into(),
                description: None,
            },
            providers: Vec::new(),
            tools: Vec::new(),
            mcp: Vec::new(),
            capabilities: Vec::new(),
            checks: Vec::new(),
            extra_routes: Router::new(),
            settings: Settings {
                limits: BodyLimits::default(),
                mcp_access: McpAccess::default(),
                auth: None,
                oauth: None,
                public_url: None,
                scopes: ScopePolicy::default(),
                public_paths: Vec::new(),
                tool_timeout: None,
                metrics: false,
            },
            serve_args: None,
            mcp_scopes: Vec::new(),
            keep_alive: DEFAULT_KEEP_ALIVE,
            shutdown: CancellationToken::new(),
            #[cfg(feature = "config")]
            option_sets: Vec::new(),
        }
    }

    /// The manifest served for `version`.
    pub fn manifest(&self, version: ProtocolVersion) -> Manifest {
        Manifest {
            protocol_version: version,
            ..self.manifest.clone()
        }
    }

    /// The extension's identity.
    pub fn identity(&self) -> &ExtensionIdentity {
        &self.manifest.extension
    }

    /// Every AEP route and co-hosted MCP server, with tracing, panic catching, the body
    /// limit and body-read timeout, the browser `Origin` rule and CORS (see
    /// [`McpAccess`]), and authentication when configured; unknown routes and wrong
    /// methods answer AEP errors.
    pub fn router(&self) -> Router {
        let settings = &self.settings;
        // Capability and user routes: `AepJson` finds the limits in the extensions, and
        // their code runs under a panic guard (the built-in routes guard their own calls).
        let extra = self
            .routes
            .clone()
            .layer(axum::Extension(settings.limits))
            .layer(CatchPanicLayer::custom(super::panic_response));
        let mut router = routes::router(self.shared.clone(), self.metrics.clone()).merge(extra);
        let mcp_paths: Vec<String> = self.mcp.iter().map(|m| m.path.clone()).collect();
        let gate = self.gate(mcp_paths.clone());
        if let Some(metadata) = gate.as_ref().and_then(Gate::metadata_routes) {
            router = router.merge(metadata);
        }
        let router = router
            .fallback(routes::not_found)
            .method_not_allowed_fallback(routes::method_not_allowed);
        // HTTP server spans continuing the caller's trace: only when they are exported.
        #[cfg(feature = "otel")]
        let server_span = crate::telemetry::enabled()
            .then(|| axum::middleware::from_fn(crate::telemetry::http_server::server_span));
        #[cfg(not(feature = "otel"))]
        let server_span: Option<tower::layer::util::Identity> = None;
        // One stack, outermost first, put around each route (and the fallbacks) in one
        // go: each `Router::layer` boxes every route once more, and a request pays for
        // each box. The request span records method, URI and version, never headers
        // or bodies. The origin rule comes before anything else looks at the
        // request (preflights carry no credentials); metrics sit outside
        // authentication, so refused credentials are counted too.
        let stack = tower::ServiceBuilder::new()
            .layer(super::request_span::RequestSpanLayer)
            .layer(OriginPolicy::new(&settings.mcp_access, mcp_paths).layer())
            .option_layer(server_span)
            .option_layer(self.metrics.clone().map(metrics::RecordRequests))
            .option_layer(gate.map(|gate| axum::middleware::from_fn_with_state(gate, auth::require)));
        // `with_state` turns every handler (the fallbacks among them) into its final,
        // layered route now; left as it is, axum would do that again on every request.
        let mut router = router.layer(stack.clone()).with_state(());
        // Each MCP endpoint is a route of its own with the stack inside: layered with the
        // rest, it would be boxed twice (its route, then the layered route), and each box
        // is a clone and an allocation per request.
        for mount in &self.mcp {
            let timing = self.metrics.as_ref().map(|metrics| Timing {
                metrics: metrics.clone(),
                tools: self
                    .manifest
                    .contributions
                    .tools
                    .iter()
                    .filter(|t| t.mcp.server == mount.id)
                    .map(|t| t.mcp.tool.clone())
                    .collect(),
            });
            let endpoint = mount.service(
                &settings.mcp_access,
                settings.limits,
                self.shutdown.clone(),
                timing,
                settings.tool_timeout,
            );
            router = router.route_service(&mount.path, stack.clone().service(endpoint));
        }
        router
    }

    /// How many `/chat/stream` answers are open right now (a leak check: it returns to
    /// zero once every client is gone).
    pub fn open_streams(&self) -> usize {
        self.shared.open_streams.get()
    }

    /// Turns metrics on (what [`ExtensionBuilder::metrics`] and `--metrics-listen` ask).
    pub(crate) fn record_metrics(&mut self) {
        if self.metrics.is_none() {
            let streams = self.shared.open_streams.clone();
            self.metrics = Some(Arc::new(Metrics::new(move || streams.get())));
        }
    }

    /// `GET /metrics` in the Prometheus text format (version 0.0.4), to serve on a
    /// listener of its own; `None` unless [`ExtensionBuilder::metrics`] (or
    /// `--metrics-listen`) turned metrics on.
    /// The instruments, in the OpenTelemetry semantic conventions' names:
    ///
    /// - `http_server_request_duration_seconds` (histogram; `http_request_method`,
    ///   `http_route`: the route template, `http_response_status_code`),
    /// - `gen_ai_server_request_duration_seconds` and
    ///   `gen_ai_server_time_to_first_token_seconds` (histograms, the latter of streams;
    ///   `gen_ai_provider_name`, `gen_ai_request_model`: the first
    ///   [`MODEL_LABELS`](super::MODEL_LABELS) models, then `other`),
    /// - `gen_ai_server_time_per_output_token_seconds` (histogram of streams that ended
    ///   normally with at least two output tokens; the same labels),
    /// - `gen_ai_client_token_usage` (histogram of the usage answers report; the same
    ///   labels and `gen_ai_token_type`: `input` or `output`),
    /// - `aep_server_open_streams` (gauge),
    /// - `aep_server_errors_total` (counter; `code`: a spec error code or `other`),
    /// - `mcp_server_operation_duration_seconds` (histogram; `mcp_method_name`,
    ///   `gen_ai_tool_name` for `tools/call`: a declared tool or `other`).
    pub fn metrics_router(&self) -> Option<Router> {
        self.metrics.as_ref().map(Metrics::router)
    }

    /// The credential checks, built for the router (resources are named after the public
    /// URL, which may have become known since the configuration was checked).
    fn gate(&self, mcp_paths: Vec<String>) -> Option<Gate> {
        let settings = &self.settings;
        let public = settings
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", super::DEFAULT_LISTEN));
        match Gate::new(
            settings.auth.as_ref(),
            settings.oauth.as_ref(),
            settings.scopes.clone(),
            mcp_paths,
            &settings.public_paths,
            &public,
            &self.manifest.extension.name,
        ) {
            Ok(gate) => gate,
            Err(error) => {
                // Checked when configured, so not expected; refuse every request rather
                // than serve without the credentials asked for.
                tracing::error!("authentication is misconfigured, every request is refused: {error}");
                Some(Gate::closed())
            }
        }
    }

    /// Ends every open stream with a terminal `shutting_down` update and closes MCP
    /// sessions. [`Extension::serve`] calls it once the shutdown grace period is over.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }
}

/// Declares an [`Extension`]. Nothing is checked until [`ExtensionBuilder::build`],
/// which reports every problem at once.
pub struct ExtensionBuilder {
    identity: ExtensionIdentity,
    providers: Vec<Registered>,
    tools: Vec<ToolContribution>,
    mcp: Vec<McpMount>,
    capabilities: Vec<(String, CapabilityDescriptor)>,
    checks: Vec<RequestCheck>,
    extra_routes: Router,
    settings: Settings,
    keep_alive: Duration,
    pub(crate) shutdown: CancellationToken,
    #[cfg(feature = "config")]
    option_sets: Vec<crate::config::OptionSetDecl>,
    /// By MCP server id, resolved to paths by `build()`.
    mcp_scopes: Vec<(String, McpScopes)>,
    /// Applied by `build()`.
    serve_args: Option<ServeArgs>,
}

impl ExtensionBuilder {
    /// Sets the extension's description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.identity.description = Some(description.into());
        self
    }

    /// Adds a model provider.
    pub fn model_provider<P: ModelProvider>(
        mut self,
        descriptor: ModelProviderDescriptor,
        provider: P,
    ) -> Self {
        self.providers.push(Registered {
            descriptor: Arc::new(descriptor),
            provider: Arc::new(provider),
        });
        self
    }

    /// Lists `models` in the manifest under provider `provider` (its descriptor's
    /// `models`), for models known only at start-up, e.g. from the command line; the
    /// macro's `models = [...]` takes literals. An unknown provider id changes nothing.
    ///
    /// ```
    /// use aep_sdk::prelude::*;
    /// use aep_sdk::server::AepExtension;
    ///
    /// struct Echo;
    ///
    /// #[aep_extension(id = "acme.echo", name = "Echo")]
    /// impl Echo {
    ///     /// Says it back.
    ///     #[model_provider(id = "echo", chat, streaming)]
    ///     async fn chat(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
    ///         Ok(ChatStream::from_updates([ChatUpdate::text(request.model.clone())]))
    ///     }
    /// }
    ///
    /// let extension = Echo
    ///     .extension_builder()
    ///     .provider_models("echo", vec![ModelDescriptor::new("small")])
    ///     .build()
    ///     .unwrap();
    /// let manifest = extension.manifest(aep_sdk::protocol::ProtocolVersion::LATEST);
    /// let models = manifest.contributions.model_providers[0].models.as_ref().unwrap();
    /// assert_eq!(models[0].id, "small");
    /// ```
    pub fn provider_models(mut self, provider: &str, models: Vec<crate::protocol::ModelDescriptor>) -> Self {
        if let Some(registered) = self.providers.iter_mut().find(|r| r.descriptor.id == provider) {
            Arc::make_mut(&mut registered.descriptor).models = Some(models);
        }
        self
    }

    /// Adds a tool contribution; its `mcp.server` must name a server added with
    /// [`ExtensionBuilder::mcp_server`].
    pub fn tool(mut self, contribution: ToolContribution) -> Self {
        self.tools.push(contribution);
        self
    }

    /// Co-hosts an rmcp server over Streamable HTTP at `path` (e.g. `/mcp`), declared in
    /// the manifest as server `id`. Session-based and stateless MCP clients are both served.
    /// Each session gets a clone of `handler`; [`ExtensionBuilder::mcp_sessions`] makes
    /// each one anew instead.
    pub fn mcp_server<H>(self, id: impl Into<String>, path: impl Into<String>, handler: H) -> Self
    where
        H: rmcp::ServerHandler + Clone + Send + Sync + 'static,
    {
        self.mcp_sessions(id, path, move || handler.clone())
    }

    /// Co-hosts an rmcp server like [`ExtensionBuilder::mcp_server`], calling `session`
    /// for the handler of each new MCP session (and of each request of a stateless
    /// client): the place for per-session state such as a log level, shared state
    /// being captured by the closure.
    ///
    /// ```
    /// # #[derive(Clone, Default)] struct Echo;
    /// # impl rmcp::ServerHandler for Echo {}
    /// use aep_sdk::server::Extension;
    ///
    /// let extension = Extension::builder("example.sessions", "Sessions", "1.0.0")
    ///     .mcp_sessions("echo", "/mcp", Echo::default)
    ///     .build()
    ///     .unwrap();
    /// # let _ = extension;
    /// ```
    pub fn mcp_sessions<H, F>(mut self, id: impl Into<String>, path: impl Into<String>, session: F) -> Self
    where
        H: rmcp::ServerHandler + Send + 'static,
        F: Fn() -> H + Send + Sync + 'static,
    {
        self.mcp.push(McpMount::new(id.into(), path.into(), session));
        self
    }

    /// Advertises an extra capability (open capability names are allowed).
    pub fn capability(mut self, name: impl Into<String>, descriptor: CapabilityDescriptor) -> Self {
        self.capabilities.push((name.into(), descriptor));
        self
    }

    /// Adds a check that runs on every chat request before the provider; it may reject the
    /// request or attach typed values to the context.
    pub fn request_check(
        mut self,
        check: impl Fn(
            &crate::protocol::ChatRequest,
            &ModelProviderDescriptor,
            &mut super::RequestContext,
        ) -> Result<(), AepError>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        self.checks.push(Arc::new(check));
        self
    }

    /// Publishes an option set (spec section 5). With at least one, the manifest lists
    /// `aep.configuration`, `GET /aep/configuration` and `POST /aep/configuration/migrate`
    /// are served, and `build()` checks every declaration. `options.nativeOptions` of chat
    /// requests is always checked before the provider runs.
    #[cfg(feature = "config")]
    pub fn option_set(mut self, decl: crate::config::OptionSetDecl) -> Self {
        self.option_sets.push(decl);
        self
    }

    /// Merges extra routes into the extension's router (e.g. a capability's endpoints).
    pub fn routes(mut self, routes: Router) -> Self {
        self.extra_routes = self.extra_routes.merge(routes);
        self
    }

    /// Request-body limit in bytes (default 16 MiB); larger bodies get a 413 AEP error.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.settings.limits.max_bytes = bytes;
        self
    }

    /// Bound on every tool call of the extension's MCP servers that has no timeout of its
    /// own (`#[tool(timeout = ..)]`) and whose server has no
    /// [`ToolServer::default_timeout`](crate::tool::ToolServer::default_timeout); no bound
    /// by default. `--tool-timeout` sets it when the extension is served from the command
    /// line.
    pub fn tool_timeout(mut self, timeout: Duration) -> Self {
        self.settings.tool_timeout = Some(timeout);
        self
    }

    /// Bound on the silence between two pieces of a request body (default 30 s); a client
    /// that stalls longer gets a 408 AEP error.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.settings.limits.read_timeout = timeout;
        self
    }

    /// Requires a bearer token on every route (see [`BearerAuth`]).
    pub fn bearer_auth(mut self, auth: BearerAuth) -> Self {
        self.settings.auth = Some(auth);
        self
    }

    /// Accepts OAuth access tokens on every route (see [`OAuth`]), beside any
    /// [`ExtensionBuilder::bearer_auth`] token. `build()` refuses a configuration that
    /// cannot work.
    pub fn oauth(mut self, oauth: OAuth) -> Self {
        self.settings.oauth = Some(oauth);
        self
    }

    /// The scopes every request needs that needs none of its own: MCP `initialize`,
    /// `tools/list`, the AEP routes, and each tool, resource, prompt and provider
    /// declared without scopes (`#[aep_extension(scopes = [..])]`). Only OAuth tokens
    /// are held to scopes; static bearer tokens pass.
    pub fn default_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.settings.scopes.default = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes every request to provider `id` needs (chat, health, models), instead
    /// of the default (`#[model_provider(scopes = [..])]`).
    pub fn provider_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        id: &str,
        scopes: I,
    ) -> Self {
        let scopes = scopes.into_iter().map(Into::into).collect();
        self.settings
            .scopes
            .providers
            .insert(id.to_ascii_lowercase(), scopes);
        self
    }

    /// The scopes of the tools, resources and prompts of MCP server `id` (added with
    /// [`ExtensionBuilder::mcp_server`]). Each request needs them before it reaches the
    /// server; `tools/list` and `resources/list` still list every item, so a client
    /// sees what it may ask for and steps up when a call answers 403.
    pub fn mcp_scopes(mut self, id: impl Into<String>, scopes: McpScopes) -> Self {
        self.mcp_scopes.push((id.into(), scopes));
        self
    }

    /// Co-hosts a [`ToolServer`](crate::tool::ToolServer) (what `#[aep_extension]`
    /// builds) at `path` as server `id`, with the scopes its tools, resources and
    /// prompts declare.
    pub fn tool_server<S: Send + Sync + 'static>(
        self,
        id: impl Into<String>,
        path: impl Into<String>,
        server: crate::tool::ToolServer<S>,
    ) -> Self {
        let id = id.into();
        let scopes = server.required_scopes();
        self.mcp_sessions(id.clone(), path, move || server.session())
            .mcp_scopes(id, scopes)
    }

    /// Who may reach the extension: the MCP endpoints' `Host` check and the browser
    /// origins every route accepts (default: loopback host names; browser pages on this
    /// machine only).
    pub fn mcp_access(mut self, access: McpAccess) -> Self {
        self.settings.mcp_access = access;
        self
    }

    /// Serves the route at `path` (added with [`ExtensionBuilder::routes`]) without a
    /// credential even when one is required elsewhere: a health probe, which load
    /// balancers and orchestrators call without tokens.
    pub fn public_path(mut self, path: impl Into<String>) -> Self {
        self.settings.public_paths.push(path.into());
        self
    }

    /// Records Prometheus metrics (see [`Extension::metrics_router`] for the instruments).
    /// [`Extension::serve`] turns them on with `--metrics-listen`, or when an OTLP
    /// metrics endpoint is configured with the `otel` feature (then every sample also
    /// goes to OTLP); off by default, and then nothing is recorded.
    pub fn metrics(mut self) -> Self {
        self.settings.metrics = true;
        self
    }

    /// The extension's external base URL (behind a proxy, say), which OAuth resource
    /// identifiers are derived from; default: the address it listens on.
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.settings.public_url = Some(url.into().trim().to_owned());
        self
    }

    /// Applies the serving options that shape the router, as [`Extension::serve_with`]
    /// does: metrics (`--metrics-listen`), the bearer token, OAuth issuers and the public
    /// URL, allowed hosts and origins, the tool timeout. For tests and hosts that mount
    /// [`Extension::router`] themselves; `build()` reports what cannot be read (a token
    /// file, say).
    ///
    /// ```
    /// use aep_sdk::server::{Extension, ServeArgs};
    ///
    /// let args = ServeArgs { metrics_listen: Some("127.0.0.1:0".into()), ..ServeArgs::default() };
    /// let extension = Extension::builder("acme.empty", "Empty", "1.0.0").serve_args(&args).build().unwrap();
    /// assert!(extension.metrics_router().is_some());
    /// ```
    pub fn serve_args(mut self, args: &ServeArgs) -> Self {
        self.serve_args = Some(args.clone());
        self
    }

    /// Interval of keep-alive comments during a silent stream (default 15 s).
    pub fn keep_alive(mut self, interval: Duration) -> Self {
        self.keep_alive = interval;
        self
    }

    fn build_manifest(&self) -> Manifest {
        let mut capabilities = indexmap::IndexMap::new();
        capabilities.insert(
            capability::HEALTH.to_owned(),
            CapabilityDescriptor::new(capability::VERSION, Some(paths::HEALTH)),
        );
        if !self.providers.is_empty() {
            capabilities.insert(
                capability::MODEL_PROVIDER.to_owned(),
                CapabilityDescriptor::new(capability::VERSION, Some(paths::MODEL_PROVIDERS)),
            );
        }
        if !self.tools.is_empty() {
            capabilities.insert(
                capability::TOOLS.to_owned(),
                CapabilityDescriptor::new(capability::VERSION, None),
            );
        }
        #[cfg(feature = "config")]
        if !self.option_sets.is_empty() {
            capabilities.insert(
                capability::CONFIGURATION.to_owned(),
                CapabilityDescriptor::new(capability::VERSION, Some(paths::CONFIGURATION)),
            );
        }
        for (name, descriptor) in &self.capabilities {
            capabilities.insert(name.clone(), descriptor.clone());
        }
        let servers: Vec<_> = self.mcp.iter().map(McpMount::descriptor).collect();
        Manifest {
            protocol_version: ProtocolVersion::LATEST,
            extension: self.identity.clone(),
            capabilities,
            contributions: Contributions {
                model_providers: self.providers.iter().map(|p| (*p.descriptor).clone()).collect(),
                tools: self.tools.clone(),
            },
            mcp: (!servers.is_empty()).then_some(McpDescriptor { servers }),
        }
    }

    /// Checks the declaration against every manifest rule and builds the extension.
    pub fn build(mut self) -> Result<Extension, Error> {
        if let Some(args) = self.serve_args.take() {
            self.settings.apply(&args)?;
        }
        let manifest = self.build_manifest();
        let mut problems: Vec<Problem> = crate::validate::validate_manifest(&manifest);
        let mut paths_seen = std::collections::HashSet::new();
        for (index, mount) in self.mcp.iter().enumerate() {
            let at = format!("$.mcp.servers[{index}].endpoint");
            if !mount.path.starts_with('/') {
                problems.push(Problem::new(
                    at,
                    format!(
                        "MCP server '{}': path '{}' must start with '/'",
                        mount.id, mount.path
                    ),
                ));
            } else if !paths_seen.insert(mount.path.clone()) {
                problems.push(Problem::new(
                    at,
                    format!("MCP server '{}': path '{}' is used twice", mount.id, mount.path),
                ));
            }
        }
        #[cfg(feature = "config")]
        let (configuration, config_problems) =
            crate::config::Configuration::compile(self.option_sets, &manifest.contributions.model_providers);
        #[cfg(feature = "config")]
        problems.extend(config_problems.into_iter().map(|p| Problem::new("option_set", p)));
        let mut settings = self.settings;
        for (id, scopes) in self.mcp_scopes {
            match self.mcp.iter().find(|m| m.id == id) {
                Some(mount) => {
                    let merged = match settings.scopes.mcp.remove(&mount.path) {
                        Some(earlier) => (*earlier).clone().merge(scopes),
                        None => scopes,
                    };
                    settings.scopes.mcp.insert(mount.path.clone(), Arc::new(merged));
                }
                None => problems.push(Problem::new(
                    "mcp_scopes",
                    format!("no MCP server '{id}' was added"),
                )),
            }
        }
        for id in settings.scopes.providers.keys() {
            if !self
                .providers
                .iter()
                .any(|p| p.descriptor.id.eq_ignore_ascii_case(id))
            {
                problems.push(Problem::new(
                    "provider_scopes",
                    format!("no model provider '{id}' was added"),
                ));
            }
        }
        if let Some(oauth) = &settings.oauth
            && let Err(error) = check_oauth(oauth, &settings, &self.mcp, &self.identity.name)
        {
            problems.push(Problem::new("oauth", error.to_string()));
        }
        if !problems.is_empty() {
            return Err(Error::Declaration(problems));
        }
        let manifests = ProtocolVersion::ALL
            .into_iter()
            .map(|v| {
                let document = Manifest {
                    protocol_version: v,
                    ..manifest.clone()
                };
                (v, Bytes::from(serde_json::to_vec(&document).unwrap_or_default()))
            })
            .collect();
        let provider_list =
            Bytes::from(serde_json::to_vec(&manifest.contributions.model_providers).unwrap_or_default());
        #[cfg_attr(not(feature = "config"), allow(unused_mut))]
        let mut routes = self.extra_routes;
        let mut checks = self.checks;
        #[cfg(feature = "config")]
        {
            if let Some(config_routes) = super::config_routes::router(&configuration) {
                routes = routes.merge(config_routes);
            }
            checks.insert(
                0,
                Arc::new(move |r, d, c| configuration.check_request(r, d, c.extensions_mut())),
            );
        }
        // Without option sets, a request naming one is refused as the configuration
        // layer refuses it.
        #[cfg(not(feature = "config"))]
        checks.insert(
            0,
            Arc::new(
                |r, d, _| match r.options.as_ref().and_then(|o| o.native_options.as_ref()) {
                    Some(native) => Err(crate::error::option_set_unsupported(&native.option_set, &d.id)),
                    None => Ok(()),
                },
            ),
        );
        let shared = Shared {
            manifests,
            provider_list,
            providers: self.providers,
            keep_alive: self.keep_alive,
            shutdown: self.shutdown.clone(),
            checks,
            open_streams: Default::default(),
            limits: settings.limits,
        };
        let record_metrics = settings.metrics;
        let mut extension = Extension {
            manifest,
            shared: Arc::new(shared),
            routes,
            mcp: self.mcp,
            settings,
            shutdown: self.shutdown,
            metrics: None,
        };
        if record_metrics {
            extension.record_metrics();
        }
        Ok(extension)
    }
}

/// Whether `oauth` can work for this extension: a resource server is built from it once.
pub(super) fn check_oauth(
    oauth: &OAuth,
    settings: &Settings,
    mcp: &[McpMount],
    name: &str,
) -> Result<(), Error> {
    let public = settings
        .public_url
        .clone()
        .unwrap_or_else(|| format!("http://{}", super::DEFAULT_LISTEN));
    let paths = mcp.iter().map(|m| m.path.clone()).collect();
    Gate::new(
        None,
        Some(oauth),
        ScopePolicy::default(),
        paths,
        &[],
        &public,
        name,
    )
    .map(|_| ())
}
