//! Runs the selected checks in catalogue order, each bounded by the check timeout.

use std::time::Instant;

use crate::catalog::{CATALOG, CheckInfo, Level};
use crate::checks::{self, Verdict};
use crate::ctx::Ctx;
use crate::options::{Options, ProgressEvent};
use crate::report::{CheckResult, Report, Status};

fn result(info: &CheckInfo, verdict: Verdict, options: &Options, started: Instant) -> CheckResult {
    let elapsed = started.elapsed();
    let level = info.level_in(options.revisions);
    let result = match verdict {
        Verdict::Pass(notes) => CheckResult::new(info, Status::Passed, None, notes, elapsed),
        Verdict::Skip(reason) => CheckResult::new(info, Status::Skipped, Some(reason), Vec::new(), elapsed),
        Verdict::Fail(reason, details) => {
            let status = if level == Level::Recommended && !options.strict {
                Status::Warned
            } else {
                Status::Failed
            };
            CheckResult::new(info, status, Some(reason), details, elapsed)
        }
    };
    CheckResult { level, ..result }
}

/// Runs every check `options` selects against the extension at `url`.
pub async fn check_with(url: &str, options: &Options) -> Report {
    let started = Instant::now();
    let selected: Vec<&CheckInfo> = CATALOG.iter().filter(|c| options.selects(c.id)).collect();
    let total = selected.len();
    let mut results = Vec::with_capacity(total);
    let notify = |index: usize, id: &'static str, done: Option<Status>| {
        if let Some(progress) = &options.progress {
            progress(&ProgressEvent {
                index,
                total,
                id,
                done,
            });
        }
    };
    match Ctx::new(url, options.clone()) {
        Err(error) => {
            for (i, info) in selected.iter().enumerate() {
                let verdict = if i == 0 {
                    Verdict::fail(error.clone())
                } else {
                    Verdict::Skip("the base URL is invalid".to_owned())
                };
                results.push(result(info, verdict, options, Instant::now()));
            }
        }
        Ok(mut ctx) => {
            for (i, info) in selected.iter().enumerate() {
                notify(i + 1, info.id, None);
                let check_started = Instant::now();
                let verdict =
                    match tokio::time::timeout(options.check_timeout, checks::run(info.id, &mut ctx)).await {
                        Ok(verdict) => verdict,
                        Err(_) => Verdict::fail(format!(
                            "the check did not finish within {:?} (raise it with --timeout)",
                            options.check_timeout
                        )),
                    };
                let done = result(info, verdict, options, check_started);
                notify(i + 1, info.id, Some(done.status));
                tracing::debug!(id = info.id, status = done.status.as_str(), "check done");
                results.push(done);
            }
            ctx.close().await;
        }
    }
    Report {
        target: url.to_owned(),
        revisions: options
            .revisions
            .list()
            .iter()
            .map(|r| r.as_str().to_owned())
            .collect(),
        strict: options.strict,
        results,
        duration: started.elapsed(),
    }
}
