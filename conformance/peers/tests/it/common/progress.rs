//! The checks of a Python client's progress report (`Peers::python_progress`): the
//! utilities' `count_slowly` seen by the official Python MCP SDKs, served directly
//! (`progress_logging.rs`) or through the gateway (`gateway_mcp.rs`).

use std::time::Duration;

use aep_peers::PythonSdk;
use serde_json::{Value, json};

/// Latest arrival, after the cancel was sent, of a notification of the cancelled call.
pub const CANCEL_BOUND: Duration = Duration::from_millis(150);

pub fn progress_and_levels(sdk: PythonSdk, report: &Value) {
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
pub fn cancellation(sdk: PythonSdk, report: &Value) -> Duration {
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
