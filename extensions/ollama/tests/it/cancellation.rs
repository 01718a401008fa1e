//! A client that goes away cancels the Ollama request: the fake sees its connection
//! close within a second, mid-stream, during a slow model load, and for `/chat`.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use fake_ollama::{Fault, Reply};
use futures::StreamExt;

const PROMPTLY: Duration = Duration::from_secs(1);

fn slow_reply(deltas: usize, delay_ms: u64) -> Reply {
    Reply::deltas((0..deltas).map(|i| format!("t{i} "))).chunk_delay(Duration::from_millis(delay_ms))
}

#[tokio::test]
async fn dropping_the_stream_closes_the_upstream_connection() {
    let stand = stand().await;
    stand.fake.enqueue(slow_reply(50, 200));
    let mut stream = stand
        .client
        .chat_stream("ollama", &user("llama3.2", "hi"))
        .await
        .expect("the stream starts");
    let first = tokio::time::timeout(BOUND, stream.next())
        .await
        .expect("in time")
        .expect("an update")
        .expect("not an error");
    assert_eq!(first.text_delta(), "t0 ");
    assert_eq!(stand.fake.open_chat_responses(), 1);

    let dropped = Instant::now();
    drop(stream);
    let gone = stand
        .fake
        .wait_for_disconnect(BOUND)
        .await
        .expect("Ollama sees the connection close");
    let after = gone.at.saturating_duration_since(dropped);
    assert!(after < PROMPTLY, "closed {after:?} after the drop");
    assert_eq!(gone.path, "/api/chat");
    assert!(gone.headers_sent && gone.chunks_sent < 50, "{gone:?}");
    assert!(stand.fake.wait_for_open_chat_responses(0, BOUND).await);
}

#[tokio::test]
async fn dropping_the_stream_during_a_slow_model_load() {
    // The SSE answer starts after 100 ms although Ollama has sent nothing yet.
    let stand = stand_with(|c| {
        c.stream_start_wait = Duration::from_millis(100);
        c.idle_timeout = Duration::from_secs(30);
    })
    .await;
    stand
        .fake
        .enqueue(Reply::text("late").load_delay(Duration::from_secs(20)));
    let stream = tokio::time::timeout(BOUND, stand.client.chat_stream("ollama", &user("llama3.2", "hi")))
        .await
        .expect("the SSE answer starts before the model is loaded")
        .expect("the stream starts");
    assert!(stand.fake.wait_for_open_chat_responses(1, BOUND).await);
    let dropped = Instant::now();
    drop(stream);
    let gone = stand.fake.wait_for_disconnect(BOUND).await.expect("disconnect");
    assert!(gone.at.saturating_duration_since(dropped) < PROMPTLY, "{gone:?}");
    assert!(!gone.headers_sent);
}

#[tokio::test]
async fn abandoning_a_non_streamed_chat_closes_the_upstream_connection() {
    let stand = stand().await;
    stand.fake.enqueue(slow_reply(50, 200));
    let client = stand.client.clone();
    let call = tokio::spawn(async move { client.chat("ollama", &user("llama3.2", "hi")).await });
    assert!(stand.fake.wait_for_open_chat_responses(1, BOUND).await);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let dropped = Instant::now();
    call.abort();
    let gone = stand.fake.wait_for_disconnect(BOUND).await.expect("disconnect");
    assert!(gone.at.saturating_duration_since(dropped) < PROMPTLY, "{gone:?}");
    assert!(gone.headers_sent, "{gone:?}");
}

#[tokio::test]
async fn abandoning_a_chat_while_ollama_hangs() {
    let stand = stand_with(|c| c.idle_timeout = Duration::from_secs(30)).await;
    stand.fake.fail_next(Fault::Hang);
    let client = stand.client.clone();
    let call = tokio::spawn(async move { client.chat("ollama", &user("llama3.2", "hi")).await });
    assert!(stand.fake.wait_for_open_chat_responses(1, BOUND).await);
    let dropped = Instant::now();
    call.abort();
    let gone = stand.fake.wait_for_disconnect(BOUND).await.expect("disconnect");
    assert!(gone.at.saturating_duration_since(dropped) < PROMPTLY, "{gone:?}");
}
