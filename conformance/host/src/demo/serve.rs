//! Serving an extension in-process on a loopback port, with a bounded stop.

use std::net::SocketAddr;
use std::time::Duration;

use aep_sdk::server::{ConnectionLimits, Extension};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::error::{ErrorCode, HostError, Result};

/// An extension served on `127.0.0.1:<free port>` by this process.
pub struct LocalExtension {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// The bound address.
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
}

impl LocalExtension {
    /// Binds a free loopback port and serves `extension` there.
    pub async fn start(extension: Extension) -> Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await.map_err(|e| {
            HostError::new(
                ErrorCode::ExtensionUnreachable,
                format!("cannot bind 127.0.0.1:0: {e}"),
            )
        })?;
        let addr = listener
            .local_addr()
            .map_err(|e| HostError::new(ErrorCode::ExtensionUnreachable, format!("no local address: {e}")))?;
        let (stop, stopped) = oneshot::channel::<()>();
        let signal = async move {
            let _ = stopped.await;
        };
        let task = tokio::spawn(async move {
            if let Err(error) = extension.serve_listener(listener, signal, limits()).await {
                tracing::warn!("in-process extension stopped with an error: {error}");
            }
        });
        Ok(Self {
            base_url: format!("http://{addr}"),
            addr,
            stop: Some(stop),
            task,
        })
    }

    /// Stops serving: open streams get a short grace period; gives up after 3 s.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if tokio::time::timeout(Duration::from_secs(3), &mut self.task)
            .await
            .is_err()
        {
            self.task.abort();
        }
    }
}

fn limits() -> ConnectionLimits {
    ConnectionLimits {
        shutdown_grace: Duration::from_millis(200),
        ..ConnectionLimits::default()
    }
}

impl Drop for LocalExtension {
    fn drop(&mut self) {
        self.task.abort();
    }
}
