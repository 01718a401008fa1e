//! Reads an annotated impl into the model: each helper attribute's finished value
//! (`attr`) beside what its method's signature says (`signature`). Every misuse is a
//! `syn::Error` on the user's tokens, collected in the context (`ctxt`); an item that
//! cannot be read is left out, and the rules across items are `check`'s.

use syn::spanned::Spanned;
use syn::{ImplItem, ImplItemFn, ItemImpl};

use crate::ctxt::{Ctxt, err};
use crate::helper::{Helper, SiblingKind};
use crate::model::{Completion, Extension, Prompt, Provider, Resource, Sibling, Tool};
use crate::{attr, signature};

/// Reads `#[aep_extension(...)]` and the impl into a model.
pub fn build(cx: &Ctxt, args: proc_macro2::TokenStream, item: &ItemImpl) -> Extension {
    let attrs = attr::Extension::from_args(cx, args);
    if !item.generics.params.is_empty() {
        cx.push(err(
            item.generics.span(),
            "`#[aep_extension]` does not support generic impl blocks; implement it on a concrete type",
        ));
    }
    if let Some((_, path, _)) = &item.trait_ {
        cx.push(err(
            path.span(),
            "`#[aep_extension]` goes on an inherent impl (`impl MyExtension { ... }`), not a trait impl",
        ));
    }
    let mut model = Extension {
        self_ty: (*item.self_ty).clone(),
        attrs,
        tools: Vec::new(),
        resources: Vec::new(),
        prompts: Vec::new(),
        completions: Vec::new(),
        providers: Vec::new(),
        siblings: Vec::new(),
        option_sets: Vec::new(),
    };
    for impl_item in &item.items {
        let ImplItem::Fn(method) = impl_item else { continue };
        for helper_attr in &method.attrs {
            if let Some(helper) = Helper::of(helper_attr) {
                read_item(cx, &mut model, method, helper, helper_attr);
            }
        }
    }
    model
}

/// One helper attribute and its method. The attribute is read first, so its errors come
/// before the signature's; a method that is not `async fn(&self, ..)` is not read further.
fn read_item(cx: &Ctxt, model: &mut Extension, method: &ImplItemFn, helper: Helper, attr: &syn::Attribute) {
    let kind = helper.name();
    let async_self = || signature::check_method(method, kind, cx);
    let ident = || method.sig.ident.clone();
    let answer = || signature::answer(&method.sig.output);
    match helper {
        Helper::OptionSet => {
            attr::option_set(cx, attr);
            model.option_sets.extend(signature::option_set(method, cx));
        }
        Helper::Tool => {
            let attrs = attr::Tool::from_ast(cx, method, attr);
            if !async_self() {
                return;
            }
            let (Some(attrs), Some(params)) = (attrs, signature::tool_params(method, cx)) else {
                return;
            };
            let output = signature::tool_output(&method.sig.output);
            model.tools.push(Tool {
                method: ident(),
                attrs,
                params,
                output,
            });
        }
        Helper::Resource => {
            let attrs = attr::Resource::from_ast(cx, method, attr);
            if !async_self() {
                return;
            }
            let (Some(attrs), Some(params)) = (attrs, signature::string_params(method, kind, cx)) else {
                return;
            };
            let answer = answer();
            model.resources.push(Resource {
                method: ident(),
                attrs,
                params,
                answer,
            });
        }
        Helper::Prompt => {
            let attrs = attr::Prompt::from_ast(cx, method, attr);
            if !async_self() {
                return;
            }
            let (Some(attrs), Some(params)) = (attrs, signature::string_params(method, kind, cx)) else {
                return;
            };
            let answer = answer();
            model.prompts.push(Prompt {
                method: ident(),
                attrs,
                params,
                answer,
            });
        }
        Helper::Complete => {
            let attrs = attr::Complete::from_ast(cx, attr);
            if !async_self() {
                return;
            }
            let (Some(attrs), Some(params)) = (attrs, signature::completion_params(method, cx)) else {
                return;
            };
            let answer = answer();
            model.completions.push(Completion {
                method: ident(),
                attrs,
                params,
                answer,
            });
        }
        Helper::ModelProvider => {
            let attrs = attr::Provider::from_ast(cx, attr);
            if !async_self() {
                return;
            }
            let Some(with_context) = signature::provider_params(method, kind, true, cx) else {
                return;
            };
            let (Some(attrs), Some((one_shot, output))) = (attrs, signature::provider_answer(method, cx))
            else {
                return;
            };
            model.providers.push(Provider {
                method: ident(),
                attrs,
                with_context,
                one_shot,
                output,
            });
        }
        Helper::Sibling(sibling_kind) => {
            let attrs = attr::Sibling::from_ast(cx, attr, kind);
            if !async_self() {
                return;
            }
            let takes_request = sibling_kind == SiblingKind::Chat;
            let with_context = signature::provider_params(method, kind, takes_request, cx);
            let (Some(attrs), Some(with_context)) = (attrs, with_context) else {
                return;
            };
            model.siblings.push(Sibling {
                kind: sibling_kind,
                method: ident(),
                attrs,
                with_context,
            });
        }
    }
}
