//! `#[resource(...)]`, `#[prompt(...)]` and `#[complete(...)]`.

use syn::spanned::Spanned;
use syn::{ImplItemFn, LitStr};

use super::{Reader, Scopes, doc_text, method_name};
use crate::ctxt::{Ctxt, err};
use crate::text::Text;

/// `#[resource(uri = ".." | uri_template = "..", name, title, description, mime_type, server)]`.
pub struct Resource {
    /// The `uri` or `uri_template` literal (its grammar is `check`'s).
    pub uri: LitStr,
    pub is_template: bool,
    /// `name` (default: the method name).
    pub name: String,
    pub title: Option<String>,
    /// `description` (default: the doc comment).
    pub description: Option<Text>,
    pub mime_type: Option<String>,
    pub server: Option<String>,
    pub scopes: Option<Scopes>,
}

impl Resource {
    /// `None` if the attribute does not parse or names no URI.
    pub fn from_ast(cx: &Ctxt, method: &ImplItemFn, attr: &syn::Attribute) -> Option<Self> {
        let r = Reader::new(cx, "resource");
        let (mut uri, mut template, mut name, mut title) = (r.attr(), r.attr(), r.attr(), r.attr());
        let (mut description, mut mime_type, mut server, mut scopes) =
            (r.attr(), r.attr(), r.attr(), r.attr());
        let read = r.read(attr, |meta| {
            keys!(r, meta, key => {
                "uri" => uri.set(&meta, Reader::lit_str)?,
                "uri_template" => template.set(&meta, Reader::lit_str)?,
                "name" => name.set(&meta, Reader::string)?,
                "title" => title.set(&meta, Reader::string)?,
                "description" => description.set(&meta, Reader::text)?,
                "mime_type" => mime_type.set(&meta, Reader::string)?,
                "server" => server.set(&meta, Reader::string)?,
                "scopes" => scopes.set(&meta, Reader::scopes)?,
            })
        });
        if !read {
            return None;
        }
        let given = (uri.given(), template.given());
        let (uri, is_template) = match (uri.get(), template.get()) {
            (Some(_), Some(template)) => {
                cx.push(err(
                    template.span(),
                    "a `#[resource]` has either `uri = \"..\"` (one resource) or `uri_template = \"..\"` (a family of them), not both",
                ));
                return None;
            }
            (Some(uri), None) if !given.1 => (uri, false),
            (None, Some(template)) if !given.0 => (template, true),
            _ if given == (false, false) => {
                cx.push(err(
                    attr.span(),
                    "`#[resource]` needs `uri = \"docs://readme\"` or `uri_template = \"notes://{id}\"`",
                ));
                return None;
            }
            // A value of the wrong kind, reported already.
            _ => return None,
        };
        let span = method.sig.ident.span();
        Some(Self {
            uri,
            is_template,
            name: name.get().unwrap_or_else(|| method_name(method)),
            title: title.get(),
            description: description
                .get()
                .or_else(|| doc_text(&method.attrs).map(|doc| Text::lit(&doc, span))),
            mime_type: mime_type.get(),
            server: server.get(),
            scopes: scopes.get(),
        })
    }
}

/// `#[prompt(name, title, description, server)]`.
pub struct Prompt {
    /// `name` (default: the method name).
    pub name: LitStr,
    pub title: Option<String>,
    /// `description` (default: the doc comment).
    pub description: Option<Text>,
    pub server: Option<String>,
    pub scopes: Option<Scopes>,
}

impl Prompt {
    /// `None` if the attribute does not parse.
    pub fn from_ast(cx: &Ctxt, method: &ImplItemFn, attr: &syn::Attribute) -> Option<Self> {
        let r = Reader::new(cx, "prompt");
        let (mut name, mut title, mut description) = (r.attr(), r.attr(), r.attr());
        let (mut server, mut scopes) = (r.attr(), r.attr());
        let read = r.read(attr, |meta| {
            keys!(r, meta, key => {
                "name" => name.set(&meta, Reader::lit_str)?,
                "title" => title.set(&meta, Reader::string)?,
                "description" => description.set(&meta, Reader::text)?,
                "server" => server.set(&meta, Reader::string)?,
                "scopes" => scopes.set(&meta, Reader::scopes)?,
            })
        });
        if !read {
            return None;
        }
        let span = method.sig.ident.span();
        Some(Self {
            name: name
                .get()
                .unwrap_or_else(|| LitStr::new(&method_name(method), span)),
            title: title.get(),
            description: description
                .get()
                .or_else(|| doc_text(&method.attrs).map(|doc| Text::lit(&doc, span))),
            server: server.get(),
            scopes: scopes.get(),
        })
    }
}

/// `#[complete(prompt = "..", argument = "..")]` or `#[complete(template = "..", variable = "..")]`.
pub struct Complete {
    /// The prompt's name or the template.
    pub target: LitStr,
    pub is_template: bool,
    /// The argument or variable completed.
    pub name: LitStr,
}

impl Complete {
    /// `None` if the attribute does not parse or is not one of the two shapes.
    pub fn from_ast(cx: &Ctxt, attr: &syn::Attribute) -> Option<Self> {
        let r = Reader::new(cx, "complete");
        let (mut prompt, mut argument, mut template, mut variable) = (r.attr(), r.attr(), r.attr(), r.attr());
        let read = r.read(attr, |meta| {
            keys!(r, meta, key => {
                "prompt" => prompt.set(&meta, Reader::lit_str)?,
                "argument" => argument.set(&meta, Reader::lit_str)?,
                "template" => template.set(&meta, Reader::lit_str)?,
                "variable" => variable.set(&meta, Reader::lit_str)?,
            })
        });
        if !read {
            return None;
        }
        let given = [
            prompt.given(),
            argument.given(),
            template.given(),
            variable.given(),
        ];
        let (target, name, is_template) = match (prompt.get(), argument.get(), template.get(), variable.get())
        {
            (Some(prompt), Some(argument), None, None) => (prompt, argument, false),
            (None, None, Some(template), Some(variable)) => (template, variable, true),
            // Keys of the right shape, one of them of the wrong kind: reported already.
            _ if given == [true, true, false, false] || given == [false, false, true, true] => {
                return None;
            }
            _ => {
                let shape = "`#[complete(prompt = \"name\", argument = \"arg\")]` or `#[complete(template = \"notes://{id}\", variable = \"id\")]`";
                cx.push(err(
                    attr.span(),
                    format!("a completion names what it completes: {shape}"),
                ));
                return None;
            }
        };
        Some(Self {
            target,
            is_template,
            name,
        })
    }
}
