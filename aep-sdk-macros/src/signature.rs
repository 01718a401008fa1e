//! What a method's signature says: receiver, asyncness and generics; a tool's parameters
//! and what its return value becomes; a provider-side method's parameters and answer.
//! Errors land on the user's tokens (the receiver, the parameter, the return type).

use syn::spanned::Spanned;
use syn::{FnArg, Ident, ImplItemFn, Pat, ReturnType, Type};

use crate::attr::doc_text;
use crate::ctxt::{Ctxt, err};
use crate::model::{Output, OutputKind, Param, Params};

/// `async fn name(&self, ...)`, no generics.
pub fn check_method(method: &ImplItemFn, kind: &str, cx: &Ctxt) -> bool {
    let sig = &method.sig;
    let mut ok = true;
    if sig.asyncness.is_none() {
        cx.push(err(
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
            cx.push(err(
                r.span(),
                format!(
                    "`#[{kind}]` methods take `&self`: the extension's state is shared by concurrent requests"
                ),
            ));
            ok = false;
        }
        _ => {
            cx.push(err(
                sig.ident.span(),
                format!("`#[{kind}]` methods take `&self` as their first parameter"),
            ));
            ok = false;
        }
    }
    if !sig.generics.params.is_empty() {
        cx.push(err(
            sig.generics.span(),
            format!("`#[{kind}]` methods cannot be generic"),
        ));
        ok = false;
    }
    ok
}

fn last_segment(ty: &Type) -> Option<(&Ident, &syn::PathArguments)> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| (&s.ident, &s.arguments)),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

pub fn is_named(ty: &Type, name: &str) -> bool {
    last_segment(ty).is_some_and(|(ident, _)| ident == name)
}

pub fn generic_args(ty: &Type) -> Vec<&Type> {
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

pub fn tool_params(method: &ImplItemFn, cx: &Ctxt) -> Option<Params> {
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
            cx.push(err(pat_type.pat.span(), "tool parameters must be plain names (`text: String`); destructuring patterns are not supported"));
            ok = false;
            continue;
        };
        let ty = &*pat_type.ty;
        if let Some(why) = unsupported_param(ty) {
            cx.push(err(ty.span(), format!("unsupported tool parameter type: {why}")));
            ok = false;
            continue;
        }
        let is_context = is_named(ty, "ToolContext");
        if pat_type.attrs.iter().any(|a| a.path().is_ident("args")) {
            if args_struct.is_some() {
                cx.push(err(pat_type.span(), "only one `#[args]` parameter is allowed"));
                ok = false;
            }
            args_struct = Some((ty.clone(), position, pat_type.span()));
            continue;
        }
        params.push(Param {
            name: pat.ident.clone(),
            ty: ty.clone(),
            doc: doc_text(&pat_type.attrs),
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
            cx.push(err(
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

pub fn tool_output(output: &ReturnType) -> Output {
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
        t if is_named(t, "Vec")
            && generic_args(t)
                .first()
                .is_some_and(|c| is_named(c, "ContentBlock")) =>
        {
            OutputKind::Contents
        }
        t => OutputKind::Structured(Box::new(t.clone())),
    };
    Output { fallible, kind }
}

/// Parameters after `&self` of a provider-side method: `()`, `(request)` or
/// `(request, ctx)`; returns whether the context is taken.
pub fn provider_params(method: &ImplItemFn, kind: &str, takes_request: bool, cx: &Ctxt) -> Option<bool> {
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
    cx.push(err(
        method.sig.inputs.span(),
        format!("`#[{kind}]` methods take {shape}"),
    ));
    None
}

/// `fn name(&self) -> OptionSetDecl`: plain (not async), called once when the extension
/// is built.
pub fn option_set(method: &ImplItemFn, cx: &Ctxt) -> Option<syn::Ident> {
    let sig = &method.sig;
    if let Some(asyncness) = sig.asyncness {
        cx.push(err(
            asyncness.span,
            "`#[option_set]` methods are plain `fn`s returning `OptionSetDecl`: they run once, when the extension is built",
        ));
        return None;
    }
    let takes_self_only = matches!(sig.inputs.first(), Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none())
        && sig.inputs.len() == 1;
    if !takes_self_only || !sig.generics.params.is_empty() {
        cx.push(err(
            sig.inputs.span(),
            "`#[option_set]` methods take only `&self`: `fn options(&self) -> OptionSetDecl`",
        ));
        return None;
    }
    Some(sig.ident.clone())
}

/// Whether a `#[model_provider]` method answers in one piece (`Result<ChatResponse, _>`),
/// and its return type (where type errors about the answer are reported).
pub fn provider_answer(method: &ImplItemFn, cx: &Ctxt) -> Option<(bool, Box<Type>)> {
    match &method.sig.output {
        ReturnType::Default => {
            cx.push(err(
                method.sig.ident.span(),
                "a `#[model_provider]` method answers the chat: it returns `Result<ChatStream, AepError>` (streamed) or `Result<ChatResponse, AepError>` (in one piece)",
            ));
            None
        }
        ReturnType::Type(_, ty) => {
            let one_shot = generic_args(ty)
                .first()
                .is_some_and(|ok| is_named(ok, "ChatResponse"));
            Some((one_shot, ty.clone()))
        }
    }
}

/// The parameters of a `#[resource]` or `#[prompt]` method: plain names of owned types
/// parsed from strings (`FromStr`), optionally `Option<T>`, and a `ToolContext`.
pub fn string_params(method: &ImplItemFn, kind: &str, cx: &Ctxt) -> Option<Vec<Param>> {
    let mut params = Vec::new();
    let mut ok = true;
    for input in &method.sig.inputs {
        let FnArg::Typed(pat_type) = input else { continue };
        let Pat::Ident(pat) = &*pat_type.pat else {
            cx.push(err(
                pat_type.pat.span(),
                format!("`#[{kind}]` parameters must be plain names (`id: String`)"),
            ));
            ok = false;
            continue;
        };
        let ty = &*pat_type.ty;
        if unsupported_param(ty).is_some() || pat_type.attrs.iter().any(|a| a.path().is_ident("args")) {
            cx.push(err(
                ty.span(),
                format!("`#[{kind}]` parameters are owned values parsed from text (`FromStr`), e.g. `String` or `u32`, or a `ToolContext`"),
            ));
            ok = false;
            continue;
        }
        params.push(Param {
            name: pat.ident.clone(),
            ty: ty.clone(),
            doc: doc_text(&pat_type.attrs),
            is_context: is_named(ty, "ToolContext"),
            optional: is_named(ty, "Option"),
        });
    }
    ok.then_some(params)
}

/// The parameters of a `#[complete]` method: the value typed so far, and optionally a
/// `ToolContext`.
pub fn completion_params(method: &ImplItemFn, cx: &Ctxt) -> Option<Vec<Param>> {
    let params = string_params(method, "complete", cx)?;
    if params.iter().filter(|p| !p.is_context).count() != 1 {
        cx.push(err(
            method.sig.inputs.span(),
            "a `#[complete]` method takes the value typed so far, `value: String` (and optionally a `ToolContext`)",
        ));
        return None;
    }
    Some(params)
}

/// What a resource or prompt method returns: `T` or `Result<T, E>`.
pub fn answer(output: &ReturnType) -> crate::model::Answer {
    let ReturnType::Type(_, ty) = output else {
        return crate::model::Answer {
            fallible: false,
            ty: None,
        };
    };
    let fallible = is_named(ty, "Result");
    let inner = match generic_args(ty).first() {
        Some(ok) if fallible => (*ok).clone(),
        _ => (**ty).clone(),
    };
    crate::model::Answer {
        fallible,
        ty: Some(Box::new(inner)),
    }
}
