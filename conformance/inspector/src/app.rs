//! The whole server: the page, the API, the origin guard; and serving it.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::routing::get;
use tokio::net::TcpListener;

use crate::guard::{self, Loopback};
use crate::state::Inspector;
use crate::{api, assets, callback};

/// The Inspector's router. `loopback`: accept only loopback `Host` names (what a server
/// bound to a loopback address should do).
pub fn router(inspector: Arc<Inspector>, loopback: bool) -> Router {
    let mut page = Router::new().route("/", get(assets::index));
    for (path, body) in assets::SCRIPTS {
        page = page.route(path, get(move || async move { assets::script(body) }));
    }
    page.route("/app.css", get(assets::style))
        .route("/icon.svg", get(assets::icon))
        .route("/favicon.ico", get(assets::icon))
        .route("/oauth/callback", get(callback::callback))
        .merge(api::routes(inspector.clone()))
        .with_state(inspector)
        .layer(axum::middleware::from_fn_with_state(
            Loopback(loopback),
            guard::check,
        ))
}

/// Serves `inspector` on `listener` until the process ends.
pub async fn serve(listener: TcpListener, inspector: Arc<Inspector>) -> std::io::Result<()> {
    let addr: SocketAddr = listener.local_addr()?;
    let app = router(inspector, addr.ip().is_loopback());
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown())
        .await
}

async fn shutdown() {
    let _ = tokio::signal::ctrl_c().await;
}
