//! Attribute arguments: `key = "str"`, `key = true`, `key = 1`, `key = CONST` (any
//! expression), bare `flag`, `key = ["a", "b"]` and `key(k = lit, ...)`.

use proc_macro2::{Span, TokenStream};
use syn::parse::{ParseStream, Parser};
use syn::{Ident, Lit, LitStr, Token, bracketed, parenthesized};

/// One argument's value.
pub enum Value {
    Lit(Lit),
    /// Any other expression (a `const`, `concat!(..)`, ...).
    Expr(Box<syn::Expr>),
    Flag,
    List(Vec<LitStr>),
    Nested(Vec<(String, Span, Lit)>),
}

/// One `key ...` argument.
pub struct Arg {
    pub key: Ident,
    pub value: Value,
}

impl Arg {
    fn describe(&self) -> &'static str {
        match self.value {
            Value::Lit(Lit::Str(_)) => "a string",
            Value::Lit(Lit::Bool(_)) | Value::Flag => "a flag",
            Value::Lit(_) => "a literal",
            Value::Expr(_) => "an expression",
            Value::List(_) => "a list",
            Value::Nested(_) => "a nested list",
        }
    }

    pub fn string(&self) -> syn::Result<LitStr> {
        match &self.value {
            Value::Lit(Lit::Str(s)) => Ok(s.clone()),
            _ => Err(self.expected("a string literal, e.g. `key = \"value\"`")),
        }
    }

    /// A string literal or an expression evaluating to one (`&str` or `String`).
    pub fn text(&self) -> syn::Result<crate::text::Text> {
        match &self.value {
            Value::Lit(Lit::Str(s)) => Ok(crate::text::Text::Lit(s.clone())),
            Value::Expr(e) => Ok(crate::text::Text::Expr(e.clone())),
            _ => Err(self.expected("a string: a literal `key = \"value\"` or a constant `key = NAME`")),
        }
    }

    /// Any expression (a literal too).
    pub fn expr(&self) -> syn::Result<syn::Expr> {
        match &self.value {
            Value::Expr(e) => Ok((**e).clone()),
            Value::Lit(lit) => Ok(syn::Expr::Lit(syn::ExprLit {
                attrs: Vec::new(),
                lit: lit.clone(),
            })),
            _ => Err(self.expected("an expression, e.g. `key = my_schema()`")),
        }
    }

    pub fn flag(&self) -> syn::Result<bool> {
        match &self.value {
            Value::Flag => Ok(true),
            Value::Lit(Lit::Bool(b)) => Ok(b.value),
            _ => Err(self.expected("a flag: `key` or `key = false`")),
        }
    }

    pub fn list(&self) -> syn::Result<Vec<LitStr>> {
        match &self.value {
            Value::List(items) => Ok(items.clone()),
            _ => Err(self.expected(&format!(
                "a list of strings, e.g. `{} = [\"a\", \"b\"]`",
                self.key
            ))),
        }
    }

    pub fn nested(&self) -> syn::Result<Vec<(String, Span, Lit)>> {
        match &self.value {
            Value::Nested(items) => Ok(items.clone()),
            _ => Err(self.expected("a list of `name = literal` pairs, e.g. `key(category = \"text\")`")),
        }
    }

    fn expected(&self, what: &str) -> syn::Error {
        syn::Error::new(
            self.key.span(),
            format!("`{}` takes {what}, not {}", self.key, self.describe()),
        )
    }
}

/// Parses the arguments of one attribute.
pub fn args(tokens: TokenStream) -> syn::Result<Vec<Arg>> {
    let parser = |input: ParseStream| {
        let mut args = Vec::new();
        while !input.is_empty() {
            let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
            let value = if input.peek(Token![=]) {
                input.parse::<Token![=]>()?;
                if input.peek(syn::token::Bracket) {
                    let content;
                    bracketed!(content in input);
                    let items = content.parse_terminated(|p: ParseStream| p.parse::<LitStr>(), Token![,])?;
                    Value::List(items.into_iter().collect())
                } else if input.peek(Lit) {
                    Value::Lit(input.parse()?)
                } else {
                    Value::Expr(Box::new(input.parse()?))
                }
            } else if input.peek(syn::token::Paren) {
                let content;
                parenthesized!(content in input);
                let pairs = content.parse_terminated(
                    |p: ParseStream| {
                        let (name, span) = if p.peek(LitStr) {
                            let s: LitStr = p.parse()?;
                            (s.value(), s.span())
                        } else {
                            let i: Ident = p.call(syn::ext::IdentExt::parse_any)?;
                            (i.to_string(), i.span())
                        };
                        p.parse::<Token![=]>()?;
                        Ok((name, span, p.parse::<Lit>()?))
                    },
                    Token![,],
                )?;
                Value::Nested(pairs.into_iter().collect())
            } else {
                Value::Flag
            };
            args.push(Arg { key, value });
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(args)
    };
    parser.parse2(tokens)
}

/// Rejects keys outside `allowed`, naming the valid ones.
pub fn check_keys(args: &[Arg], attribute: &str, allowed: &[&str]) -> Vec<syn::Error> {
    let mut errors = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for arg in args {
        let key = arg.key.to_string();
        if !allowed.contains(&key.as_str()) {
            errors.push(syn::Error::new(
                arg.key.span(),
                format!(
                    "unknown key `{key}` in `#[{attribute}]`; expected one of: {}",
                    allowed.join(", ")
                ),
            ));
        } else if seen.contains(&key) {
            errors.push(syn::Error::new(
                arg.key.span(),
                format!("`{key}` is given twice in `#[{attribute}]`"),
            ));
        }
        seen.push(key);
    }
    errors
}

/// The text of `///` doc comments, lines joined, common leading space removed.
pub fn doc_text(attrs: &[syn::Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').unwrap_or(&line).trim_end().to_owned())
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}
