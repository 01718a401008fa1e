//! Code generation: the impl as written (helper attributes removed), then a hidden
//! `const _: () = { ... };` block with the providers, tool calls, resource reads,
//! prompt gets, the MCP servers and the `AepExtension` impl.

mod providers;
mod surface;
mod tools;

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ImplItem, ItemImpl, Lit, LitStr};

use crate::ctxt::Ctxt;
use crate::helper::Helper;
use crate::model::{self, Extension};
use crate::{check, read};

pub fn aep_extension(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut item: ItemImpl = match syn::parse2(item) {
        Ok(item) => item,
        Err(error) => {
            let message = "`#[aep_extension]` goes on an `impl` block: `impl MyExtension { ... }`";
            return syn::Error::new(error.span(), message).to_compile_error();
        }
    };
    let cx = Ctxt::default();
    let model = read::build(&cx, attr, &item);
    check::check(&cx, &model);
    strip_helper_attributes(&mut item);
    match cx.check() {
        Ok(()) => {
            let generated = generate(&model);
            quote! { #item #generated }
        }
        Err(error) => {
            let error = error.to_compile_error();
            let placeholder = placeholder(&item.self_ty);
            quote! { #item #error #placeholder }
        }
    }
}

/// After an error, `AepExtension` is still implemented (with a body that never runs,
/// since the crate does not compile), so calls such as `Ext.serve()` add no second,
/// confusing "method not found" error to the real ones.
fn placeholder(self_ty: &syn::Type) -> TokenStream {
    quote! {
        #[doc(hidden)]
        const _: () = {
            impl ::aep_sdk::server::AepExtension for #self_ty {
                fn extension_builder(self) -> ::aep_sdk::server::ExtensionBuilder {
                    ::core::unreachable!("#[aep_extension] reported errors; this crate does not compile")
                }
            }
        };
    }
}

fn strip_helper_attributes(item: &mut ItemImpl) {
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else { continue };
        let annotated = method.attrs.iter().any(|a| Helper::of(a).is_some());
        method.attrs.retain(|a| Helper::of(a).is_none());
        if !annotated {
            continue;
        }
        // Doc comments and `#[args]` on parameters are ours; rustc rejects them.
        for input in &mut method.sig.inputs {
            if let syn::FnArg::Typed(pat_type) = input {
                pat_type
                    .attrs
                    .retain(|a| !a.path().is_ident("doc") && !a.path().is_ident("args"));
            }
        }
    }
}

fn generate(model: &Extension) -> TokenStream {
    let self_ty = &model.self_ty;
    let id = &model.attrs.id;
    let name = &model.attrs.name;
    let version = match &model.attrs.version {
        Some(v) => quote! { #v },
        None => quote! { ::core::env!("CARGO_PKG_VERSION") },
    };
    let description = model
        .attrs
        .description
        .as_ref()
        .map(|d| quote! { builder = builder.description(#d); });
    let (provider_items, provider_registrations) = providers::generate(model);
    let (tool_items, tool_defs, contributions) = tools::generate(model);
    let (surface_items, servers) = surface::generate(model, &version, tool_defs);
    let scopes = model::scopes(&model.attrs.scopes);
    let default_scopes = (!scopes.is_empty()).then(|| {
        quote! { builder = builder.default_scopes([#(#scopes),*]); }
    });
    let option_sets = model
        .option_sets
        .iter()
        .map(|method| quote! { builder = builder.option_set(state.#method()); });
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, non_snake_case, clippy::all)]
        const _: () = {
            #(#provider_items)*
            #(#tool_items)*
            #(#surface_items)*

            impl ::aep_sdk::server::AepExtension for #self_ty {
                fn extension_builder(self) -> ::aep_sdk::server::ExtensionBuilder {
                    let state = ::std::sync::Arc::new(self);
                    let mut builder = ::aep_sdk::server::Extension::builder(#id, #name, #version);
                    #description
                    #default_scopes
                    #provider_registrations
                    #servers
                    #contributions
                    #(#option_sets)*
                    let _ = &state;
                    builder
                }
            }
        };
    }
}

/// `.scopes([..])` on a tool, resource or prompt definition that has scopes of its own.
fn scopes_setter(scopes: &[LitStr]) -> Option<TokenStream> {
    (!scopes.is_empty()).then(|| quote! { .scopes([#(#scopes),*]) })
}

/// `metadata(k = lit, ...)` as a `serde_json::Map` expression.
fn metadata_map(entries: &[(String, Lit)]) -> TokenStream {
    let pairs = entries.iter().map(|(key, value)| {
        quote! { (::std::string::String::from(#key), ::aep_sdk::__private::serde_json::Value::from(#value)) }
    });
    quote! { ::aep_sdk::__private::serde_json::Map::from_iter([#(#pairs),*]) }
}
