//! What a run checks and how: revisions, provider and model, selection, strictness,
//! credentials, time bounds and a progress callback.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::report::Status;
use crate::revisions::Revisions;

/// A progress notification, sent before and after each check.
#[derive(Debug, Clone)]
pub struct ProgressEvent {
    /// 1-based position of the check among the selected ones.
    pub index: usize,
    /// Number of selected checks.
    pub total: usize,
    /// The check's id.
    pub id: &'static str,
    /// `None` when the check starts, its status when it is done.
    pub done: Option<Status>,
}

/// Called with every [`ProgressEvent`] (e.g. to draw a progress line).
pub type ProgressFn = Arc<dyn Fn(&ProgressEvent) + Send + Sync>;

/// Options of a run. `Options::default()` checks everything, both revisions, every
/// provider with its first model, non-strict, with a 60 s bound per check.
///
/// ```
/// use aep_conformance::{Options, Revisions};
///
/// let options = Options {
///     revisions: Revisions::V1,
///     skip: vec!["4.errors.oversized".into()],
///     strict: true,
///     ..Options::default()
/// };
/// assert!(options.selects("1.discovery.v1"));
/// assert!(!options.selects("4.errors.oversized"));
/// ```
#[derive(Clone)]
pub struct Options {
    /// Revisions whose discovery route and manifest are checked.
    pub revisions: Revisions,
    /// Run the chat, stream and error checks against this provider only (default: every
    /// provider that declares chat).
    pub provider: Option<String>,
    /// The model the chat checks use (default: the provider's first listed model).
    pub model: Option<String>,
    /// Run only the checks these patterns select (an id, or a prefix such as `3.stream`).
    pub only: Vec<String>,
    /// Leave out the checks these patterns select.
    pub skip: Vec<String>,
    /// Fail the run on recommended (SHOULD) checks too.
    pub strict: bool,
    /// Sent as `Authorization: Bearer <token>` on every request, MCP included.
    pub bearer_token: Option<String>,
    /// Bound on one check, all its requests included (default 60 s).
    pub check_timeout: Duration,
    /// Bound on one HTTP exchange (default 30 s); streams are bounded by `check_timeout`.
    pub request_timeout: Duration,
    /// Call read-only MCP tools in `6.tools.call` (default true). Tools not annotated
    /// `readOnlyHint: true`, or annotated `destructiveHint: true`, are never called.
    pub call_tools: bool,
    /// Receives progress notifications.
    pub progress: Option<ProgressFn>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            revisions: Revisions::Both,
            provider: None,
            model: None,
            only: Vec::new(),
            skip: Vec::new(),
            strict: false,
            bearer_token: None,
            check_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(30),
            call_tools: true,
            progress: None,
        }
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("revisions", &self.revisions)
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("only", &self.only)
            .field("skip", &self.skip)
            .field("strict", &self.strict)
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "<redacted>"))
            .field("check_timeout", &self.check_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("call_tools", &self.call_tools)
            .field("progress", &self.progress.as_ref().map(|_| "<callback>"))
            .finish()
    }
}

impl Options {
    /// Whether check `id` runs under `only` and `skip`.
    pub fn selects(&self, id: &str) -> bool {
        let only = self.only.is_empty() || self.only.iter().any(|p| crate::catalog::matches(p, id));
        only && !self.skip.iter().any(|p| crate::catalog::matches(p, id))
    }
}
