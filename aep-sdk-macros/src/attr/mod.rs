//! The arguments of `#[aep_extension(...)]` and of each helper attribute, read the way
//! serde_derive reads `#[serde(...)]`: syn's meta grammar (`parse_nested_meta`) walks the
//! entries, each key fills an [`Attr`] that refuses a second occurrence, and the arms of
//! one [`keys!`] match are the accepted keys (an unknown key's error lists them). What
//! comes out is each attribute's finished value, defaults filled in, which the model
//! holds as it is; rules about the values (scopes, templates, duplicates across items)
//! are `check`'s.
//!
//! A value of the wrong kind, a repeated or unknown key, a missing required key: each is
//! one error on the user's tokens, and the entries after it are still read. Only tokens
//! that do not parse stop an attribute (and it is then left out of the model).

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::spanned::Spanned;

use crate::ctxt::{Ctxt, err};

/// The arms of one entry callback: a `match` on the entry's key, any other key refused
/// by [`Reader::unknown`] with the list of the arms' keys, so the arms are the one key
/// list. An arm may serve several keys (`"a" | "b" => ..`); `$key` names the one matched,
/// as a `&'static str`.
macro_rules! keys {
    ($reader:expr, $meta:ident, $key:ident => { $($($name:literal)|+ => $arm:expr),* $(,)? }) => {{
        let found = $meta.path.get_ident().map(::std::string::ToString::to_string);
        match found.as_deref() {
            $($(Some($name) => {
                #[allow(unused_variables)]
                let $key: &'static str = $name;
                $arm;
            })+)*
            _ => $reader.unknown(&$meta, &[$($($name),+),*])?,
        }
        Ok(())
    }};
}

mod extension;
mod provider;
mod surface;
mod tool;
mod value;

pub use extension::{Extension, option_set};
pub use provider::{Provider, Sibling};
pub use surface::{Complete, Prompt, Resource};
pub use tool::Tool;
pub use value::Scopes;

/// Reads one attribute (`#[tool]`, `#[aep_extension]`, ..): where its errors go and the
/// name they give it.
#[derive(Clone, Copy)]
pub struct Reader<'c> {
    cx: &'c Ctxt,
    attribute: &'static str,
}

impl<'c> Reader<'c> {
    pub fn new(cx: &'c Ctxt, attribute: &'static str) -> Self {
        Self { cx, attribute }
    }

    /// A key not yet given.
    pub fn attr<T>(self) -> Attr<'c, T> {
        Attr {
            reader: self,
            given: false,
            value: None,
        }
    }

    /// Runs `entry` on each entry of a helper attribute (`#[tool]` has none); false if the
    /// attribute does not parse (the error is reported).
    pub fn read(self, attr: &syn::Attribute, entry: impl FnMut(ParseNestedMeta) -> syn::Result<()>) -> bool {
        let result = match &attr.meta {
            syn::Meta::Path(_) => Ok(()),
            syn::Meta::List(_) => attr.parse_nested_meta(entry),
            syn::Meta::NameValue(nv) => Err(err(
                nv.span(),
                format!("write `#[{0}(...)]`, not `#[{0} = ...]`", self.attribute),
            )),
        };
        self.cx.take(result).is_some()
    }

    /// [`Reader::read`] for the tokens inside `#[aep_extension(...)]`, which the compiler
    /// hands over without the attribute around them.
    pub fn read_tokens(
        self,
        tokens: TokenStream,
        entry: impl FnMut(ParseNestedMeta) -> syn::Result<()>,
    ) -> bool {
        self.cx.take(syn::meta::parser(entry).parse2(tokens)).is_some()
    }

    /// An entry whose key is none of `keys`: reported on the key, and its value skipped so
    /// that the entries after it are still read.
    pub fn unknown(self, meta: &ParseNestedMeta, keys: &[&str]) -> syn::Result<()> {
        let (key, attribute) = (key(&meta.path), self.attribute);
        let message = match keys {
            [] => format!("`#[{attribute}]` takes no arguments; remove `{key}`"),
            _ => format!(
                "unknown key `{key}` in `#[{attribute}]`; expected one of: {}",
                keys.join(", ")
            ),
        };
        self.cx.error_spanned_by(&meta.path, message);
        skip(meta)
    }
}

/// One key of one attribute: its value once given. A second occurrence is an error on
/// that occurrence's key (its value is skipped unread: one error is enough).
pub struct Attr<'c, T> {
    reader: Reader<'c>,
    /// Given, even if with a value of the wrong kind (reported already, so that a
    /// required key is not also reported missing).
    given: bool,
    value: Option<T>,
}

/// How a key's value is read: the kinds in `value`.
type Kind<'c, T> = fn(Reader<'c>, &ParseNestedMeta) -> syn::Result<Option<T>>;

impl<'c, T> Attr<'c, T> {
    /// Sets the value from this entry, read as `kind`.
    pub fn set(&mut self, meta: &ParseNestedMeta, kind: Kind<'c, T>) -> syn::Result<()> {
        let reader = self.reader;
        if self.given {
            let message = format!(
                "`{}` is given twice in `#[{}]`",
                key(&meta.path),
                reader.attribute
            );
            reader.cx.error_spanned_by(&meta.path, message);
            return skip(meta);
        }
        self.given = true;
        self.value = kind(reader, meta)?;
        Ok(())
    }

    pub fn given(&self) -> bool {
        self.given
    }

    pub fn get(self) -> Option<T> {
        self.value
    }
}

/// Flags served by one arm (`read_only`, `destructive`, ..): each an [`Attr`] of its own,
/// kept in the order written.
pub struct Flags<'c> {
    reader: Reader<'c>,
    flags: Vec<(&'static str, Attr<'c, bool>)>,
}

impl<'c> Flags<'c> {
    pub fn new(reader: Reader<'c>) -> Self {
        Self {
            reader,
            flags: Vec::new(),
        }
    }

    pub fn set(&mut self, key: &'static str, meta: &ParseNestedMeta) -> syn::Result<()> {
        let i = match self.flags.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.flags.push((key, self.reader.attr()));
                self.flags.len() - 1
            }
        };
        self.flags[i].1.set(meta, Reader::flag)
    }

    /// The flags given, with their values.
    pub fn get(self) -> Vec<(&'static str, bool)> {
        self.flags
            .into_iter()
            .filter_map(|(key, attr)| Some((key, attr.get()?)))
            .collect()
    }
}

/// A key as written (a path, if someone wrote one).
fn key(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// Skips what follows a key, up to the next entry: nothing, `= value` or `(...)`.
fn skip(meta: &ParseNestedMeta) -> syn::Result<()> {
    meta.input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tree, next)) = rest.token_tree() {
            if matches!(&tree, proc_macro2::TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    })
}

/// The text of `///` doc comments, lines joined, common leading space removed.
pub fn doc_text(attrs: &[syn::Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').unwrap_or(&line).trim_end().to_owned())
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// A method's name as the user means it (`r#type` is `type`): the default of names.
fn method_name(method: &syn::ImplItemFn) -> String {
    method.sig.ident.to_string().trim_start_matches("r#").to_owned()
}
