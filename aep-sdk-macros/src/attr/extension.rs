//! `#[aep_extension(...)]` and `#[option_set]`.

use proc_macro2::{Span, TokenStream};
use syn::Ident;

use super::{Attr, Reader, Scopes};
use crate::ctxt::{Ctxt, err};
use crate::text::Text;

/// `#[aep_extension(id = .., name = .., version = .., description = .., mcp_server = "..")]`.
pub struct Extension {
    pub id: Text,
    pub name: Text,
    pub version: Option<Text>,
    pub description: Option<Text>,
    /// `mcp_server = ".."`: the server at `/mcp`, where items without `server` go.
    pub mcp_server: String,
    /// `tool_switch = field`: the extension's field holding its `ToolSwitch`.
    pub tool_switch: Option<Ident>,
    /// `subscriptions = field`: the extension's field holding its `Subscriptions`.
    pub subscriptions: Option<Ident>,
    /// `scopes = [..]`: what everything without scopes of its own needs.
    pub scopes: Option<Scopes>,
}

impl Extension {
    /// Always a value, so that the items are still read and checked: a missing `id` or
    /// `name` is reported and stood in for by an empty string, which is never expanded
    /// (the error stops the expansion).
    pub fn from_args(cx: &Ctxt, tokens: TokenStream) -> Self {
        let r = Reader::new(cx, "aep_extension");
        let (mut id, mut name, mut version, mut description) = (r.attr(), r.attr(), r.attr(), r.attr());
        let (mut mcp_server, mut tool_switch, mut subscriptions, mut scopes) =
            (r.attr(), r.attr(), r.attr(), r.attr());
        let read = r.read_tokens(tokens, |meta| {
            keys!(r, meta, key => {
                "id" => id.set(&meta, Reader::text)?,
                "name" => name.set(&meta, Reader::text)?,
                "version" => version.set(&meta, Reader::text)?,
                "description" => description.set(&meta, Reader::text)?,
                "mcp_server" => mcp_server.set(&meta, Reader::string)?,
                "tool_switch" => tool_switch.set(&meta, |r, m| r.field(m, "ToolSwitch", "switch"))?,
                "subscriptions" => {
                    subscriptions.set(&meta, |r, m| r.field(m, "Subscriptions", "subscriptions"))?
                },
                "scopes" => scopes.set(&meta, Reader::scopes)?,
            })
        });
        // After tokens that do not parse, the keys past them went unread: none is missing.
        let required = |attr: Attr<Text>, key: &str| {
            if read && !attr.given() {
                cx.push(err(
                    Span::call_site(),
                    format!("`#[aep_extension]` needs `{key} = \"...\"`, e.g. #[aep_extension(id = \"acme.tools\", name = \"Tools\")]"),
                ));
            }
            attr.get().unwrap_or_else(|| Text::lit("", Span::call_site()))
        };
        Self {
            id: required(id, "id"),
            name: required(name, "name"),
            version: version.get(),
            description: description.get(),
            mcp_server: mcp_server.get().unwrap_or_else(|| "default".into()),
            tool_switch: tool_switch.get(),
            subscriptions: subscriptions.get(),
            scopes: scopes.get(),
        }
    }
}

/// `#[option_set]` takes no arguments.
pub fn option_set(cx: &Ctxt, attr: &syn::Attribute) {
    let r = Reader::new(cx, "option_set");
    r.read(attr, |meta| keys!(r, meta, key => {}));
}
