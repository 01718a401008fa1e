//! `GET /oauth/callback`: where the authorization server sends the browser back. The
//! redirect goes to the trip waiting with its `state` (none: a stale or forged redirect,
//! refused, nothing exchanged); then the browser is sent on to the next trip (`303`), or
//! shown that the sign-in is done, or why it failed. The code is never shown or logged.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use url::Url;

use crate::limits::SIGN_IN_STEP_TIMEOUT;
use crate::oauth::Status;
use crate::state::Inspector;

/// `GET /oauth/callback?code=..&state=..[&iss=..]`, or `?error=..&state=..`.
pub async fn callback(State(inspector): State<Arc<Inspector>>, RawQuery(query): RawQuery) -> Response {
    let query = query.unwrap_or_default();
    let state = url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    let Some(waiter) = inspector.sign_ins.visits().take(&state) else {
        return page(
            StatusCode::BAD_REQUEST,
            "Sign-in refused",
            "This redirect's state matches no sign-in waiting here (it expired, was used already, \
             or was not started by this Inspector): nothing was exchanged. Start the sign-in again \
             from the Inspector's page.",
            false,
        );
    };
    let trip = waiter.trip;
    let mut watch = waiter.progress.status.subscribe();
    let mut redirect: Url = waiter.redirect_uri.clone();
    redirect.set_query(Some(&query));
    waiter.deliver(redirect);
    let next = tokio::time::timeout(
        SIGN_IN_STEP_TIMEOUT,
        watch.wait_for(|s| match s {
            Status::Waiting(next) => next.number > trip,
            Status::SignedIn(_) | Status::Failed(_) => true,
            Status::Starting | Status::Working => false,
        }),
    )
    .await;
    let status = match next {
        Ok(Ok(status)) => status.clone(),
        Ok(Err(_)) => {
            return page(
                StatusCode::GONE,
                "Sign-in ended",
                "The sign-in was cancelled.",
                false,
            );
        }
        Err(_) => {
            return page(
                StatusCode::GATEWAY_TIMEOUT,
                "Still signing in",
                &format!(
                    "The Inspector is still working on the sign-in after {} s; the Inspector's page says how it ends.",
                    SIGN_IN_STEP_TIMEOUT.as_secs()
                ),
                false,
            );
        }
    };
    match status {
        // The next resource: the authorization server remembers the login, so this is
        // usually one consent more.
        Status::Waiting(next) => (
            [(header::REFERRER_POLICY, "no-referrer")],
            Redirect::to(next.url.as_str()),
        )
            .into_response(),
        Status::SignedIn(resources) => {
            let list: Vec<String> = resources
                .iter()
                .map(|r| format!("{} ({})", r.what, r.resource))
                .collect();
            page(
                StatusCode::OK,
                "Signed in",
                &format!(
                    "Signed in to {}. The Inspector holds the tokens; you can close this window and go back to the Inspector.",
                    list.join(", ")
                ),
                true,
            )
        }
        Status::Failed(error) => page(
            StatusCode::BAD_REQUEST,
            "Sign-in failed",
            &format!("{}: {}", error.code, error.message),
            false,
        ),
        Status::Starting | Status::Working => unreachable!("waited for another status"),
    }
}

/// A small page of its own (no script), with the Inspector's style.
fn page(status: StatusCode, title: &str, message: &str, ok: bool) -> Response {
    let role = if ok { "status" } else { "alert" };
    let class = if ok { "callback" } else { "callback error-box" };
    let body = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>AEP Inspector: {title}</title>\
         <link rel=\"stylesheet\" href=\"/app.css\"></head><body><main><h1>{title}</h1>\
         <p class=\"{class}\" role=\"{role}\">{}</p><p><a href=\"/\">Back to the Inspector</a></p></main></body></html>\n",
        escape(message)
    );
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (header::CONTENT_SECURITY_POLICY, crate::assets::POLICY),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        body,
    )
        .into_response()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
