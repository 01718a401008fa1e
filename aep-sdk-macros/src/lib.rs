//! Procedural macros for `aep-sdk`. Use them through `aep_sdk::aep_extension`; the
//! runtime crate documents them.
//!
//! The macro is split the way serde_derive is: [`parse`] reads attribute arguments,
//! [`model`] turns the annotated impl into a checked description of the extension
//! (every misuse a `syn::Error` on the user's span), and [`expand`] writes the code.

use proc_macro::TokenStream;

mod expand;
mod model;
mod parse;

/// Turns the annotated methods of an `impl` block into an AEP extension: `#[tool]`
/// methods become MCP tools and AEP tool contributions, `#[model_provider]` methods
/// become model providers (with optional `#[models]`, `#[health]` and `#[chat]`
/// siblings), and the type implements `aep_sdk::server::AepExtension`.
#[proc_macro_attribute]
pub fn aep_extension(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::aep_extension(attr.into(), item.into()).into()
}
