//! The page: plain HTML, CSS and JavaScript files under `assets/`, embedded in the
//! binary when it is built (no front-end build, no CDN, works offline).

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

const INDEX: &str = include_str!("../assets/index.html");
/// The page's ES modules, by the path they are served at.
pub const SCRIPTS: [(&str, &str); 8] = [
    ("/app.js", include_str!("../assets/app.js")),
    ("/dom.js", include_str!("../assets/dom.js")),
    ("/api.js", include_str!("../assets/api.js")),
    ("/forms.js", include_str!("../assets/forms.js")),
    ("/playground.js", include_str!("../assets/playground.js")),
    ("/tools.js", include_str!("../assets/tools.js")),
    ("/configuration.js", include_str!("../assets/configuration.js")),
    ("/signin.js", include_str!("../assets/signin.js")),
];
const STYLE: &str = include_str!("../assets/app.css");
const ICON: &str = include_str!("../assets/icon.svg");

/// Scripts only from this origin, no inline code, no framing.
pub const POLICY: &str = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

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

/// `GET /app.js` and the other modules of [`SCRIPTS`].
pub fn script(body: &'static str) -> Response {
    asset("text/javascript; charset=utf-8", body)
}

/// `GET /app.css`.
pub async fn style() -> Response {
    asset("text/css; charset=utf-8", STYLE)
}

/// `GET /icon.svg` (also answers `/favicon.ico`).
pub async fn icon() -> Response {
    asset("image/svg+xml", ICON)
}
