//! What one sign-in does: the AEP routes first (the resource the 401 named), then the
//! manifest read with that token, then each MCP server that answers a request without a
//! token with a Bearer challenge, each signed in to as its own resource with the same
//! client. The popup goes from trip to trip; the status ends `SignedIn` or `Failed`.

use std::sync::Arc;

use aep_host::oauth::SignIn;
use aep_host::oauth::challenge::Challenge;
use aep_host::oauth::discovery::canonical;
use aep_sdk::protocol::Manifest;
use aep_sdk::validate::resolve_mcp_endpoint;
use url::Url;

use super::session::{Resource, Session, Status};
use crate::error::{ApiError, codes};
use crate::limits::{CONNECT_TIMEOUT, REQUEST_TIMEOUT};
use crate::probe;
use crate::trace::Trace;

/// Runs the sign-in of `session` to its end; `challenge`: the base's 401
/// `WWW-Authenticate`, when it answered one.
pub(super) async fn run(session: Arc<Session>, challenge: Option<String>) {
    let status = match sign_in_all(&session, challenge.as_deref()).await {
        Ok(resources) => Status::SignedIn(resources),
        Err(mut error) => {
            if session.progress.expired() {
                error.code = codes::SIGN_IN_EXPIRED.to_owned();
            }
            Status::Failed(error)
        }
    };
    session.progress.set(status);
}

async fn sign_in_all(session: &Session, challenge: Option<&str>) -> Result<Vec<Resource>, ApiError> {
    let http = http()?;
    let aep = SignIn::new(&session.base, session.options.clone())?;
    aep.sign_in(challenge).await?;
    let mut resources = vec![describe(&aep, "AEP routes".to_owned()).await];
    // The manifest says where the MCP servers are; read as served (validation is the
    // connection's business, and an unreadable one leaves the AEP routes signed in).
    let token = aep.access_token().await;
    let raw = probe::fetch(
        &http,
        &session.base,
        session.revision,
        token.as_ref().map(|t| t.expose()),
        &Trace::default(),
    )
    .await;
    let Some(manifest) = raw.json.and_then(|m| serde_json::from_value::<Manifest>(m).ok()) else {
        return Ok(resources);
    };
    for server in manifest.mcp_servers() {
        let Ok(url) = resolve_mcp_endpoint(&session.base, &server.endpoint) else {
            continue;
        };
        if resources.iter().any(|r| r.resource == canonical(&url)) {
            continue;
        }
        let Some(challenge) = asks_for_token(&http, &url).await else {
            continue;
        };
        let what = format!("MCP server {}", server.id);
        let mcp = SignIn::new(&url, session.options.clone())?;
        mcp.sign_in(Some(&challenge)).await.map_err(|mut e| {
            e.message = format!("{what} ({url}): {}", e.message);
            ApiError::from(e)
        })?;
        resources.push(describe(&mcp, what).await);
    }
    Ok(resources)
}

fn http() -> Result<reqwest::Client, ApiError> {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(REQUEST_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| ApiError::bad_request(format!("HTTP client: {e}")))
}

async fn describe(sign_in: &SignIn, what: String) -> Resource {
    Resource {
        resource: canonical(sign_in.target()),
        what,
        scopes: sign_in.scopes().await,
    }
}

/// The `WWW-Authenticate` of a 401 with a Bearer challenge that `url` answers a request
/// without a token with (a GET for the server's event stream: no session is made).
pub(super) async fn asks_for_token(http: &reqwest::Client, url: &Url) -> Option<String> {
    let response = http
        .get(url.clone())
        .header(reqwest::header::ACCEPT, "text/event-stream")
        .send()
        .await
        .ok()?;
    challenge_of(&response)
}

/// The response's `WWW-Authenticate` when it is a 401 with a Bearer challenge.
pub(super) fn challenge_of(response: &reqwest::Response) -> Option<String> {
    if response.status() != reqwest::StatusCode::UNAUTHORIZED {
        return None;
    }
    let header = response
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)?
        .to_str()
        .ok()?;
    Challenge::parse(header).map(|_| header.to_owned())
}
