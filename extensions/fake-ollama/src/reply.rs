//! Building answers and waiting the way Ollama does: fixed bodies, JSON and error
//! bodies, a connection dropped on purpose, sleeps that end when the server stops. A leaf:
//! the request entry point (`routes`) and the chat endpoint (`chat`) both use it.

use std::io;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::Value;

use crate::Shared;
use crate::validate::ApiError;

pub(crate) const JSON: &str = "application/json; charset=utf-8";

/// A response with a fixed body.
pub(crate) fn respond(status: u16, content_type: &'static str, body: impl Into<Body>) -> Response {
    let mut r = Response::new(body.into());
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

pub(crate) fn json_response(status: u16, v: &Value) -> Response {
    respond(
        status,
        JSON,
        crate::wire::go_escape(serde_json::to_vec(v).unwrap_or_default()),
    )
}

pub(crate) fn error_response(e: &ApiError) -> Response {
    respond(e.status, JSON, crate::wire::error_body(&e.message))
}

/// A response whose body fails at once: hyper closes the connection before
/// flushing anything, so the client sees the connection die with no answer.
pub(crate) fn abort_response() -> Response {
    let s = futures::stream::once(async {
        Err::<Bytes, io::Error>(io::Error::other("fake-ollama: connection dropped on purpose"))
    });
    Response::new(Body::from_stream(s))
}

/// Waits until the server is stopped or `limit` passes.
pub(crate) async fn wait_killed_or(shared: &Shared, limit: Duration) {
    let mut kill = shared.kill.subscribe();
    tokio::select! {
        _ = kill.wait_for(|k| *k) => {}
        _ = tokio::time::sleep(limit) => {}
    }
}

/// Sleeps `d`, unless the server is stopped first (then `false`).
pub(crate) async fn sleep_unless_killed(shared: &Shared, d: Duration) -> bool {
    if d.is_zero() {
        return !*shared.kill.borrow();
    }
    let mut kill = shared.kill.subscribe();
    tokio::select! {
        r = kill.wait_for(|k| *k) => r.is_err(),
        _ = tokio::time::sleep(d) => true,
    }
}
