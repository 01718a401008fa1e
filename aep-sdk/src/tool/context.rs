//! [`ToolContext`]: what a tool call, resource read or prompt get knows and can do
//! besides computing its result: the cancellation token, the request's `_meta`, HTTP
//! headers and caller, progress notifications and log messages to the client.

use std::sync::{Arc, Mutex};
use std::time::Duration;

// Sampling is deprecated by SEP-2577 (server-to-client requests), still what clients speak.
#[allow(deprecated)]
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationSchema,
    NumberOrString, ProgressNotificationParam, ProgressToken, SamplingMessage,
};
use rmcp::service::{Peer, RoleServer};
use tokio_util::sync::CancellationToken;

use super::{JsonObject, McpRequest, ResponseStream, ToolError};
use crate::caller::Caller;

/// The severity of a log message to the client (MCP's syslog levels, lowest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// `debug`.
    Debug,
    /// `info` (what a session gets until the client sets a level).
    Info,
    /// `notice`.
    Notice,
    /// `warning`.
    Warning,
    /// `error`.
    Error,
    /// `critical`.
    Critical,
    /// `alert`.
    Alert,
    /// `emergency`.
    Emergency,
}

#[allow(deprecated)] // MCP logging is deprecated by SEP-2577 but still what clients speak.
impl LogLevel {
    pub(crate) fn to_rmcp(self) -> rmcp::model::LoggingLevel {
        use rmcp::model::LoggingLevel as L;
        match self {
            LogLevel::Debug => L::Debug,
            LogLevel::Info => L::Info,
            LogLevel::Notice => L::Notice,
            LogLevel::Warning => L::Warning,
            LogLevel::Error => L::Error,
            LogLevel::Critical => L::Critical,
            LogLevel::Alert => L::Alert,
            LogLevel::Emergency => L::Emergency,
        }
    }

    pub(crate) fn from_rmcp(level: rmcp::model::LoggingLevel) -> Self {
        use rmcp::model::LoggingLevel as L;
        match level {
            L::Debug => LogLevel::Debug,
            L::Info => LogLevel::Info,
            L::Notice => LogLevel::Notice,
            L::Warning => LogLevel::Warning,
            L::Error => LogLevel::Error,
            L::Critical => LogLevel::Critical,
            L::Alert => LogLevel::Alert,
            L::Emergency => LogLevel::Emergency,
        }
    }
}

/// The `_meta` key of a request's own log level (SEP-2575).
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// The `_meta` key only requests of the 2026-07-28 revision carry (SEP-2575).
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The level an MCP session asked for with `logging/setLevel`.
pub(crate) type SessionLevel = Arc<Mutex<LogLevel>>;

/// What a tool call (or resource read, or prompt get) knows besides its arguments, and
/// how it talks back to the client.
///
/// ```
/// use aep_sdk::tool::{LogLevel, ToolContext};
///
/// async fn count(ctx: ToolContext, n: u32) -> u32 {
///     for i in 1..=n {
///         if ctx.cancellation().is_cancelled() {
///             break;
///         }
///         // Sent only when the client asked for progress (a `_meta.progressToken`).
///         ctx.progress(f64::from(i), Some(f64::from(n)), Some(&format!("{i} of {n}"))).await;
///     }
///     ctx.log(LogLevel::Info, "counted").await;
///     n
/// }
/// # let _ = count;
/// ```
#[derive(Debug, Clone)]
pub struct ToolContext {
    cancellation: CancellationToken,
    meta: Option<JsonObject>,
    headers: Option<Arc<http::HeaderMap>>,
    caller: Option<Caller>,
    /// Tripped when the call's MCP session ends (see `McpRequest`).
    session_end: Option<CancellationToken>,
    /// The extension's bound on calls with none of their own (see `McpRequest`).
    default_timeout: Option<Duration>,
    /// The SSE stream the answer goes out on, if any.
    stream: Option<ResponseStream>,
    peer: Option<Peer<RoleServer>>,
    level: Option<SessionLevel>,
    /// Told of each progress report (a timeout that resets on progress listens).
    activity: Option<Arc<tokio::sync::Notify>>,
}

impl ToolContext {
    /// A context for calling a tool directly (tests): no client to notify.
    pub fn new(cancellation: CancellationToken) -> Self {
        Self {
            cancellation,
            meta: None,
            headers: None,
            caller: None,
            session_end: None,
            default_timeout: None,
            stream: None,
            peer: None,
            level: None,
            activity: None,
        }
    }

    pub(crate) fn for_request(
        cancellation: CancellationToken,
        meta: Option<JsonObject>,
        head: Option<http::request::Parts>,
        peer: Peer<RoleServer>,
        level: SessionLevel,
    ) -> Self {
        let (headers, caller, mcp) = match head {
            Some(mut head) => (
                Some(Arc::new(head.headers)),
                head.extensions.remove::<Caller>(),
                head.extensions.remove::<McpRequest>().unwrap_or_default(),
            ),
            None => (None, None, McpRequest::default()),
        };
        let McpRequest {
            session_end,
            stream,
            tool_timeout: default_timeout,
            ..
        } = mcp;
        Self {
            cancellation,
            meta,
            headers,
            caller,
            session_end,
            default_timeout,
            stream,
            peer: Some(peer),
            level: Some(level),
            activity: None,
        }
    }

    /// The extension's bound on calls that have none of their own, if it has one.
    pub(crate) fn default_timeout(&self) -> Option<Duration> {
        self.default_timeout
    }

    pub(crate) fn session_end(&self) -> Option<&CancellationToken> {
        self.session_end.as_ref()
    }

    pub(crate) fn with_activity(mut self, activity: Arc<tokio::sync::Notify>) -> Self {
        self.activity = Some(activity);
        self
    }

    /// Cancelled when the client cancels the call (`notifications/cancelled`), goes
    /// away (ends its MCP session, or the session expires), or the call runs past its
    /// timeout. A dropped connection alone is not a cancellation: Streamable HTTP lets
    /// the client resume the response stream, and the MCP specification says a
    /// disconnection is not to be taken as one.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// The request's `_meta` (progress token, client metadata, trace context), if the
    /// client sent one.
    pub fn meta(&self) -> Option<&JsonObject> {
        self.meta.as_ref()
    }

    /// The progress token the client sent in `_meta.progressToken` (a string or an
    /// integer), if any: progress notifications for this call carry it.
    pub fn progress_token(&self) -> Option<&serde_json::Value> {
        self.meta.as_ref()?.get("progressToken")
    }

    /// The HTTP headers of the request that carried the call (Streamable HTTP), if any.
    /// `Authorization` is among them as sent; never log it.
    pub fn headers(&self) -> Option<&http::HeaderMap> {
        self.headers.as_deref()
    }

    /// Who the server's bearer authentication accepted the request as (the identity,
    /// never the token); `None` when the server requires no token.
    pub fn caller(&self) -> Option<&Caller> {
        self.caller.as_ref()
    }

    /// The same context carrying `meta` as the request's `_meta` (tests, direct calls).
    pub fn with_meta(mut self, meta: JsonObject) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Sends `notifications/progress` (`progress`, optional `total` and `message`) when
    /// the client asked for progress with a token; does nothing otherwise. Returns
    /// whether a notification was sent. Either way it counts as progress for a timeout
    /// that resets on progress.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        if let Some(activity) = &self.activity {
            activity.notify_one();
        }
        let (Some(peer), Some(token)) = (&self.peer, self.progress_token().and_then(token)) else {
            return false;
        };
        let mut param = ProgressNotificationParam::new(token, progress);
        param.total = total;
        param.message = message.map(str::to_owned);
        peer.notify_progress(param).await.is_ok()
    }

    /// Sends `notifications/message` at `level` when the level asked for lets it through:
    /// the request's own `_meta` `io.modelcontextprotocol/logLevel` if it has one (SEP-2575;
    /// a 2026-07-28 request without it gets no log messages), else the session's (set
    /// with `logging/setLevel`; `info` until then). Returns whether it was sent.
    #[allow(deprecated)] // see LogLevel
    pub async fn log(&self, level: LogLevel, data: impl Into<serde_json::Value>) -> bool {
        let (Some(peer), Some(session)) = (&self.peer, &self.level) else {
            return false;
        };
        // SEP-2575 (2026-07-28): a request asks for log messages in its own `_meta`;
        // a request of that revision that does not ask gets none.
        let meta = self.meta.as_ref();
        let requested = meta
            .and_then(|m| m.get(META_LOG_LEVEL))
            .and_then(|v| serde_json::from_value::<rmcp::model::LoggingLevel>(v.clone()).ok())
            .map(LogLevel::from_rmcp);
        let wanted = match requested {
            Some(requested) => requested,
            None if meta.is_some_and(|m| m.contains_key(META_PROTOCOL_VERSION)) => return false,
            None => *session.lock().unwrap_or_else(|e| e.into_inner()),
        };
        if level < wanted {
            return false;
        }
        let param = rmcp::model::LoggingMessageNotificationParam::new(level.to_rmcp(), data.into());
        peer.notify_logging_message(param).await.is_ok()
    }
}

#[allow(deprecated)] // sampling: see the import
impl ToolContext {
    /// The connected client's peer, or why there is none.
    fn client(&self, what: &str) -> Result<&Peer<RoleServer>, ToolError> {
        self.peer
            .as_ref()
            .ok_or_else(|| ToolError::new(format!("{what} needs a connected MCP client")))
    }

    /// Asks the client's model for a message (`sampling/createMessage`). Fails with a
    /// tool error when the client did not declare the `sampling` capability, refused, or
    /// the call was cancelled meanwhile (the tool's timeout bounds the wait).
    pub async fn sample(
        &self,
        request: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        let peer = self.client("sampling")?;
        let offered = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.sampling.is_some());
        if !offered {
            return Err(ToolError::new(
                "the client does not offer sampling (no `sampling` capability)",
            ));
        }
        tokio::select! {
            result = peer.create_message(request) => result.map_err(|e| ToolError::new(format!("sampling failed: {e}"))),
            () = self.cancellation.cancelled() => Err(ToolError::new("cancelled while waiting for the client's model")),
        }
    }

    /// Asks the client's model to answer `prompt` (one user message, at most
    /// `max_tokens`), and returns the text of its answer.
    pub async fn sample_text(&self, prompt: &str, max_tokens: u32) -> Result<String, ToolError> {
        let message = SamplingMessage::user_text(prompt);
        let answer = self
            .sample(CreateMessageRequestParams::new(vec![message], max_tokens))
            .await?;
        Ok(answer
            .message
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect())
    }

    /// Closes the HTTP stream this call's answer would go out on, telling the client to
    /// reconnect after `retry` (SSE polling, SEP-1699): a long call frees its connection,
    /// and the client, resuming with `Last-Event-ID`, gets the answer (and anything sent
    /// meanwhile) on the new stream. Fails when the call did not come over a session's
    /// POST answered as a stream.
    pub async fn close_response_stream(&self, retry: std::time::Duration) -> Result<(), ToolError> {
        let stream = self
            .stream
            .as_ref()
            .ok_or_else(|| ToolError::new("this call's answer is not sent on a session's SSE stream"))?;
        stream.close(retry).await.map_err(ToolError::new)
    }

    /// Asks the user for input through the client (`elicitation/create`, form mode):
    /// `message` says what for, `schema` what to fill in (primitive fields, defaults and
    /// enums included). Fails with a tool error when the client did not declare the
    /// `elicitation` capability or the call was cancelled meanwhile.
    pub async fn elicit(&self, message: &str, schema: ElicitationSchema) -> Result<ElicitResult, ToolError> {
        let peer = self.client("elicitation")?;
        let offered = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.elicitation.is_some());
        if !offered {
            return Err(ToolError::new(
                "the client does not offer elicitation (no `elicitation` capability)",
            ));
        }
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message.to_owned(),
            requested_schema: schema,
        };
        tokio::select! {
            result = peer.create_elicitation(params) => result.map_err(|e| ToolError::new(format!("elicitation failed: {e}"))),
            () = self.cancellation.cancelled() => Err(ToolError::new("cancelled while waiting for the user")),
        }
    }
}

fn token(value: &serde_json::Value) -> Option<ProgressToken> {
    match value {
        serde_json::Value::String(s) => Some(ProgressToken(NumberOrString::String(s.as_str().into()))),
        serde_json::Value::Number(n) => n.as_i64().map(|n| ProgressToken(NumberOrString::Number(n))),
        _ => None,
    }
}
