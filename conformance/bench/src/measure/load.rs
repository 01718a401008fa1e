//! Load without loss (issue 10): 1,000 concurrent streams of 1,000 sequence-numbered
//! updates each through the SDK; every update must arrive once, in order, and no stream
//! may stay open afterwards.

use std::time::{Duration, Instant};

use aep_sdk::client::Client;
use aep_sdk::server::AepExtension;
use futures::StreamExt;

use super::request;
use crate::report::Row;
use crate::servers::SdkBench;

pub async fn rows(streams: usize, updates: usize) -> Vec<Row> {
    let extension = SdkBench.into_extension().expect("valid declaration");
    let server = aep_sdk::testing::spawn(extension.router()).await;
    let client = Client::new(&server.base_url).expect("client");
    let start = Instant::now();
    let tasks = (0..streams).map(|_| {
        let client = client.clone();
        tokio::spawn(async move {
            let mut stream = client
                .chat_stream("echo", &request(updates))
                .await
                .expect("stream opens");
            let mut expected = 0usize;
            let mut terminal = 0;
            while let Some(update) = stream.next().await {
                let update = update.expect("update");
                if update.is_terminal() {
                    terminal += 1;
                    continue;
                }
                let text = update.text_delta();
                assert_eq!(text, format!("{expected} "), "updates arrive once and in order");
                expected += 1;
            }
            assert_eq!(
                (expected, terminal),
                (updates, 1),
                "none lost, one terminal update"
            );
            expected
        })
    });
    let delivered: usize = futures::future::join_all(tasks)
        .await
        .into_iter()
        .map(|r| r.expect("stream task"))
        .sum();
    let elapsed = start.elapsed();
    let deadline = Instant::now() + Duration::from_secs(10);
    while extension.open_streams() > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let leaked = extension.open_streams();
    assert_eq!(delivered, streams * updates);
    vec![
        Row::single(
            format!("load: {streams} streams x {updates} updates, wall time"),
            "s",
            &[elapsed.as_secs_f64()],
        )
        .note(format!(
            "{delivered} updates delivered in order, none lost; open streams after: {leaked}"
        )),
        Row::single(
            "load: aggregate throughput",
            "updates/s",
            &[delivered as f64 / elapsed.as_secs_f64()],
        ),
    ]
}
