//! Who may reach the extension from a browser: the `Origin` rule (the MCP
//! specification's DNS-rebinding protection, applied to every route) and the CORS answers
//! browser clients need, plus the `Host` allow-list of the MCP endpoints.
//!
//! A request without `Origin` is not from a browser and passes. A browser request passes
//! when its origin is listed in [`McpAccess::allowed_origins`], or when it is a page on
//! this machine (host `localhost`, `127.0.0.1` or `[::1]`, any port) calling the
//! extension through a loopback address and [`McpAccess::local_origins`] is on. Any
//! other origin gets 403: a JSON-RPC error on the MCP endpoints, an AEP error elsewhere.
//! Accepted origins get CORS headers (tower-http's [`CorsLayer`]) and their preflights
//! are answered before authentication, since browsers send no credentials with them.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use futures::future::{Either, Ready, ready};
use http::{HeaderName, HeaderValue, Method, StatusCode, header};
use tower::Layer;
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer};

use crate::AepError;
use crate::error::codes;

/// Who may reach the extension: the MCP endpoints' `Host` allow-list and the browser
/// origins every route accepts.
///
/// ```
/// use aep_sdk::server::McpAccess;
///
/// // A workbench served from https://tools.example.com may call the extension.
/// let access = McpAccess {
///     allowed_origins: vec!["https://tools.example.com".into(), "http://dev.example:*".into()],
///     ..McpAccess::default()
/// };
/// # let _ = access;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpAccess {
    /// Accepted `Host` values on the MCP endpoints (with or without port). Default:
    /// `localhost`, `127.0.0.1`, `::1`. Add the names clients use when listening on
    /// other interfaces.
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted on every route, as `scheme://host[:port]`; the port may
    /// be `*` (`http://localhost:*`) and a default port may be left out. Default: none.
    pub allowed_origins: Vec<String>,
    /// Accept pages on this machine (origin host `localhost`, `127.0.0.1` or `[::1]`, any
    /// port, http or https) when they call through a loopback `Host`. On by default;
    /// [`Extension::serve_listener`](super::Extension::serve_listener) turns it off when
    /// the listener is not on a loopback address.
    pub local_origins: bool,
}

impl Default for McpAccess {
    fn default() -> Self {
        Self {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: Vec::new(),
            local_origins: true,
        }
    }
}

/// An `Origin` reduced to what is compared: scheme, host (lowercase, IPv6 without
/// brackets) and port (the scheme's default when left out).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl Origin {
    fn parse(value: &str) -> Option<Self> {
        let url = url::Url::parse(value).ok()?;
        // An origin is scheme://host[:port], nothing more.
        if !matches!(url.path(), "" | "/") || url.query().is_some() || !url.username().is_empty() {
            return None;
        }
        let host = match url.host()? {
            url::Host::Ipv6(ip) => ip.to_string(),
            other => other.to_string().to_ascii_lowercase(),
        };
        Some(Self {
            scheme: url.scheme().to_owned(),
            host,
            port: url.port_or_known_default(),
        })
    }

    fn is_local(&self) -> bool {
        matches!(self.scheme.as_str(), "http" | "https") && is_loopback_name(&self.host)
    }
}

fn is_loopback_name(host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "::1" | "[::1]")
}

/// One entry of [`McpAccess::allowed_origins`]: an origin, or one with any port.
#[derive(Debug, Clone)]
struct Allowed {
    origin: Origin,
    any_port: bool,
}

impl Allowed {
    fn parse(value: &str) -> Option<Self> {
        let value = value.trim().trim_end_matches('/');
        match value.strip_suffix(":*") {
            Some(base) => Origin::parse(base).map(|origin| Self {
                origin,
                any_port: true,
            }),
            None => Origin::parse(value).map(|origin| Self {
                origin,
                any_port: false,
            }),
        }
    }

    fn admits(&self, origin: &Origin) -> bool {
        self.origin.scheme == origin.scheme
            && self.origin.host == origin.host
            && (self.any_port || self.origin.port == origin.port)
    }
}

/// The compiled rule, shared by the guard and the CORS layer.
#[derive(Debug)]
pub(crate) struct OriginPolicy {
    allowed: Vec<Allowed>,
    local_origins: bool,
    mcp_paths: Vec<String>,
    cors: CorsLayer,
}

impl OriginPolicy {
    pub(crate) fn new(access: &McpAccess, mcp_paths: Vec<String>) -> Self {
        let allowed = access
            .allowed_origins
            .iter()
            .filter_map(|raw| {
                let parsed = Allowed::parse(raw);
                if parsed.is_none() {
                    tracing::warn!(origin = %raw, "ignoring an allowed origin that is not scheme://host[:port]");
                }
                parsed
            })
            .collect();
        Self {
            allowed,
            local_origins: access.local_origins,
            mcp_paths,
            cors: cors(),
        }
    }

    /// Whether a browser request from `origin` with `Host: host` is accepted.
    fn admits(&self, origin: &HeaderValue, host: Option<&HeaderValue>) -> bool {
        let Some(origin) = origin.to_str().ok().and_then(Origin::parse) else {
            return false; // `null`, opaque or malformed origins are never trusted
        };
        if self.allowed.iter().any(|a| a.admits(&origin)) {
            return true;
        }
        self.local_origins && origin.is_local() && host.is_some_and(host_is_loopback)
    }

    fn is_mcp(&self, path: &str) -> bool {
        self.mcp_paths.iter().any(|p| p == path)
    }

    /// The guard as a layer: CORS for accepted origins, 403 for the others.
    pub(crate) fn layer(self) -> OriginLayer {
        OriginLayer {
            policy: Arc::new(self),
        }
    }

    /// The 403 for a browser origin that is not accepted.
    fn refuse(&self, origin: &HeaderValue, path: &str) -> Response {
        let shown = String::from_utf8_lossy(origin.as_bytes())
            .chars()
            .take(100)
            .collect::<String>();
        tracing::debug!(origin = %shown, "refused a browser origin");
        let message = format!(
            "browser origin '{shown}' is not allowed; list it with --allowed-origin (AEP_ALLOWED_ORIGINS)"
        );
        if self.is_mcp(path) {
            return super::jsonrpc::refused(StatusCode::FORBIDDEN, &message);
        }
        AepError::new(StatusCode::FORBIDDEN, codes::ORIGIN_NOT_ALLOWED, message).into_response()
    }
}

fn host_is_loopback(host: &HeaderValue) -> bool {
    let Ok(host) = host.to_str() else {
        return false;
    };
    // `localhost:8710`, `[::1]:8710`, `127.0.0.1`.
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _port)| name),
    };
    is_loopback_name(&name.to_ascii_lowercase())
}

/// The origin rule as a tower layer. It is part of the one middleware stack the router
/// puts around each route (so a request pays for one boxed route, not one per layer);
/// the router also layers its fallbacks, so unknown paths and wrong methods are guarded
/// too.
#[derive(Clone)]
pub(crate) struct OriginLayer {
    policy: Arc<OriginPolicy>,
}

impl<S> tower::Layer<S> for OriginLayer {
    type Service = Guarded<S>;

    fn layer(&self, inner: S) -> Guarded<S> {
        Guarded {
            policy: self.policy.clone(),
            inner,
        }
    }
}

/// Only requests the guard admitted reach the CORS layer: the origin is already checked,
/// so it is echoed rather than parsed and matched a second time.
fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::mirror_request())
        .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
        // The origin is vetted: let it send what it asks for (`content-type`,
        // `authorization`, `mcp-protocol-version`, `mcp-session-id`, `last-event-id`,
        // and the 2026-07-28 revision's `mcp-method`, `mcp-name`, `mcp-param-*`).
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([
            HeaderName::from_static("mcp-session-id"),
            HeaderName::from_static("mcp-protocol-version"),
        ])
        .max_age(Duration::from_secs(600))
}

/// A route behind the origin rule. CorsLayer treats every OPTIONS as a preflight, so
/// only browser requests (those with an `Origin`) go through it; other OPTIONS still get
/// the router's 405.
#[derive(Clone)]
pub(crate) struct Guarded<S> {
    policy: Arc<OriginPolicy>,
    inner: S,
}

type CorsFuture<F> = tower_http::cors::ResponseFuture<F>;

impl<S> tower::Service<Request> for Guarded<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<Either<S::Future, CorsFuture<S::Future>>, Ready<Result<Response, Infallible>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let Some(origin) = request.headers().get(header::ORIGIN) else {
            return Either::Left(Either::Left(self.inner.call(request)));
        };
        if self.policy.admits(origin, request.headers().get(header::HOST)) {
            // Made per browser request: a route is cloned for every request, and a
            // `Cors` service would be cloned with it (its configuration allocates).
            let mut with_cors = self.policy.cors.layer(&mut self.inner);
            return Either::Left(Either::Right(with_cors.call(request)));
        }
        Either::Right(ready(Ok(self.policy.refuse(origin, request.uri().path()))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allowed: &[&str], local: bool) -> OriginPolicy {
        let access = McpAccess {
            allowed_origins: allowed.iter().map(|s| s.to_string()).collect(),
            local_origins: local,
            ..McpAccess::default()
        };
        OriginPolicy::new(&access, vec!["/mcp".into()])
    }

    fn admits(policy: &OriginPolicy, origin: &str, host: &str) -> bool {
        policy.admits(
            &HeaderValue::from_str(origin).unwrap(),
            Some(&HeaderValue::from_str(host).unwrap()),
        )
    }

    #[test]
    fn local_pages_through_a_loopback_host() {
        let p = policy(&[], true);
        for origin in [
            "http://localhost:3000",
            "http://127.0.0.1:9",
            "http://[::1]:5173",
            "https://localhost",
            "http://LOCALHOST:1",
        ] {
            assert!(admits(&p, origin, "127.0.0.1:8710"), "{origin}");
            assert!(admits(&p, origin, "localhost"), "{origin}");
            assert!(admits(&p, origin, "[::1]:8710"), "{origin}");
            assert!(
                !admits(&p, origin, "extensions.example:8710"),
                "{origin} via a public name"
            );
        }
        for origin in [
            "http://evil.example",
            "null",
            "http://localhost.evil.example",
            "http://127.0.0.2",
            "file://",
            "chrome-extension://abc",
            "http://localhost:3000/path",
        ] {
            assert!(!admits(&p, origin, "127.0.0.1:8710"), "{origin}");
        }
        assert!(!admits(
            &policy(&[], false),
            "http://localhost:3000",
            "127.0.0.1:8710"
        ));
    }

    #[test]
    fn configured_origins_exact_or_any_port() {
        let p = policy(
            &[
                "https://app.example",
                "http://dev.example:*",
                "http://exact.example:8080/",
            ],
            false,
        );
        assert!(admits(&p, "https://app.example", "h"));
        assert!(admits(&p, "https://app.example:443", "h"), "default port");
        assert!(!admits(&p, "https://app.example:8443", "h"));
        assert!(!admits(&p, "http://app.example", "h"), "scheme matters");
        assert!(admits(&p, "http://dev.example:1234", "h"));
        assert!(admits(&p, "http://exact.example:8080", "h"));
        assert!(!admits(&p, "http://exact.example:8081", "h"));
        assert!(!admits(&p, "https://APP.example.evil", "h"));
    }
}
