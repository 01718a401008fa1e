//! `#[resource]` and `#[prompt]` methods -> read and get functions, `ResourceDef`s,
//! `ResourceTemplateDef`s and `PromptDef`s; and one `ToolServer` per MCP server holding
//! everything put on it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::scopes_setter;
use crate::model::{self, Answer, Completion, Extension, Param, Prompt, Resource};

/// What goes on one MCP server.
#[derive(Default)]
struct Server {
    tools: Vec<TokenStream>,
    resources: Vec<TokenStream>,
    templates: Vec<TokenStream>,
    prompts: Vec<TokenStream>,
    completions: Vec<TokenStream>,
}

/// The read/get functions, and the registration of every MCP server.
pub fn generate(
    model: &Extension,
    version: &TokenStream,
    tools: Vec<(String, TokenStream)>,
) -> (Vec<TokenStream>, TokenStream) {
    let mut servers: Vec<(String, Server)> = Vec::new();
    let mut on = |server: &Option<String>| -> usize {
        let id = model.server(server).to_owned();
        match servers.iter().position(|(s, _)| *s == id) {
            Some(i) => i,
            None => {
                servers.push((id, Server::default()));
                servers.len() - 1
            }
        }
    };
    let mut tool_slots = Vec::new();
    for (server, def) in tools {
        tool_slots.push((on(&Some(server)), def));
    }
    let mut items = Vec::new();
    let mut resource_slots = Vec::new();
    for resource in &model.resources {
        items.push(read_fn(model, resource));
        let attrs = &resource.attrs;
        resource_slots.push((on(&attrs.server), attrs.is_template, resource_def(resource)));
    }
    let mut prompt_slots = Vec::new();
    for prompt in &model.prompts {
        items.push(get_fn(model, prompt));
        prompt_slots.push((on(&prompt.attrs.server), prompt_def(prompt)));
    }
    let mut completion_slots = Vec::new();
    for completion in &model.completions {
        items.push(complete_fn(model, completion));
        // On the server of what it completes.
        let target = completion.attrs.target.value();
        let server = match completion.attrs.is_template {
            true => model
                .resources
                .iter()
                .find(|r| r.attrs.is_template && r.attrs.uri.value() == target)
                .and_then(|r| r.attrs.server.clone()),
            false => model
                .prompts
                .iter()
                .find(|p| p.attrs.name.value() == target)
                .and_then(|p| p.attrs.server.clone()),
        };
        completion_slots.push((on(&server), completion_def(completion)));
    }
    for (i, def) in tool_slots {
        servers[i].1.tools.push(def);
    }
    for (i, is_template, def) in resource_slots {
        let server = &mut servers[i].1;
        if is_template {
            &mut server.templates
        } else {
            &mut server.resources
        }
        .push(def);
    }
    for (i, def) in prompt_slots {
        servers[i].1.prompts.push(def);
    }
    for (i, def) in completion_slots {
        servers[i].1.completions.push(def);
    }
    let ext_id = &model.attrs.id;
    let switch = model
        .attrs
        .tool_switch
        .as_ref()
        .map(|field| quote! { .switch(::core::clone::Clone::clone(&state.#field)) });
    let subscriptions = model
        .attrs
        .subscriptions
        .as_ref()
        .map(|field| quote! { .subscriptions(::core::clone::Clone::clone(&state.#field)) });
    let mut registrations = TokenStream::new();
    for (id, server) in servers {
        let path = match id == model.attrs.mcp_server {
            true => "/mcp".to_owned(),
            false => format!("/mcp/{id}"),
        };
        let Server {
            tools,
            resources,
            templates,
            prompts,
            completions,
        } = server;
        // `tool_server`, not `mcp_server`: it also registers the scopes of what is on it.
        registrations.extend(quote! {
            builder = builder.tool_server(#id, #path, ::aep_sdk::tool::ToolServer::new(
                state.clone(), #ext_id, #version, ::std::vec![#(#tools),*],
            )
            .resources(::std::vec![#(#resources),*])
            .resource_templates(::std::vec![#(#templates),*])
            .prompts(::std::vec![#(#prompts),*])
            .completions(::std::vec![#(#completions),*])
            #switch #subscriptions);
        });
    }
    (items, registrations)
}

/// `let name = string_param(&values, "name")?;` for each parameter that is not the context,
/// spanned on its type so a type without `FromStr` is reported there.
fn parse_params(params: &[Param], values: &syn::Ident) -> TokenStream {
    params
        .iter()
        .filter(|p| !p.is_context)
        .map(|p| {
            let name = &p.name;
            let ty = &p.ty;
            let key = name.to_string();
            let span = p.ty.span();
            let parse = match p.optional {
                true => quote_spanned! {span=> optional_string_param },
                false => quote_spanned! {span=> string_param },
            };
            quote_spanned! {span=>
                let #name: #ty = ::aep_sdk::__private::#parse(&#values, #key)?;
            }
        })
        .collect()
}

fn call_args(params: &[Param]) -> Vec<TokenStream> {
    params
        .iter()
        .map(|p| {
            let name = &p.name;
            match p.is_context {
                true => quote! { ctx.clone() },
                false => quote! { #name },
            }
        })
        .collect()
}

/// The method's value, with an `Err` turned into the JSON-RPC error.
fn unwrap_answer(answer: &Answer) -> TokenStream {
    match answer.fallible {
        true => quote! {
            let output = output.map_err(|error| ::aep_sdk::tool::ToolError::from(error).into_error_data())?;
        },
        false => TokenStream::new(),
    }
}

fn answer_span(answer: &Answer) -> proc_macro2::Span {
    answer
        .ty
        .as_ref()
        .map_or_else(proc_macro2::Span::call_site, |ty| ty.span())
}

fn read_fn(model: &Extension, resource: &Resource) -> TokenStream {
    let self_ty = &model.self_ty;
    let method = &resource.method;
    let read_fn = format_ident!("__aep_read_{}", method);
    let variables = format_ident!("variables");
    let parse = parse_params(&resource.params, &variables);
    let args = call_args(&resource.params);
    let unwrap = unwrap_answer(&resource.answer);
    let mime = match &resource.attrs.mime_type {
        Some(m) => quote! { ::core::option::Option::Some(#m) },
        None => quote! { ::core::option::Option::None },
    };
    let convert = quote_spanned! {answer_span(&resource.answer)=>
        ::aep_sdk::tool::ResourceOutput::into_contents(output, &uri, #mime)
    };
    quote! {
        fn #read_fn(
            state: ::std::sync::Arc<#self_ty>,
            uri: ::std::string::String,
            #variables: ::aep_sdk::tool::JsonObject,
            ctx: ::aep_sdk::tool::ToolContext,
        ) -> ::aep_sdk::__private::futures::future::BoxFuture<
            'static,
            ::core::result::Result<::std::vec::Vec<::aep_sdk::__private::rmcp::model::ResourceContents>, ::aep_sdk::__private::rmcp::ErrorData>,
        > {
            ::std::boxed::Box::pin(async move {
                #parse
                let _ = &#variables;
                let output = state.#method(#(#args),*).await;
                let _ = &ctx;
                #unwrap
                ::core::result::Result::Ok(#convert)
            })
        }
    }
}

fn resource_def(resource: &Resource) -> TokenStream {
    let attrs = &resource.attrs;
    let uri = &attrs.uri;
    let name = &attrs.name;
    let read_fn = format_ident!("__aep_read_{}", resource.method);
    let description = attrs.description.as_ref().map(|d| quote! { .description(#d) });
    let title = attrs.title.as_ref().map(|t| quote! { .title(#t) });
    let mime = attrs.mime_type.as_ref().map(|m| quote! { .mime_type(#m) });
    let scopes = scopes_setter(model::scopes(&attrs.scopes));
    let def = match attrs.is_template {
        true => quote! { ResourceTemplateDef },
        false => quote! { ResourceDef },
    };
    quote! {
        ::aep_sdk::tool::#def::new(#uri, #name, #read_fn) #description #title #mime #scopes
    }
}

fn get_fn(model: &Extension, prompt: &Prompt) -> TokenStream {
    let self_ty = &model.self_ty;
    let method = &prompt.method;
    let get_fn = format_ident!("__aep_prompt_{}", method);
    let arguments = format_ident!("arguments");
    let parse = parse_params(&prompt.params, &arguments);
    let args = call_args(&prompt.params);
    let unwrap = unwrap_answer(&prompt.answer);
    let convert = quote_spanned! {answer_span(&prompt.answer)=>
        ::aep_sdk::tool::PromptOutput::into_result(output)
    };
    quote! {
        fn #get_fn(
            state: ::std::sync::Arc<#self_ty>,
            #arguments: ::aep_sdk::tool::JsonObject,
            ctx: ::aep_sdk::tool::ToolContext,
        ) -> ::aep_sdk::__private::futures::future::BoxFuture<
            'static,
            ::core::result::Result<::aep_sdk::__private::rmcp::model::GetPromptResult, ::aep_sdk::__private::rmcp::ErrorData>,
        > {
            ::std::boxed::Box::pin(async move {
                #parse
                let _ = &#arguments;
                let output = state.#method(#(#args),*).await;
                let _ = &ctx;
                #unwrap
                ::core::result::Result::Ok(#convert)
            })
        }
    }
}

fn prompt_def(prompt: &Prompt) -> TokenStream {
    let attrs = &prompt.attrs;
    let name = &attrs.name;
    let get_fn = format_ident!("__aep_prompt_{}", prompt.method);
    let description = attrs.description.as_ref().map(|d| quote! { .description(#d) });
    let title = attrs.title.as_ref().map(|t| quote! { .title(#t) });
    let arguments = prompt.params.iter().filter(|p| !p.is_context).map(|p| {
        let key = p.name.to_string();
        let doc = match &p.doc {
            Some(d) => quote! { ::core::option::Option::Some(#d) },
            None => quote! { ::core::option::Option::None },
        };
        let required = !p.optional;
        quote! { .argument(#key, #doc, #required) }
    });
    let scopes = scopes_setter(model::scopes(&attrs.scopes));
    quote! {
        ::aep_sdk::tool::PromptDef::new(#name, #get_fn) #description #title #(#arguments)* #scopes
    }
}

fn complete_fn(model: &Extension, completion: &Completion) -> TokenStream {
    let self_ty = &model.self_ty;
    let method = &completion.method;
    let complete_fn = format_ident!("__aep_complete_{}", method);
    let bind = completion.params.iter().filter(|p| !p.is_context).map(|p| {
        let name = &p.name;
        let ty = &p.ty;
        quote_spanned! {ty.span()=> let #name: #ty = value; }
    });
    let args = call_args(&completion.params);
    let unwrap = unwrap_answer(&completion.answer);
    let convert = quote_spanned! {answer_span(&completion.answer)=>
        ::core::convert::Into::<::std::vec::Vec<::std::string::String>>::into(output)
    };
    quote! {
        fn #complete_fn(
            state: ::std::sync::Arc<#self_ty>,
            value: ::std::string::String,
            ctx: ::aep_sdk::tool::ToolContext,
        ) -> ::aep_sdk::__private::futures::future::BoxFuture<
            'static,
            ::core::result::Result<::std::vec::Vec<::std::string::String>, ::aep_sdk::__private::rmcp::ErrorData>,
        > {
            ::std::boxed::Box::pin(async move {
                #(#bind)*
                let output = state.#method(#(#args),*).await;
                let _ = &ctx;
                #unwrap
                ::core::result::Result::Ok(#convert)
            })
        }
    }
}

fn completion_def(completion: &Completion) -> TokenStream {
    let target = &completion.attrs.target;
    let name = &completion.attrs.name;
    let complete_fn = format_ident!("__aep_complete_{}", completion.method);
    let constructor = match completion.attrs.is_template {
        true => quote! { template },
        false => quote! { prompt },
    };
    quote! { ::aep_sdk::tool::CompletionDef::#constructor(#target, #name, #complete_fn) }
}
