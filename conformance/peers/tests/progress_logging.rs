//! Progress notifications and log levels seen by the official Python MCP SDK (1.x): the
//! utilities extension's `count_slowly`, which reports progress and logs through its
//! `ToolContext`, called after `logging/setLevel debug` and after `logging/setLevel warning`.

use aep_sdk::server::{AepExtension, ConnectionLimits};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_gets_progress_in_order_and_only_the_logs_at_its_level() {
    let Some(peers) = aep_peers::Peers::require() else {
        return;
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let extension = aep_utilities::Utilities.into_extension().unwrap();
    tokio::spawn(extension.serve_listener(listener, std::future::pending(), ConnectionLimits::default()));

    let report = peers
        .python_progress(&url)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        report["results"],
        json!(["counted to 5", "counted to 2"]),
        "{report}"
    );
    let progress: Vec<f64> = report["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[0].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0, 4.0, 5.0], "{report}");
    assert_eq!(report["progress"][4], json!([5.0, 5.0, "5 of 5"]), "{report}");
    let debug: Vec<_> = report["debug_logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l[1].clone())
        .collect();
    assert_eq!(
        debug,
        [
            json!("step 1"),
            json!("step 2"),
            json!("step 3"),
            json!("step 4"),
            json!("step 5"),
            json!("counted to 5")
        ],
        "{report}"
    );
    assert_eq!(report["debug_logs"][0][0], "debug");
    assert_eq!(
        report["warning_logs"],
        json!([]),
        "nothing below warning after setLevel warning: {report}"
    );
}
