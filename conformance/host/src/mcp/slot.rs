//! One MCP server of the pool: its rmcp client (connected on first use, reused, replaced
//! when the connection is lost), its cached `tools/list`, and counters.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use aep_sdk::client::WireOrder;
use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam, ClientRequest,
    ProtocolVersion, RequestId, ServerResult, Tool,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, Peer, PeerRequestOptions, RoleClient, RunningService,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use tokio::sync::{Mutex, broadcast};
use tokio::time::timeout;
use url::Url;

use super::failure::{Failure, classify, initialize_failed, unreachable};
use super::listener::{Listener, Signals, relay_in_wire_order};
use super::relay::Relay;
use super::{McpRevision, PoolOptions, PoolStats};
use crate::JsonObject;
use crate::error::{HostError, Result};
use crate::oauth::{OAuthHttpClient, SignIn};

pub(super) type Client = RunningService<RoleClient, Listener>;

struct Cached {
    generation: u64,
    tools: Arc<[Tool]>,
}

/// How a slot's requests are authorized.
pub(crate) enum Auth {
    /// A static bearer token; never logged (the slot has no Debug).
    Bearer(String),
    /// An OAuth client that signs in when the server answers 401.
    OAuth(SignIn),
}

pub(crate) struct Slot {
    pub(super) url: Url,
    pub(super) options: PoolOptions,
    auth: Option<Auth>,
    changes: broadcast::Sender<Url>,
    connection: Mutex<Option<Arc<Client>>>,
    tools: Mutex<Option<Cached>>,
    signals: Arc<Signals>,
    connects: AtomicU64,
    /// The connection (its address) that was asked for every log level (see `send_call`).
    logs_asked: AtomicUsize,
    tool_lists: AtomicU64,
    calls: AtomicU64,
}

fn alive(client: &Client) -> bool {
    !client.is_closed() && !client.peer().is_transport_closed()
}

impl Slot {
    pub(crate) fn new(
        url: Url,
        mut options: PoolOptions,
        auth: Option<Auth>,
        changes: broadcast::Sender<Url>,
    ) -> Self {
        if let Some(Auth::OAuth(sign_in)) = &auth {
            // Any request may have to wait for a sign-in first.
            let extra = sign_in.bound();
            options.connect_timeout += extra;
            options.request_timeout += extra;
            options.call_timeout += extra;
        }
        Self {
            url,
            options,
            auth,
            changes,
            connection: Mutex::new(None),
            tools: Mutex::new(None),
            signals: Arc::default(),
            connects: AtomicU64::new(0),
            logs_asked: AtomicUsize::new(0),
            tool_lists: AtomicU64::new(0),
            calls: AtomicU64::new(0),
        }
    }

    pub(crate) fn stats(&self) -> PoolStats {
        PoolStats {
            connects: self.connects.load(Ordering::SeqCst),
            tool_lists: self.tool_lists.load(Ordering::SeqCst),
            calls: self.calls.load(Ordering::SeqCst),
            list_changed: self.signals.list_changed.load(Ordering::SeqCst),
            elicitations: self.signals.elicitations.load(Ordering::SeqCst),
        }
    }

    /// The live client, connecting (one `initialize`) when there is none or the last
    /// one was lost. Concurrent callers wait for one connection.
    pub(super) async fn client(&self) -> Result<Arc<Client>> {
        let mut slot = self.connection.lock().await;
        if let Some(client) = slot.as_ref().filter(|c| alive(c)) {
            return Ok(client.clone());
        }
        if slot.take().is_some() {
            // A new connection may reach a restarted server with other tools.
            self.signals.generation.fetch_add(1, Ordering::SeqCst);
            tracing::info!(url = %self.url, "MCP connection lost; reconnecting");
        }
        let client = Arc::new(self.connect().await?);
        self.connects.fetch_add(1, Ordering::SeqCst);
        *slot = Some(client.clone());
        Ok(client)
    }

    async fn connect(&self) -> Result<Client> {
        let config = StreamableHttpClientTransportConfig::with_uri(self.url.as_str())
            .reinit_on_expired_session(true)
            .session_recovery_timeout(self.options.connect_timeout);
        let transport = match &self.auth {
            Some(Auth::OAuth(sign_in)) => {
                let http = OAuthHttpClient::new(reqwest::Client::default(), sign_in.clone());
                return self
                    .initialize(StreamableHttpClientTransport::with_client(http, config))
                    .await;
            }
            Some(Auth::Bearer(token)) => {
                StreamableHttpClientTransport::from_config(config.auth_header(token.clone()))
            }
            None => StreamableHttpClientTransport::from_config(config),
        };
        self.initialize(transport).await
    }

    async fn initialize<C>(&self, transport: StreamableHttpClientTransport<C>) -> Result<Client>
    where
        C: rmcp::transport::streamable_http_client::StreamableHttpClient,
    {
        let (protocol, lifecycle) = match self.options.revision {
            McpRevision::Session => (
                ProtocolVersion::LATEST_WITH_INITIALIZE,
                ClientLifecycleMode::Initialize,
            ),
            McpRevision::Stateless => (
                ProtocolVersion::V_2026_07_28,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            ),
        };
        let listener = Listener::new(
            self.signals.clone(),
            protocol,
            self.options.elicitation,
            self.url.clone(),
            self.changes.clone(),
        );
        let transport = WireOrder::new(
            transport,
            relay_in_wire_order(self.signals.clone(), self.url.clone()),
        );
        match timeout(
            self.options.connect_timeout,
            listener.serve_with_lifecycle(transport, lifecycle),
        )
        .await
        {
            Ok(Ok(client)) => Ok(client),
            Ok(Err(error)) => Err(self
                .auth_failure("MCP initialize")
                .unwrap_or_else(|| initialize_failed(&self.url, error))),
            Err(_) => Err(unreachable(
                &self.url,
                "MCP initialize",
                &format!("no answer within {:?}", self.options.connect_timeout),
            )),
        }
    }

    /// What the failure of `what` means, told by the OAuth client when signing in failed
    /// (a sign-in that failed is not retried by reconnecting).
    pub(super) fn classify(&self, what: &str, error: ServiceError) -> Failure {
        match self.auth_failure(what) {
            Some(error) => Failure::Rejected(error),
            None => classify(&self.url, what, error),
        }
    }

    fn auth_failure(&self, what: &str) -> Option<HostError> {
        let Some(Auth::OAuth(sign_in)) = &self.auth else {
            return None;
        };
        let mut error = sign_in.take_failure()?;
        error.message = format!("{}: {what}: {}", self.url, error.message);
        Some(error.with_target(self.url.as_str()))
    }

    /// Forgets `client` if it is still the current one (its transport failed).
    pub(super) async fn discard(&self, client: &Arc<Client>) {
        let mut slot = self.connection.lock().await;
        if slot.as_ref().is_some_and(|c| Arc::ptr_eq(c, client)) {
            if let Some(client) = slot.take() {
                client.cancellation_token().cancel();
            }
            self.signals.generation.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// The tool list: cached until the server says it changed (or the connection was
    /// replaced), unless `refresh` forces a new `tools/list`.
    pub(crate) async fn tools(&self, refresh: bool) -> Result<Arc<[Tool]>> {
        let mut cache = self.tools.lock().await;
        if !refresh
            && let Some(cached) = cache.as_ref()
            && cached.generation == self.signals.generation.load(Ordering::SeqCst)
        {
            return Ok(cached.tools.clone());
        }
        let (generation, tools) = self.fetch_tools().await?;
        let tools: Arc<[Tool]> = tools.into();
        *cache = Some(Cached {
            generation,
            tools: tools.clone(),
        });
        Ok(tools)
    }

    /// `tools/list` (all pages); after a transport failure, reconnects and tries once more
    /// (listing is safe to repeat).
    async fn fetch_tools(&self) -> Result<(u64, Vec<Tool>)> {
        let mut last = None;
        for _ in 0..2 {
            let client = self.client().await?;
            let generation = self.signals.generation.load(Ordering::SeqCst);
            self.tool_lists.fetch_add(1, Ordering::SeqCst);
            let listed = timeout(self.options.request_timeout, client.peer().list_all_tools()).await;
            match listed {
                Ok(Ok(tools)) => return Ok((generation, tools)),
                Ok(Err(error)) => match self.classify("tools/list", error) {
                    Failure::Transport(error) => {
                        self.discard(&client).await;
                        last = Some(error);
                    }
                    other => return Err(other.into_error()),
                },
                Err(_) => {
                    return Err(unreachable(
                        &self.url,
                        "tools/list",
                        &format!("no answer within {:?}", self.options.request_timeout),
                    ));
                }
            }
        }
        Err(last.unwrap_or_else(|| unreachable(&self.url, "tools/list", "failed")))
    }

    /// One `tools/call`, relayed when `relay` says where to (see [`super::relay`]). A
    /// transport failure drops the connection (the next request reconnects) and is not
    /// retried: the server may have run the tool.
    pub(crate) async fn call(
        &self,
        name: &str,
        arguments: JsonObject,
        relay: Option<&Relay>,
    ) -> Result<CallToolResult, Failure> {
        let client = self.client().await.map_err(Failure::Transport)?;
        self.calls.fetch_add(1, Ordering::SeqCst);
        let mut params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        // The client span of the call, and its trace context in the request's `_meta`
        // (SEP-414): rmcp sends from a task of its own, so no header can carry it. Both
        // only when spans are exported.
        let span = if aep_sdk::telemetry::enabled() {
            tracing::info_span!(
                "mcp.tools_call",
                otel.name = format!("tools/call {name}"),
                otel.kind = "client",
                otel.status_code = tracing::field::Empty,
                mcp.method.name = "tools/call",
                gen_ai.operation.name = "execute_tool",
                gen_ai.tool.name = name,
                "error.type" = tracing::field::Empty,
            )
        } else {
            tracing::Span::none()
        };
        if !span.is_disabled() {
            let mut meta = rmcp::model::MetaObject::new();
            span.in_scope(|| aep_sdk::telemetry::inject_meta(&mut meta.0));
            params.meta = Some(rmcp::model::RequestMetaObject(meta));
        }
        let called = timeout(self.options.call_timeout, self.send_call(&client, params, relay));
        let outcome = tracing::Instrument::instrument(called, span.clone()).await;
        let error_type = match &outcome {
            Err(_) => Some("timeout"),
            Ok(Err(_)) => Some("mcp_error"),
            // The tool's own failure (the MCP conventions' value).
            Ok(Ok(result)) if result.is_error == Some(true) => Some("tool_error"),
            Ok(Ok(_)) => None,
        };
        if let Some(error_type) = error_type {
            span.record("error.type", error_type);
            span.record("otel.status_code", "ERROR");
        }
        match outcome {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => {
                let failure = self.classify(&format!("tools/call '{name}'"), error);
                if let Failure::Transport(_) = failure {
                    self.discard(&client).await;
                }
                Err(failure)
            }
            Err(_) => Err(Failure::Timeout(unreachable(
                &self.url,
                &format!("tools/call '{name}'"),
                &format!("no answer within {:?}", self.options.call_timeout),
            ))),
        }
    }

    /// `tools/call` on `client`; with a relay, the server's progress and log messages
    /// go to it, and its token (or this future's drop) cancels the call at the server.
    async fn send_call(
        &self,
        client: &Client,
        params: CallToolRequestParams,
        relay: Option<&Relay>,
    ) -> Result<CallToolResult, ServiceError> {
        let Some(relay) = relay else {
            // rmcp's own call: abandoned (dropped), it tells the server.
            return client.call_tool(params).await;
        };
        let peer = client.peer();
        self.ask_for_logs(client).await;
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let mut options = PeerRequestOptions::no_options();
        if self.options.revision == McpRevision::Stateless {
            // 2026-07-28 (SEP-2575): each request asks for its own log messages.
            let mut meta = rmcp::model::MetaObject::new();
            meta.0
                .insert("io.modelcontextprotocol/logLevel".to_owned(), "debug".into());
            options.meta = Some(rmcp::model::RequestMetaObject(meta));
        }
        let registered = self.signals.relays.register(relay.events.clone());
        let handle = peer.send_request_with_option(request, options).await?;
        registered.claim(handle.progress_token.clone());
        let mut abandoned = Abandoned {
            peer: peer.clone(),
            id: Some(handle.id.clone()),
        };
        let result = tokio::select! {
            result = handle.await_response() => result,
            () = relay.cancel.cancelled() => {
                return Err(ServiceError::Cancelled { reason: Some(Abandoned::REASON.to_owned()) });
            }
        };
        abandoned.id = None;
        match result? {
            ServerResult::CallToolResult(result) => Ok(result),
            _ => Err(ServiceError::UnexpectedResponse),
        }
    }

    /// Before the first relayed call on a connection: `logging/setLevel debug` when the
    /// server offers logging, so that every message reaches the relay, which filters by
    /// each caller's own level. A server that refuses is only logged.
    #[allow(deprecated)] // MCP logging: deprecated by rmcp for 2026-07-28, spoken by 2025-11-25
    async fn ask_for_logs(&self, client: &Client) {
        let connection = std::ptr::from_ref(client) as usize;
        if self.logs_asked.swap(connection, Ordering::SeqCst) == connection {
            return;
        }
        let offers = client
            .peer_info()
            .is_some_and(|info| info.capabilities.logging.is_some());
        if !offers || self.options.revision == McpRevision::Stateless {
            return;
        }
        let asked = client.peer().set_level(rmcp::model::SetLevelRequestParams::new(
            rmcp::model::LoggingLevel::Debug,
        ));
        match timeout(self.options.request_timeout, asked).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::debug!(url = %self.url, "logging/setLevel refused: {error}"),
            Err(_) => tracing::debug!(url = %self.url, "logging/setLevel: no answer"),
        }
    }

    /// Closes the connection, if any, waiting (bounded) for the session to be ended.
    pub(crate) async fn close(&self) {
        let Some(client) = self.connection.lock().await.take() else {
            return;
        };
        match Arc::try_unwrap(client) {
            Ok(mut client) => {
                let _ = client.close_with_timeout(self.options.connect_timeout).await;
            }
            Err(shared) => shared.cancellation_token().cancel(),
        }
    }
}

/// A relayed call not answered yet: dropped (cancelled, timed out, its caller gone), it
/// sends the server `notifications/cancelled`, as rmcp's own calls do.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Abandoned {
    const REASON: &'static str = "the caller cancelled the request";
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        // Drop cannot wait; the notification is sent from a task of its own.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let param = CancelledNotificationParam::new(Some(id), Some(Self::REASON.to_owned()));
                let _ = peer.notify_cancelled(param).await;
            });
        }
    }
}
