//! The span and log lines of every request, as tower-http's `TraceLayer` writes them by
//! default: a `request` span at DEBUG with the method, URI and version (never headers or
//! bodies), "started processing request" and "finished processing request" at DEBUG,
//! and a server error at ERROR. Unlike `TraceLayer` it leaves the response body alone (a
//! wrapped body is one more box and one more call per frame) and, with DEBUG off, costs a
//! level check and a status check.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use axum::extract::Request;
use axum::response::Response;
use tracing::Span;

/// The layer; see the module.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RequestSpanLayer;

impl<S> tower::Layer<S> for RequestSpanLayer {
    type Service = RequestSpan<S>;

    fn layer(&self, inner: S) -> RequestSpan<S> {
        RequestSpan { inner }
    }
}

/// A route under [`RequestSpanLayer`].
#[derive(Debug, Clone)]
pub(crate) struct RequestSpan<S> {
    inner: S,
}

impl<S> tower::Service<Request> for RequestSpan<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Logged<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let span = tracing::debug_span!(
            "request",
            method = %request.method(),
            uri = %request.uri(),
            version = ?request.version(),
        );
        // A disabled span is neither entered nor exited at each poll; the clock only
        // runs for the DEBUG line that reports it.
        let span = (!span.is_disabled()).then(|| {
            span.in_scope(|| tracing::debug!("started processing request"));
            (span, Instant::now())
        });
        Logged {
            inner: self.inner.call(request),
            span,
        }
    }
}

pin_project_lite::pin_project! {
    /// The route's answer, logged when it is ready.
    pub(crate) struct Logged<F> {
        #[pin]
        inner: F,
        span: Option<(Span, Instant)>,
    }
}

impl<F: Future<Output = Result<Response, Infallible>>> Future for Logged<F> {
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let entered = this.span.as_ref().map(|(span, _)| span.enter());
        let Ok(response) = ready!(this.inner.poll(cx));
        let status = response.status().as_u16();
        let latency = this.span.as_ref().map(|(_, start)| start.elapsed());
        if response.status().is_server_error() {
            tracing::error!(status, ?latency, "response failed");
        } else if let Some(latency) = latency {
            tracing::debug!(status, ?latency, "finished processing request");
        }
        drop(entered);
        Poll::Ready(Ok(response))
    }
}
