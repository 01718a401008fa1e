//! Progress notifications, log levels and cancellation seen by the official Python MCP
//! SDKs (1.x, and 2.x over its legacy connection, the one with `logging/setLevel`): the
//! utilities extension's `count_slowly`, which reports progress and logs through its
//! `ToolContext` and checks its cancellation token every 10 ms step, called after
//! `logging/setLevel debug` and after `logging/setLevel warning`, then cancelled.
//!
//! Cancellation: a count to 100 (~1 s) gets `notifications/cancelled` after its third
//! progress notification (1.x: sent explicitly with `send_notification`, 1.x does not
//! send it by itself; 2.x: sent by the SDK when the awaiting task is cancelled). The
//! client keeps listening for 1.5 s. The tool stops at its next step, so at most the step
//! under way still reports (one progress and one log, up to 10 ms later; a log sent just
//! before the cancel may also still be on its way): nothing may arrive more than
//! [`CANCEL_BOUND`] after the cancel went out, and the call is not answered. The bound is the 100 ms
//! the tool has to notice its token plus 50 ms of slack for scheduling on two busy cores
//! (measured: the last notification 11-24 ms after the cancel). A server that ignored the
//! cancel would keep sending ~190 notifications for another second.

use std::time::Duration;

use aep_peers::{Peers, PythonSdk};
use aep_sdk::server::{AepExtension, ConnectionLimits};
use serde_json::{Value, json};

/// Latest arrival, after the cancel was sent, of a notification of the cancelled call.
const CANCEL_BOUND: Duration = Duration::from_millis(150);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_clients_get_progress_in_order_only_the_logs_at_their_level_and_cancel_in_time() {
    let Some(peers) = Peers::require() else {
        return;
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let extension = aep_utilities::Utilities.into_extension().unwrap();
    tokio::spawn(extension.serve_listener(listener, std::future::pending(), ConnectionLimits::default()));

    for sdk in [PythonSdk::V1, PythonSdk::V2("legacy")] {
        let report = peers
            .python_progress(sdk, &url)
            .await
            .unwrap_or_else(|e| panic!("{sdk:?}: {e}"));
        progress_and_levels(sdk, &report);
        let latency = cancellation(sdk, &report);
        eprintln!("{sdk:?}: last notification {latency:?} after notifications/cancelled");
    }
}

fn progress_and_levels(sdk: PythonSdk, report: &Value) {
    assert_eq!(
        report["results"],
        json!(["counted to 5", "counted to 2", "counted to 2"]),
        "{sdk:?}: {report}"
    );
    let progress: Vec<f64> = report["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[0].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0, 4.0, 5.0], "{sdk:?}: {report}");
    assert_eq!(
        report["progress"][4],
        json!([5.0, 5.0, "5 of 5"]),
        "{sdk:?}: {report}"
    );
    // Every progress notification of the call carried the one token the client sent.
    let tokens = report["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 5, "{sdk:?}: {report}");
    assert!(
        tokens.iter().all(|t| t == &tokens[0] && !t.is_null()),
        "{sdk:?}: {report}"
    );
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
        "{sdk:?}: {report}"
    );
    assert_eq!(report["debug_logs"][0][0], "debug", "{sdk:?}");
    assert_eq!(report["debug_logs"][5][0], "info", "{sdk:?}");
    assert_eq!(
        report["warning_logs"],
        json!([]),
        "{sdk:?}: nothing below warning after setLevel warning: {report}"
    );
}

/// Checks the cancelled count and returns when its last notification came.
fn cancellation(sdk: PythonSdk, report: &Value) -> Duration {
    let cancel = &report["cancel"];
    let request_id = &cancel["request_id"];
    assert!(request_id.is_i64(), "{sdk:?}: {cancel}");
    // 1, 2, 3 (and 4 if it came before the script read them): the count was running.
    let before: Vec<f64> = cancel["before"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert!(
        before.len() >= 3 && before.iter().zip(1..).all(|(p, i)| *p == f64::from(i)),
        "{sdk:?}: {cancel}"
    );
    assert_eq!(
        cancel["answered"],
        Value::Null,
        "{sdk:?}: a cancelled request gets no answer"
    );
    let after = cancel["after"].as_array().unwrap();
    let late: Vec<&Value> = after
        .iter()
        .filter(|n| n["ms"].as_f64().unwrap() > CANCEL_BOUND.as_secs_f64() * 1000.0)
        .collect();
    assert!(
        late.is_empty(),
        "{sdk:?}: {} notifications more than {CANCEL_BOUND:?} after the cancel: {cancel}",
        late.len()
    );
    for note in after.iter().filter(|n| n["method"] == "notifications/progress") {
        assert_eq!(&note["params"]["progressToken"], request_id, "{sdk:?}: {note}");
    }
    let last = after.iter().filter_map(|n| n["ms"].as_f64()).fold(0.0, f64::max);
    Duration::from_secs_f64(last / 1000.0)
}
