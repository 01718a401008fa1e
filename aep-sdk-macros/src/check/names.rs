//! What names name: literal ids and names are unique (expressions are checked by
//! `build()` when the extension starts), and each completion completes something there.

use crate::ctxt::{Ctxt, err};
use crate::model::Extension;

/// Duplicate tool ids, MCP tool names, provider ids, resource URIs (or templates) and
/// prompt names; an MCP name is taken only on its server.
pub fn unique(cx: &Ctxt, model: &Extension) {
    for (i, tool) in model.tools.iter().enumerate() {
        let (earlier, attrs) = (&model.tools[..i], &tool.attrs);
        if let Some(id) = attrs.id.literal()
            && earlier
                .iter()
                .any(|t| t.attrs.id.literal().as_deref() == Some(&id))
        {
            cx.push(err(
                attrs.id.span(),
                format!("duplicate tool contribution id \"{id}\": give this tool another `id = \"...\"`"),
            ));
        }
        let server = model.server(&attrs.server);
        if let Some(name) = attrs.name.literal()
            && earlier.iter().any(|t| {
                t.attrs.name.literal().as_deref() == Some(&name) && model.server(&t.attrs.server) == server
            })
        {
            cx.push(err(
                attrs.name.span(),
                format!(
                    "duplicate MCP tool name \"{name}\" on server \"{server}\": give this tool another `name = \"...\"` or put it on another `server = \"...\"`"
                ),
            ));
        }
    }
    for (i, provider) in model.providers.iter().enumerate() {
        let id = &provider.attrs.id;
        let Some(literal) = id.literal() else { continue };
        if model.providers[..i].iter().any(|p| p.attrs.id.same(id, true)) {
            cx.push(err(
                id.span(),
                format!("duplicate model provider id \"{literal}\" (provider ids match case-insensitively)"),
            ));
        }
    }
    for (i, resource) in model.resources.iter().enumerate() {
        let attrs = &resource.attrs;
        let (server, uri) = (model.server(&attrs.server), attrs.uri.value());
        if model.resources[..i]
            .iter()
            .any(|r| r.attrs.uri.value() == uri && model.server(&r.attrs.server) == server)
        {
            let what = match attrs.is_template {
                true => "URI template",
                false => "resource URI",
            };
            cx.push(err(
                attrs.uri.span(),
                format!("duplicate {what} \"{uri}\" on server \"{server}\": each resource needs its own"),
            ));
        }
    }
    for (i, prompt) in model.prompts.iter().enumerate() {
        let attrs = &prompt.attrs;
        let (server, name) = (model.server(&attrs.server), attrs.name.value());
        if model.prompts[..i]
            .iter()
            .any(|p| p.attrs.name.value() == name && model.server(&p.attrs.server) == server)
        {
            cx.push(err(
                attrs.name.span(),
                format!("duplicate prompt name \"{name}\" on server \"{server}\": give this prompt another `name = \"...\"`"),
            ));
        }
    }
}

/// Each completion names a prompt argument or template variable that exists.
pub fn completions(cx: &Ctxt, model: &Extension) {
    for completion in &model.completions {
        let attrs = &completion.attrs;
        let (target, name) = (attrs.target.value(), attrs.name.value());
        let params = match attrs.is_template {
            true => model
                .resources
                .iter()
                .find(|r| r.attrs.is_template && r.attrs.uri.value() == target)
                .map(|r| &r.params),
            false => model
                .prompts
                .iter()
                .find(|p| p.attrs.name.value() == target)
                .map(|p| &p.params),
        };
        let names: Option<Vec<String>> = params.map(|params| {
            params
                .iter()
                .filter(|p| !p.is_context)
                .map(|p| p.name.to_string())
                .collect()
        });
        let (what, part) = match attrs.is_template {
            true => ("resource template", "variable"),
            false => ("prompt", "argument"),
        };
        match names {
            None => cx.push(err(
                attrs.target.span(),
                format!("no {what} \"{target}\" in this impl to complete"),
            )),
            Some(names) if !names.contains(&name) => {
                let has = match names.is_empty() {
                    true => "none".to_owned(),
                    false => names.join(", "),
                };
                cx.push(err(
                    attrs.name.span(),
                    format!("{what} \"{target}\" has no {part} `{name}`; it has: {has}"),
                ));
            }
            Some(_) => {}
        }
    }
}
