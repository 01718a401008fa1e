//! Every fault ends in the right AEP error within its bound: before the stream starts as
//! an HTTP error (same code and status on both routes), after it as a terminal error
//! update.

use crate::common;

use std::time::Instant;

use aep_openai_compatible::flavor::Flavor;
use aep_sdk::protocol::{ChatRequest, Message};
use common::{BOUND, FLAVORS, serve, stand, tuning};

/// `(model, status, code)` answered before the stream starts.
const BEFORE: [(&str, u16, &str); 3] = [
    ("missing", 404, "model_unavailable"),
    ("loading", 503, "provider_unavailable"),
    ("bad", 400, "invalid_request"),
];

#[tokio::test]
async fn upstream_statuses_pass_through_on_both_routes() {
    for flavor in FLAVORS {
        let stand = stand(flavor).await;
        for (model, status, code) in BEFORE {
            let request = ChatRequest::new(model, vec![Message::user("x")]);
            let chat = stand.client.chat(stand.provider(), &request).await.unwrap_err();
            let stream = stand
                .client
                .chat_stream(stand.provider(), &request)
                .await
                .err()
                .expect("refused before the stream");
            for error in [chat, stream] {
                let remote = error.remote.as_ref().expect("an AEP error body");
                assert_eq!(
                    (error.status.map(|s| s.as_u16()), remote.code.as_str()),
                    (Some(status), code),
                    "{flavor:?} {model}"
                );
            }
        }
        let request = ChatRequest::new("missing", vec![Message::user("x")]);
        let error = stand.client.chat(stand.provider(), &request).await.unwrap_err();
        assert_eq!(error.remote.unwrap().message, "model 'missing' not found");
    }
}

#[tokio::test]
async fn a_refused_key_is_401_invalid_request() {
    let stand = stand(Flavor::OpenAi).await;
    stand.fake.require_key("right");
    let request = ChatRequest::new("smollm2", vec![Message::user("x")]);
    let error = stand.client.chat("openai", &request).await.unwrap_err();
    assert_eq!(error.status.map(|s| s.as_u16()), Some(401));
    assert_eq!(error.remote.unwrap().code, "invalid_request");
}

#[tokio::test]
async fn an_unreachable_upstream_is_502_provider_unavailable() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut config = aep_openai_compatible::config::UpstreamConfig::new(
        Flavor::LlamaCpp,
        &format!("http://127.0.0.1:{port}"),
    )
    .unwrap();
    config.tuning = tuning(Flavor::LlamaCpp);
    let (_server, client) = serve(config).await;
    let request = ChatRequest::new("smollm2", vec![Message::user("x")]);
    for error in [
        client.chat("llamacpp", &request).await.unwrap_err(),
        client.chat_stream("llamacpp", &request).await.err().unwrap(),
    ] {
        let remote = error.remote.unwrap();
        assert_eq!(
            (error.status.map(|s| s.as_u16()), remote.code.as_str()),
            (Some(502), "provider_unavailable")
        );
        assert_eq!(remote.message, "llama.cpp is unreachable.");
    }
}

/// `(model, code)` of failures after the stream started: a terminal error update.
const AFTER: [(&str, &str); 6] = [
    ("stall", "timeout"),
    ("malformed", "invalid_response"),
    ("oversized", "invalid_response"),
    ("reset", "provider_unavailable"),
    ("error-event", "request_failed"),
    ("no-finish", "invalid_response"),
];

#[tokio::test]
async fn failures_mid_stream_end_with_a_terminal_error_update_within_the_bound() {
    for flavor in FLAVORS {
        let stand = stand(flavor).await;
        for (model, code) in AFTER {
            let started = Instant::now();
            // The canonical client reads a terminal error update as the stream's error;
            // no HTTP status: the answer was a 200 stream.
            let error = stand.stream(model, "x").await.unwrap_err();
            assert_eq!(error.status, None, "{flavor:?} {model}: {error}");
            assert_eq!(
                error.remote.as_ref().unwrap().code,
                code,
                "{flavor:?} {model}: {error}"
            );
            assert!(started.elapsed() < BOUND, "{model}");
        }
    }
}

/// `(model, status, code)` of failures of a non-streamed answer (`/chat`).
const ONCE: [(&str, u16, &str); 3] = [
    ("stall", 504, "timeout"),
    ("empty-choices", 502, "invalid_response"),
    ("garbage", 502, "invalid_response"),
];

#[tokio::test]
async fn failures_of_a_non_streamed_answer_are_http_errors_within_the_bound() {
    for flavor in FLAVORS {
        let stand = stand(flavor).await;
        for (model, status, code) in ONCE {
            let request = ChatRequest::new(model, vec![Message::user("x")]);
            let error = stand.client.chat(stand.provider(), &request).await.unwrap_err();
            assert_eq!(
                error.status.map(|s| s.as_u16()),
                Some(status),
                "{flavor:?} {model}: {error}"
            );
            assert_eq!(error.remote.unwrap().code, code, "{flavor:?} {model}");
        }
        let request = ChatRequest::new("empty-choices", vec![Message::user("x")]);
        let error = stand.client.chat(stand.provider(), &request).await.unwrap_err();
        assert!(
            error
                .remote
                .unwrap()
                .message
                .ends_with("returned no chat completion choice.")
        );
    }
}
