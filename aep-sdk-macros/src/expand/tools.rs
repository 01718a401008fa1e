//! `#[tool]` methods -> argument structs (schemars schemas), call functions, `ToolDef`s,
//! and the AEP tool contributions that map to them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{metadata_map, scopes_setter};
use crate::model::{self, Extension, OutputKind, Params, Tool};

/// The items (argument structs, call functions), each tool's `ToolDef` with its server,
/// and the AEP contributions.
pub fn generate(model: &Extension) -> (Vec<TokenStream>, Vec<(String, TokenStream)>, TokenStream) {
    let mut items = Vec::new();
    let mut defs = Vec::new();
    let mut contributions = TokenStream::new();
    for tool in &model.tools {
        let (args_ty, item) = tool_items(model, tool);
        items.push(item);
        let server = model.server(&tool.attrs.server).to_owned();
        contributions.extend(contribution(tool, &server));
        defs.push((server, tool_def(tool, &args_ty)));
    }
    (items, defs, contributions)
}

/// The argument type and the items (argument struct, call function) of one tool.
fn tool_items(model: &Extension, tool: &Tool) -> (TokenStream, TokenStream) {
    let self_ty = &model.self_ty;
    let method = &tool.method;
    let call_fn = format_ident!("__aep_call_{}", method);
    let (args_ty, args_struct, call_args) = match &tool.params {
        Params::Fields(params) => {
            let args_ty = format_ident!("__AepArgs_{}", method);
            let fields = params.iter().filter(|p| !p.is_context).map(|p| {
                let name = &p.name;
                let ty = &p.ty;
                let doc = p.doc.as_ref().map(|d| quote! { #[doc = #d] });
                let default = p.optional.then(|| quote! { #[serde(default)] });
                quote! { #doc #default #name: #ty }
            });
            let call_args: Vec<TokenStream> = params
                .iter()
                .map(|p| {
                    let name = &p.name;
                    if p.is_context {
                        quote! { ctx.clone() }
                    } else {
                        quote! { args.#name }
                    }
                })
                .collect();
            let item = quote! {
                #[derive(::aep_sdk::__private::serde::Deserialize, ::aep_sdk::__private::schemars::JsonSchema)]
                #[serde(crate = "::aep_sdk::__private::serde")]
                #[schemars(crate = "::aep_sdk::__private::schemars")]
                struct #args_ty { #(#fields),* }
            };
            (quote! { #args_ty }, item, call_args)
        }
        Params::Struct { ty, ctx_position } => {
            let call_args = match ctx_position {
                None => vec![quote! { args }],
                Some(0) => vec![quote! { ctx.clone() }, quote! { args }],
                Some(_) => vec![quote! { args }, quote! { ctx.clone() }],
            };
            (quote! { #ty }, TokenStream::new(), call_args)
        }
    };
    let convert = |value: TokenStream| match &tool.output.kind {
        OutputKind::Text => quote! { ::aep_sdk::__private::text_result(#value) },
        OutputKind::Unit => quote! {{ let _ = #value; ::aep_sdk::__private::unit_result() }},
        OutputKind::Raw => value,
        OutputKind::Contents => quote! { ::aep_sdk::tool::CallToolResult::success(#value) },
        OutputKind::Structured(_) => quote! { ::aep_sdk::__private::structured_result(&#value) },
    };
    let result = if tool.output.fallible {
        let ok = convert(quote! { value });
        quote! {
            match output {
                ::core::result::Result::Ok(value) => #ok,
                ::core::result::Result::Err(error) => ::aep_sdk::__private::error_result(error),
            }
        }
    } else {
        convert(quote! { output })
    };
    let item = quote! {
        #args_struct

        fn #call_fn(
            state: ::std::sync::Arc<#self_ty>,
            arguments: ::aep_sdk::tool::JsonObject,
            ctx: ::aep_sdk::tool::ToolContext,
        ) -> ::aep_sdk::__private::futures::future::BoxFuture<'static, ::aep_sdk::__private::rmcp::model::CallToolResult> {
            ::std::boxed::Box::pin(async move {
                let args: #args_ty = match ::aep_sdk::__private::parse_arguments(arguments) {
                    ::core::result::Result::Ok(args) => args,
                    ::core::result::Result::Err(error) => return *error,
                };
                let output = state.#method(#(#call_args),*).await;
                let _ = &ctx;
                #result
            })
        }
    };
    (args_ty, item)
}

fn tool_def(tool: &Tool, args_ty: &TokenStream) -> TokenStream {
    let attrs = &tool.attrs;
    let name = &attrs.name;
    let call_fn = format_ident!("__aep_call_{}", tool.method);
    let description = attrs.description.as_ref().map(|d| quote! { .description(#d) });
    let title = attrs.title.as_ref().map(|t| quote! { .title(#t) });
    let output = match &tool.output.kind {
        OutputKind::Structured(ty) => {
            Some(quote! { .output_schema(::aep_sdk::tool::output_schema::<#ty>()) })
        }
        _ => None,
    };
    let annotations = (!attrs.annotations.is_empty()).then(|| {
        let setters = attrs.annotations.iter().map(|(key, value)| {
            let key = format_ident!("{}", key);
            quote! { .#key(#value) }
        });
        quote! { .annotations(::aep_sdk::__private::rmcp::model::ToolAnnotations::new() #(#setters)*) }
    });
    let timeout = attrs
        .timeout_ms
        .map(|ms| quote! { .timeout(::std::time::Duration::from_millis(#ms)) });
    let resets = attrs
        .resets_on_progress
        .then(|| quote! { .timeout_resets_on_progress() });
    let scopes = scopes_setter(model::scopes(&attrs.scopes));
    let schema = match &attrs.input_schema {
        Some(expr) => quote! { ::aep_sdk::__private::raw_schema(#expr) },
        None => quote! { ::aep_sdk::tool::input_schema::<#args_ty>() },
    };
    quote! {
        ::aep_sdk::tool::ToolDef::new(#name, #schema, #call_fn)
            #description #title #output #annotations #timeout #resets #scopes
    }
}

fn contribution(tool: &Tool, server: &str) -> TokenStream {
    let attrs = &tool.attrs;
    let id = &attrs.id;
    let display_name = &attrs.display_name;
    let name = &attrs.name;
    let description = match &attrs.description {
        Some(d) => quote! { ::core::option::Option::Some(::std::string::String::from(#d)) },
        None => quote! { ::core::option::Option::None },
    };
    let metadata = if attrs.metadata.is_empty() {
        quote! { ::core::option::Option::None }
    } else {
        let map = metadata_map(&attrs.metadata);
        quote! { ::core::option::Option::Some(#map) }
    };
    quote! {
        builder = builder.tool(::aep_sdk::protocol::ToolContribution {
            id: ::std::string::String::from(#id),
            display_name: ::std::string::String::from(#display_name),
            description: #description,
            metadata: #metadata,
            mcp: ::aep_sdk::protocol::McpToolMapping {
                server: ::std::string::String::from(#server),
                tool: ::std::string::String::from(#name),
            },
        });
    }
}
