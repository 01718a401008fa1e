//! Server-sent events from the Inspector to the page: named events with one line of
//! JSON each, flushed as they are made.

use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::Stream;
use serde_json::Value;

/// One `event: NAME` / `data: JSON` event.
pub fn event(name: &str, data: &Value) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

/// A `text/event-stream` answer made of `events`.
pub fn response<S>(events: S) -> Response
where
    S: Stream<Item = Bytes> + Send + 'static,
{
    use futures::StreamExt;
    let body = Body::from_stream(events.map(Ok::<_, std::convert::Infallible>));
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        body,
    )
        .into_response()
}
