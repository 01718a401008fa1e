//! The conformance screen's work: the runner's suite against a connection, with its
//! progress sent as it happens and the report kept for export (JSON, JUnit).
//!
//! Events: `progress` (`{index, total, id, status}`, `status` null when a check starts)
//! and, last, `report` (the report as the CLI's `--format json` writes it, plus
//! `success`). When the page goes away the run is aborted. The runner reaches the
//! extension through the connection's recording proxy; the report names the extension.
//!
//! Checks are chosen by pattern (`only`, `skip`, as on the CLI) or as a list of exact ids
//! (`checks`, the page's checklist of [`CATALOG`]).

use std::collections::BTreeSet;
use std::sync::Arc;

use aep_conformance::{CATALOG, Options, ProgressEvent, Report, check_with};
use bytes::Bytes;
use futures::Stream;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::connection::Connection;
use crate::error::ApiError;
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
    /// Exactly these check ids (from [`CATALOG`]), instead of patterns.
    #[serde(default)]
    pub checks: Option<Vec<String>>,
    /// Fail on recommended checks too.
    #[serde(default)]
    pub strict: bool,
}

impl RunRequest {
    /// The runner's `only` and `skip` patterns for this request, or why it cannot run
    /// (a pattern or id that names no check, an empty list, a list and patterns at once).
    pub fn patterns(&self) -> Result<(Vec<String>, Vec<String>), ApiError> {
        let Some(ids) = &self.checks else {
            let unknown = aep_conformance::unknown_patterns(&[self.only.clone(), self.skip.clone()].concat())
                .iter()
                .map(|p| (*p).to_owned())
                .collect::<Vec<_>>();
            if !unknown.is_empty() {
                return Err(ApiError::bad_request(format!(
                    "no check matches {}",
                    unknown.join(", ")
                )));
            }
            return Ok((self.only.clone(), self.skip.clone()));
        };
        if !self.only.is_empty() || !self.skip.is_empty() {
            return Err(ApiError::bad_request(
                "choose checks either as a list of ids (checks) or by patterns (only, skip), not both",
            ));
        }
        if ids.is_empty() {
            return Err(ApiError::bad_request("choose at least one check"));
        }
        let unknown: Vec<&str> = ids
            .iter()
            .map(String::as_str)
            .filter(|id| aep_conformance::info(id).is_none())
            .collect();
        if !unknown.is_empty() {
            return Err(ApiError::bad_request(format!(
                "no check has the id {}",
                unknown.join(", ")
            )));
        }
        exactly(ids)
    }
}

/// Patterns selecting exactly `ids`. The runner selects by pattern, and an id is also
/// the prefix of the ids below it (`5.config.migrate` selects `5.config.migrate.errors`),
/// so the ids are `only` and every other id they select is `skip`. The result is
/// checked against the runner's own selection: a catalogue where that cannot be exact
/// is refused rather than run with more or fewer checks than chosen.
fn exactly(ids: &[String]) -> Result<(Vec<String>, Vec<String>), ApiError> {
    let chosen: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    let only: Vec<String> = chosen.iter().map(|id| (*id).to_owned()).collect();
    let skip: Vec<String> = CATALOG
        .iter()
        .map(|c| c.id)
        .filter(|id| !chosen.contains(id) && only.iter().any(|p| aep_conformance::matches(p, id)))
        .map(str::to_owned)
        .collect();
    let options = Options {
        only: only.clone(),
        skip: skip.clone(),
        ..Options::default()
    };
    let selected: BTreeSet<&str> = CATALOG
        .iter()
        .map(|c| c.id)
        .filter(|id| options.selects(id))
        .collect();
    if selected != chosen {
        return Err(ApiError::bad_request(format!(
            "the runner cannot select exactly {} by pattern",
            only.join(", ")
        )));
    }
    Ok((only, skip))
}

/// The catalogue the page offers to choose from: each check's `id`, `level`, `section`
/// (of the AEP contract) and `description`, in run order, as `aep-conformance list`
/// prints them.
pub fn catalog_json() -> Value {
    json!({"checks": CATALOG})
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
/// `only` and `skip`: the request's [`RunRequest::patterns`].
pub fn start(
    connection: Arc<Connection>,
    (only, skip): (Vec<String>, Vec<String>),
    strict: bool,
) -> impl Stream<Item = Bytes> + Send + 'static {
    let (sender, events) = mpsc::unbounded_channel::<Bytes>();
    let progress = sender.clone();
    let mut options = Options {
        only,
        skip,
        strict,
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
        // A sign-in's token as it is now, for the whole run.
        options.bearer_token = connection.bearer().await;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids the runner runs for `ids` chosen from the checklist.
    fn runs(ids: &[&str]) -> Vec<&'static str> {
        let request = RunRequest {
            checks: Some(ids.iter().map(|id| (*id).to_owned()).collect()),
            ..RunRequest::default()
        };
        let (only, skip) = request.patterns().unwrap();
        let options = Options {
            only,
            skip,
            ..Options::default()
        };
        CATALOG
            .iter()
            .map(|c| c.id)
            .filter(|id| options.selects(id))
            .collect()
    }

    #[test]
    fn a_list_of_ids_runs_exactly_those() {
        assert_eq!(
            runs(&["5.config.migrate"]),
            ["5.config.migrate"],
            "not the errors below it"
        );
        assert_eq!(runs(&["1.discovery.v1"]), ["1.discovery.v1"], "not v1-exact");
        assert_eq!(
            runs(&["6.tools.call", "1.health", "1.health"]),
            ["1.health", "6.tools.call"],
            "in catalogue order, once"
        );
        for check in CATALOG {
            assert_eq!(runs(&[check.id]), [check.id]);
            let others: Vec<&str> = CATALOG
                .iter()
                .map(|c| c.id)
                .filter(|id| *id != check.id)
                .collect();
            assert_eq!(runs(&others), others, "all but {}", check.id);
        }
    }

    #[test]
    fn a_list_that_names_no_check_is_refused() {
        let refused = |request: RunRequest| request.patterns().unwrap_err().message;
        let list = |ids: &[&str]| Some(ids.iter().map(|id| (*id).to_owned()).collect());
        assert!(
            refused(RunRequest {
                checks: list(&["1.health", "3.stream"]),
                ..RunRequest::default()
            })
            .contains("3.stream")
        );
        assert!(
            refused(RunRequest {
                checks: list(&[]),
                ..RunRequest::default()
            })
            .contains("at least one")
        );
        assert!(
            refused(RunRequest {
                checks: list(&["1.health"]),
                skip: vec!["1".into()],
                ..RunRequest::default()
            })
            .contains("not both")
        );
        assert!(
            refused(RunRequest {
                only: vec!["9.nothing".into()],
                ..RunRequest::default()
            })
            .contains("9.nothing")
        );
    }
}
