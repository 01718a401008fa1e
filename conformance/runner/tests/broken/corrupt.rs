//! Helpers that corrupt one thing of a working router: a middleware in front of it that
//! rewrites one kind of request or answer.

use std::future::Future;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde_json::{Value, json};

/// Puts `hook` in front of every route of `router`.
pub fn hook<F, Fut>(router: Router, hook: F) -> Router
where
    F: Fn(Request, Next) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Response> + Send + 'static,
{
    router.layer(axum::middleware::from_fn(hook))
}

/// Reads a body whole.
pub async fn bytes(body: Body) -> Bytes {
    axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default()
}

/// The request split into head and buffered body (for hooks that look at the body).
pub async fn buffer(request: Request) -> (http::request::Parts, Bytes) {
    let (parts, body) = request.into_parts();
    (parts, bytes(body).await)
}

/// Rebuilds a request from its head and a body.
pub fn rebuild(mut parts: http::request::Parts, body: impl Into<Bytes>) -> Request {
    let body = body.into();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    Request::from_parts(parts, Body::from(body))
}

/// Rewrites an answer's body bytes (headers kept, length fixed).
pub async fn map_body(response: Response, f: impl FnOnce(Vec<u8>) -> Vec<u8>) -> Response {
    let (mut parts, body) = response.into_parts();
    let body = f(bytes(body).await.to_vec());
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}

/// Rewrites a JSON answer.
pub async fn edit_json(response: Response, f: impl FnOnce(&mut Value)) -> Response {
    map_body(response, |body| match serde_json::from_slice::<Value>(&body) {
        Ok(mut value) => {
            f(&mut value);
            serde_json::to_vec(&value).unwrap_or(body)
        }
        Err(_) => body,
    })
    .await
}

/// Rewrites the `data:` JSON of every SSE event (or of a JSON body).
pub async fn edit_mcp(response: Response, f: impl Fn(&mut Value)) -> Response {
    map_body(response, |body| {
        let text = String::from_utf8_lossy(&body).into_owned();
        if let Ok(mut value) = serde_json::from_str::<Value>(&text) {
            f(&mut value);
            return serde_json::to_vec(&value).unwrap_or(body);
        }
        let mut out = String::new();
        for line in text.split_inclusive('\n') {
            match line.strip_prefix("data: ").or_else(|| line.strip_prefix("data:")) {
                Some(data) => match serde_json::from_str::<Value>(data.trim_end()) {
                    Ok(mut value) => {
                        f(&mut value);
                        out.push_str(&format!("data: {value}\n"));
                    }
                    Err(_) => out.push_str(line),
                },
                None => out.push_str(line),
            }
        }
        out.into_bytes()
    })
    .await
}

/// An AEP error answer.
pub fn aep_error(status: u16, code: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (
        status,
        axum::Json(json!({"error": {"code": code, "message": "corrupted by a test fixture"}})),
    )
        .into_response()
}

/// A plain ChatResponse answer.
pub fn fake_chat() -> Response {
    axum::Json(json!({
        "messages": [{"role": "assistant", "contents": [{"kind": "text", "text": "ok"}]}],
        "finishReason": "stop"
    }))
    .into_response()
}

/// The AEP error code of an answer body, if it is one.
pub fn error_code(body: &[u8]) -> Option<String> {
    serde_json::from_slice::<Value>(body)
        .ok()?
        .pointer("/error/code")?
        .as_str()
        .map(str::to_owned)
}

/// Whether `path` is a chat route (`/chat` or `/chat/stream`) of a provider.
pub fn is_chat(path: &str) -> bool {
    path.starts_with("/aep/model-providers/") && (path.ends_with("/chat") || path.ends_with("/chat/stream"))
}

/// Whether `path` is the discovery route of either revision.
pub fn is_discovery(path: &str) -> bool {
    path == "/.well-known/aep" || path == "/.well-known/agentstration"
}
