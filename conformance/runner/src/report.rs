//! The outcome of a run: one [`CheckResult`] per selected check.

use std::time::Duration;

use serde::Serialize;

use crate::catalog::{CheckInfo, Level};

/// What happened to one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The rule holds.
    Passed,
    /// The rule is broken (a required check, or any check under `strict`).
    Failed,
    /// A recommended check found a problem; it does not fail the run without `strict`.
    Warned,
    /// Not applicable (e.g. no MCP server), or a check it depends on could not run.
    Skipped,
}

impl Status {
    /// `passed`, `failed`, `warned` or `skipped`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Warned => "warned",
            Status::Skipped => "skipped",
        }
    }
}

/// The outcome of one check.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckResult {
    /// Stable id, e.g. `3.stream.framing`.
    pub id: &'static str,
    /// What the check verifies.
    pub description: &'static str,
    /// Section of the contract.
    pub section: &'static str,
    /// Required or recommended.
    pub level: Level,
    /// Passed, failed, warned or skipped.
    pub status: Status,
    /// Why it failed or was skipped (one line); `None` when it passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Every problem found (failures), or notes on what was covered (passes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    /// Wall time of the check.
    #[serde(rename = "durationMs", serialize_with = "millis")]
    pub duration: Duration,
}

fn millis<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}

impl CheckResult {
    pub(crate) fn new(
        info: &CheckInfo,
        status: Status,
        reason: Option<String>,
        details: Vec<String>,
        duration: Duration,
    ) -> Self {
        Self {
            id: info.id,
            description: info.description,
            section: info.section,
            level: info.level,
            status,
            reason,
            details,
            duration,
        }
    }
}

/// Counts of a report's statuses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Passed checks.
    pub passed: usize,
    /// Failed checks.
    pub failed: usize,
    /// Recommended checks with a problem (not failures without `strict`).
    pub warned: usize,
    /// Skipped checks.
    pub skipped: usize,
}

/// The result of a run against one extension.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The extension's base URL.
    pub target: String,
    /// The revisions checked (`1.0`, `2026-08-01`).
    pub revisions: Vec<String>,
    /// Whether recommended checks fail the run.
    pub strict: bool,
    /// One result per selected check, in run order.
    pub results: Vec<CheckResult>,
    /// Wall time of the run.
    #[serde(rename = "durationMs", serialize_with = "millis")]
    pub duration: Duration,
}

impl Report {
    /// `true` when no check failed (warnings and skips allowed).
    pub fn is_success(&self) -> bool {
        self.results.iter().all(|r| r.status != Status::Failed)
    }

    /// The failed checks.
    pub fn failed(&self) -> Vec<&CheckResult> {
        self.with_status(Status::Failed)
    }

    /// The recommended checks that found a problem without `strict`.
    pub fn warned(&self) -> Vec<&CheckResult> {
        self.with_status(Status::Warned)
    }

    /// The passed checks.
    pub fn passed(&self) -> Vec<&CheckResult> {
        self.with_status(Status::Passed)
    }

    /// The skipped checks.
    pub fn skipped(&self) -> Vec<&CheckResult> {
        self.with_status(Status::Skipped)
    }

    fn with_status(&self, status: Status) -> Vec<&CheckResult> {
        self.results.iter().filter(|r| r.status == status).collect()
    }

    /// The result of check `id`, if it ran.
    pub fn get(&self, id: &str) -> Option<&CheckResult> {
        self.results.iter().find(|r| r.id == id)
    }

    /// How many checks ended in each status.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for result in &self.results {
            match result.status {
                Status::Passed => counts.passed += 1,
                Status::Failed => counts.failed += 1,
                Status::Warned => counts.warned += 1,
                Status::Skipped => counts.skipped += 1,
            }
        }
        counts
    }

    /// The closing line: `N passed, N failed`, plus `, N skipped` when some were skipped.
    /// Warned checks count as passed here: they did not fail the run.
    pub fn closing_line(&self) -> String {
        let counts = self.counts();
        let mut line = format!(
            "{} passed, {} failed",
            counts.passed + counts.warned,
            counts.failed
        );
        if counts.skipped > 0 {
            line.push_str(&format!(", {} skipped", counts.skipped));
        }
        line
    }

    /// Panics with the rendered table unless [`Report::is_success`]: for extension tests.
    ///
    /// ```no_run
    /// # async fn demo(base_url: &str) {
    /// aep_conformance::check(base_url).await.assert_success();
    /// # }
    /// ```
    #[track_caller]
    pub fn assert_success(&self) {
        if !self.is_success() {
            panic!(
                "the extension at {} fails AEP conformance:\n{}",
                self.target,
                self.to_table(false)
            );
        }
    }

    /// The report as pretty-printed JSON (`--format json`).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}
