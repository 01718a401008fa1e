//! `#[tool(...)]`.

use syn::meta::ParseNestedMeta;
use syn::{ImplItemFn, Lit};

use super::{Flags, Reader, Scopes, doc_text, method_name};
use crate::ctxt::{Ctxt, err};
use crate::text::Text;

/// `#[tool(...)]`, with the defaults the method gives.
pub struct Tool {
    /// `name`: the MCP tool name (default: the method name).
    pub name: Text,
    /// `id`: the AEP contribution id (default: `name`).
    pub id: Text,
    /// `display_name` (default: the method name, humanized).
    pub display_name: Text,
    /// `description` (default: the doc comment).
    pub description: Option<Text>,
    pub title: Option<String>,
    pub server: Option<String>,
    pub scopes: Option<Scopes>,
    pub metadata: Vec<(String, Lit)>,
    /// `read_only`, `destructive`, `idempotent`, `open_world`: MCP annotation setters.
    pub annotations: Vec<(&'static str, bool)>,
    /// `timeout = "30s"`, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// `timeout_resets_on_progress`.
    pub resets_on_progress: bool,
    /// `input_schema = EXPR`: the schema as written (a `serde_json::Value` object).
    pub input_schema: Option<syn::Expr>,
}

impl Tool {
    /// `None` if the attribute does not parse.
    pub fn from_ast(cx: &Ctxt, method: &ImplItemFn, attr: &syn::Attribute) -> Option<Self> {
        let r = Reader::new(cx, "tool");
        let (mut name, mut id, mut display_name, mut description) = (r.attr(), r.attr(), r.attr(), r.attr());
        let (mut title, mut server, mut scopes, mut metadata) = (r.attr(), r.attr(), r.attr(), r.attr());
        let (mut timeout, mut resets, mut input_schema) = (r.attr(), r.attr(), r.attr());
        let mut annotations = Flags::new(r);
        let read = r.read(attr, |meta| {
            keys!(r, meta, key => {
                "name" => name.set(&meta, Reader::text)?,
                "id" => id.set(&meta, Reader::text)?,
                "display_name" => display_name.set(&meta, Reader::text)?,
                "description" => description.set(&meta, Reader::text)?,
                "title" => title.set(&meta, Reader::string)?,
                "server" => server.set(&meta, Reader::string)?,
                "scopes" => scopes.set(&meta, Reader::scopes)?,
                "metadata" => metadata.set(&meta, Reader::metadata)?,
                "read_only" | "destructive" | "idempotent" | "open_world" => annotations.set(key, &meta)?,
                "timeout" => timeout.set(&meta, Reader::timeout)?,
                "timeout_resets_on_progress" => resets.set(&meta, Reader::flag)?,
                "input_schema" => input_schema.set(&meta, Reader::expr)?,
            })
        });
        if !read {
            return None;
        }
        let method_name = method_name(method);
        let span = method.sig.ident.span();
        let name = name.get().unwrap_or_else(|| Text::lit(&method_name, span));
        Some(Self {
            id: id.get().unwrap_or_else(|| name.clone()),
            name,
            display_name: display_name
                .get()
                .unwrap_or_else(|| Text::lit(&humanize(&method_name), span)),
            description: description
                .get()
                .or_else(|| doc_text(&method.attrs).map(|doc| Text::lit(&doc, span))),
            title: title.get(),
            server: server.get(),
            scopes: scopes.get(),
            metadata: metadata.get().unwrap_or_default(),
            annotations: annotations.get(),
            timeout_ms: timeout.get(),
            resets_on_progress: resets.get().unwrap_or(false),
            input_schema: input_schema.get(),
        })
    }
}

impl Reader<'_> {
    /// `timeout = "30s"` in milliseconds, above zero, in the runtime's grammar (`500ms`,
    /// `30s`, `1.5m`, `30`: see `aep_sdk_internals::duration`); an error on the literal.
    fn timeout(self, meta: &ParseNestedMeta) -> syn::Result<Option<u64>> {
        let Some(lit) = self.lit_str(meta)? else {
            return Ok(None);
        };
        let text = lit.value();
        let ms = aep_sdk_internals::duration::parse(&text)
            .map_err(|why| format!("`timeout = \"{text}\"`: {why}"))
            .and_then(|duration| match u64::try_from(duration.as_millis()) {
                Ok(0) => Err(format!("`timeout = \"{text}\"` must be at least 1ms")),
                Ok(ms) => Ok(ms),
                Err(_) => Err(format!("`timeout = \"{text}\"` is too long")),
            });
        Ok(self.cx.take(ms.map_err(|why| err(lit.span(), why))))
    }
}

/// `snake_case` or `dotted.name` as "Snake case": the default display name.
fn humanize(name: &str) -> String {
    let spaced = name.replace(['_', '.', '-'], " ");
    let mut chars = spaced.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
