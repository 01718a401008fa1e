//! The checks. Each is an async function of the shared [`Ctx`] returning a [`Verdict`];
//! [`run`] dispatches by id.

pub(crate) mod calls;
pub(crate) mod config;
pub(crate) mod discovery;
pub(crate) mod errors;
pub(crate) mod manifest;
pub(crate) mod providers;
pub(crate) mod stream;
pub(crate) mod surface;
pub(crate) mod tools;

use crate::ctx::{Ctx, Missing};

/// What a check concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The rule holds; notes say what was covered.
    Pass(Vec<String>),
    /// The rule is broken: a one-line reason and every problem.
    Fail(String, Vec<String>),
    /// Not applicable, or something it needs is missing.
    Skip(String),
}

impl Verdict {
    /// A failure with one problem.
    pub(crate) fn fail(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Verdict::Fail(reason.clone(), vec![reason])
    }

    /// For the check that owns `missing`: a failure when it is broken, else a skip.
    pub(crate) fn owner(missing: Missing) -> Self {
        if missing.broken {
            Verdict::fail(missing.reason)
        } else {
            Verdict::Skip(missing.reason)
        }
    }

    /// For a check that depends on `missing`: always a skip.
    pub(crate) fn dependant(missing: Missing) -> Self {
        Verdict::Skip(missing.reason)
    }
}

/// Unwraps a `Result<T, Missing>` or returns a skip from the enclosing check.
macro_rules! need {
    ($e:expr) => {
        match $e {
            Ok(value) => value,
            Err(missing) => return $crate::checks::Verdict::dependant(missing),
        }
    };
}
pub(crate) use need;

/// Accumulates what a check found over several subjects (providers, tools, ...).
#[derive(Debug, Default)]
pub(crate) struct Findings {
    problems: Vec<String>,
    notes: Vec<String>,
    skips: Vec<String>,
    checked: usize,
}

impl Findings {
    pub(crate) fn problem(&mut self, problem: impl Into<String>) {
        self.checked += 1;
        self.problems.push(problem.into());
    }

    pub(crate) fn ok(&mut self, note: impl Into<String>) {
        self.checked += 1;
        self.notes.push(note.into());
    }

    pub(crate) fn skip(&mut self, why: impl Into<String>) {
        self.skips.push(why.into());
    }

    pub(crate) fn check(&mut self, result: Result<String, String>) {
        match result {
            Ok(note) => self.ok(note),
            Err(problem) => self.problem(problem),
        }
    }

    /// Fail when any problem was found, skip when nothing could be checked, else pass.
    pub(crate) fn verdict(self) -> Verdict {
        if !self.problems.is_empty() {
            let reason = match self.problems.as_slice() {
                [only] => only.clone(),
                [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
                [] => String::new(),
            };
            let mut details = self.problems;
            details.extend(self.skips.into_iter().map(|s| format!("not checked: {s}")));
            return Verdict::Fail(reason, details);
        }
        if self.checked == 0 {
            let reason = if self.skips.is_empty() {
                "nothing to check".to_owned()
            } else {
                self.skips.join("; ")
            };
            return Verdict::Skip(reason);
        }
        let mut notes = self.notes;
        notes.extend(self.skips.into_iter().map(|s| format!("not checked: {s}")));
        Verdict::Pass(notes)
    }
}

/// Runs check `id`.
pub(crate) async fn run(id: &str, ctx: &mut Ctx) -> Verdict {
    use aep_sdk::protocol::ProtocolVersion;
    match id {
        "1.discovery.v1" => discovery::route(ctx, ProtocolVersion::V1).await,
        "1.discovery.2026-08-01" => discovery::route(ctx, ProtocolVersion::V2026_08_01).await,
        "1.discovery.revision" => discovery::revision(ctx).await,
        "1.discovery.v1-exact" => discovery::v1_exact(ctx).await,
        "1.discovery.identical" => discovery::identical(ctx).await,
        "1.manifest.members" => manifest::members(ctx).await,
        "1.manifest.identity"
        | "1.manifest.capabilities"
        | "1.manifest.providers"
        | "1.manifest.mcp-servers"
        | "1.manifest.tools.valid"
        | "1.manifest.tools.server-ref" => manifest::rules(ctx, id).await,
        "1.manifest.tools.no-schema" => manifest::no_schema(ctx).await,
        "1.health" => discovery::health(ctx).await,
        "2.json.enums" => stream::enums(ctx).await,
        "3.providers.list" => providers::list(ctx).await,
        "3.providers.case-insensitive" => providers::case_insensitive(ctx).await,
        "3.provider.health" => providers::health(ctx).await,
        "3.provider.models" => providers::models(ctx).await,
        "3.provider.chat" => providers::chat(ctx).await,
        "3.stream.response" => stream::response(ctx).await,
        "3.stream.accel-buffering" => stream::accel_buffering(ctx).await,
        "3.stream.framing" => stream::framing(ctx).await,
        "3.stream.json" => stream::json(ctx).await,
        "3.stream.terminal" => stream::terminal(ctx).await,
        "3.stream.matches-chat" => stream::matches_chat(ctx).await,
        "3.stream.cancellation" => stream::cancellation(ctx).await,
        "4.errors.unknown-provider" => errors::unknown_provider(ctx).await,
        "4.errors.malformed-json" => errors::bad_body(ctx, errors::BadBody::Malformed).await,
        "4.errors.wrong-types" => errors::bad_body(ctx, errors::BadBody::WrongTypes).await,
        "4.errors.empty-messages" => errors::bad_body(ctx, errors::BadBody::EmptyMessages).await,
        "4.errors.content-type" => errors::bad_body(ctx, errors::BadBody::ContentType).await,
        "4.errors.oversized" => errors::oversized(ctx).await,
        "5.config.catalog" => config::catalog(ctx).await,
        "5.config.digest" => config::digest(ctx).await,
        "5.config.options.valid" => config::options(ctx, config::Probe::Valid).await,
        "5.config.options.unknown-set" => config::options(ctx, config::Probe::UnknownSet).await,
        "5.config.options.unknown-version" => config::options(ctx, config::Probe::UnknownVersion).await,
        "5.config.options.digest-mismatch" => config::options(ctx, config::Probe::DigestMismatch).await,
        "5.config.options.invalid-values" => config::options(ctx, config::Probe::InvalidValues).await,
        "5.config.migrate" => config::migrate(ctx).await,
        "5.config.migrate.errors" => config::migrate_errors(ctx).await,
        "6.mcp.reachable" => tools::reachable(ctx).await,
        "6.mcp.initialize" => tools::initialize(ctx).await,
        "6.mcp.stateless" => tools::stateless(ctx).await,
        "6.mcp.origin" => tools::origin(ctx).await,
        "6.tools.contribution-maps" => tools::contribution_maps(ctx).await,
        "6.tools.schemas" => tools::schemas(ctx).await,
        "6.tools.call" => calls::call_check(ctx).await,
        "6.tools.progress" => calls::progress(ctx).await,
        "6.resources.list" => surface::resources_list(ctx).await,
        "6.resources.read" => surface::resources_read(ctx).await,
        "6.prompts.list" => surface::prompts_list(ctx).await,
        "6.prompts.get" => surface::prompts_get(ctx).await,
        other => Verdict::fail(format!("internal error: no implementation for check '{other}'")),
    }
}
