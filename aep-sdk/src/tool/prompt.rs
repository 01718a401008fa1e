//! MCP prompts: [`PromptDef`] and [`PromptOutput`], how a prompt's return value becomes
//! its `messages`.

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};

use super::{JsonObject, ToolContext};

/// Gets one prompt on the state `S`: its arguments (strings) and the request's context
/// in, the messages out.
pub type PromptGet<S> =
    fn(Arc<S>, JsonObject, ToolContext) -> BoxFuture<'static, Result<GetPromptResult, ErrorData>>;

/// One prompt: its `prompts/list` entry and how to get it.
pub struct PromptDef<S> {
    /// The `prompts/list` entry (name, description, arguments).
    pub prompt: Prompt,
    /// The get.
    pub get: PromptGet<S>,
    /// The OAuth scopes getting it needs (empty: the extension's default).
    pub scopes: Vec<String>,
}

impl<S> PromptDef<S> {
    /// The prompt `name`, got through `get`.
    pub fn new(name: &str, get: PromptGet<S>) -> Self {
        Self {
            prompt: Prompt::new(name, None::<String>, None),
            get,
            scopes: Vec::new(),
        }
    }

    /// The OAuth scopes a request for it needs (instead of the extension's default).
    pub fn scopes<I: IntoIterator<Item = T>, T: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: &str) -> Self {
        self.prompt.description = Some(description.to_owned());
        self
    }

    /// Sets the human-readable title.
    pub fn title(mut self, title: &str) -> Self {
        self.prompt.title = Some(title.to_owned());
        self
    }

    /// Adds an argument (a string the client fills in), with its description.
    pub fn argument(mut self, name: &str, description: Option<&str>, required: bool) -> Self {
        let mut argument = PromptArgument::new(name).with_required(required);
        if let Some(description) = description {
            argument = argument.with_description(description);
        }
        self.prompt.arguments.get_or_insert_with(Vec::new).push(argument);
        self
    }
}

/// What a `#[prompt]` method may return: a `String` or `&'static str` (one user message),
/// `Vec<PromptMessage>`, or a whole `GetPromptResult`.
#[diagnostic::on_unimplemented(
    message = "a `#[prompt]` method cannot return `{Self}`",
    label = "not a prompt's messages",
    note = "return a `String` or `&'static str` (one user message), `Vec<PromptMessage>` or `GetPromptResult`, optionally in a `Result<_, ToolError>`"
)]
pub trait PromptOutput {
    /// The `prompts/get` result.
    fn into_result(self) -> GetPromptResult;
}

impl PromptOutput for String {
    fn into_result(self) -> GetPromptResult {
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, self)])
    }
}

impl PromptOutput for &'static str {
    fn into_result(self) -> GetPromptResult {
        self.to_owned().into_result()
    }
}

impl PromptOutput for Vec<PromptMessage> {
    fn into_result(self) -> GetPromptResult {
        GetPromptResult::new(self)
    }
}

impl PromptOutput for GetPromptResult {
    fn into_result(self) -> GetPromptResult {
        self
    }
}
