//! The data model of an annotated impl, filled by `read`, checked by `check`, consumed by
//! `expand`. Each item holds its attribute's finished value (`attrs`) as `attr` made it,
//! beside what the method's signature says.

use syn::{Ident, LitStr, Type};

use crate::attr;
use crate::helper::SiblingKind;

pub struct Extension {
    pub self_ty: Type,
    pub attrs: attr::Extension,
    pub tools: Vec<Tool>,
    pub resources: Vec<Resource>,
    pub prompts: Vec<Prompt>,
    pub completions: Vec<Completion>,
    pub providers: Vec<Provider>,
    /// `#[chat]`, `#[models]` and `#[health]` methods, each naming its provider.
    pub siblings: Vec<Sibling>,
    /// `#[option_set]` methods: `fn(&self) -> OptionSetDecl`, called once at build time.
    pub option_sets: Vec<Ident>,
}

impl Extension {
    /// The first sibling of `kind` naming `provider` (provider ids match
    /// case-insensitively); `check` refuses any other.
    pub fn sibling(&self, provider: &Provider, kind: SiblingKind) -> Option<&Sibling> {
        self.siblings
            .iter()
            .find(|s| s.kind == kind && provider.attrs.id.same(&s.attrs.provider, true))
    }

    /// The MCP server an item with `server` is on.
    pub fn server<'a>(&'a self, server: &'a Option<String>) -> &'a str {
        server.as_deref().unwrap_or(&self.attrs.mcp_server)
    }
}

/// A `#[tool]` method.
pub struct Tool {
    pub method: Ident,
    pub attrs: attr::Tool,
    pub params: Params,
    pub output: Output,
}

/// A `#[resource]` method.
pub struct Resource {
    pub method: Ident,
    pub attrs: attr::Resource,
    /// The template variables' parameters and an optional `ToolContext`, in order.
    pub params: Vec<Param>,
    pub answer: Answer,
}

/// A `#[prompt]` method.
pub struct Prompt {
    pub method: Ident,
    pub attrs: attr::Prompt,
    /// The arguments (strings parsed with `FromStr`) and an optional `ToolContext`.
    pub params: Vec<Param>,
    pub answer: Answer,
}

/// A `#[complete]` method: suggestions for a prompt argument or template variable.
pub struct Completion {
    pub method: Ident,
    pub attrs: attr::Complete,
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

/// A `#[model_provider]` method.
pub struct Provider {
    pub method: Ident,
    pub attrs: attr::Provider,
    pub with_context: bool,
    /// The method answers in one piece (`Result<ChatResponse, AepError>`): `/chat` returns
    /// it, `/chat/stream` streams it as one update and a finish.
    pub one_shot: bool,
    /// The method's return type, where type errors about the answer are reported.
    pub output: Box<Type>,
}

/// A `#[chat]`, `#[models]` or `#[health]` method.
pub struct Sibling {
    pub kind: SiblingKind,
    pub method: Ident,
    pub attrs: attr::Sibling,
    pub with_context: bool,
}

/// `scopes = [..]` as the expansion uses it: none is an empty list.
pub fn scopes(scopes: &Option<attr::Scopes>) -> &[LitStr] {
    scopes.as_ref().map_or(&[], |s| &s.list)
}
