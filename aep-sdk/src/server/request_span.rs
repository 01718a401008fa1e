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
use tracing::Instrument;
use tracing::instrument::Instrumented;

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
        // The clock only runs for the DEBUG line that reports it.
        let start = (!span.is_disabled()).then(|| {
            span.in_scope(|| tracing::debug!("started processing request"));
            Instant::now()
        });
        Logged {
            inner: self.inner.call(request).instrument(span),
            start,
        }
    }
}

pin_project_lite::pin_project! {
    /// The route's answer, logged when it is ready.
    pub(crate) struct Logged<F> {
        #[pin]
        inner: Instrumented<F>,
        start: Option<Instant>,
    }
}

impl<F: Future<Output = Result<Response, Infallible>>> Future for Logged<F> {
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        let Ok(response) = ready!(this.inner.as_mut().poll(cx));
        let status = response.status().as_u16();
        let latency = this.start.map(|start| start.elapsed());
        let _entered = this.inner.span().enter();
        if response.status().is_server_error() {
            tracing::error!(status, ?latency, "response failed");
        } else if let Some(latency) = latency {
            tracing::debug!(status, ?latency, "finished processing request");
        }
        Poll::Ready(Ok(response))
    }
}
