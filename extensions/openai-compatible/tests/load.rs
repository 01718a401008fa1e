//! Nothing is lost under load: 200 concurrent streams of 100 words each, through the
//! extension and the stand-in, all arrive whole and in order.

mod common;

use aep_openai_compatible::flavor::Flavor;
use std::time::Duration;

use common::stand_with;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_streams_arrive_whole_and_in_order() {
    // The fault tests' short bounds are not what this is about: 200 connections at once on
    // two busy cores may take longer than a second to be accepted.
    let stand = stand_with(Flavor::OpenAi, |config| {
        config.tuning.connect_timeout = Duration::from_secs(30);
        config.tuning.first_byte_timeout = Duration::from_secs(60);
        config.tuning.idle_timeout = Duration::from_secs(60);
    })
    .await;
    let stand = std::sync::Arc::new(stand);
    let tasks: Vec<_> = (0..200)
        .map(|n| {
            let stand = stand.clone();
            tokio::spawn(async move {
                let text: String = (0..100).map(|i| format!("s{n}w{i} ")).collect();
                let updates = stand
                    .stream("smollm2", text.trim_end())
                    .await
                    .expect("a whole stream");
                let got: String = updates.iter().map(|u| u.text_delta()).collect();
                assert_eq!(got, text.trim_end(), "stream {n}");
                assert!(updates.last().unwrap().usage.is_some(), "stream {n}: usage");
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("no stream failed");
    }
}
