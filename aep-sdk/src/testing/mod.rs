//! Test support: start a router on `127.0.0.1:0` and get its base URL.

use tokio::task::JoinHandle;

/// A server running on a loopback port for the duration of a test. Aborted on drop.
pub struct TestServer {
    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub base_url: String,
    /// The bound address.
    pub addr: std::net::SocketAddr,
    handle: JoinHandle<()>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.handle.abort();
    }
}

/// Serves `router` on `127.0.0.1:0`.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let extension = aep_sdk::server::Extension::builder("acme.t", "T", "1.0.0").build().unwrap();
/// let server = aep_sdk::testing::spawn(extension.router()).await;
/// assert!(server.base_url.starts_with("http://127.0.0.1:"));
/// # }
/// ```
pub async fn spawn(router: axum::Router) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address of a bound listener");
    let handle = tokio::spawn(async move {
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let _ = axum::serve(listener, router).await;
    });
    TestServer {
        base_url: format!("http://{addr}"),
        addr,
        handle,
    }
}
