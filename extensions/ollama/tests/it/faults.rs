//! Every fault mode of the fake ends in the right AEP error, within a bound.

use crate::common;

use std::time::{Duration, Instant};

use aep_sdk::protocol::{FinishReason, ToolDefinition};
use common::*;
use fake_ollama::{FakeOllama, Fault, Reply};
use serde_json::json;

fn slow_reply(deltas: usize, delay_ms: u64) -> Reply {
    Reply::deltas((0..deltas).map(|i| format!("t{i} "))).chunk_delay(Duration::from_millis(delay_ms))
}

#[tokio::test]
async fn ollama_down_is_provider_unavailable() {
    let (_server, client) = serve(test_config(&FakeOllama::unused_url())).await;
    let request = user("llama3.2", "hi");
    for error in [
        fails(client.chat("ollama", &request)).await,
        fails(client.chat_stream("ollama", &request)).await,
    ] {
        assert_eq!(
            status_code(&error),
            (Some(502), Some("provider_unavailable")),
            "{error}"
        );
        assert!(remote_message(&error).contains("unreachable"), "{error}");
    }
}

#[tokio::test]
async fn unknown_model_is_model_unavailable_with_ollamas_message() {
    let stand = stand().await;
    let request = user("nope", "hi");
    for error in [
        fails(stand.client.chat("ollama", &request)).await,
        fails(stand.client.chat_stream("ollama", &request)).await,
    ] {
        assert_eq!(
            status_code(&error),
            (Some(404), Some("model_unavailable")),
            "{error}"
        );
        assert!(
            remote_message(&error).contains("model 'nope' not found"),
            "{error}"
        );
    }
}

#[tokio::test]
async fn ollama_http_errors_are_request_failed() {
    let stand = stand().await;
    stand.fake.fail_next(Fault::queue_full());
    let error = fails(stand.client.chat("ollama", &user("llama3.2", "hi"))).await;
    assert_eq!(status_code(&error), (Some(502), Some("request_failed")));
    assert!(remote_message(&error).contains("server busy"), "{error}");
    let details = error.remote.as_ref().unwrap().details.clone().unwrap_or_default();
    assert_eq!(details.get("ollamaStatus").map(String::as_str), Some("503"));

    stand
        .fake
        .fail_next(Fault::http(500, "llama runner process has terminated"));
    let error = fails(stand.client.chat_stream("ollama", &user("llama3.2", "hi"))).await;
    assert_eq!(status_code(&error), (Some(502), Some("request_failed")));
    assert!(remote_message(&error).contains("llama runner process has terminated"));

    // Ollama's own refusals keep its message: tools on a model without tools.
    let mut request = user("gemma3:4b", "hi");
    request.tools = vec![ToolDefinition {
        name: "f".into(),
        description: None,
        parameters: json!({"type": "object"}),
    }];
    let error = fails(stand.client.chat("ollama", &request)).await;
    assert_eq!(status_code(&error), (Some(502), Some("request_failed")));
    assert!(
        remote_message(&error).contains("does not support tools"),
        "{error}"
    );
}

#[tokio::test]
async fn error_line_inside_a_200_stream() {
    let stand = stand().await;
    stand.fake.enqueue(Reply::deltas(["a", "b", "c", "d"]));
    stand.fake.fail_next(Fault::error_line_after(
        2,
        "an error was encountered while running the model",
    ));
    let (updates, error) = stream_err(&stand.client, &user("llama3.2", "hi")).await;
    assert_eq!(
        text_of(&updates),
        "ab",
        "what came before the error was delivered"
    );
    let remote = error.remote.as_ref().expect("a terminal error update");
    assert_eq!(remote.code, "request_failed");
    assert!(
        remote
            .message
            .contains("an error was encountered while running the model")
    );

    // /chat: the folded stream fails as a whole.
    stand.fake.enqueue(Reply::deltas(["a", "b", "c", "d"]));
    stand.fake.fail_next(Fault::error_line_after(2, "runner crashed"));
    let error = fails(stand.client.chat("ollama", &user("llama3.2", "hi"))).await;
    assert_eq!(status_code(&error), (Some(502), Some("request_failed")));
    assert!(remote_message(&error).contains("runner crashed"));
}

#[tokio::test]
async fn malformed_line_ends_the_stream_with_an_error() {
    let stand = stand().await;
    stand.fake.enqueue(Reply::deltas(["a", "b", "c"]));
    stand.fake.fail_next(Fault::MalformedLineAfter(1));
    let (updates, error) = stream_err(&stand.client, &user("llama3.2", "hi")).await;
    assert_eq!(text_of(&updates), "a");
    let remote = error.remote.as_ref().expect("a terminal error update");
    assert_eq!(remote.code, "request_failed");
    assert!(remote.message.contains("malformed"), "{}", remote.message);

    stand.fake.enqueue(Reply::deltas(["a", "b", "c"]));
    stand.fake.fail_next(Fault::MalformedLineAfter(1));
    let error = fails(stand.client.chat("ollama", &user("llama3.2", "hi"))).await;
    assert_eq!(status_code(&error), (Some(502), Some("request_failed")));
}

#[tokio::test]
async fn overlong_line_ends_the_stream_with_an_error() {
    let stand = stand_with(|c| c.max_line_bytes = 512).await;
    stand
        .fake
        .enqueue(Reply::deltas(["short", &"x".repeat(2000), "never"]));
    let (updates, error) = stream_err(&stand.client, &user("llama3.2", "hi")).await;
    assert_eq!(text_of(&updates), "short");
    let remote = error.remote.as_ref().unwrap();
    assert_eq!(remote.code, "request_failed");
    assert!(
        remote.message.contains("longer than 512 bytes"),
        "{}",
        remote.message
    );
}

#[tokio::test]
async fn connection_dropped_mid_stream() {
    let stand = stand().await;
    stand.fake.enqueue(Reply::deltas(["a", "b", "c", "d"]));
    stand.fake.fail_next(Fault::DropAfter(2));
    let (updates, error) = stream_err(&stand.client, &user("llama3.2", "hi")).await;
    assert_eq!(text_of(&updates), "ab");
    let remote = error.remote.as_ref().unwrap();
    assert_eq!(remote.code, "provider_unavailable", "{}", remote.message);
    assert!(remote.message.contains("mid-stream"), "{}", remote.message);

    stand.fake.enqueue(Reply::deltas(["a", "b", "c", "d"]));
    stand.fake.fail_next(Fault::DropAfter(2));
    let error = fails(stand.client.chat("ollama", &user("llama3.2", "hi"))).await;
    assert_eq!(status_code(&error), (Some(502), Some("provider_unavailable")));

    // Dropped before any byte: no status line at all.
    stand.fake.fail_next(Fault::DropAfter(0));
    let error = fails(stand.client.chat_stream("ollama", &user("llama3.2", "hi"))).await;
    assert_eq!(status_code(&error), (Some(502), Some("provider_unavailable")));
}

#[tokio::test]
async fn hang_before_headers_times_out_within_the_idle_bound() {
    let stand = stand_with(|c| c.idle_timeout = Duration::from_millis(500)).await;
    // Within the stream start wait (2 s): the timeout is answered as HTTP 504.
    stand.fake.fail_next(Fault::Hang);
    let started = Instant::now();
    let error = fails(stand.client.chat_stream("ollama", &user("llama3.2", "hi"))).await;
    let elapsed = started.elapsed();
    assert_eq!(status_code(&error), (Some(504), Some("timeout")), "{error}");
    assert!(remote_message(&error).contains("500 ms"), "{error}");
    assert!(
        elapsed >= Duration::from_millis(450) && elapsed < Duration::from_secs(2),
        "{elapsed:?}"
    );
    // Ollama saw us give up.
    let gone = stand.fake.wait_for_disconnect(BOUND).await.expect("disconnect");
    assert!(!gone.headers_sent);

    stand.fake.fail_next(Fault::Hang);
    let started = Instant::now();
    let error = fails(stand.client.chat("ollama", &user("llama3.2", "hi"))).await;
    assert_eq!(status_code(&error), (Some(504), Some("timeout")));
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn hang_past_the_stream_start_wait_ends_in_a_terminal_update() {
    let stand = stand_with(|c| {
        c.idle_timeout = Duration::from_millis(800);
        c.stream_start_wait = Duration::from_millis(100);
    })
    .await;
    stand.fake.fail_next(Fault::Hang);
    let started = Instant::now();
    let (updates, error) = stream_err(&stand.client, &user("llama3.2", "hi")).await;
    assert!(updates.is_empty());
    assert_eq!(error.remote_code(), Some("timeout"), "{error}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );

    // A model load slower than the start wait but within the idle bound succeeds.
    stand.fake.fail_next(Fault::Slow {
        load_delay: Duration::from_millis(300),
        chunk_delay: Duration::ZERO,
    });
    stand.fake.enqueue(Reply::text("loaded at last"));
    let updates = stream_ok(&stand.client, &user("llama3.2", "hi")).await;
    assert_eq!(
        text_of(&updates),
        "loaded at last",
        "a slow load within the idle bound succeeds"
    );
}

#[tokio::test]
async fn stall_mid_stream_times_out() {
    let stand = stand_with(|c| c.idle_timeout = Duration::from_millis(500)).await;
    stand.fake.enqueue(Reply::deltas(["a", "b", "c"]));
    stand.fake.fail_next(Fault::StallAfter(1));
    let started = Instant::now();
    let (updates, error) = stream_err(&stand.client, &user("llama3.2", "hi")).await;
    assert_eq!(text_of(&updates), "a");
    assert_eq!(error.remote_code(), Some("timeout"));
    assert!(error.remote.as_ref().unwrap().message.contains("mid-stream"));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let gone = stand
        .fake
        .wait_for_disconnect(BOUND)
        .await
        .expect("Ollama sees us leave");
    assert!(gone.headers_sent && gone.chunks_sent == 1, "{gone:?}");
}

#[tokio::test]
async fn slow_chunks_within_the_idle_bound_are_fine() {
    let stand = stand_with(|c| c.idle_timeout = Duration::from_millis(600)).await;
    stand.fake.enqueue(slow_reply(4, 200));
    let updates = stream_ok(&stand.client, &user("llama3.2", "hi")).await;
    assert_eq!(text_of(&updates), "t0 t1 t2 t3 ");
    assert_eq!(updates.last().unwrap().finish_reason, Some(FinishReason::Stop));
}

/// A listener whose accept queue is full: the kernel drops further SYNs, so a
/// connection attempt hangs until the client's connect timeout.
async fn black_hole() -> Option<(tokio::net::TcpListener, Vec<tokio::net::TcpStream>, String)> {
    let socket = tokio::net::TcpSocket::new_v4().ok()?;
    socket.bind("127.0.0.1:0".parse().ok()?).ok()?;
    let addr = socket.local_addr().ok()?;
    let listener = socket.listen(1).ok()?;
    let mut fillers = Vec::new();
    for _ in 0..8 {
        match tokio::time::timeout(Duration::from_millis(200), tokio::net::TcpStream::connect(addr)).await {
            Ok(Ok(stream)) => fillers.push(stream),
            // The queue is full: this attempt hangs.
            _ => return Some((listener, fillers, format!("http://{addr}"))),
        }
    }
    None
}

#[tokio::test]
async fn connect_timeout_is_bounded() {
    let Some((_listener, _fillers, url)) = black_hole().await else {
        eprintln!("this kernel accepts every connection: connect timeout not testable here");
        return;
    };
    let mut config = test_config(&url);
    config.connect_timeout = Duration::from_millis(300);
    let (_server, client) = serve(config).await;
    let started = Instant::now();
    let error = fails(client.chat("ollama", &user("llama3.2", "hi"))).await;
    assert_eq!(
        status_code(&error),
        (Some(502), Some("provider_unavailable")),
        "{error}"
    );
    assert!(
        remote_message(&error).to_lowercase().contains("connect"),
        "{error}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let health = client.provider_health("ollama").await.unwrap();
    assert_eq!(health.status, aep_sdk::protocol::Availability::Unreachable);
}

#[tokio::test]
async fn a_slow_model_load_gets_sse_keep_alives() {
    use aep_sdk::server::AepExtension;
    let fake = FakeOllama::start().await;
    let mut config = test_config(&fake.base_url());
    config.stream_start_wait = Duration::from_millis(100);
    let extension = aep_ollama::OllamaExtension::new(config)
        .unwrap()
        .extension_builder()
        .keep_alive(Duration::from_millis(150))
        .build()
        .unwrap();
    let server = aep_sdk::testing::spawn(extension.router()).await;
    fake.enqueue(Reply::text("ready").load_delay(Duration::from_millis(800)));
    let response = reqwest::Client::new()
        .post(format!(
            "{}/aep/model-providers/ollama/chat/stream",
            server.base_url
        ))
        .json(&user("llama3.2", "hi"))
        .send()
        .await
        .expect("SSE headers before the model is loaded");
    assert_eq!(response.status(), 200);
    let body = tokio::time::timeout(BOUND, response.text())
        .await
        .unwrap()
        .unwrap();
    let keep_alives = body.matches(": keep-alive").count();
    assert!(keep_alives >= 2, "{body}");
    assert!(body.find(": keep-alive") < body.find("data: "), "{body}");
    assert!(body.contains("\"finishReason\":\"stop\""), "{body}");
}
