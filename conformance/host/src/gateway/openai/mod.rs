//! OpenAI Chat Completions over the registered extensions' model providers:
//! `GET /v1/models` (and `/v1/models/{id}`), `POST /v1/chat/completions`, streamed and
//! not, in the shapes of the OpenAI API reference, errors in its envelope.
//!
//! Modules: [`error`] (the envelope and statuses), [`models`] (the model ids and the kept
//! listing), [`messages`] and [`request`] (the body checked and mapped to AEP),
//! [`completion`] (the whole answer) and [`chunks`] (the streamed one), [`chat`] (the
//! route). `conformance/host/README.md` ("Gateway: OpenAI Chat Completions") has the
//! mapping table and what is not supported.

mod chat;
mod chunks;
mod completion;
mod error;
mod messages;
mod models;
mod request;

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::Gateway;
use error::OpenAiError;
use models::Models;

/// What the routes share.
#[derive(Debug)]
struct OpenAi {
    gateway: Gateway,
    models: Models,
}

/// The OpenAI routes over `gateway`'s registry.
pub(super) fn router(gateway: Gateway) -> Router {
    let state = Arc::new(OpenAi {
        models: Models::new(gateway.clone()),
        gateway,
    });
    Router::new()
        .route("/v1/models", get(list))
        // Ids hold `/` (`openai/smollm2`): the rest of the path is the id.
        .route("/v1/models/{*id}", get(retrieve))
        .route("/v1/chat/completions", post(chat::completions))
        .with_state(state)
}

/// `{"object": "list", "data": [model...]}`, asking every extension anew.
async fn list(State(state): State<Arc<OpenAi>>) -> axum::Json<Value> {
    let listing = state.models.list().await;
    let data: Vec<Value> = listing.models.iter().map(models::Listed::object).collect();
    axum::Json(json!({"object": "list", "data": data}))
}

/// One model object, or 404 `model_not_found`.
async fn retrieve(State(state): State<Arc<OpenAi>>, Path(id): Path<String>) -> Response {
    match state.models.resolve(&id).await {
        Some(listed) => axum::Json(listed.object()).into_response(),
        None => OpenAiError::model_not_found(&id).into_response(),
    }
}
