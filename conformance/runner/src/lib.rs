//! # aep-conformance
//!
//! The AEP conformance suite, as a library and as the `aep-conformance` command. It
//! checks a running extension, written in any language, against the AEP contract
//! (`shared/spec/aep.md`): discovery and manifest rules, health, model providers, chat and
//! SSE streaming, error documents, versioned configuration, MCP tools (with their
//! progress notifications), MCP resources and prompts, and cancellation.
//!
//! Every check has a stable id following the contract's sections (`1.discovery.v1`,
//! `3.stream.framing`, `4.errors.malformed-json`, `6.tools.contribution-maps`, ...), a
//! one-line description, a section reference and a level: `required` (a MUST) or
//! `recommended` (a SHOULD, which fails the run only with [`Options::strict`]). The list
//! is [`CATALOG`]; `aep-conformance list` prints it.
//!
//! ## In a Rust extension's tests
//!
//! ```no_run
//! # async fn demo() {
//! # let router = axum::Router::new();
//! let server = aep_sdk::testing::spawn(router).await;
//! let report = aep_conformance::check(&server.base_url).await;
//! report.assert_success(); // or: assert!(report.is_success(), "{}", report.to_table(false));
//! # }
//! ```
//!
//! With options:
//!
//! ```no_run
//! # async fn demo(url: &str) {
//! use aep_conformance::{Options, check_with};
//!
//! let options = Options {
//!     provider: Some("ollama".into()),
//!     model: Some("qwen3:0.6b".into()),
//!     skip: vec!["4.errors.oversized".into()],
//!     ..Options::default()
//! };
//! let report = check_with(url, &options).await;
//! for failed in report.failed() {
//!     eprintln!("{}: {}", failed.id, failed.reason.as_deref().unwrap_or(""));
//! }
//! # }
//! ```
//!
//! ## How checks relate
//!
//! Checks share what they fetch (one discovery document per revision, one `/chat` and
//! one `/chat/stream` exchange per provider, one MCP client per server) and each broken
//! rule is reported by the check that owns it: a check that depends on something another
//! check found broken is skipped, naming that check, rather than failed again.
//!
//! Tool calls (`6.tools.call`, `6.tools.progress`) only ever go to tools annotated
//! `readOnlyHint: true` and not `destructiveHint: true`, with arguments synthesized from
//! their input schema, once per run. Resources and prompts (`6.resources.*`,
//! `6.prompts.*`) are checked on the servers that advertise them.
//! Raw HTTP goes through `reqwest` directly (the canonical client hides framing); MCP
//! goes through rmcp's Streamable HTTP client. Every wait is bounded.
//!
//! Modules depend one way: `http`, `rawhttp`, `revisions`, `schema` and `mcp` are leaves;
//! `catalog` and `report` describe checks and results, `options` uses them; `ctx` (what
//! checks share: fetched documents, targets, MCP clients) uses those; `checks` use `ctx`;
//! `runner` and `render` sit on top.
#![warn(missing_docs)]

mod catalog;
mod checks;
mod ctx;
mod http;
mod mcp;
mod options;
mod rawhttp;
mod render;
mod report;
mod revisions;
mod runner;
mod schema;
mod sse;

pub use catalog::{CATALOG, CheckInfo, Level, info, matches, unknown_patterns};
pub use options::{Options, ProgressEvent, ProgressFn};
pub use report::{CheckResult, Counts, Report, Status};
pub use revisions::Revisions;
pub use runner::check_with;

/// Runs the whole suite against the extension at `url` (its base URL, e.g.
/// `http://127.0.0.1:8710`) with default [`Options`].
pub async fn check(url: &str) -> Report {
    check_with(url, &Options::default()).await
}

#[cfg(test)]
mod tests {
    fn assert_send<T: Send>(_: &T) {}

    #[test]
    fn a_run_can_be_spawned() {
        let run = super::check("http://127.0.0.1:9");
        assert_send(&run);
        let options = super::Options::default();
        let with = super::check_with("http://127.0.0.1:9", &options);
        assert_send(&with);
    }
}
