//! The router layer: `http_server_request_duration_seconds` of every request and
//! `aep_server_errors_total` of every AEP error answer.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use crate::telemetry::conventions::method_label;
use axum::extract::{MatchedPath, Request};
use axum::response::Response;
use futures::future::BoxFuture;

use super::bounded::Label;
use super::{HttpLabels, Metrics};
use crate::error::ResponseCode;

/// Times the request until its response head, labelled with the route template (never
/// the raw path: a request no route matched is `unmatched`). A tower layer written out
/// (not `from_fn`): it wraps every route, and `from_fn` costs a clone of the route and
/// two boxed services per request.
#[derive(Clone)]
pub(crate) struct RecordRequests(pub(crate) Arc<Metrics>);

impl<S> tower::Layer<S> for RecordRequests {
    type Service = Recorded<S>;

    fn layer(&self, inner: S) -> Recorded<S> {
        Recorded {
            metrics: self.0.clone(),
            inner,
        }
    }
}

/// A route under [`RecordRequests`].
#[derive(Clone)]
pub(crate) struct Recorded<S> {
    metrics: Arc<Metrics>,
    inner: S,
}

impl<S> tower::Service<Request> for Recorded<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let metrics = self.metrics.clone();
        let start = Instant::now();
        let method = method_label(request.method());
        let route = match request.extensions().get::<MatchedPath>() {
            Some(path) => metrics.routes.get(path.as_str()),
            None => metrics.unmatched.clone(),
        };
        let answer = self.inner.call(request);
        Box::pin(async move {
            let Ok(response) = answer.await;
            record(&metrics, start, method, route, &response);
            Ok(response)
        })
    }
}

fn record(metrics: &Metrics, start: Instant, method: &'static str, route: Label, response: &Response) {
    if let Some(ResponseCode(code)) = response.extensions().get::<ResponseCode>() {
        metrics.error(code);
    }
    let labels = HttpLabels {
        http_request_method: method,
        http_route: route,
        http_response_status_code: response.status().as_u16(),
    };
    let seconds = start.elapsed().as_secs_f64();
    metrics.http.get_or_create(&labels).observe(seconds);
    #[cfg(feature = "otel")]
    if let Some(otel) = &metrics.otel {
        otel.http(
            method,
            &labels.http_route,
            labels.http_response_status_code,
            seconds,
        );
    }
}
