//! `#[model_provider]` (+ `#[chat]`, `#[models]`, `#[health]`) -> a `ModelProvider`
//! impl over the shared state, and its descriptor.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::metadata_map;
use crate::helper::SiblingKind;
use crate::model::{self, Extension, Provider, Sibling};

pub fn generate(model: &Extension) -> (Vec<TokenStream>, TokenStream) {
    let self_ty = &model.self_ty;
    let mut items = Vec::new();
    let mut registrations = TokenStream::new();
    for provider in &model.providers {
        let ty = format_ident!("__AepProvider_{}", provider.method);
        // The call carries the span of the user's return type, so a wrong one is
        // reported there, not on the attribute.
        let span = provider.output.span();
        let expected = if provider.one_shot {
            quote! { ::aep_sdk::protocol::ChatResponse }
        } else {
            quote! { ::aep_sdk::server::ChatStream }
        };
        let answer = {
            let method = &provider.method;
            let call = if provider.with_context {
                quote_spanned! { span=> self.0.#method(request, ctx).await }
            } else {
                quote_spanned! { span=> self.0.#method(request).await }
            };
            let unused = (!provider.with_context).then(|| quote! { let _ = ctx; });
            quote_spanned! { span=>
                #unused
                let answer: ::core::result::Result<#expected, ::aep_sdk::AepError> = #call;
                answer
            }
        };
        let stream = if provider.one_shot {
            quote! {
                let response: ::aep_sdk::protocol::ChatResponse = { #answer }?;
                ::core::result::Result::Ok(::aep_sdk::server::ChatStream::from(response))
            }
        } else {
            answer.clone()
        };
        let one_shot_chat = provider.one_shot.then(|| {
            quote! {
                async fn chat(&self, request: ::aep_sdk::protocol::ChatRequest, ctx: ::aep_sdk::server::RequestContext)
                    -> ::core::result::Result<::aep_sdk::protocol::ChatResponse, ::aep_sdk::AepError> { #answer }
            }
        });
        let sibling = |kind| model.sibling(provider, kind);
        let chat = one_shot_chat.or_else(|| sibling(SiblingKind::Chat).map(|s| {
            let call = sibling_call(s, true);
            quote! {
                async fn chat(&self, request: ::aep_sdk::protocol::ChatRequest, ctx: ::aep_sdk::server::RequestContext)
                    -> ::core::result::Result<::aep_sdk::protocol::ChatResponse, ::aep_sdk::AepError> { #call }
            }
        }));
        let models = sibling(SiblingKind::Models).map(|s| {
            let call = sibling_call(s, false);
            quote! {
                async fn models(&self, ctx: ::aep_sdk::server::RequestContext)
                    -> ::core::result::Result<::std::vec::Vec<::aep_sdk::protocol::ModelDescriptor>, ::aep_sdk::AepError> { #call }
            }
        });
        let health = sibling(SiblingKind::Health).map(|s| {
            let call = sibling_call(s, false);
            quote! {
                async fn health(&self, ctx: ::aep_sdk::server::RequestContext)
                    -> ::core::result::Result<::aep_sdk::protocol::Health, ::aep_sdk::AepError> { #call }
            }
        });
        items.push(quote! {
            struct #ty(::std::sync::Arc<#self_ty>);

            impl ::aep_sdk::server::ModelProvider for #ty {
                async fn chat_stream(&self, request: ::aep_sdk::protocol::ChatRequest, ctx: ::aep_sdk::server::RequestContext)
                    -> ::core::result::Result<::aep_sdk::server::ChatStream, ::aep_sdk::AepError> { #stream }
                #chat
                #models
                #health
            }
        });
        let descriptor = descriptor(provider);
        registrations.extend(quote! {
            builder = builder.model_provider(#descriptor, #ty(state.clone()));
        });
        let scopes = model::scopes(&provider.attrs.scopes);
        if !scopes.is_empty() {
            let id = &provider.attrs.id;
            registrations.extend(quote! {
                builder = builder.provider_scopes(#id, [#(#scopes),*]);
            });
        }
    }
    (items, registrations)
}

fn call(method: &syn::Ident, with_context: bool, with_request: bool) -> TokenStream {
    let request = with_request.then(|| quote! { request, });
    if with_context {
        quote! { self.0.#method(#request ctx).await }
    } else {
        quote! { let _ = ctx; self.0.#method(#request).await }
    }
}

fn sibling_call(sibling: &Sibling, with_request: bool) -> TokenStream {
    call(&sibling.method, sibling.with_context, with_request)
}

fn descriptor(provider: &Provider) -> TokenStream {
    let attrs = &provider.attrs;
    let id = &attrs.id;
    let display_name = &attrs.display_name;
    let flags = attrs.capabilities.iter().map(|(key, value)| {
        let key = format_ident!("{}", key);
        quote! { descriptor.capabilities.#key = #value; }
    });
    let models = (!attrs.models.is_empty()).then(|| {
        let models = &attrs.models;
        quote! { descriptor.models = ::core::option::Option::Some(::std::vec![#(::aep_sdk::protocol::ModelDescriptor::new(#models)),*]); }
    });
    let metadata = (!attrs.metadata.is_empty()).then(|| {
        let map = metadata_map(&attrs.metadata);
        quote! { descriptor.metadata = ::core::option::Option::Some(#map); }
    });
    quote! {{
        let mut descriptor = ::aep_sdk::protocol::ModelProviderDescriptor::new(#id, #display_name);
        #(#flags)*
        #models
        #metadata
        descriptor
    }}
}
