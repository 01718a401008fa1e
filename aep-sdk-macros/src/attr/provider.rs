//! `#[model_provider(...)]` and its siblings `#[chat]`, `#[models]`, `#[health]`.

use syn::spanned::Spanned;
use syn::{Lit, LitStr};

use super::{Flags, Reader, Scopes};
use crate::ctxt::{Ctxt, err};
use crate::text::Text;

/// `#[model_provider(...)]`.
pub struct Provider {
    pub id: Text,
    /// `display_name` (default: the id).
    pub display_name: Text,
    pub models: Vec<LitStr>,
    pub scopes: Option<Scopes>,
    pub metadata: Vec<(String, Lit)>,
    /// `chat`, `streaming`, `tools`, ..: the descriptor's capability fields.
    pub capabilities: Vec<(&'static str, bool)>,
}

impl Provider {
    /// `None` if the attribute does not parse or has no `id`.
    pub fn from_ast(cx: &Ctxt, attr: &syn::Attribute) -> Option<Self> {
        let r = Reader::new(cx, "model_provider");
        let (mut id, mut display_name, mut models) = (r.attr(), r.attr(), r.attr());
        let (mut scopes, mut metadata) = (r.attr(), r.attr());
        let mut capabilities = Flags::new(r);
        let read = r.read(attr, |meta| {
            keys!(r, meta, key => {
                "id" => id.set(&meta, Reader::text)?,
                "display_name" => display_name.set(&meta, Reader::text)?,
                "models" => models.set(&meta, Reader::strings)?,
                "scopes" => scopes.set(&meta, Reader::scopes)?,
                "metadata" => metadata.set(&meta, Reader::metadata)?,
                "chat" | "streaming" | "tools" | "thinking" | "structured_output" | "vision"
                    | "model_discovery" => capabilities.set(key, &meta)?,
            })
        });
        if read && !id.given() {
            cx.push(err(
                attr.span(),
                "`#[model_provider]` needs `id = \"...\"`, e.g. #[model_provider(id = \"echo\", display_name = \"Echo\")]",
            ));
        }
        let id: Text = id.get().filter(|_| read)?;
        Some(Self {
            display_name: display_name.get().unwrap_or_else(|| id.clone()),
            id,
            models: models.get().unwrap_or_default(),
            scopes: scopes.get(),
            metadata: metadata.get().unwrap_or_default(),
            capabilities: capabilities.get(),
        })
    }
}

/// `#[chat(provider = "..")]`, `#[models(..)]`, `#[health(..)]`.
pub struct Sibling {
    /// The id of the `#[model_provider]` it belongs to.
    pub provider: Text,
}

impl Sibling {
    /// `None` if the attribute does not parse or has no `provider`.
    pub fn from_ast(cx: &Ctxt, attr: &syn::Attribute, kind: &'static str) -> Option<Self> {
        let r = Reader::new(cx, kind);
        let mut provider = r.attr();
        let read = r.read(attr, |meta| {
            keys!(r, meta, key => {
                "provider" => provider.set(&meta, Reader::text)?,
            })
        });
        if read && !provider.given() {
            cx.push(err(
                attr.span(),
                format!(
                    "`#[{kind}]` needs `provider = \"...\"`: the id of the `#[model_provider]` it belongs to"
                ),
            ));
        }
        Some(Self {
            provider: provider.get().filter(|_| read)?,
        })
    }
}
