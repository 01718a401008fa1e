//! A client that goes away cancels the upstream request: the stand-in sees its stream's
//! body dropped (the socket closed) and stops producing, for a dropped stream; for an
//! abandoned `/chat` it sees its request go away.

use crate::common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use aep_openai_compatible::flavor::Flavor;
use aep_sdk::protocol::{ChatRequest, Message};
use common::{FLAVORS, stand};
use futures::StreamExt;

async fn wait_closed(stand: &common::Stand, count: usize) {
    tokio::time::timeout(Duration::from_secs(1), async {
        while stand.fake.closed() < count {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the upstream stream is closed within 1 s");
}

#[tokio::test]
async fn dropping_the_stream_closes_the_upstream_stream() {
    for flavor in FLAVORS {
        let stand = stand(flavor).await;
        let request = ChatRequest::new("paced", vec![Message::user("go")]);
        let mut stream = stand
            .client
            .chat_stream(stand.provider(), &request)
            .await
            .unwrap();
        for _ in 0..3 {
            stream.next().await.unwrap().unwrap();
        }
        drop(stream);
        wait_closed(&stand, 1).await;
        let produced = stand.fake.shared.paced_chunks.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(
            stand.fake.shared.paced_chunks.load(Ordering::SeqCst),
            produced,
            "{flavor:?}: still generating"
        );
        assert!(
            produced < 100,
            "{flavor:?}: {produced} chunks produced before the close"
        );
    }
}

#[tokio::test]
async fn an_abandoned_chat_closes_the_upstream_stream() {
    let stand = stand(Flavor::LlamaCpp).await;
    let request = ChatRequest::new("paced", vec![Message::user("go")]);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let url = format!("{}/aep/model-providers/llamacpp/chat", stand.server.base_url);
    assert!(
        http.post(url).json(&request).send().await.is_err(),
        "the client gives up"
    );
    wait_closed(&stand, 1).await;
}
