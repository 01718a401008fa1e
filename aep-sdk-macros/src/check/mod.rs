//! The rules, in one pass over the finished model: what `attr` read is well formed, so
//! what is left is what one value says beyond its kind (a scope's grammar, a template's)
//! and what values say together (a template and its method's parameters, a sibling and
//! its provider, names unique on a server, a completion and what it completes).

mod names;
mod scopes;

use syn::LitStr;

use crate::ctxt::{Ctxt, err};
use crate::helper::SiblingKind;
use crate::model::{Extension, Resource};

pub fn check(cx: &Ctxt, model: &Extension) {
    let lists = std::iter::once(&model.attrs.scopes)
        .chain(model.tools.iter().map(|t| &t.attrs.scopes))
        .chain(model.resources.iter().map(|r| &r.attrs.scopes))
        .chain(model.prompts.iter().map(|p| &p.attrs.scopes))
        .chain(model.providers.iter().map(|p| &p.attrs.scopes));
    for list in lists.flatten() {
        scopes::check(cx, list);
    }
    for resource in &model.resources {
        template(cx, resource);
    }
    siblings(cx, model);
    names::unique(cx, model);
    names::completions(cx, model);
}

/// A fixed URI takes no parameters; a template's variables (by the grammar the runtime's
/// `UriTemplate::parse` uses, so a template that compiles also parses) and the method's
/// parameters are the same names.
fn template(cx: &Ctxt, resource: &Resource) {
    let uri = &resource.attrs.uri;
    let variables = match resource.attrs.is_template {
        true => match template_variables(uri) {
            Ok(variables) => variables,
            Err(why) => return cx.push(err(uri.span(), why)),
        },
        false => Vec::new(),
    };
    let params: Vec<_> = resource.params.iter().filter(|p| !p.is_context).collect();
    for param in &params {
        if !variables.iter().any(|v| param.name == v) {
            let why = match resource.attrs.is_template {
                true => format!(
                    "parameter `{}` is not a variable of the template \"{}\": add `{{{}}}` to it or remove the parameter",
                    param.name,
                    uri.value(),
                    param.name
                ),
                false => "a `#[resource(uri = ..)]` method takes no parameters besides a `ToolContext`; for a URI with variables use `uri_template = \"scheme://{name}\"`".to_owned(),
            };
            cx.push(err(param.name.span(), why));
        }
    }
    for variable in &variables {
        if !params.iter().any(|p| p.name == variable) {
            cx.push(err(
                uri.span(),
                format!(
                    "template variable `{{{variable}}}` has no parameter: add `{variable}: String` (or another `FromStr` type) to `{}`",
                    resource.method
                ),
            ));
        }
    }
}

fn template_variables(template: &LitStr) -> Result<Vec<String>, String> {
    let parts = aep_sdk_internals::uri_template::parse(&template.value())?;
    Ok(aep_sdk_internals::uri_template::variables(&parts)
        .map(str::to_owned)
        .collect())
}

/// Each `#[chat]`, `#[models]` and `#[health]` method names a provider that exists and
/// has no other of its kind; a one-shot provider takes no `#[chat]`.
fn siblings(cx: &Ctxt, model: &Extension) {
    for (i, sibling) in model.siblings.iter().enumerate() {
        let named = &sibling.attrs.provider;
        let id = named.shown();
        let Some(provider) = model.providers.iter().find(|p| p.attrs.id.same(named, true)) else {
            cx.push(err(
                named.span(),
                format!(
                    "provider \"{id}\" has no streaming method: add `#[model_provider(id = \"{id}\")]` to an `async fn` that returns `Result<ChatStream, AepError>`"
                ),
            ));
            continue;
        };
        if sibling.kind == SiblingKind::Chat && provider.one_shot {
            cx.push(err(
                sibling.method.span(),
                format!(
                    "provider \"{id}\" already answers in one piece (its `#[model_provider]` method returns `ChatResponse`): remove this `#[chat]` method"
                ),
            ));
        } else if model.siblings[..i].iter().any(|earlier| {
            earlier.kind == sibling.kind && provider.attrs.id.same(&earlier.attrs.provider, true)
        }) {
            cx.push(err(
                sibling.method.span(),
                format!(
                    "provider \"{id}\" already has a `#[{}]` method",
                    sibling.kind.name()
                ),
            ));
        }
    }
}
