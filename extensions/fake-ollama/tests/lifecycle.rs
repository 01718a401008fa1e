//! Disconnect detection, open-response counting, stop / down / restart.

mod common;

use std::time::{Duration, Instant};

use common::*;
use fake_ollama::{FakeOllama, Reply};
use serde_json::{Value, json};

fn req() -> Value {
    json!({"model": "llama3.2", "messages": [{"role": "user", "content": "x"}]})
}

fn slow_reply(chunks: usize, delay_ms: u64) -> Reply {
    Reply::deltas((0..chunks).map(|i| format!("t{i} "))).chunk_delay(Duration::from_millis(delay_ms))
}

#[tokio::test]
async fn client_hanging_up_mid_stream_is_seen_within_a_second() {
    let fake = FakeOllama::start().await;
    fake.enqueue(slow_reply(50, 200));
    let mut r = post(&fake.base_url(), "/api/chat", req()).await;
    let first = r.chunk().await.unwrap().unwrap();
    assert!(first.ends_with(b"\n"));
    assert_eq!(fake.open_chat_responses(), 1);

    // Hang up mid-stream (the fake waits 200 ms between chunks).
    let t0 = Instant::now();
    drop(r);
    let d = fake
        .wait_for_disconnect(Duration::from_secs(1))
        .await
        .expect("disconnect seen");
    assert!(
        d.at.duration_since(t0) < Duration::from_secs(1),
        "{:?}",
        d.at.duration_since(t0)
    );
    assert!(d.headers_sent);
    assert!(d.chunks_sent >= 1 && d.chunks_sent < 50, "{d:?}");
    assert_eq!(d.path, "/api/chat");
    assert_eq!(d.seq, fake.requests()[0].seq);
    assert!(fake.wait_for_open_chat_responses(0, Duration::from_secs(1)).await);

    // Each disconnect is reported once.
    assert!(
        fake.wait_for_disconnect(Duration::from_millis(100))
            .await
            .is_none()
    );
    assert_eq!(fake.disconnects().len(), 1);
}

#[tokio::test]
async fn client_hanging_up_during_a_slow_load_is_seen() {
    let fake = FakeOllama::start().await;
    fake.enqueue(Reply::text("late").load_delay(Duration::from_secs(30)));
    let base = fake.base_url();
    let task = tokio::spawn(async move {
        client()
            .post(format!("{base}/api/chat"))
            .json(&req())
            .send()
            .await
    });
    assert!(fake.wait_for_open_chat_responses(1, Duration::from_secs(2)).await);
    let t0 = Instant::now();
    task.abort();
    let d = fake
        .wait_for_disconnect(Duration::from_secs(1))
        .await
        .expect("disconnect seen");
    assert!(d.at.duration_since(t0) < Duration::from_secs(1));
    assert!(!d.headers_sent, "nothing was sent yet");
    assert_eq!(fake.open_chat_responses(), 0);
}

#[tokio::test]
async fn complete_answers_are_not_disconnects() {
    let fake = FakeOllama::start().await;
    for stream in [true, false] {
        let mut b = req();
        b["stream"] = json!(stream);
        let (status, _, _) = chat(&fake.base_url(), b).await;
        assert_eq!(status, 200);
    }
    chat(&fake.base_url(), json!({"model": "ghost", "messages": []})).await;
    client()
        .get(format!("{}/api/tags", fake.base_url()))
        .send()
        .await
        .unwrap();
    assert!(
        fake.wait_for_disconnect(Duration::from_millis(300))
            .await
            .is_none()
    );
    assert_eq!(fake.open_chat_responses(), 0);
}

#[tokio::test]
async fn open_chat_responses_counts_concurrent_streams() {
    let fake = FakeOllama::start().await;
    fake.set_default_reply(Some(slow_reply(5, 100)));
    let base = fake.base_url();
    let tasks: Vec<_> = (0..3)
        .map(|_| {
            let base = base.clone();
            tokio::spawn(async move { read_until_end(post(&base, "/api/chat", req()).await).await })
        })
        .collect();
    assert!(fake.wait_for_open_chat_responses(3, Duration::from_secs(2)).await);
    for t in tasks {
        let (lines, failed) = t.await.unwrap();
        assert_eq!(lines.len(), 6);
        assert!(!failed);
    }
    assert!(fake.wait_for_open_chat_responses(0, Duration::from_secs(1)).await);
    assert!(fake.disconnects().is_empty());
}

#[tokio::test]
async fn stop_means_down_and_restart_comes_back() {
    let mut fake = FakeOllama::start().await;
    let base = fake.base_url();
    assert!(fake.is_running());

    // An in-flight stream is cut when the server stops.
    fake.enqueue(slow_reply(100, 100));
    let mut r = post(&base, "/api/chat", req()).await;
    r.chunk().await.unwrap().unwrap();
    fake.stop().await;
    assert!(!fake.is_running());
    let (_, failed) = read_until_end(r).await;
    assert!(failed, "the stream must not end cleanly");

    let e = client().get(format!("{base}/")).send().await.unwrap_err();
    assert!(e.is_connect(), "{e:?}");
    assert!(fake.requests().len() == 1, "recordings survive stop");

    let e = client()
        .get(format!("{}/api/tags", FakeOllama::unused_url()))
        .send()
        .await
        .unwrap_err();
    assert!(e.is_connect(), "{e:?}");

    fake.restart().await.unwrap();
    assert!(fake.is_running());
    assert_eq!(fake.base_url(), base);
    let r = client().get(format!("{base}/")).send().await.unwrap();
    assert_eq!(r.text().await.unwrap(), "Ollama is running");
}

#[tokio::test]
async fn waiting_for_requests() {
    let fake = FakeOllama::start().await;
    let base = fake.base_url();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        chat(&base, req()).await;
    });
    assert!(
        fake.wait_for_requests("/api/chat", 1, Duration::from_secs(2))
            .await
    );
    assert!(
        !fake
            .wait_for_requests("/api/chat", 2, Duration::from_millis(100))
            .await
    );
}
