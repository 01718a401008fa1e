//! The JSON API under `/api`: everything the page does, done server-side against the
//! extension (so the browser needs no CORS from it and the token never reaches the page).
//!
//! | route | what |
//! |---|---|
//! | `GET /api/config` | URLs to open connected (from the command line) |
//! | `GET /api/checks` | the conformance runner's checks, to choose from |
//! | `GET, POST /api/connections` | list, connect (`{url, token?, revision?, anyway?}`) |
//! | `DELETE /api/connections/{id}` | close |
//! | `GET /api/connections/{id}/overview` | summary, manifest, option sets |
//! | `GET /api/connections/{id}/health` | extension and provider health |
//! | `GET /api/connections/{id}/manifests` | both revisions' raw documents and their diff |
//! | `GET /api/connections/{id}/trace` | the last 200 exchanges with the extension, newest first, the proxy's address, the endpoints that bypass it |
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
//! | `POST /api/connections/{id}/conformance` | run the suite, as events (`{checks?, only?, skip?, strict?}`) |
//! | `GET /api/connections/{id}/conformance/report.json`, `report.xml` | the last report (JSON, JUnit) |
//! | `POST /api/sign-ins` | start signing in with OAuth (`{url, revision?, clientId?, clientSecret?, scope?}`) |
//! | `GET /api/sign-ins/{id}` | where it is: `pending` (the authorization URL), `signed_in`, `failed` |
//! | `DELETE /api/sign-ins/{id}` | sign out: tokens forgotten, its connections closed |

mod chat;
mod configuration;
mod conformance;
mod connections;
mod overview;
mod sign_ins;
mod surface;
mod tools;

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
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

/// A connection's JSON and XML answers (errors, tool origins, reports) name the
/// extension's URL, not the recording proxy's that its clients were given. The trace
/// itself is left as it is (it says where the proxy listens).
async fn real_urls(State(inspector): State<Shared>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let response = next.run(request).await;
    let Some(rest) = path.strip_prefix("/api/connections/") else {
        return response;
    };
    let (id, tail) = rest.split_once('/').unwrap_or((rest, ""));
    let textual = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json") || t.starts_with("application/xml"));
    if tail == "trace" || !textual {
        return response;
    }
    let Ok(connection) = inspector.connections.get(id) else {
        return response;
    };
    let (mut parts, body) = response.into_parts();
    match axum::body::to_bytes(body, 64 << 20).await {
        Ok(bytes) => {
            let text = connection.unproxy(&String::from_utf8_lossy(&bytes));
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(text))
        }
        Err(e) => ApiError::new(
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            "answer_unreadable",
            format!("the Inspector could not read its own answer: {e}"),
        )
        .into_response(),
    }
}

/// The `/api` routes.
pub fn routes(inspector: Shared) -> Router<Shared> {
    let one = "/api/connections/{id}";
    Router::new()
        .route("/api/config", get(connections::config))
        .route("/api/checks", get(conformance::checks))
        .route(
            "/api/connections",
            get(connections::list).post(connections::connect),
        )
        .route(one, delete(connections::close))
        .route("/api/sign-ins", post(sign_ins::start))
        .route(
            "/api/sign-ins/{id}",
            get(sign_ins::get).delete(sign_ins::sign_out),
        )
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
        .layer(axum::middleware::from_fn_with_state(inspector, real_urls))
}
