//! Request entry point: reads and records the request, applies pre-request
//! faults, dispatches to the endpoint.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::response::Response;
use serde_json::{Value, json};

use crate::faults::Fault;
use crate::models::{ModelName, canonical};
use crate::record::{RecordedRequest, ResponseGuard};
use crate::reply::{abort_response, error_response, json_response, respond, wait_killed_or};
use crate::validate::{self, ApiError};
use crate::{Shared, chat, lock};

/// Longest time spent reading a request body.
const BODY_READ_LIMIT: Duration = Duration::from_secs(30);

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    Router::new().fallback(handle).with_state(shared)
}

async fn handle(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    let started = Instant::now();
    let (parts, body) = req.into_parts();
    let path = parts.uri.path().to_string();
    let seq = shared.rec.next_seq();
    let mut guard = ResponseGuard::new(shared.rec.clone(), seq, &path, started);

    let bytes = match tokio::time::timeout(BODY_READ_LIMIT, axum::body::to_bytes(body, shared.max_body)).await
    {
        Ok(Ok(b)) => b,
        Ok(Err(_)) => {
            guard.finish();
            return error_response(&ApiError::new(413, "request body too large or unreadable"));
        }
        Err(_) => {
            guard.finish();
            return error_response(&ApiError::new(408, "request body timeout"));
        }
    };

    shared.rec.record(RecordedRequest {
        seq,
        method: parts.method.to_string(),
        path: path.clone(),
        query: parts.uri.query().map(str::to_string),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: serde_json::from_slice(&bytes).ok(),
        raw_body: bytes.clone(),
        at: Instant::now(),
    });

    let fault = lock(&shared.faults).take(&path);
    if let Some(f) = &fault
        && f.is_pre_request()
    {
        return pre_request_fault(&shared, f, guard).await;
    }

    let method = parts.method;
    match (path.as_str(), &method) {
        ("/", &Method::GET | &Method::HEAD) => {
            guard.finish();
            respond(200, "text/plain; charset=utf-8", "Ollama is running")
        }
        ("/api/version", &Method::GET | &Method::HEAD) => {
            guard.finish();
            json_response(200, &json!({ "version": shared.version }))
        }
        ("/api/tags", &Method::GET) => {
            guard.finish();
            let models: Vec<Value> = shared
                .models
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .map(|m| m.tags_entry())
                .collect();
            json_response(200, &json!({ "models": models }))
        }
        ("/api/ps", &Method::GET) => {
            guard.finish();
            json_response(200, &json!({ "models": [] }))
        }
        ("/api/show", &Method::POST) => {
            guard.finish();
            show(&shared, &bytes)
        }
        ("/api/chat", &Method::POST) => chat::chat(shared.clone(), &bytes, fault, guard, started).await,
        _ => {
            guard.finish();
            respond(404, "text/plain", "404 page not found")
        }
    }
}

async fn pre_request_fault(shared: &Shared, fault: &Fault, mut guard: ResponseGuard) -> Response {
    match fault {
        Fault::HttpError { status, message } => {
            guard.finish();
            error_response(&ApiError::new(*status, message.clone()))
        }
        _ => {
            // Hang: no byte until the client leaves (the future is dropped
            // and the guard records it), the server stops, or the limit.
            wait_killed_or(shared, shared.hang_limit).await;
            guard.finish();
            abort_response()
        }
    }
}

fn show(shared: &Shared, body: &[u8]) -> Response {
    let requested = match validate::decode_show(body) {
        Ok(m) => m,
        Err(e) => return error_response(&e),
    };
    shared.rec.count_show(canonical(&requested));
    let name = ModelName::parse(&requested);
    if !name.is_valid() {
        return error_response(&ApiError::new(400, "invalid model name"));
    }
    match shared.find_model(&name) {
        Some(m) => json_response(200, &m.show_json()),
        None => error_response(&ApiError::new(
            404,
            format!("model '{}' not found", name.display_shortest()),
        )),
    }
}
