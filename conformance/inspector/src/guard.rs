//! Keeps other web sites out: the Inspector holds bearer tokens and can call tools, so a
//! page from another origin must not drive it through the visitor's browser.
//!
//! - `Host` must name a loopback host (`localhost`, `127.0.0.1`, `[::1]`) when the
//!   Inspector listens on loopback: a DNS-rebinding page's `Host` is its own name.
//! - A request with an `Origin` must come from the Inspector's own origin
//!   (`http://` plus the `Host` it was sent to).
//! - A `POST` must carry `content-type: application/json`, which a cross-origin page
//!   cannot send without a CORS preflight (never answered here).

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// Whether only loopback `Host` values are accepted.
#[derive(Debug, Clone, Copy)]
pub struct Loopback(pub bool);

fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host.split_inclusive(']').next().unwrap_or(host);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

fn forbidden(message: String) -> Response {
    ApiError::new(StatusCode::FORBIDDEN, "forbidden", message).into_response()
}

/// The middleware.
pub async fn check(State(loopback): State<Loopback>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    if loopback.0 && !matches!(host_name(&host), "localhost" | "127.0.0.1" | "[::1]") {
        return forbidden(format!("Host '{host}' is not a loopback name"));
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok())
        && origin != format!("http://{host}")
    {
        return forbidden(format!("requests from origin '{origin}' are refused"));
    }
    if request.method() == Method::POST {
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("application/json"));
        if !json {
            return ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                crate::error::codes::BAD_REQUEST,
                "POST bodies must be application/json",
            )
            .into_response();
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::host_name;

    #[test]
    fn host_names_drop_the_port() {
        assert_eq!(host_name("127.0.0.1:8720"), "127.0.0.1");
        assert_eq!(host_name("[::1]:8720"), "[::1]");
        assert_eq!(host_name("localhost"), "localhost");
        assert_eq!(host_name("evil.example:80"), "evil.example");
    }
}
