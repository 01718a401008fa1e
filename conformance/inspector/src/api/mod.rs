//! The JSON API under `/api`: everything the page does, done server-side against the
//! extension (so the browser needs no CORS from it and the token never reaches the page).
//!
//! | route | what |
//! |---|---|
//! | `GET /api/config` | URLs to open connected (from the command line) |
//! | `GET, POST /api/connections` | list, connect (`{url, token?, revision?}`) |
//! | `DELETE /api/connections/{id}` | close |
//! | `GET /api/connections/{id}/overview` | summary, manifest, option sets |
//! | `GET /api/connections/{id}/health` | extension and provider health |
//! | `GET /api/connections/{id}/manifests` | both revisions' raw documents and their diff |
//! | `GET /api/connections/{id}/trace` | the last 200 exchanges of the Inspector's own HTTP client, newest first |
//! | `GET /api/connections/{id}/providers/{provider}/models` | a provider's models |
//! | `POST /api/connections/{id}/chat` | one chat (`{provider, request}`) |
//! | `POST /api/connections/{id}/chat/stream` | a streamed chat, as events (`{provider, request, stallSeconds?}`) |
//! | `GET /api/connections/{id}/configuration` | option sets, each version's digest checked |
//! | `POST /api/connections/{id}/configuration/validate` | check values (`{optionSet, version, values}`) |
//! | `POST /api/connections/{id}/configuration/migrate` | migrate (`{optionSet, fromVersion, toVersion, values}`) |
//! | `GET /api/connections/{id}/tools` | tools resolved AEP -> MCP |
//! | `POST /api/connections/{id}/tools/call` | call (`{tool, arguments}`) |
//! | `GET /api/connections/{id}/mcp` | each MCP server's resources, templates and prompts |
//! | `POST /api/connections/{id}/mcp/resources/read` | read (`{server, uri}`) |
//! | `POST /api/connections/{id}/mcp/prompts/get` | get a prompt (`{server, name, arguments}`) |
//! | `POST /api/connections/{id}/conformance` | run the suite, as events (`{only?, skip?, strict?}`) |
//! | `GET /api/connections/{id}/conformance/report.json`, `report.xml` | the last report (JSON, JUnit) |

mod chat;
mod configuration;
mod conformance;
mod connections;
mod overview;
mod surface;
mod tools;

use std::sync::Arc;

use axum::Router;
use axum::routing::{delete, get, post};
use bytes::Bytes;
use serde::de::DeserializeOwned;

use crate::error::ApiError;
use crate::state::Inspector;

/// The state handlers get.
type Shared = Arc<Inspector>;

/// Parses a JSON body, refusing a malformed one with a JSON error.
fn parse<T: DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("request body: {e}")))
}

/// The `/api` routes.
pub fn routes() -> Router<Shared> {
    let one = "/api/connections/{id}";
    Router::new()
        .route("/api/config", get(connections::config))
        .route(
            "/api/connections",
            get(connections::list).post(connections::connect),
        )
        .route(one, delete(connections::close))
        .route(&format!("{one}/overview"), get(overview::overview))
        .route(&format!("{one}/health"), get(overview::health))
        .route(&format!("{one}/manifests"), get(overview::manifests))
        .route(&format!("{one}/trace"), get(overview::trace))
        .route(
            &format!("{one}/providers/{{provider}}/models"),
            get(overview::models),
        )
        .route(&format!("{one}/chat"), post(chat::chat))
        .route(&format!("{one}/chat/stream"), post(chat::stream))
        .route(&format!("{one}/configuration"), get(configuration::catalog))
        .route(
            &format!("{one}/configuration/validate"),
            post(configuration::validate),
        )
        .route(
            &format!("{one}/configuration/migrate"),
            post(configuration::migrate),
        )
        .route(&format!("{one}/tools"), get(tools::list))
        .route(&format!("{one}/tools/call"), post(tools::call))
        .route(&format!("{one}/mcp"), get(surface::list))
        .route(&format!("{one}/mcp/resources/read"), post(surface::read))
        .route(&format!("{one}/mcp/prompts/get"), post(surface::prompt))
        .route(&format!("{one}/conformance"), post(conformance::run))
        .route(&format!("{one}/conformance/report.json"), get(conformance::json))
        .route(&format!("{one}/conformance/report.xml"), get(conformance::junit))
        .fallback(|| async {
            ApiError::new(
                axum::http::StatusCode::NOT_FOUND,
                "not_found",
                "no such API route",
            )
        })
}
