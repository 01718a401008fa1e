//! Reads an annotated impl into the model: the typed attributes (`attr`), each method's
//! signature (`signature`), then the checks across items (`check`). Every misuse is a
//! `syn::Error` on the user's tokens with a message that says how to fix it; all of them
//! are collected in the context (`ctxt`), not just the first.

use syn::spanned::Spanned;
use syn::{ImplItem, ImplItemFn, ItemImpl};

use crate::attr::{
    self, CompleteAttr, ExtensionAttr, PromptAttr, ProviderAttr, ResourceAttr, SiblingAttr, ToolAttr,
};
use crate::ctxt::{Errors, err};
use crate::helper::{Helper, SiblingKind};
use crate::model::{Completion, Extension, PendingSibling, Prompt, Provider, Resource, Sibling, Tool};
use crate::parse::{self, Arg};
use crate::text::Text;
use crate::{check, signature};

/// Reads `#[aep_extension(...)]` and the impl into a model, or all the errors found.
pub fn build(tokens: proc_macro2::TokenStream, item: &ItemImpl, errors: &mut Errors) -> Option<Extension> {
    let attr = ExtensionAttr::parse(tokens, errors)?;
    let default_scopes = check::scopes(attr.scopes, errors);
    let default_server = attr.mcp_server.unwrap_or_else(|| "default".into());
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
    let mut resources = Vec::new();
    let mut prompts = Vec::new();
    let mut completions = Vec::new();
    let mut providers = Vec::new();
    let mut siblings = Vec::new();
    let mut option_sets = Vec::new();
    for impl_item in &item.items {
        let ImplItem::Fn(method) = impl_item else { continue };
        for helper_attr in &method.attrs {
            let Some(helper) = Helper::of(helper_attr) else {
                continue;
            };
            let kind = helper.name();
            let Some(args) = attr::helper_args(helper_attr, kind, errors) else {
                continue;
            };
            if helper == Helper::OptionSet {
                attr::option_set(&args, errors);
                option_sets.extend(signature::option_set(method, errors));
                continue;
            }
            if !signature::check_method(method, kind, errors) {
                continue;
            }
            match helper {
                Helper::Tool => tools.extend(tool(method, &args, errors)),
                Helper::Resource => resources.extend(resource(method, helper_attr, &args, errors)),
                Helper::Prompt => prompts.extend(prompt(method, &args, errors)),
                Helper::Complete => completions.extend(completion(method, helper_attr, &args, errors)),
                Helper::ModelProvider => providers.extend(provider(method, helper_attr, &args, errors)),
                Helper::Sibling(sibling_kind) => {
                    siblings.extend(sibling(method, helper_attr, sibling_kind, &args, errors))
                }
                Helper::OptionSet => {}
            }
        }
    }
    check::attach_siblings(&mut providers, siblings, errors);
    check::check_duplicates(&tools, &providers, &default_server, errors);
    check::check_surface_duplicates(&resources, &prompts, &default_server, errors);
    check::check_completions(&completions, &resources, &prompts, errors);
    Some(Extension {
        self_ty: (*item.self_ty).clone(),
        id: attr.id?,
        name: attr.name?,
        version: attr.version,
        description: attr.description,
        default_server,
        tools,
        resources,
        prompts,
        completions,
        tool_switch: attr.tool_switch,
        subscriptions: attr.subscriptions,
        scopes: default_scopes,
        providers,
        option_sets,
    })
}

fn humanize(name: &str) -> String {
    let spaced = name.replace(['_', '.', '-'], " ");
    let mut chars = spaced.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn tool(method: &ImplItemFn, args: &[Arg], errors: &mut Errors) -> Option<Tool> {
    let attr = ToolAttr::parse(args, errors);
    let scopes = check::scopes(attr.scopes, errors);
    let method_name = method.sig.ident.to_string();
    let method_name = method_name.trim_start_matches("r#").to_owned();
    let span = method.sig.ident.span();
    let mcp_name = attr.name.unwrap_or_else(|| Text::lit(&method_name, span));
    let contribution_id = attr.id.unwrap_or_else(|| mcp_name.clone());
    let display_name = attr
        .display_name
        .unwrap_or_else(|| Text::lit(&humanize(&method_name), span));
    let description = attr
        .description
        .or_else(|| parse::doc_text(&method.attrs).map(|doc| Text::lit(&doc, span)));
    let params = signature::tool_params(method, errors)?;
    let output = signature::tool_output(&method.sig.output);
    Some(Tool {
        method: method.sig.ident.clone(),
        mcp_name,
        contribution_id,
        display_name,
        description,
        title: attr.title,
        server: attr.server,
        scopes,
        metadata: attr.metadata,
        annotations: attr.annotations,
        timeout_ms: attr.timeout_ms,
        resets_on_progress: attr.resets_on_progress,
        input_schema: attr.input_schema,
        params,
        output,
    })
}

fn provider(
    method: &ImplItemFn,
    helper_attr: &syn::Attribute,
    args: &[Arg],
    errors: &mut Errors,
) -> Option<Provider> {
    let attr = ProviderAttr::parse(helper_attr, args, errors);
    let scopes = check::scopes(attr.scopes, errors);
    let with_context = signature::provider_params(method, "model_provider", true, errors)?;
    let (one_shot, output) = signature::provider_answer(method, errors)?;
    let id = attr.id?;
    Some(Provider {
        method: method.sig.ident.clone(),
        with_context,
        one_shot,
        output: Some(output),
        display_name: attr.display_name.unwrap_or_else(|| id.clone()),
        id,
        capabilities: attr.capabilities,
        models: attr.models,
        scopes,
        metadata: attr.metadata,
        chat: None,
        list_models: None,
        health: None,
    })
}

fn sibling(
    method: &ImplItemFn,
    helper_attr: &syn::Attribute,
    sibling_kind: SiblingKind,
    args: &[Arg],
    errors: &mut Errors,
) -> Option<PendingSibling> {
    let kind = sibling_kind.name();
    let provider = SiblingAttr::parse(helper_attr, kind, args, errors).provider?;
    let with_context = signature::provider_params(method, kind, sibling_kind == SiblingKind::Chat, errors)?;
    Some(PendingSibling {
        kind: sibling_kind,
        provider,
        sibling: Sibling {
            method: method.sig.ident.clone(),
            with_context,
        },
    })
}

fn resource(
    method: &ImplItemFn,
    helper_attr: &syn::Attribute,
    args: &[Arg],
    errors: &mut Errors,
) -> Option<Resource> {
    let attr = ResourceAttr::parse(helper_attr, args, errors);
    let scopes = check::scopes(attr.scopes, errors);
    let params = signature::string_params(method, "resource", errors);
    let (uri, is_template) = attr.uri?;
    let params = params?;
    let variables = if is_template {
        match template_variables(&uri.value()) {
            Ok(variables) => variables,
            Err(why) => {
                errors.push(err(uri.span(), why));
                return None;
            }
        }
    } else {
        Vec::new()
    };
    let mut ok = true;
    for param in params.iter().filter(|p| !p.is_context) {
        if !variables.iter().any(|v| param.name == v) {
            let why = match is_template {
                true => format!(
                    "parameter `{}` is not a variable of the template \"{}\": add `{{{}}}` to it or remove the parameter",
                    param.name,
                    uri.value(),
                    param.name
                ),
                false => "a `#[resource(uri = ..)]` method takes no parameters besides a `ToolContext`; for a URI with variables use `uri_template = \"scheme://{name}\"`".to_owned(),
            };
            errors.push(err(param.name.span(), why));
            ok = false;
        }
    }
    for variable in &variables {
        if !params.iter().any(|p| !p.is_context && p.name == variable) {
            errors.push(err(
                uri.span(),
                format!(
                    "template variable `{{{variable}}}` has no parameter: add `{variable}: String` (or another `FromStr` type) to `{}`",
                    method.sig.ident
                ),
            ));
            ok = false;
        }
    }
    if !ok {
        return None;
    }
    let span = method.sig.ident.span();
    Some(Resource {
        method: method.sig.ident.clone(),
        is_template,
        name: attr.name.unwrap_or_else(|| method_name(method)),
        title: attr.title,
        description: attr
            .description
            .or_else(|| parse::doc_text(&method.attrs).map(|doc| Text::lit(&doc, span))),
        mime_type: attr.mime_type,
        server: attr.server,
        scopes,
        uri,
        params,
        answer: signature::answer(&method.sig.output),
    })
}

fn prompt(method: &ImplItemFn, args: &[Arg], errors: &mut Errors) -> Option<Prompt> {
    let attr = PromptAttr::parse(args, errors);
    let scopes = check::scopes(attr.scopes, errors);
    let params = signature::string_params(method, "prompt", errors)?;
    let span = method.sig.ident.span();
    Some(Prompt {
        method: method.sig.ident.clone(),
        name: attr
            .name
            .unwrap_or_else(|| syn::LitStr::new(&method_name(method), span)),
        title: attr.title,
        description: attr
            .description
            .or_else(|| parse::doc_text(&method.attrs).map(|doc| Text::lit(&doc, span))),
        server: attr.server,
        scopes,
        params,
        answer: signature::answer(&method.sig.output),
    })
}

fn completion(
    method: &ImplItemFn,
    helper_attr: &syn::Attribute,
    args: &[Arg],
    errors: &mut Errors,
) -> Option<Completion> {
    let attr = CompleteAttr::parse(helper_attr, args, errors);
    let params = signature::string_params(method, "complete", errors)?;
    if params.iter().filter(|p| !p.is_context).count() != 1 {
        errors.push(err(
            method.sig.inputs.span(),
            "a `#[complete]` method takes the value typed so far, `value: String` (and optionally a `ToolContext`)",
        ));
        return None;
    }
    let (target, is_template) = attr.target?;
    Some(Completion {
        method: method.sig.ident.clone(),
        target,
        is_template,
        name: attr.name?,
        params,
        answer: signature::answer(&method.sig.output),
    })
}

fn method_name(method: &ImplItemFn) -> String {
    method.sig.ident.to_string().trim_start_matches("r#").to_owned()
}

/// The variables of an RFC 6570 `{name}` / `{+name}` template, by the grammar the
/// runtime's `UriTemplate::parse` uses, so a template that compiles also parses.
fn template_variables(template: &str) -> Result<Vec<String>, String> {
    let parts = aep_sdk_internals::uri_template::parse(template)?;
    Ok(aep_sdk_internals::uri_template::variables(&parts)
        .map(str::to_owned)
        .collect())
}
