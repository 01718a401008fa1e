//! A text-valued attribute argument: a string literal (checked at compile time, e.g. for
//! duplicates) or any other expression, such as a `const` (checked by `build()` at
//! start-up).

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::LitStr;
use syn::spanned::Spanned;

#[derive(Clone)]
pub enum Text {
    Lit(LitStr),
    Expr(Box<syn::Expr>),
}

impl Text {
    pub fn lit(value: &str, span: Span) -> Self {
        Text::Lit(LitStr::new(value, span))
    }

    /// The value, when it is known at compile time.
    pub fn literal(&self) -> Option<String> {
        match self {
            Text::Lit(lit) => Some(lit.value()),
            Text::Expr(_) => None,
        }
    }

    pub fn span(&self) -> Span {
        match self {
            Text::Lit(lit) => lit.span(),
            Text::Expr(expr) => expr.span(),
        }
    }

    /// Whether two texts name the same thing: equal literals (case-insensitively when
    /// `ignore_case`), or the same expression tokens.
    pub fn same(&self, other: &Text, ignore_case: bool) -> bool {
        match (self, other) {
            (Text::Lit(a), Text::Lit(b)) if ignore_case => a.value().eq_ignore_ascii_case(&b.value()),
            (Text::Lit(a), Text::Lit(b)) => a.value() == b.value(),
            (Text::Expr(a), Text::Expr(b)) => {
                a.to_token_stream().to_string() == b.to_token_stream().to_string()
            }
            _ => false,
        }
    }

    /// For messages: the literal, or the expression as written.
    pub fn shown(&self) -> String {
        match self {
            Text::Lit(lit) => lit.value(),
            Text::Expr(expr) => expr.to_token_stream().to_string(),
        }
    }

    /// A `&str` expression of the value (a literal as is; an expression through `AsRef<str>`,
    /// so `&str` constants and `String`s both work).
    pub fn as_str(&self) -> TokenStream {
        match self {
            Text::Lit(lit) => quote! { #lit },
            Text::Expr(expr) => {
                quote::quote_spanned! { expr.span()=> ::core::convert::AsRef::<str>::as_ref(&(#expr)) }
            }
        }
    }
}

/// Interpolated, a text is its `&str` expression ([`Text::as_str`]).
impl ToTokens for Text {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(self.as_str());
    }
}
