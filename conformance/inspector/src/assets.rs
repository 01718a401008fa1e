//! The page: plain HTML, CSS and JavaScript files under `assets/`, embedded in the
//! binary when it is built (no front-end build, no CDN, works offline).

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

const INDEX: &str = include_str!("../assets/index.html");
const SCRIPT: &str = include_str!("../assets/app.js");
const STYLE: &str = include_str!("../assets/app.css");
const ICON: &str = include_str!("../assets/icon.svg");

/// Scripts only from this origin, no inline code, no framing.
const POLICY: &str = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
            (header::CONTENT_SECURITY_POLICY, POLICY),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

/// `GET /`.
pub async fn index() -> Response {
    asset("text/html; charset=utf-8", INDEX)
}

/// `GET /app.js`.
pub async fn script() -> Response {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

/// `GET /app.css`.
pub async fn style() -> Response {
    asset("text/css; charset=utf-8", STYLE)
}

/// `GET /icon.svg` (also answers `/favicon.ico`).
pub async fn icon() -> Response {
    asset("image/svg+xml", ICON)
}
