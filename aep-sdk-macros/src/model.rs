//! The small data model of an annotated impl, filled by `read`, consumed by `expand`.

use syn::{Ident, Lit, LitStr, Type};

use crate::helper::SiblingKind;
use crate::text::Text;

pub struct Extension {
    pub self_ty: Type,
    pub id: Text,
    pub name: Text,
    pub version: Option<Text>,
    pub description: Option<Text>,
    pub default_server: String,
    pub tools: Vec<Tool>,
    pub resources: Vec<Resource>,
    pub prompts: Vec<Prompt>,
    pub completions: Vec<Completion>,
    /// `tool_switch = field`.
    pub tool_switch: Option<Ident>,
    /// `subscriptions = field`.
    pub subscriptions: Option<Ident>,
    /// `scopes = [..]`: the default scopes (empty: none).
    pub scopes: Vec<LitStr>,
    pub providers: Vec<Provider>,
    /// `#[option_set]` methods: `fn(&self) -> OptionSetDecl`, called once at build time.
    pub option_sets: Vec<Ident>,
}

pub struct Tool {
    pub method: Ident,
    pub mcp_name: Text,
    pub contribution_id: Text,
    pub display_name: Text,
    pub description: Option<Text>,
    pub title: Option<String>,
    pub server: Option<String>,
    /// `scopes = [..]`, checked (empty: the extension's default).
    pub scopes: Vec<LitStr>,
    pub metadata: Vec<(String, Lit)>,
    pub annotations: Vec<(&'static str, bool)>,
    /// `timeout = "..."` in milliseconds.
    pub timeout_ms: Option<u64>,
    /// `timeout_resets_on_progress`.
    pub resets_on_progress: bool,
    /// `input_schema = EXPR`.
    pub input_schema: Option<syn::Expr>,
    pub params: Params,
    pub output: Output,
}

/// A `#[resource]` method.
pub struct Resource {
    pub method: Ident,
    /// The `uri` (or `uri_template`) literal.
    pub uri: LitStr,
    pub is_template: bool,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<Text>,
    pub mime_type: Option<String>,
    pub server: Option<String>,
    pub scopes: Vec<LitStr>,
    /// The template variables' parameters and an optional `ToolContext`, in order.
    pub params: Vec<Param>,
    pub answer: Answer,
}

/// A `#[prompt]` method.
pub struct Prompt {
    pub method: Ident,
    pub name: LitStr,
    pub title: Option<String>,
    pub description: Option<Text>,
    pub server: Option<String>,
    pub scopes: Vec<LitStr>,
    /// The arguments (strings parsed with `FromStr`) and an optional `ToolContext`.
    pub params: Vec<Param>,
    pub answer: Answer,
}

/// A `#[complete]` method: suggestions for a prompt argument or template variable.
pub struct Completion {
    pub method: Ident,
    /// The prompt's name or the URI template.
    pub target: LitStr,
    pub is_template: bool,
    /// The argument or variable.
    pub name: LitStr,
    /// The partial value's parameter, then an optional `ToolContext`, in order.
    pub params: Vec<Param>,
    pub answer: Answer,
}

/// What a resource or prompt method returns: `T` or `Result<T, E>`.
pub struct Answer {
    pub fallible: bool,
    /// `T` (where a type error about it is reported); `None` for `()`.
    pub ty: Option<Box<Type>>,
}

pub enum Params {
    /// One field per parameter: (name, type, docs, is ToolContext).
    Fields(Vec<Param>),
    /// `#[args] name: Type`: the type is the argument struct.
    Struct {
        ty: Box<Type>,
        ctx_position: Option<usize>,
    },
}

pub struct Param {
    pub name: Ident,
    pub ty: Type,
    pub doc: Option<String>,
    pub is_context: bool,
    pub optional: bool,
}

/// How a tool's return value becomes an MCP result.
pub struct Output {
    pub fallible: bool,
    pub kind: OutputKind,
}

pub enum OutputKind {
    Text,
    Unit,
    Raw,
    /// `Vec<ContentBlock>`: the result's content as given.
    Contents,
    Structured(Box<Type>),
}

pub struct Provider {
    pub method: Ident,
    pub with_context: bool,
    /// The method answers in one piece (`Result<ChatResponse, AepError>`): `/chat` returns
    /// it, `/chat/stream` streams it as one update and a finish.
    pub one_shot: bool,
    /// The method's return type, where type errors about the answer are reported.
    pub output: Option<Box<Type>>,
    pub id: Text,
    pub display_name: Text,
    pub capabilities: Vec<(&'static str, bool)>,
    pub models: Vec<LitStr>,
    pub scopes: Vec<LitStr>,
    pub metadata: Vec<(String, Lit)>,
    pub chat: Option<Sibling>,
    pub list_models: Option<Sibling>,
    pub health: Option<Sibling>,
}

pub struct Sibling {
    pub method: Ident,
    pub with_context: bool,
}

/// A `#[chat]`, `#[models]` or `#[health]` method before it is attached to its provider.
pub struct PendingSibling {
    pub kind: SiblingKind,
    pub provider: Text,
    pub sibling: Sibling,
}
