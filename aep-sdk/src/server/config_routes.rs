//! `GET /aep/configuration` and `POST /aep/configuration/migrate`, present only when the
//! extension declares an option set (the catalog and the migration are `config`'s).

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use http::header;

use super::AepJson;
use crate::AepError;
use crate::config::Configuration;
use crate::protocol::{MigrationRequest, paths};

type ConfigState = State<Arc<Configuration>>;

/// The two routes, or `None` when no option set is declared.
pub(super) fn router(configuration: &Arc<Configuration>) -> Option<Router> {
    if configuration.is_empty() {
        return None;
    }
    Some(
        Router::new()
            .route(paths::CONFIGURATION, get(catalog))
            .route(paths::CONFIGURATION_MIGRATE, post(migrate))
            .with_state(configuration.clone()),
    )
}

async fn catalog(State(config): ConfigState) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], config.catalog()).into_response()
}

async fn migrate(
    State(config): ConfigState,
    AepJson(request): AepJson<MigrationRequest>,
) -> Result<Response, AepError> {
    Ok(axum::Json(config.migrate(request).await?).into_response())
}
