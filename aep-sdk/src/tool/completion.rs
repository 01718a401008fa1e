//! [`CompletionDef`]: suggestions for one prompt argument or resource-template variable
//! (`completion/complete`).

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{CompletionInfo, Reference};

use super::ToolContext;

/// What a completion is for: a prompt's argument or a resource template's variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionTarget {
    /// Argument `argument` of prompt `prompt`.
    Prompt {
        /// The prompt's name.
        prompt: String,
        /// The argument's name.
        argument: String,
    },
    /// Variable `variable` of the resource template `uri_template`.
    Template {
        /// The template, as listed.
        uri_template: String,
        /// The variable's name.
        variable: String,
    },
}

impl CompletionTarget {
    fn matches(&self, reference: &Reference, name: &str) -> bool {
        match (self, reference) {
            (CompletionTarget::Prompt { prompt, argument }, Reference::Prompt(r)) => {
                r.name == *prompt && name == argument
            }
            (
                CompletionTarget::Template {
                    uri_template,
                    variable,
                },
                Reference::Resource(r),
            ) => r.uri == *uri_template && name == variable,
            _ => false,
        }
    }
}

/// Completes one value on the state `S`: the partial value typed so far and the
/// request's context in, the suggestions out (best first).
pub type Complete<S> = fn(Arc<S>, String, ToolContext) -> BoxFuture<'static, Result<Vec<String>, ErrorData>>;

/// One completion: what it completes and how.
pub struct CompletionDef<S> {
    /// The prompt argument or template variable it completes.
    pub target: CompletionTarget,
    /// The completion.
    pub complete: Complete<S>,
}

impl<S> CompletionDef<S> {
    /// Completes argument `argument` of prompt `prompt`.
    pub fn prompt(prompt: &str, argument: &str, complete: Complete<S>) -> Self {
        let target = CompletionTarget::Prompt {
            prompt: prompt.to_owned(),
            argument: argument.to_owned(),
        };
        Self { target, complete }
    }

    /// Completes variable `variable` of resource template `uri_template`.
    pub fn template(uri_template: &str, variable: &str, complete: Complete<S>) -> Self {
        let target = CompletionTarget::Template {
            uri_template: uri_template.to_owned(),
            variable: variable.to_owned(),
        };
        Self { target, complete }
    }

    pub(super) fn matches(&self, reference: &Reference, argument: &str) -> bool {
        self.target.matches(reference, argument)
    }
}

/// MCP caps a completion at 100 values; the rest is counted in `total`.
pub(super) fn completion_info(mut values: Vec<String>) -> CompletionInfo {
    let total = u32::try_from(values.len()).unwrap_or(u32::MAX);
    let has_more = values.len() > CompletionInfo::MAX_VALUES;
    values.truncate(CompletionInfo::MAX_VALUES);
    let mut info = CompletionInfo::new(values).unwrap_or_default();
    info.total = Some(total);
    info.has_more = Some(has_more);
    info
}
