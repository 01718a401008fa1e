//! [`Proxy`]: a connection's recording reverse proxy. The SDK's client, the host's MCP
//! pool and the conformance runner are given its URL as the extension's base, so every
//! exchange they have with the extension passes through it and lands in the connection's
//! [`Trace`] (method, URL, status, timings, headers with secrets redacted, bodies cut to
//! 4 KiB, event streams by frame count).
//!
//! It listens on `127.0.0.1` only (an ephemeral port), answers only requests whose `Host`
//! is that address (a web page cannot reach it through DNS rebinding), forwards each
//! request to the extension's origin with the same path, query, headers and body (bodies
//! are streamed both ways, so a stream arrives frame by frame and a dropped client drops
//! the upstream request), follows no redirect, and is stopped when the connection closes.
//! It adds nothing: a bearer token is the clients' own header, passed on as they sent it.
//!
//! Each client is given its own base ([`Proxy::base_for`]): the extension's path under a
//! first segment naming the client (`/_inspector-sdk`, `/_inspector-mcp`,
//! `/_inspector-runner`), which the proxy takes off before forwarding and records as
//! who sent the exchange. A request without such a segment is forwarded as it is
//! (recorded as sent `via` `proxy`).
//!
//! An MCP server whose manifest endpoint is an absolute URL is resolved by the pool to
//! that URL, not to the proxy, so its exchanges bypass the trace ([`absolute_endpoints`]).

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use aep_sdk::client::SseDecoder;
use aep_sdk::protocol::Manifest;
use axum::body::{Body, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde_json::json;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use url::Url;

use crate::limits::{CONNECT_TIMEOUT, MAX_STALL};
use crate::trace::{Capture, Pending, Trace};

/// How long a closing proxy waits for its exchanges to end before it is stopped.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// Headers that belong to one hop and are not forwarded (RFC 9110 section 7.6.1).
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "host",
];

/// Who goes through the proxy: each gets its own base URL, so the trace says who sent what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sender {
    /// The SDK's client (discovery, health, models, chat, configuration, migrate).
    Sdk,
    /// The host's MCP pool (tools, resources, prompts).
    Mcp,
    /// The conformance runner.
    Runner,
}

impl Sender {
    const ALL: [Sender; 3] = [Sender::Sdk, Sender::Mcp, Sender::Runner];

    /// How the trace names it (`via`).
    pub fn as_str(self) -> &'static str {
        match self {
            Sender::Sdk => "sdk",
            Sender::Mcp => "mcp",
            Sender::Runner => "runner",
        }
    }

    /// The first path segment of its base.
    fn segment(self) -> &'static str {
        match self {
            Sender::Sdk => "/_inspector-sdk",
            Sender::Mcp => "/_inspector-mcp",
            Sender::Runner => "/_inspector-runner",
        }
    }
}

/// A running recording proxy for one extension.
#[derive(Debug)]
pub struct Proxy {
    base: Url,
    addr: SocketAddr,
    stop: Mutex<Option<oneshot::Sender<()>>>,
    task: Mutex<Option<JoinHandle<()>>>,
}

#[derive(Clone)]
struct Target {
    /// The extension's origin, `http://host:port` (no slash).
    origin: String,
    /// The `Host` this proxy answers to.
    host: String,
    http: reqwest::Client,
    trace: Trace,
}

impl Proxy {
    /// Starts a proxy to `extension` on `127.0.0.1:0`, recording into `trace`.
    pub async fn start(extension: &Url, trace: Trace) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(MAX_STALL)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(std::io::Error::other)?;
        let mut base = extension.clone();
        let unusable = |what: &str| std::io::Error::other(format!("the proxy URL takes no {what}"));
        base.set_scheme("http").map_err(|()| unusable("http scheme"))?;
        base.set_host(Some("127.0.0.1")).map_err(|_| unusable("host"))?;
        base.set_port(Some(addr.port())).map_err(|()| unusable("port"))?;
        let target = Target {
            origin: extension.origin().ascii_serialization(),
            host: addr.to_string(),
            http,
            trace,
        };
        let app = axum::Router::new().fallback(forward).with_state(target);
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(Self {
            base,
            addr,
            stop: Mutex::new(Some(stop)),
            task: Mutex::new(Some(task)),
        })
    }

    /// The extension's path on the proxy's address (no sender segment).
    pub fn base(&self) -> &Url {
        &self.base
    }

    /// The URL `sender` is given as the extension's base: the extension's path under
    /// the sender's segment, on the proxy's address.
    pub fn base_for(&self, sender: Sender) -> Url {
        let mut base = self.base.clone();
        let path = format!("{}{}", sender.segment(), self.base.path());
        base.set_path(&path);
        base
    }

    /// Every prefix clients see: `http://127.0.0.1:PORT` followed by a sender's segment,
    /// longest first (then the bare origin).
    pub fn prefixes(&self) -> Vec<String> {
        let origin = format!("http://{}", self.addr);
        let mut all: Vec<String> = Sender::ALL
            .iter()
            .map(|s| format!("{origin}{}", s.segment()))
            .collect();
        all.push(origin);
        all
    }

    /// The proxy's address (always `127.0.0.1`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, lets exchanges under way end for a moment, then stops.
    pub async fn close(&self) {
        if let Some(stop) = self.stop.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = stop.send(());
        }
        let task = self.task.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(mut task) = task
            && tokio::time::timeout(CLOSE_GRACE, &mut task).await.is_err()
        {
            task.abort();
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        if let Some(task) = self.task.lock().unwrap_or_else(|e| e.into_inner()).take() {
            task.abort();
        }
    }
}

/// The MCP server endpoints of `manifest` that are absolute URLs: the pool reaches
/// them directly, so the trace does not see them.
pub fn absolute_endpoints(manifest: &Manifest) -> Vec<String> {
    manifest
        .mcp_servers()
        .iter()
        .filter(|server| Url::parse(&server.endpoint).is_ok())
        .map(|server| server.endpoint.clone())
        .collect()
}

fn forwarded(name: &HeaderName) -> bool {
    !HOP_BY_HOP.contains(&name.as_str())
}

fn refuse(status: StatusCode, code: &str, message: String) -> Response {
    (
        status,
        axum::Json(json!({"error": {"code": code, "message": message}})),
    )
        .into_response()
}

async fn forward(State(target): State<Target>, request: Request) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if host != target.host {
        return refuse(
            StatusCode::MISDIRECTED_REQUEST,
            "misdirected_request",
            format!(
                "this is the AEP Inspector's trace proxy; it answers only to Host {}",
                target.host
            ),
        );
    }
    let (parts, body) = request.into_parts();
    let full = parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let (via, path) = Sender::ALL
        .iter()
        .find_map(|s| {
            let rest = full.strip_prefix(s.segment())?;
            let rest = if rest.is_empty() { "/" } else { rest };
            (rest.starts_with('/') || rest.starts_with('?')).then_some((s.as_str(), rest))
        })
        .unwrap_or(("proxy", full));
    let path = if path.starts_with('?') {
        format!("/{path}")
    } else {
        path.to_owned()
    };
    let url = format!("{}{path}", target.origin);
    let mut headers = HeaderMap::new();
    for (name, value) in &parts.headers {
        if forwarded(name) {
            headers.append(name.clone(), value.clone());
        }
    }
    let mut pending = target.trace.begin(parts.method.as_str(), &url, &headers, via);
    let mut upstream = target.http.request(parts.method.clone(), &url).headers(headers);
    if body.size_hint().exact() != Some(0) {
        let capture = Arc::new(Mutex::new(Capture::default()));
        pending.request_body(capture.clone());
        let tee = body.into_data_stream().map(move |piece| {
            if let Ok(bytes) = &piece {
                capture.lock().unwrap_or_else(|e| e.into_inner()).push(bytes);
            }
            piece
        });
        upstream = upstream.body(reqwest::Body::wrap_stream(tee));
    }
    let response = match upstream.send().await {
        Ok(response) => response,
        Err(e) => {
            let why = aep_sdk::client::error_chain(&e);
            pending.fail(why.clone());
            return refuse(
                StatusCode::BAD_GATEWAY,
                aep_sdk::client::codes::EXTENSION_UNREACHABLE,
                format!("the Inspector's trace proxy could not reach {url}: {why}"),
            );
        }
    };
    pending.answered_with(response.status().as_u16(), response.headers());
    let status = response.status();
    let mut out_headers = HeaderMap::new();
    for (name, value) in response.headers() {
        if forwarded(name) {
            out_headers.append(name.clone(), value.clone());
        }
    }
    let streamed = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"));
    if streamed {
        pending.streaming();
    }
    // No body at all: hyper never polls one, so the exchange is recorded now.
    let bodiless = parts.method == axum::http::Method::HEAD
        || status == StatusCode::NO_CONTENT
        || status == StatusCode::NOT_MODIFIED
        || (response.content_length() == Some(0) && !streamed);
    if bodiless {
        pending.finish(&[]);
        let mut answer = Response::new(Body::empty());
        *answer.status_mut() = status;
        *answer.headers_mut() = out_headers;
        return answer;
    }
    let tap = Tap {
        expected: response.content_length().filter(|_| !streamed),
        inner: Box::pin(response.bytes_stream()),
        pending: Some(pending),
        capture: Capture::default(),
        frames: streamed.then(SseDecoder::default),
    };
    let mut answer = Response::new(Body::from_stream(tap));
    *answer.status_mut() = status;
    *answer.headers_mut() = out_headers;
    answer
}

/// The answer's body on its way to the client, recorded as it passes: the exchange is
/// recorded when it ends (its last byte passed, or its end), breaks, or is dropped (the
/// client went away).
struct Tap {
    expected: Option<u64>,
    inner: Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>,
    pending: Option<Pending>,
    capture: Capture,
    frames: Option<SseDecoder>,
}

impl Stream for Tap {
    type Item = reqwest::Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let next = this.inner.as_mut().poll_next(cx);
        match &next {
            Poll::Ready(Some(Ok(bytes))) => {
                if let Some(decoder) = &mut this.frames {
                    let events = decoder.push(bytes).len();
                    if let Some(pending) = &mut this.pending {
                        for _ in 0..events {
                            pending.frame();
                        }
                    }
                } else {
                    this.capture.push(bytes);
                    // With a length, hyper stops polling once it has it all.
                    if this.expected.is_some_and(|n| this.capture.total() as u64 >= n)
                        && let Some(pending) = this.pending.take()
                    {
                        pending.finish_captured(&this.capture);
                    }
                }
            }
            Poll::Ready(Some(Err(e))) => {
                if let Some(pending) = this.pending.take() {
                    pending.fail(format!("the answer broke: {}", aep_sdk::client::error_chain(e)));
                }
            }
            Poll::Ready(None) => {
                if let Some(pending) = this.pending.take() {
                    if this.frames.is_some() {
                        pending.streamed();
                    } else {
                        pending.finish_captured(&this.capture);
                    }
                }
            }
            Poll::Pending => {}
        }
        next
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        if let Some(mut pending) = self.pending.take()
            && self.frames.is_none()
        {
            pending.partial(&self.capture);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_mcp_endpoints_are_named_as_bypassing_the_proxy() {
        let manifest: Manifest = serde_json::from_value(json!({
            "protocolVersion": "2026-08-01",
            "extension": {"id": "x", "name": "X", "version": "1"},
            "capabilities": {"aep.health": {"version": "1.0", "endpoint": "/aep/health"}},
            "contributions": {"modelProviders": []},
            "mcp": {"servers": [
                {"id": "near", "endpoint": "/mcp"},
                {"id": "far", "endpoint": "https://tools.example/mcp"}
            ]}
        }))
        .unwrap();
        assert_eq!(absolute_endpoints(&manifest), ["https://tools.example/mcp"]);
    }

    #[tokio::test]
    async fn the_proxy_has_the_extensions_path_on_loopback_and_stops() {
        let proxy = Proxy::start(
            &"https://ext.example:8443/base".parse().unwrap(),
            Trace::default(),
        )
        .await
        .unwrap();
        let base = proxy.base().clone();
        assert_eq!(base.scheme(), "http");
        assert_eq!(base.host_str(), Some("127.0.0.1"));
        assert_eq!(base.path(), "/base");
        assert_eq!(proxy.base_for(Sender::Runner).path(), "/_inspector-runner/base");
        assert_eq!(
            proxy.prefixes()[0],
            format!("http://{}/_inspector-sdk", proxy.addr())
        );
        assert!(proxy.addr().ip().is_loopback());
        proxy.close().await;
        assert!(tokio::net::TcpStream::connect(proxy.addr()).await.is_err());
    }
}
