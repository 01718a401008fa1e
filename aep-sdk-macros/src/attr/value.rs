//! The kinds of value a key takes. A value of another kind is an error on the key
//! (`` `read_only` takes a flag ..., not a string ``) and the key is left unset; only tokens
//! that do not parse are an `Err`, which stops the attribute.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Lit, LitStr, Token};

use super::{Reader, key};
use crate::ctxt::err;
use crate::text::Text;

/// `scopes = [..]` as written: the key (where an empty list is reported) and the
/// literals, each checked by `check`.
pub struct Scopes {
    pub key: Span,
    pub list: Vec<LitStr>,
}

/// What follows a key.
enum Value {
    /// Nothing: `key`.
    Flag,
    /// `key = EXPR`: literals, lists (`[..]`) and constants alike.
    Expr(Expr),
    /// `key(...)`, skipped: only `metadata` takes one, and reads it itself.
    Nested,
}

impl Value {
    fn read(meta: &ParseNestedMeta) -> syn::Result<Value> {
        if meta.input.peek(Token![=]) {
            Ok(Value::Expr(meta.value()?.parse()?))
        } else if meta.input.peek(syn::token::Paren) {
            meta.input.parse::<proc_macro2::TokenTree>()?;
            Ok(Value::Nested)
        } else if meta.input.is_empty() || meta.input.peek(Token![,]) {
            Ok(Value::Flag)
        } else {
            // `key "value"`: a syntax error, not a flag of the wrong kind.
            Err(meta.input.error("expected `,`"))
        }
    }

    /// For "`key` takes .., not {}".
    fn describe(&self) -> &'static str {
        match self {
            Value::Flag => "a flag",
            Value::Nested => "a nested list",
            Value::Expr(expr) => match ungroup(expr) {
                Expr::Lit(lit) => match lit.lit {
                    Lit::Str(_) => "a string",
                    Lit::Bool(_) => "a flag",
                    _ => "a literal",
                },
                Expr::Array(_) => "a list",
                _ => "an expression",
            },
        }
    }
}

/// The expression inside the invisible groups a `macro_rules!` fragment may wrap it in.
fn ungroup(mut expr: &Expr) -> &Expr {
    while let Expr::Group(group) = expr {
        expr = &group.expr;
    }
    expr
}

fn lit(value: &Value) -> Option<&Lit> {
    match value {
        Value::Expr(expr) => match ungroup(expr) {
            Expr::Lit(lit) => Some(&lit.lit),
            _ => None,
        },
        _ => None,
    }
}

impl Reader<'_> {
    /// Reads the value and converts it, or reports that the key takes `expected`.
    fn kind<T>(
        self,
        meta: &ParseNestedMeta,
        expected: &str,
        convert: impl FnOnce(&Value) -> Option<T>,
    ) -> syn::Result<Option<T>> {
        let value = Value::read(meta)?;
        let converted = convert(&value);
        if converted.is_none() {
            let message = format!("`{}` takes {expected}, not {}", key(&meta.path), value.describe());
            self.cx.error_spanned_by(&meta.path, message);
        }
        Ok(converted)
    }

    /// `key = "value"`.
    pub fn lit_str(self, meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
        self.kind(
            meta,
            "a string literal, e.g. `key = \"value\"`",
            |value| match lit(value) {
                Some(Lit::Str(s)) => Some(s.clone()),
                _ => None,
            },
        )
    }

    /// [`Reader::lit_str`]'s value.
    pub fn string(self, meta: &ParseNestedMeta) -> syn::Result<Option<String>> {
        Ok(self.lit_str(meta)?.map(|s| s.value()))
    }

    /// A string literal or an expression evaluating to one (`&str` or `String`).
    pub fn text(self, meta: &ParseNestedMeta) -> syn::Result<Option<Text>> {
        let expected = "a string: a literal `key = \"value\"` or a constant `key = NAME`";
        self.kind(meta, expected, |value| match value {
            Value::Expr(expr) => match ungroup(expr) {
                Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(Text::Lit(s.clone())),
                Expr::Lit(_) | Expr::Array(_) => None,
                _ => Some(Text::Expr(Box::new(expr.clone()))),
            },
            _ => None,
        })
    }

    /// Any expression but a list (`input_schema` takes an object).
    pub fn expr(self, meta: &ParseNestedMeta) -> syn::Result<Option<Expr>> {
        self.kind(
            meta,
            "an expression, e.g. `key = my_schema()`",
            |value| match value {
                Value::Expr(expr) if !matches!(ungroup(expr), Expr::Array(_)) => Some(expr.clone()),
                _ => None,
            },
        )
    }

    /// `key`, `key = true` or `key = false`.
    pub fn flag(self, meta: &ParseNestedMeta) -> syn::Result<Option<bool>> {
        self.kind(meta, "a flag: `key` or `key = false`", |value| {
            match (value, lit(value)) {
                (Value::Flag, _) => Some(true),
                (_, Some(Lit::Bool(b))) => Some(b.value),
                _ => None,
            }
        })
    }

    /// `key = ["a", "b"]`; an item that is not a string literal is reported on it.
    pub fn strings(self, meta: &ParseNestedMeta) -> syn::Result<Option<Vec<LitStr>>> {
        let expected = format!("a list of strings, e.g. `{} = [\"a\", \"b\"]`", key(&meta.path));
        let list = self.kind(meta, &expected, |value| match value {
            Value::Expr(expr) => match ungroup(expr) {
                Expr::Array(array) => Some(array.elems.iter().cloned().collect::<Vec<_>>()),
                _ => None,
            },
            _ => None,
        })?;
        let Some(items) = list else { return Ok(None) };
        let mut strings = Vec::new();
        for item in &items {
            match ungroup(item) {
                Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => strings.push(s.clone()),
                _ => self.cx.push(err(item.span(), "expected string literal")),
            }
        }
        Ok((strings.len() == items.len()).then_some(strings))
    }

    /// `scopes = [..]`, with the key's span.
    pub fn scopes(self, meta: &ParseNestedMeta) -> syn::Result<Option<Scopes>> {
        let key = meta.path.span();
        Ok(self.strings(meta)?.map(|list| Scopes { key, list }))
    }

    /// `key = field`: a plain identifier naming a field of the extension that holds a
    /// `holds`, e.g. `tool_switch = switch`.
    pub fn field(self, meta: &ParseNestedMeta, holds: &str, example: &str) -> syn::Result<Option<Ident>> {
        let value = Value::read(meta)?;
        if let Value::Expr(expr) = &value
            && let Expr::Path(path) = ungroup(expr)
            && let Some(ident) = path.path.get_ident()
        {
            return Ok(Some(ident.clone()));
        }
        let key = key(&meta.path);
        let message =
            format!("`{key}` names the extension's field that holds its `{holds}`, e.g. `{key} = {example}`");
        self.cx.error_spanned_by(&meta.path, message);
        Ok(None)
    }

    /// `key(name = literal, "other name" = literal, ..)`.
    pub fn metadata(self, meta: &ParseNestedMeta) -> syn::Result<Option<Vec<(String, Lit)>>> {
        if !meta.input.peek(syn::token::Paren) {
            let expected = "a list of `name = literal` pairs, e.g. `key(category = \"text\")`";
            return self.kind(meta, expected, |_| None);
        }
        let content;
        syn::parenthesized!(content in meta.input);
        let pairs = content.parse_terminated(pair, Token![,])?;
        Ok(Some(pairs.into_iter().collect()))
    }
}

/// One `name = literal` of a `metadata(..)`; a name that is no identifier is a string.
fn pair(input: ParseStream) -> syn::Result<(String, Lit)> {
    let name = if input.peek(LitStr) {
        input.parse::<LitStr>()?.value()
    } else {
        input.call(<Ident as syn::ext::IdentExt>::parse_any)?.to_string()
    };
    input.parse::<Token![=]>()?;
    Ok((name, input.parse()?))
}
