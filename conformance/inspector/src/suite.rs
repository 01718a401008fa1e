//! The conformance screen's work: the runner's suite against a connection, with its
//! progress sent as it happens and the report kept for export (JSON, JUnit).
//!
//! Events: `progress` (`{index, total, id, status}`, `status` null when a check starts)
//! and, last, `report` (the report as the CLI's `--format json` writes it, plus
//! `success`). When the page goes away the run is aborted. The runner reaches the
//! extension through the connection's recording proxy; the report names the extension.

use std::sync::Arc;

use aep_conformance::{Options, ProgressEvent, Report, check_with};
use bytes::Bytes;
use futures::Stream;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::connection::Connection;
use crate::sse;

/// What to run.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRequest {
    /// Only checks these patterns select (ids or prefixes such as `3.stream`).
    #[serde(default)]
    pub only: Vec<String>,
    /// Leave out the checks these patterns select.
    #[serde(default)]
    pub skip: Vec<String>,
    /// Fail on recommended checks too.
    #[serde(default)]
    pub strict: bool,
}

/// Aborts the run when the event stream is dropped.
struct Run {
    handle: JoinHandle<()>,
    events: mpsc::UnboundedReceiver<Bytes>,
}

impl Drop for Run {
    fn drop(&mut self) {
        self.handle.abort();
    }
}

/// The report as JSON for the page and for export.
pub fn report_json(report: &Report) -> Value {
    let mut value = serde_json::to_value(report).unwrap_or(Value::Null);
    value["success"] = json!(report.is_success());
    value["counts"] = json!({
        "passed": report.counts().passed,
        "failed": report.counts().failed,
        "warned": report.counts().warned,
        "skipped": report.counts().skipped,
    });
    value
}

/// Starts the suite against `connection` and answers its events.
pub fn start(connection: Arc<Connection>, request: RunRequest) -> impl Stream<Item = Bytes> + Send + 'static {
    let (sender, events) = mpsc::unbounded_channel::<Bytes>();
    let progress = sender.clone();
    let options = Options {
        only: request.only,
        skip: request.skip,
        strict: request.strict,
        bearer_token: connection.token().map(str::to_owned),
        progress: Some(Arc::new(move |event: &ProgressEvent| {
            let data = json!({
                "index": event.index,
                "total": event.total,
                "id": event.id,
                "status": event.done.map(|s| s.as_str()),
            });
            let _ = progress.send(sse::event("progress", &data));
        })),
        ..Options::default()
    };
    let handle = tokio::spawn(async move {
        let report = check_with(
            connection.proxy.base_for(crate::proxy::Sender::Runner).as_str(),
            &options,
        )
        .await;
        let data = report_json(&report);
        *connection.last_report.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(report));
        let event = sse::event("report", &data);
        let event = connection.unproxy(&String::from_utf8_lossy(&event));
        let _ = sender.send(Bytes::from(event));
    });
    futures::stream::unfold(Run { handle, events }, |mut run| async move {
        let event = run.events.recv().await?;
        Some((event, run))
    })
}
