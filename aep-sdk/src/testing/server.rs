//! An extension served by the SDK's own serve loop on `127.0.0.1:0`, on the caller's
//! runtime or on one of its own, stopped on drop.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::runtime::Runtime;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::Error;
use crate::server::{ConnectionLimits, Extension};

/// How [`serve`] runs an extension: the serve loop's [`ConnectionLimits`] and the runtime.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServeOptions {
    limits: ConnectionLimits,
    worker_threads: Option<usize>,
}

impl ServeOptions {
    /// The defaults: [`ConnectionLimits::default`], on the caller's runtime.
    pub fn new() -> Self {
        Self::default()
    }

    /// The serve loop's limits.
    pub fn limits(mut self, limits: ConnectionLimits) -> Self {
        self.limits = limits;
        self
    }

    /// How long a client may take to send a request's headers, and how long a new
    /// connection may stay silent.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.limits.header_read_timeout = timeout;
        self
    }

    /// How long open requests and streams may run after [`ExtensionServer::shutdown`].
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.limits.shutdown_grace = grace;
        self
    }

    /// Serves on a multi-threaded runtime of its own with `worker_threads` workers (at
    /// least one), so that the server neither waits for the test's runtime nor counts in
    /// its tasks, and [`serve`] works outside any runtime.
    pub fn own_runtime(mut self, worker_threads: usize) -> Self {
        self.worker_threads = Some(worker_threads.max(1));
        self
    }
}

/// An extension served by [`Extension::serve_listener`] (what `serve` runs: the
/// header-read timeout, the bound on silent connections, graceful shutdown) for a test.
/// Stopped on drop: its serve loop is aborted, its runtime (if it has one) shut down.
#[derive(Debug)]
pub struct ExtensionServer {
    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub base_url: String,
    /// The bound address.
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), Error>>>,
    runtime: Option<Runtime>,
}

/// Serves `extension` on `127.0.0.1:0` with the SDK's own serve loop.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::time::Duration;
/// use aep_sdk::testing::{ServeOptions, raw, serve};
///
/// let extension = aep_sdk::server::Extension::builder("acme.t", "T", "1.0.0").build().unwrap();
/// let options = ServeOptions::new().header_read_timeout(Duration::from_millis(200));
/// let mut server = serve(extension, options);
/// // A connection that never sends a byte is closed after the header-read timeout.
/// let silent = raw::Delivery::Stalled(Vec::new());
/// let outcome = raw::exchange(server.addr, silent, Duration::from_secs(5)).await;
/// assert!(matches!(outcome, raw::Outcome::Closed(0)), "{outcome}");
/// server.stopped().await.unwrap();
/// # }
/// ```
///
/// # Panics
///
/// On the caller's runtime ([`ServeOptions::own_runtime`] not set) outside a Tokio
/// runtime; when no loopback port can be bound or the runtime cannot be built.
pub fn serve(extension: Extension, options: ServeOptions) -> ExtensionServer {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address of a bound listener");
    listener.set_nonblocking(true).expect("a non-blocking listener");
    let runtime = options.worker_threads.map(|workers| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name("aep-test-server")
            .enable_all()
            .build()
            .expect("a runtime for the test server")
    });
    let handle = match &runtime {
        Some(runtime) => runtime.handle().clone(),
        None => tokio::runtime::Handle::try_current()
            .expect("aep_sdk::testing::serve outside a Tokio runtime needs ServeOptions::own_runtime"),
    };
    let _entered = handle.enter();
    let listener = tokio::net::TcpListener::from_std(listener).expect("a Tokio listener");
    let (stop, stopped) = oneshot::channel::<()>();
    let signal = async move {
        let _ = stopped.await;
    };
    let task = handle.spawn(extension.serve_listener(listener, signal, options.limits));
    ExtensionServer {
        base_url: format!("http://{addr}"),
        addr,
        stop: Some(stop),
        task: Some(task),
        runtime,
    }
}

impl ExtensionServer {
    /// Sends the shutdown signal: the serve loop stops accepting connections and gives
    /// open requests and streams the shutdown grace. Does nothing the second time.
    pub fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Sends the shutdown signal (if not sent yet) and waits for the serve loop to
    /// return; its result. `Ok(())` once it has returned.
    ///
    /// # Panics
    ///
    /// When the serve loop panicked.
    pub async fn stopped(&mut self) -> Result<(), Error> {
        self.shutdown();
        let Some(task) = &mut self.task else {
            return Ok(());
        };
        let result = task.await;
        self.task = None;
        result.unwrap_or_else(|error| panic!("the serve loop failed: {error}"))
    }

    /// The runtime of its own ([`ServeOptions::own_runtime`]), for its metrics say.
    pub fn runtime(&self) -> Option<&Runtime> {
        self.runtime.as_ref()
    }
}

impl Drop for ExtensionServer {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
        if let Some(runtime) = self.runtime.take() {
            // Dropping a runtime blocks, which is refused inside an async test.
            runtime.shutdown_background();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::raw;

    fn extension() -> Extension {
        Extension::builder("acme.t", "T", "1.0.0").build().unwrap()
    }

    async fn health(addr: SocketAddr) -> u16 {
        let request = raw::request("GET", "/aep/health", &[], b"");
        raw::exchange(addr, request, Duration::from_secs(5))
            .await
            .answer()
            .status
    }

    #[tokio::test]
    async fn own_runtime_serves_and_stops_gracefully() {
        let mut server = serve(extension(), ServeOptions::new().own_runtime(1));
        assert!(server.runtime().is_some());
        assert_eq!(health(server.addr).await, 200);
        server.stopped().await.unwrap();
        // The listener is closed before the serve loop returns; a second call is Ok.
        assert!(tokio::net::TcpStream::connect(server.addr).await.is_err());
        server.stopped().await.unwrap();
    }

    #[test]
    fn own_runtime_needs_no_runtime_and_stops_on_drop() {
        let server = serve(extension(), ServeOptions::new().own_runtime(2));
        let addr = server.addr;
        let client = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        assert_eq!(client.block_on(health(addr)), 200);
        drop(server);
        let refused = (0..200).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            std::net::TcpStream::connect(addr).is_err()
        });
        assert!(refused, "the listener closes once the server is dropped");
    }

    #[tokio::test]
    async fn callers_runtime_stops_on_drop() {
        let server = serve(extension(), ServeOptions::new());
        assert!(server.runtime().is_none());
        let addr = server.addr;
        assert_eq!(health(addr).await, 200);
        drop(server);
        let mut refused = false;
        for _ in 0..200 {
            tokio::time::sleep(Duration::from_millis(10)).await;
            if tokio::net::TcpStream::connect(addr).await.is_err() {
                refused = true;
                break;
            }
        }
        assert!(refused, "the listener closes once the server is dropped");
    }
}
