//! The arguments of `#[aep_extension(...)]` and of each helper attribute as typed
//! structs. Each is read in one pass over the parsed arguments: unknown and repeated keys
//! are refused in one place (`parse::check_keys`), a value of the wrong kind by `Arg`'s
//! accessors, a missing required key here; every error goes to the context.

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::{Lit, LitStr};

use crate::ctxt::{Errors, err};
use crate::parse::{self, Arg};
use crate::text::Text;

/// `scopes = [..]` as written: the key's span (where an empty list is reported) and the
/// literals, each checked by `check::scopes`.
pub type ScopesArg = Option<(Span, Vec<LitStr>)>;

const EXTENSION_KEYS: &[&str] = &[
    "id",
    "name",
    "version",
    "description",
    "mcp_server",
    "tool_switch",
    "subscriptions",
    "scopes",
];
const COMPLETE_KEYS: &[&str] = &["prompt", "argument", "template", "variable"];
const RESOURCE_KEYS: &[&str] = &[
    "uri",
    "uri_template",
    "name",
    "title",
    "description",
    "mime_type",
    "server",
    "scopes",
];
const PROMPT_KEYS: &[&str] = &["name", "title", "description", "server", "scopes"];
const ANNOTATIONS: [&str; 4] = ["read_only", "destructive", "idempotent", "open_world"];
/// `#[tool]` keys besides the annotation flags (which sit between the two, as listed in
/// the unknown-key message).
const TOOL_KEYS: [&[&str]; 3] = [
    &[
        "name",
        "id",
        "display_name",
        "description",
        "title",
        "server",
        "scopes",
        "metadata",
    ],
    &ANNOTATIONS,
    &["timeout", "timeout_resets_on_progress", "input_schema"],
];
const PROVIDER_FLAGS: [&str; 7] = [
    "chat",
    "streaming",
    "tools",
    "thinking",
    "structured_output",
    "vision",
    "model_discovery",
];
/// `#[model_provider]` keys: these, then the capability flags.
const PROVIDER_KEYS: [&[&str]; 2] = [
    &["id", "display_name", "models", "scopes", "metadata"],
    &PROVIDER_FLAGS,
];
const SIBLING_KEYS: &[&str] = &["provider"];

/// `#[aep_extension(id = .., name = .., version = .., description = .., mcp_server = "..")]`.
pub struct ExtensionAttr {
    pub id: Option<Text>,
    pub name: Option<Text>,
    pub version: Option<Text>,
    pub description: Option<Text>,
    pub mcp_server: Option<String>,
    /// `tool_switch = field`: the extension's field holding its `ToolSwitch`.
    pub tool_switch: Option<syn::Ident>,
    /// `subscriptions = field`: the extension's field holding its `Subscriptions`.
    pub subscriptions: Option<syn::Ident>,
    /// `scopes = [..]`: what everything without scopes of its own needs.
    pub scopes: ScopesArg,
}

/// `#[resource(uri = ".." | uri_template = "..", name, title, description, mime_type, server)]`.
pub struct ResourceAttr {
    /// The `uri` or `uri_template` literal, and whether it is a template.
    pub uri: Option<(LitStr, bool)>,
    pub name: Option<String>,
    pub title: Option<String>,
    pub description: Option<Text>,
    pub mime_type: Option<String>,
    pub server: Option<String>,
    pub scopes: ScopesArg,
}

/// `#[prompt(name, title, description, server)]`.
pub struct PromptAttr {
    pub name: Option<LitStr>,
    pub title: Option<String>,
    pub description: Option<Text>,
    pub server: Option<String>,
    pub scopes: ScopesArg,
}

/// `#[tool(...)]`.
pub struct ToolAttr {
    pub name: Option<Text>,
    pub id: Option<Text>,
    pub display_name: Option<Text>,
    pub description: Option<Text>,
    pub title: Option<String>,
    pub server: Option<String>,
    pub scopes: ScopesArg,
    pub metadata: Vec<(String, Lit)>,
    pub annotations: Vec<(&'static str, bool)>,
    /// `timeout = "30s"`, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// `timeout_resets_on_progress`.
    pub resets_on_progress: bool,
    /// `input_schema = EXPR`: the schema as written (a `serde_json::Value` object).
    pub input_schema: Option<syn::Expr>,
}

/// `#[complete(prompt = "..", argument = "..")]` or `#[complete(template = "..", variable = "..")]`.
pub struct CompleteAttr {
    /// The prompt's name or the template, and whether it is a template.
    pub target: Option<(LitStr, bool)>,
    /// The argument or variable completed.
    pub name: Option<LitStr>,
}

/// `#[model_provider(...)]`.
pub struct ProviderAttr {
    pub id: Option<Text>,
    pub display_name: Option<Text>,
    pub models: Vec<LitStr>,
    pub scopes: ScopesArg,
    pub metadata: Vec<(String, Lit)>,
    pub capabilities: Vec<(&'static str, bool)>,
}

/// `#[chat(provider = "..")]`, `#[models(..)]`, `#[health(..)]`.
pub struct SiblingAttr {
    pub provider: Option<Text>,
}

/// One parsed attribute's arguments, looked up by key.
struct Args<'a>(&'a [Arg]);

impl Args<'_> {
    fn get(&self, key: &str) -> Option<&Arg> {
        self.0.iter().find(|a| a.key == key)
    }
    fn text(&self, key: &str, errors: &mut Errors) -> Option<Text> {
        self.get(key).and_then(|a| errors.take(a.text()))
    }
    fn string(&self, key: &str, errors: &mut Errors) -> Option<String> {
        self.get(key)
            .and_then(|a| errors.take(a.string()))
            .map(|s| s.value())
    }
    fn scopes(&self, errors: &mut Errors) -> ScopesArg {
        let arg = self.get("scopes")?;
        Some((arg.key.span(), errors.take(arg.list())?))
    }
    fn flags(&self, keys: &[&'static str], errors: &mut Errors) -> Vec<(&'static str, bool)> {
        keys.iter()
            .filter_map(|&key| Some((key, self.get(key).and_then(|a| errors.take(a.flag()))?)))
            .collect()
    }
    fn metadata(&self, errors: &mut Errors) -> Vec<(String, Lit)> {
        let nested = self.get("metadata").and_then(|a| errors.take(a.nested()));
        nested
            .unwrap_or_default()
            .into_iter()
            .map(|(k, _, v)| (k, v))
            .collect()
    }
}

/// The tokens inside `#[kind(...)]` (none for `#[kind]`) parsed into arguments.
pub fn helper_args(attr: &syn::Attribute, kind: &str, errors: &mut Errors) -> Option<Vec<Arg>> {
    let tokens = match &attr.meta {
        syn::Meta::Path(_) => TokenStream::new(),
        syn::Meta::List(list) => list.tokens.clone(),
        syn::Meta::NameValue(nv) => {
            errors.push(err(
                nv.span(),
                format!("write `#[{kind}(...)]`, not `#[{kind} = ...]`"),
            ));
            return None;
        }
    };
    errors.take(parse::args(tokens))
}

impl ExtensionAttr {
    pub fn parse(tokens: TokenStream, errors: &mut Errors) -> Option<Self> {
        let args = errors.take(parse::args(tokens))?;
        errors.extend(parse::check_keys(&args, "aep_extension", EXTENSION_KEYS));
        let args = Args(&args);
        let required = |key: &str, errors: &mut Errors| {
            if args.get(key).is_none() {
                errors.push(err(
                    Span::call_site(),
                    format!("`#[aep_extension]` needs `{key} = \"...\"`, e.g. #[aep_extension(id = \"acme.tools\", name = \"Tools\")]"),
                ));
            }
            args.text(key, errors)
        };
        Some(Self {
            id: required("id", errors),
            name: required("name", errors),
            version: args.text("version", errors),
            description: args.text("description", errors),
            mcp_server: args.string("mcp_server", errors),
            tool_switch: args
                .get("tool_switch")
                .and_then(|a| errors.take(field_name(a, "ToolSwitch", "switch"))),
            subscriptions: args
                .get("subscriptions")
                .and_then(|a| errors.take(field_name(a, "Subscriptions", "subscriptions"))),
            scopes: args.scopes(errors),
        })
    }
}

/// `key = field`: a plain identifier naming a field of the extension.
fn field_name(arg: &Arg, holds: &str, example: &str) -> syn::Result<syn::Ident> {
    if let parse::Value::Expr(expr) = &arg.value
        && let syn::Expr::Path(path) = &**expr
        && let Some(ident) = path.path.get_ident()
    {
        return Ok(ident.clone());
    }
    Err(err(
        arg.key.span(),
        format!(
            "`{}` names the extension's field that holds its `{holds}`, e.g. `{} = {example}`",
            arg.key, arg.key
        ),
    ))
}

impl ResourceAttr {
    pub fn parse(attr: &syn::Attribute, args: &[Arg], errors: &mut Errors) -> Self {
        errors.extend(parse::check_keys(args, "resource", RESOURCE_KEYS));
        let args = Args(args);
        let uri = args.get("uri").and_then(|a| errors.take(a.string()));
        let template = args.get("uri_template").and_then(|a| errors.take(a.string()));
        let uri = match (uri, template) {
            (Some(uri), None) => Some((uri, false)),
            (None, Some(template)) => Some((template, true)),
            (Some(_), Some(template)) => {
                errors.push(err(
                    template.span(),
                    "a `#[resource]` has either `uri = \"..\"` (one resource) or `uri_template = \"..\"` (a family of them), not both",
                ));
                None
            }
            (None, None) => {
                errors.push(err(
                    attr.span(),
                    "`#[resource]` needs `uri = \"docs://readme\"` or `uri_template = \"notes://{id}\"`",
                ));
                None
            }
        };
        Self {
            uri,
            name: args.string("name", errors),
            title: args.string("title", errors),
            description: args.text("description", errors),
            mime_type: args.string("mime_type", errors),
            server: args.string("server", errors),
            scopes: args.scopes(errors),
        }
    }
}

impl CompleteAttr {
    pub fn parse(attr: &syn::Attribute, args: &[Arg], errors: &mut Errors) -> Self {
        errors.extend(parse::check_keys(args, "complete", COMPLETE_KEYS));
        let args = Args(args);
        let string = |key: &str, errors: &mut Errors| args.get(key).and_then(|a| errors.take(a.string()));
        let (prompt, argument) = (string("prompt", errors), string("argument", errors));
        let (template, variable) = (string("template", errors), string("variable", errors));
        let shape = "`#[complete(prompt = \"name\", argument = \"arg\")]` or `#[complete(template = \"notes://{id}\", variable = \"id\")]`";
        let (target, name) = match (prompt, argument, template, variable) {
            (Some(prompt), Some(argument), None, None) => (Some((prompt, false)), Some(argument)),
            (None, None, Some(template), Some(variable)) => (Some((template, true)), Some(variable)),
            _ => {
                errors.push(err(
                    attr.span(),
                    format!("a completion names what it completes: {shape}"),
                ));
                (None, None)
            }
        };
        Self { target, name }
    }
}

impl PromptAttr {
    pub fn parse(args: &[Arg], errors: &mut Errors) -> Self {
        errors.extend(parse::check_keys(args, "prompt", PROMPT_KEYS));
        let args = Args(args);
        Self {
            name: args.get("name").and_then(|a| errors.take(a.string())),
            title: args.string("title", errors),
            description: args.text("description", errors),
            server: args.string("server", errors),
            scopes: args.scopes(errors),
        }
    }
}

impl ToolAttr {
    pub fn parse(args: &[Arg], errors: &mut Errors) -> Self {
        errors.extend(parse::check_keys(args, "tool", &TOOL_KEYS.concat()));
        let args = Args(args);
        Self {
            name: args.text("name", errors),
            id: args.text("id", errors),
            display_name: args.text("display_name", errors),
            description: args.text("description", errors),
            title: args.string("title", errors),
            server: args.string("server", errors),
            scopes: args.scopes(errors),
            metadata: args.metadata(errors),
            annotations: args.flags(&ANNOTATIONS, errors),
            timeout_ms: args
                .get("timeout")
                .and_then(|a| errors.take(a.string()))
                .and_then(|lit| {
                    let parsed = duration_ms(&lit.value());
                    errors.take(parsed.map_err(|why| err(lit.span(), why)))
                }),
            resets_on_progress: args
                .get("timeout_resets_on_progress")
                .and_then(|a| errors.take(a.flag()))
                .unwrap_or(false),
            input_schema: args.get("input_schema").and_then(|a| errors.take(a.expr())),
        }
    }
}

impl ProviderAttr {
    pub fn parse(attr: &syn::Attribute, args: &[Arg], errors: &mut Errors) -> Self {
        errors.extend(parse::check_keys(args, "model_provider", &PROVIDER_KEYS.concat()));
        let args = Args(args);
        if args.get("id").is_none() {
            errors.push(err(attr.span(), "`#[model_provider]` needs `id = \"...\"`, e.g. #[model_provider(id = \"echo\", display_name = \"Echo\")]"));
        }
        Self {
            id: args.text("id", errors),
            display_name: args.text("display_name", errors),
            models: args
                .get("models")
                .and_then(|a| errors.take(a.list()))
                .unwrap_or_default(),
            scopes: args.scopes(errors),
            metadata: args.metadata(errors),
            capabilities: args.flags(&PROVIDER_FLAGS, errors),
        }
    }
}

impl SiblingAttr {
    pub fn parse(attr: &syn::Attribute, kind: &str, args: &[Arg], errors: &mut Errors) -> Self {
        errors.extend(parse::check_keys(args, kind, SIBLING_KEYS));
        let args = Args(args);
        if args.get("provider").is_none() {
            errors.push(err(
                attr.span(),
                format!(
                    "`#[{kind}]` needs `provider = \"...\"`: the id of the `#[model_provider]` it belongs to"
                ),
            ));
        }
        Self {
            provider: args.text("provider", errors),
        }
    }
}

/// `#[option_set]` takes no arguments.
pub fn option_set(args: &[Arg], errors: &mut Errors) {
    errors.extend(parse::check_keys(args, "option_set", &[]));
}

/// A `timeout` in milliseconds, above zero, in the runtime's grammar (`500ms`, `30s`,
/// `1.5m`, `30`: see `aep_sdk_internals::duration`).
fn duration_ms(text: &str) -> Result<u64, String> {
    let duration =
        aep_sdk_internals::duration::parse(text).map_err(|why| format!("`timeout = \"{text}\"`: {why}"))?;
    match u64::try_from(duration.as_millis()) {
        Ok(0) => Err(format!("`timeout = \"{text}\"` must be at least 1ms")),
        Ok(ms) => Ok(ms),
        Err(_) => Err(format!("`timeout = \"{text}\"` is too long")),
    }
}
