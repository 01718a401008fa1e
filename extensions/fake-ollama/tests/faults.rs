//! Fault modes as a client sees them over loopback.

mod common;

use std::time::{Duration, Instant};

use common::*;
use fake_ollama::{FakeOllama, Fault, Reply};
use serde_json::{Value, json};

fn req() -> Value {
    json!({"model": "llama3.2", "messages": [{"role": "user", "content": "x"}]})
}

#[tokio::test]
async fn http_error_before_first_byte() {
    let fake = FakeOllama::start().await;
    fake.fail_next(Fault::queue_full());
    fake.fail_next(Fault::http(500, "llama runner process has terminated"));
    let (status, ct, body) = chat(&fake.base_url(), req()).await;
    assert_eq!(status, 503);
    assert!(ct.starts_with("application/json"));
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"error": "server busy, please try again.  maximum pending requests exceeded"})
    );
    let (status, _, _) = chat(&fake.base_url(), req()).await;
    assert_eq!(status, 500);
    let (status, _, _) = chat(&fake.base_url(), req()).await;
    assert_eq!(status, 200, "one-shot faults are used up");

    // On another path, permanently.
    fake.fail_always_on("/api/tags", Fault::http(500, "boom"));
    for _ in 0..2 {
        let r = client()
            .get(format!("{}/api/tags", fake.base_url()))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 500);
    }
    fake.clear_faults();
    let r = client()
        .get(format!("{}/api/tags", fake.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn drop_mid_stream_without_done() {
    let fake = FakeOllama::start().await;
    fake.enqueue(Reply::deltas(["a", "b", "c", "d"]));
    fake.fail_next(Fault::DropAfter(2));
    let r = post(&fake.base_url(), "/api/chat", req()).await;
    assert_eq!(r.status(), 200);
    let (lines, failed) = read_until_end(r).await;
    assert!(failed, "the body must end with an error, not cleanly");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines.iter().all(|l| !l.contains("\"done\":true")));
    assert!(
        fake.disconnects().is_empty(),
        "a server-side cut is not a client disconnect"
    );
    assert_eq!(fake.open_chat_responses(), 0);

    // DropAfter(0): nothing at all is sent (headers go with the first chunk).
    fake.fail_next(Fault::DropAfter(0));
    let e = client()
        .post(format!("{}/api/chat", fake.base_url()))
        .json(&req())
        .send()
        .await;
    assert!(e.is_err(), "no response at all: {e:?}");

    // Non-streaming: no answer at all either.
    fake.fail_next(Fault::DropAfter(1));
    let mut body = req();
    body["stream"] = json!(false);
    let e = client()
        .post(format!("{}/api/chat", fake.base_url()))
        .json(&body)
        .send()
        .await;
    assert!(e.is_err());
}

#[tokio::test]
async fn malformed_line_mid_stream() {
    let fake = FakeOllama::start().await;
    fake.enqueue(Reply::deltas(["a", "b", "c"]));
    fake.fail_next(Fault::MalformedLineAfter(1));
    let (status, _, body) = chat(&fake.base_url(), req()).await;
    assert_eq!(status, 200);
    let lines: Vec<&str> = body.split_terminator('\n').collect();
    assert_eq!(lines.len(), 5, "{body}");
    let parsed: Vec<Option<Value>> = lines.iter().map(|l| serde_json::from_str(l).ok()).collect();
    assert!(parsed[0].is_some());
    assert!(parsed[1].is_none(), "second line is broken: {}", lines[1]);
    assert_eq!(
        parsed[4].as_ref().unwrap()["done"],
        true,
        "stream still ends with done"
    );
}

#[tokio::test]
async fn error_line_after_200_then_clean_end() {
    let fake = FakeOllama::start().await;
    fake.enqueue(Reply::deltas(["a", "b", "c"]));
    fake.fail_next(Fault::error_line_after(
        2,
        "an error was encountered while running the model",
    ));
    let r = post(&fake.base_url(), "/api/chat", req()).await;
    assert_eq!(r.status(), 200);
    assert_eq!(content_type(&r), "application/x-ndjson");
    let (lines, failed) = read_until_end(r).await;
    assert!(!failed, "the stream ends normally");
    assert_eq!(lines.len(), 3);
    assert_eq!(
        serde_json::from_str::<Value>(&lines[2]).unwrap(),
        json!({"error": "an error was encountered while running the model"})
    );
    assert!(lines.iter().all(|l| !l.contains("\"done\":true")));
    assert!(fake.disconnects().is_empty());

    // Before anything was written Ollama still sets a real status.
    fake.fail_next(Fault::error_line_after(0, "runner failed"));
    let (status, _, body) = chat(&fake.base_url(), req()).await;
    assert_eq!((status, body.as_str()), (500, r#"{"error":"runner failed"}"#));

    // stream:false → 500 with the error.
    fake.fail_next(Fault::error_line_after(2, "runner failed"));
    let mut b = req();
    b["stream"] = json!(false);
    let (status, _, body) = chat(&fake.base_url(), b).await;
    assert_eq!((status, body.as_str()), (500, r#"{"error":"runner failed"}"#));
}

#[tokio::test]
async fn slow_model() {
    let fake = FakeOllama::start().await;
    fake.enqueue(Reply::deltas(["a", "b", "c"]));
    fake.fail_next(Fault::Slow {
        load_delay: Duration::from_millis(200),
        chunk_delay: Duration::from_millis(50),
    });
    let t0 = Instant::now();
    let r = post(&fake.base_url(), "/api/chat", req()).await;
    assert!(t0.elapsed() >= Duration::from_millis(200));
    let (lines, _) = read_until_end(r).await;
    assert_eq!(lines.len(), 4);
    assert!(t0.elapsed() >= Duration::from_millis(350));

    // Globally, also for stream:false (the wait happens before the headers).
    fake.fail_always(Fault::Slow {
        load_delay: Duration::from_millis(150),
        chunk_delay: Duration::ZERO,
    });
    let mut b = req();
    b["stream"] = json!(false);
    for _ in 0..2 {
        let t0 = Instant::now();
        let (status, _, _) = chat(&fake.base_url(), b.clone()).await;
        assert_eq!(status, 200);
        assert!(t0.elapsed() >= Duration::from_millis(150));
    }
}

#[tokio::test]
async fn hang_never_sends_a_byte() {
    let fake = FakeOllama::start().await;
    fake.fail_next(Fault::Hang);
    let c = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let e = c
        .post(format!("{}/api/chat", fake.base_url()))
        .json(&req())
        .send()
        .await;
    assert!(e.as_ref().is_err_and(|e| e.is_timeout()), "{e:?}");
    // The client gave up: the server sees it.
    let d = fake
        .wait_for_disconnect(Duration::from_secs(2))
        .await
        .expect("disconnect");
    assert!(!d.headers_sent);
    assert_eq!(d.chunks_sent, 0);
    assert_eq!(d.path, "/api/chat");

    // Any path can hang.
    fake.fail_next_on("/api/tags", Fault::Hang);
    let e = c.get(format!("{}/api/tags", fake.base_url())).send().await;
    assert!(e.is_err());
}

#[tokio::test]
async fn hang_is_bounded_by_the_hang_limit() {
    let fake = FakeOllama::builder()
        .hang_limit(Duration::from_millis(300))
        .start()
        .await;
    fake.fail_next(Fault::Hang);
    let t0 = Instant::now();
    let e = client()
        .post(format!("{}/api/chat", fake.base_url()))
        .json(&req())
        .send()
        .await;
    assert!(e.is_err(), "connection closed without an answer: {e:?}");
    assert!(t0.elapsed() >= Duration::from_millis(300));
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert!(fake.disconnects().is_empty());

    // A stall after two chunks: bytes stop, then the connection is cut.
    fake.enqueue(Reply::deltas(["a", "b", "c"]));
    fake.fail_next(Fault::StallAfter(2));
    let r = post(&fake.base_url(), "/api/chat", req()).await;
    let (lines, failed) = read_until_end(r).await;
    assert_eq!(lines.len(), 2);
    assert!(failed);
}

#[tokio::test]
async fn stream_faults_wait_for_a_generating_request() {
    let fake = FakeOllama::start().await;
    // A fault is consumed by the next chat request even when validation
    // fails; stream faults then have no effect.
    fake.fail_next(Fault::DropAfter(1));
    let (status, _, _) = chat(&fake.base_url(), json!({"model": "ghost", "messages": []})).await;
    assert_eq!(status, 404);
    let (status, _, body) = chat(&fake.base_url(), req()).await;
    assert_eq!(status, 200);
    assert!(body.contains("\"done\":true"));
}
