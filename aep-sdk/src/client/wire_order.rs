//! Seeing an MCP server's messages in the order it sent them.
//!
//! rmcp runs each incoming notification's handler ([`rmcp::ClientHandler::on_progress`],
//! `on_logging_message`, ...) in a task of its own. A multi-threaded tokio runtime does not
//! run spawned tasks in spawn order (the task spawned last usually runs first), so a
//! handler can see a server's `step 5` log message after its `counted to 5`, and a call's
//! last progress notification after the call's answer. The transport's `receive` is the
//! one place rmcp reads messages one at a time, in the order they came off the wire;
//! [`WireOrder`] shows each message to a callback there, before rmcp dispatches it.

use std::borrow::Cow;
use std::future::Future;

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

/// An MCP client transport that hands every message it receives to `observe`, in wire
/// order and before rmcp handles it; the message then passes on unchanged.
///
/// `observe` runs inside rmcp's receive loop: keep it short and never block in it.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use aep_sdk::client::WireOrder;
/// use rmcp::ServiceExt;
/// use rmcp::model::{JsonRpcMessage, ServerNotification};
/// use rmcp::transport::StreamableHttpClientTransport;
///
/// let transport = StreamableHttpClientTransport::from_uri("http://127.0.0.1:8710/mcp");
/// let transport = WireOrder::new(transport, |message: &_| {
///     if let JsonRpcMessage::Notification(n) = message {
///         if let ServerNotification::ProgressNotification(p) = &n.notification {
///             println!("progress {}", p.params.progress);
///         }
///     }
/// });
/// let client = ().serve(transport).await?;
/// client.list_all_tools().await?;
/// # Ok(()) }
/// ```
pub struct WireOrder<T, F> {
    inner: T,
    observe: F,
}

impl<T, F> WireOrder<T, F>
where
    F: FnMut(&RxJsonRpcMessage<RoleClient>),
{
    /// Wraps `inner`, a client transport.
    pub fn new(inner: T, observe: F) -> Self {
        Self { inner, observe }
    }
}

impl<T, F> Transport<RoleClient> for WireOrder<T, F>
where
    T: Transport<RoleClient>,
    F: FnMut(&RxJsonRpcMessage<RoleClient>) + Send + 'static,
{
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        (self.observe)(&message);
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
