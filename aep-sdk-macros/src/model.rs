//! The annotated impl as a checked description of the extension. Every misuse is a
//! `syn::Error` on the user's span with a message that says how to fix it; all of
//! them are collected, not just the first.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ImplItem, ImplItemFn, ItemImpl, Lit, LitStr, Pat, ReturnType, Type};

use crate::helper::{Helper, SiblingKind};
use crate::parse::{self, Arg};
use crate::text::Text;

pub struct Extension {
    pub self_ty: Type,
    pub id: Text,
    pub name: Text,
    pub version: Option<Text>,
    pub description: Option<Text>,
    pub default_server: String,
    pub tools: Vec<Tool>,
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
    pub metadata: Vec<(String, Lit)>,
    pub annotations: Vec<(&'static str, bool)>,
    pub params: Params,
    pub output: Output,
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
    pub metadata: Vec<(String, Lit)>,
    pub chat: Option<Sibling>,
    pub list_models: Option<Sibling>,
    pub health: Option<Sibling>,
}

pub struct Sibling {
    pub method: Ident,
    pub with_context: bool,
}

struct PendingSibling {
    kind: SiblingKind,
    provider: Text,
    sibling: Sibling,
}

const EXTENSION_KEYS: &[&str] = &["id", "name", "version", "description", "mcp_server"];
const TOOL_KEYS: &[&str] = &[
    "name",
    "id",
    "display_name",
    "description",
    "title",
    "server",
    "metadata",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
];
const PROVIDER_FLAGS: [&str; 7] = [
    "chat",
    "streaming",
    "tools",
    "thinking",
    "structured_output",
    "vision",
    "model_discovery",
];
const PROVIDER_KEYS: &[&str] = &[
    "id",
    "display_name",
    "models",
    "metadata",
    "chat",
    "streaming",
    "tools",
    "thinking",
    "structured_output",
    "vision",
    "model_discovery",
];
const SIBLING_KEYS: &[&str] = &["provider"];

/// Every error found, reported together. Like serde_derive's `Ctxt`, it must be checked
/// with [`Errors::into_result`]: dropping it unchecked is a bug in this crate and panics.
#[derive(Default)]
pub struct Errors(Vec<syn::Error>, bool);

impl Drop for Errors {
    fn drop(&mut self) {
        if !self.1 && !std::thread::panicking() {
            panic!("aep-sdk-macros: errors dropped without being checked");
        }
    }
}

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }
    fn extend(&mut self, errors: impl IntoIterator<Item = syn::Error>) {
        self.0.extend(errors);
    }
    fn take<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }
    pub fn into_result(mut self) -> Result<(), syn::Error> {
        self.1 = true;
        let mut iter = std::mem::take(&mut self.0).into_iter();
        let Some(mut first) = iter.next() else {
            return Ok(());
        };
        for error in iter {
            first.combine(error);
        }
        Err(first)
    }
}

fn err(span: Span, message: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, message)
}

/// Reads `#[aep_extension(...)]` and the impl into a model, or all the errors found.
pub fn build(attr: proc_macro2::TokenStream, item: &ItemImpl, errors: &mut Errors) -> Option<Extension> {
    let args = errors.take(parse::args(attr))?;
    errors.extend(parse::check_keys(&args, "aep_extension", EXTENSION_KEYS));
    let find = |key: &str| args.iter().find(|a| a.key == key);
    let required = |key: &str, errors: &mut Errors| match find(key) {
        Some(arg) => errors.take(arg.text()),
        None => {
            errors.push(err(
                Span::call_site(),
                format!("`#[aep_extension]` needs `{key} = \"...\"`, e.g. #[aep_extension(id = \"acme.tools\", name = \"Tools\")]"),
            ));
            None
        }
    };
    let id = required("id", errors);
    let name = required("name", errors);
    let version = find("version").and_then(|a| errors.take(a.text()));
    let description = find("description").and_then(|a| errors.take(a.text()));
    let default_server = find("mcp_server")
        .and_then(|a| errors.take(a.string()))
        .map(|s| s.value())
        .unwrap_or_else(|| "default".into());

    if !item.generics.params.is_empty() {
        errors.push(err(
            item.generics.span(),
            "`#[aep_extension]` does not support generic impl blocks; implement it on a concrete type",
        ));
    }
    if let Some((_, path, _)) = &item.trait_ {
        errors.push(err(
            path.span(),
            "`#[aep_extension]` goes on an inherent impl (`impl MyExtension { ... }`), not a trait impl",
        ));
    }

    let mut tools = Vec::new();
    let mut providers = Vec::new();
    let mut siblings = Vec::new();
    let mut option_sets = Vec::new();
    for impl_item in &item.items {
        let ImplItem::Fn(method) = impl_item else { continue };
        for attr in &method.attrs {
            let Some(helper) = Helper::of(attr) else {
                continue;
            };
            let kind = helper.name();
            let tokens = match &attr.meta {
                syn::Meta::Path(_) => proc_macro2::TokenStream::new(),
                syn::Meta::List(list) => list.tokens.clone(),
                syn::Meta::NameValue(nv) => {
                    errors.push(err(
                        nv.span(),
                        format!("write `#[{kind}(...)]`, not `#[{kind} = ...]`"),
                    ));
                    continue;
                }
            };
            let Some(args) = errors.take(parse::args(tokens)) else {
                continue;
            };
            if helper == Helper::OptionSet {
                option_sets.extend(option_set(method, &args, errors));
                continue;
            }
            if !check_method(method, kind, errors) {
                continue;
            }
            match helper {
                Helper::Tool => tools.extend(tool(method, &args, errors)),
                Helper::ModelProvider => providers.extend(provider(method, attr, &args, errors)),
                Helper::Sibling(sibling_kind) => {
                    siblings.extend(sibling(method, attr, sibling_kind, &args, errors))
                }
                Helper::OptionSet => {}
            }
        }
    }
    attach_siblings(&mut providers, siblings, errors);
    check_duplicates(&tools, &providers, &default_server, errors);
    Some(Extension {
        self_ty: (*item.self_ty).clone(),
        id: id?,
        name: name?,
        version,
        description,
        default_server,
        tools,
        providers,
        option_sets,
    })
}

/// `fn name(&self) -> OptionSetDecl`: plain (not async), called once when the extension
/// is built.
fn option_set(method: &ImplItemFn, args: &[Arg], errors: &mut Errors) -> Option<Ident> {
    errors.extend(parse::check_keys(args, "option_set", &[]));
    let sig = &method.sig;
    if let Some(asyncness) = sig.asyncness {
        errors.push(err(
            asyncness.span,
            "`#[option_set]` methods are plain `fn`s returning `OptionSetDecl`: they run once, when the extension is built",
        ));
        return None;
    }
    let takes_self_only = matches!(sig.inputs.first(), Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none())
        && sig.inputs.len() == 1;
    if !takes_self_only || !sig.generics.params.is_empty() {
        errors.push(err(
            sig.inputs.span(),
            "`#[option_set]` methods take only `&self`: `fn options(&self) -> OptionSetDecl`",
        ));
        return None;
    }
    Some(sig.ident.clone())
}

/// `async fn name(&self, ...)`, no generics.
fn check_method(method: &ImplItemFn, kind: &str, errors: &mut Errors) -> bool {
    let sig = &method.sig;
    let mut ok = true;
    if sig.asyncness.is_none() {
        errors.push(err(
            sig.fn_token.span,
            format!(
                "`#[{kind}]` methods must be `async fn`: write `async fn {}`",
                sig.ident
            ),
        ));
        ok = false;
    }
    match sig.inputs.first() {
        Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() => {}
        Some(FnArg::Receiver(r)) => {
            errors.push(err(
                r.span(),
                format!(
                    "`#[{kind}]` methods take `&self`: the extension's state is shared by concurrent requests"
                ),
            ));
            ok = false;
        }
        _ => {
            errors.push(err(
                sig.ident.span(),
                format!("`#[{kind}]` methods take `&self` as their first parameter"),
            ));
            ok = false;
        }
    }
    if !sig.generics.params.is_empty() {
        errors.push(err(
            sig.generics.span(),
            format!("`#[{kind}]` methods cannot be generic"),
        ));
        ok = false;
    }
    ok
}

fn humanize(name: &str) -> String {
    let spaced = name.replace(['_', '.', '-'], " ");
    let mut chars = spaced.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn last_segment(ty: &Type) -> Option<(&Ident, &syn::PathArguments)> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| (&s.ident, &s.arguments)),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

fn is_named(ty: &Type, name: &str) -> bool {
    last_segment(ty).is_some_and(|(ident, _)| ident == name)
}

fn generic_args(ty: &Type) -> Vec<&Type> {
    match last_segment(ty) {
        Some((_, syn::PathArguments::AngleBracketed(args))) => args
            .args
            .iter()
            .filter_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn unsupported_param(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Reference(_) => Some(
            "a reference; tool arguments are decoded from JSON into owned values (use `String` instead of `&str`)",
        ),
        Type::ImplTrait(_) => {
            Some("`impl Trait`; use a concrete type that implements `Deserialize` and `JsonSchema`")
        }
        Type::TraitObject(_) => {
            Some("a trait object; use a concrete type that implements `Deserialize` and `JsonSchema`")
        }
        Type::Ptr(_) => Some("a raw pointer"),
        Type::BareFn(_) => Some("a function pointer"),
        Type::Never(_) => Some("`!`"),
        Type::Infer(_) => Some("`_`"),
        Type::Macro(_) => Some("a macro"),
        _ => None,
    }
}

fn tool(method: &ImplItemFn, args: &[Arg], errors: &mut Errors) -> Option<Tool> {
    errors.extend(parse::check_keys(args, "tool", TOOL_KEYS));
    let get = |key: &str| args.iter().find(|a| a.key == key);
    let mut text = |key: &str| get(key).and_then(|a| errors.take(a.text()));
    let method_name = method.sig.ident.to_string();
    let method_name = method_name.trim_start_matches("r#").to_owned();
    let span = method.sig.ident.span();
    let mcp_name = text("name").unwrap_or_else(|| Text::lit(&method_name, span));
    let contribution_id = text("id").unwrap_or_else(|| mcp_name.clone());
    let display_name = text("display_name").unwrap_or_else(|| Text::lit(&humanize(&method_name), span));
    let description =
        text("description").or_else(|| parse::doc_text(&method.attrs).map(|doc| Text::lit(&doc, span)));
    let mut string = |key: &str| get(key).and_then(|a| errors.take(a.string())).map(|s| s.value());
    let title = string("title");
    let server = string("server");
    let metadata = get("metadata")
        .and_then(|a| errors.take(a.nested()))
        .unwrap_or_default();
    let metadata = metadata.into_iter().map(|(k, _, v)| (k, v)).collect();
    let mut annotations = Vec::new();
    for key in ["read_only", "destructive", "idempotent", "open_world"] {
        if let Some(value) = get(key).and_then(|a| errors.take(a.flag())) {
            annotations.push((key, value));
        }
    }
    let params = tool_params(method, errors)?;
    let output = tool_output(&method.sig.output);
    Some(Tool {
        method: method.sig.ident.clone(),
        mcp_name,
        contribution_id,
        display_name,
        description,
        title,
        server,
        metadata,
        annotations,
        params,
        output,
    })
}

fn tool_params(method: &ImplItemFn, errors: &mut Errors) -> Option<Params> {
    let mut params = Vec::new();
    let mut args_struct = None;
    let mut ok = true;
    let typed: Vec<&syn::PatType> = method
        .sig
        .inputs
        .iter()
        .filter_map(|a| if let FnArg::Typed(t) = a { Some(t) } else { None })
        .collect();
    for (position, pat_type) in typed.iter().enumerate() {
        let Pat::Ident(pat) = &*pat_type.pat else {
            errors.push(err(pat_type.pat.span(), "tool parameters must be plain names (`text: String`); destructuring patterns are not supported"));
            ok = false;
            continue;
        };
        let ty = &*pat_type.ty;
        if let Some(why) = unsupported_param(ty) {
            errors.push(err(ty.span(), format!("unsupported tool parameter type: {why}")));
            ok = false;
            continue;
        }
        let is_context = is_named(ty, "ToolContext");
        if pat_type.attrs.iter().any(|a| a.path().is_ident("args")) {
            if args_struct.is_some() {
                errors.push(err(pat_type.span(), "only one `#[args]` parameter is allowed"));
                ok = false;
            }
            args_struct = Some((ty.clone(), position, pat_type.span()));
            continue;
        }
        params.push(Param {
            name: pat.ident.clone(),
            ty: ty.clone(),
            doc: parse::doc_text(&pat_type.attrs),
            is_context,
            optional: is_named(ty, "Option"),
        });
    }
    if !ok {
        return None;
    }
    match args_struct {
        None => Some(Params::Fields(params)),
        Some((ty, _, span)) if params.iter().any(|p| !p.is_context) => {
            errors.push(err(
                span,
                "an `#[args]` struct must be the tool's only argument (besides a `ToolContext`)",
            ));
            let _ = ty;
            None
        }
        Some((ty, args_position, _)) => {
            let ctx_position = params.first().map(|_| if args_position == 0 { 1 } else { 0 });
            Some(Params::Struct {
                ty: Box::new(ty),
                ctx_position,
            })
        }
    }
}

fn tool_output(output: &ReturnType) -> Output {
    let ReturnType::Type(_, ty) = output else {
        return Output {
            fallible: false,
            kind: OutputKind::Unit,
        };
    };
    let (fallible, inner) = if is_named(ty, "Result") {
        match generic_args(ty).first() {
            Some(ok) => (true, (*ok).clone()),
            None => (true, (**ty).clone()),
        }
    } else {
        (false, (**ty).clone())
    };
    let kind = match &inner {
        Type::Tuple(t) if t.elems.is_empty() => OutputKind::Unit,
        Type::Reference(r) if is_named(&r.elem, "str") => OutputKind::Text,
        t if is_named(t, "String") => OutputKind::Text,
        t if is_named(t, "CallToolResult") => OutputKind::Raw,
        t => OutputKind::Structured(Box::new(t.clone())),
    };
    Output { fallible, kind }
}

/// Parameters after `&self` of a provider-side method: `()`, `(request)` or
/// `(request, ctx)`; returns whether the context is taken.
fn provider_params(
    method: &ImplItemFn,
    kind: &str,
    takes_request: bool,
    errors: &mut Errors,
) -> Option<bool> {
    let count = method
        .sig
        .inputs
        .iter()
        .filter(|a| matches!(a, FnArg::Typed(_)))
        .count();
    let (base, shape) = if takes_request {
        (
            1,
            "`(&self, request: ChatRequest)` or `(&self, request: ChatRequest, ctx: RequestContext)`",
        )
    } else {
        (0, "`(&self)` or `(&self, ctx: RequestContext)`")
    };
    if count == base || count == base + 1 {
        return Some(count == base + 1);
    }
    errors.push(err(
        method.sig.inputs.span(),
        format!("`#[{kind}]` methods take {shape}"),
    ));
    None
}

fn provider(
    method: &ImplItemFn,
    attr: &syn::Attribute,
    args: &[Arg],
    errors: &mut Errors,
) -> Option<Provider> {
    errors.extend(parse::check_keys(args, "model_provider", PROVIDER_KEYS));
    let get = |key: &str| args.iter().find(|a| a.key == key);
    let id = match get("id") {
        Some(arg) => errors.take(arg.text()),
        None => {
            errors.push(err(attr.span(), "`#[model_provider]` needs `id = \"...\"`, e.g. #[model_provider(id = \"echo\", display_name = \"Echo\")]"));
            None
        }
    };
    let display_name = get("display_name").and_then(|a| errors.take(a.text()));
    let models = get("models")
        .and_then(|a| errors.take(a.list()))
        .unwrap_or_default();
    let metadata = get("metadata")
        .and_then(|a| errors.take(a.nested()))
        .unwrap_or_default();
    let mut capabilities = Vec::new();
    for key in PROVIDER_FLAGS {
        if let Some(value) = get(key).and_then(|a| errors.take(a.flag())) {
            capabilities.push((key, value));
        }
    }
    let with_context = provider_params(method, "model_provider", true, errors)?;
    let one_shot = match &method.sig.output {
        ReturnType::Default => {
            errors.push(err(
                method.sig.ident.span(),
                "a `#[model_provider]` method answers the chat: it returns `Result<ChatStream, AepError>` (streamed) or `Result<ChatResponse, AepError>` (in one piece)",
            ));
            return None;
        }
        ReturnType::Type(_, ty) => generic_args(ty)
            .first()
            .is_some_and(|ok| is_named(ok, "ChatResponse")),
    };
    let output = match &method.sig.output {
        ReturnType::Type(_, ty) => Some(ty.clone()),
        ReturnType::Default => None,
    };
    let id = id?;
    Some(Provider {
        method: method.sig.ident.clone(),
        with_context,
        one_shot,
        output,
        display_name: display_name.unwrap_or_else(|| id.clone()),
        id,
        capabilities,
        models,
        metadata: metadata.into_iter().map(|(k, _, v)| (k, v)).collect(),
        chat: None,
        list_models: None,
        health: None,
    })
}

fn sibling(
    method: &ImplItemFn,
    attr: &syn::Attribute,
    sibling_kind: SiblingKind,
    args: &[Arg],
    errors: &mut Errors,
) -> Option<PendingSibling> {
    let kind = sibling_kind.name();
    errors.extend(parse::check_keys(args, kind, SIBLING_KEYS));
    let provider = match args.iter().find(|a| a.key == "provider") {
        Some(arg) => errors.take(arg.text())?,
        None => {
            errors.push(err(
                attr.span(),
                format!(
                    "`#[{kind}]` needs `provider = \"...\"`: the id of the `#[model_provider]` it belongs to"
                ),
            ));
            return None;
        }
    };
    let with_context = provider_params(method, kind, sibling_kind == SiblingKind::Chat, errors)?;
    Some(PendingSibling {
        kind: sibling_kind,
        provider,
        sibling: Sibling {
            method: method.sig.ident.clone(),
            with_context,
        },
    })
}

fn attach_siblings(providers: &mut [Provider], siblings: Vec<PendingSibling>, errors: &mut Errors) {
    for pending in siblings {
        let id = pending.provider.shown();
        let Some(provider) = providers.iter_mut().find(|p| p.id.same(&pending.provider, true)) else {
            errors.push(err(
                pending.provider.span(),
                format!(
                    "provider \"{id}\" has no streaming method: add `#[model_provider(id = \"{id}\")]` to an `async fn` that returns `Result<ChatStream, AepError>`"
                ),
            ));
            continue;
        };
        if pending.kind == SiblingKind::Chat && provider.one_shot {
            errors.push(err(
                pending.sibling.method.span(),
                format!(
                    "provider \"{id}\" already answers in one piece (its `#[model_provider]` method returns `ChatResponse`): remove this `#[chat]` method"
                ),
            ));
            continue;
        }
        let slot = match pending.kind {
            SiblingKind::Chat => &mut provider.chat,
            SiblingKind::Models => &mut provider.list_models,
            SiblingKind::Health => &mut provider.health,
        };
        if slot.is_some() {
            errors.push(err(
                pending.sibling.method.span(),
                format!(
                    "provider \"{id}\" already has a `#[{}]` method",
                    pending.kind.name()
                ),
            ));
        } else {
            *slot = Some(pending.sibling);
        }
    }
}

/// Duplicate ids and names among literals (expressions are checked by `build()` when the
/// extension starts).
fn check_duplicates(tools: &[Tool], providers: &[Provider], default_server: &str, errors: &mut Errors) {
    for (i, tool) in tools.iter().enumerate() {
        let earlier = &tools[..i];
        if let Some(id) = tool.contribution_id.literal()
            && earlier
                .iter()
                .any(|t| t.contribution_id.literal().as_deref() == Some(&id))
        {
            errors.push(err(
                tool.contribution_id.span(),
                format!("duplicate tool contribution id \"{id}\": give this tool another `id = \"...\"`"),
            ));
        }
        let server = tool.server.as_deref().unwrap_or(default_server);
        if let Some(name) = tool.mcp_name.literal()
            && earlier.iter().any(|t| {
                t.mcp_name.literal().as_deref() == Some(&name)
                    && t.server.as_deref().unwrap_or(default_server) == server
            })
        {
            errors.push(err(
                tool.mcp_name.span(),
                format!(
                    "duplicate MCP tool name \"{name}\" on server \"{server}\": give this tool another `name = \"...\"` or put it on another `server = \"...\"`"
                ),
            ));
        }
    }
    for (i, provider) in providers.iter().enumerate() {
        let Some(id) = provider.id.literal() else { continue };
        if providers[..i].iter().any(|p| p.id.same(&provider.id, true)) {
            errors.push(err(
                provider.id.span(),
                format!("duplicate model provider id \"{id}\" (provider ids match case-insensitively)"),
            ));
        }
    }
}
