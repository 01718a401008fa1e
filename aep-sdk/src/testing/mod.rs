//! Test support: serve on a loopback port and talk to the server.
//!
//! - [`spawn`] serves a router with `axum::serve` on `127.0.0.1:0` ([`TestServer`]):
//!   enough for anything an HTTP client checks.
//! - [`serve`] serves an [`Extension`](crate::server::Extension) with the SDK's own serve
//!   loop ([`ExtensionServer`]): header-read timeout, the bound on silent connections and
//!   graceful shutdown as in production, with limits of the test's choosing
//!   ([`ServeOptions`]), on the test's runtime or on one of its own.
//! - [`raw`] speaks HTTP/1.1 over a bare TCP connection: bytes no client would send,
//!   slow and stalled clients, and the answer read back under a time bound.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use std::time::Duration;
//! use aep_sdk::testing::{ServeOptions, raw, serve};
//!
//! let extension = aep_sdk::server::Extension::builder("acme.t", "T", "1.0.0").build().unwrap();
//! let server = serve(extension, ServeOptions::new());
//! let health = raw::request("GET", "/aep/health", &[], b"");
//! let answer = raw::exchange(server.addr, health, Duration::from_secs(5)).await.answer();
//! assert_eq!((answer.status, answer.text().as_str()), (200, r#"{"status":"available"}"#));
//! // A space before a header's colon: refused by hyper's parser, with an empty body.
//! let bad = raw::request("GET", "/aep/health", &["X-Bad : v"], b"");
//! let answer = raw::exchange(server.addr, bad, Duration::from_secs(5)).await.answer();
//! assert_eq!((answer.status, answer.body.len()), (400, 0));
//! # }
//! ```

use tokio::task::JoinHandle;

mod help;
#[cfg(feature = "oauth")]
mod issuer;
pub mod raw;
mod server;

pub use help::assert_introduces;
#[cfg(feature = "oauth")]
pub use issuer::{Fault, TestIssuer};
pub use server::{ExtensionServer, ServeOptions, serve};

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

/// Waits until `condition` holds, checking every 5 ms; panics saying `what` did not
/// happen within 5 s (a bound, never a hang).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let started = std::time::Instant::now();
/// aep_sdk::testing::eventually("10 ms pass", || started.elapsed().as_millis() >= 10).await;
/// # }
/// ```
pub async fn eventually(what: &str, condition: impl Fn() -> bool) {
    let waited = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        while !condition() {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "{what} within 5 s");
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
    serve_on(listener, router)
}

/// Serves `router` on `listener` (bound by the caller, who may need the address first).
fn serve_on(listener: tokio::net::TcpListener, router: axum::Router) -> TestServer {
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
