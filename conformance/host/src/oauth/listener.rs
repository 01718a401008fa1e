//! The loopback redirect listener of the browser mode (RFC 8252 section 7.3): one
//! `GET /callback` on `127.0.0.1`, answered with a short page, its URL handed to the
//! sign-in; then the listener stops.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::Uri;
use axum::response::Html;
use axum::routing::get;
use tokio::sync::oneshot;
use url::Url;

use super::discovery::failed;
use crate::error::Result;

type Slot = Arc<Mutex<Option<oneshot::Sender<String>>>>;

/// A bound listener waiting for the redirect.
pub struct Listener {
    redirect_uri: Url,
    received: oneshot::Receiver<String>,
    // Dropping it stops the server.
    _stop: oneshot::Sender<()>,
}

impl Listener {
    /// Listens on `127.0.0.1:port` (0: any free port).
    pub async fn bind(port: u16) -> Result<Self> {
        let socket = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| {
                failed(format!(
                    "cannot listen for the sign-in redirect on 127.0.0.1:{port}: {e}"
                ))
            })?;
        let port = socket
            .local_addr()
            .map_err(|e| failed(format!("redirect listener: {e}")))?
            .port();
        let redirect_uri = Url::parse(&format!("http://127.0.0.1:{port}/callback")).expect("a URL");
        let (sender, received) = oneshot::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        let slot: Slot = Arc::new(Mutex::new(Some(sender)));
        let app = axum::Router::new()
            .route("/callback", get(callback))
            .with_state(slot);
        tokio::spawn(async move {
            let _ = axum::serve(socket, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(Self {
            redirect_uri,
            received,
            _stop: stop,
        })
    }

    /// `http://127.0.0.1:<port>/callback`.
    pub fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    /// The redirect's URL (with its query), waited for at most `timeout`.
    pub async fn wait(self, timeout: Duration) -> Result<Url> {
        let query = match tokio::time::timeout(timeout, self.received).await {
            Ok(Ok(query)) => query,
            Ok(Err(_)) => return Err(failed("the redirect listener stopped".to_owned())),
            Err(_) => {
                return Err(failed(format!(
                    "no sign-in within {}s (nothing came back to {})",
                    timeout.as_secs(),
                    self.redirect_uri
                )));
            }
        };
        let mut url = self.redirect_uri.clone();
        url.set_query(Some(&query).filter(|q| !q.is_empty()).map(String::as_str));
        Ok(url)
    }
}

async fn callback(State(slot): State<Slot>, uri: Uri) -> Html<&'static str> {
    let query = uri.query().unwrap_or_default().to_owned();
    let failed = url::form_urlencoded::parse(query.as_bytes()).any(|(k, _)| k == "error");
    let sender = match slot.lock() {
        Ok(mut slot) => slot.take(),
        Err(poisoned) => poisoned.into_inner().take(),
    };
    if let Some(sender) = sender {
        let _ = sender.send(query);
    }
    Html(if failed {
        "<!doctype html><title>aep-host</title><p>Sign-in failed; see the terminal for why.</p>"
    } else {
        "<!doctype html><title>aep-host</title><p>Signed in. You can close this window.</p>"
    })
}
