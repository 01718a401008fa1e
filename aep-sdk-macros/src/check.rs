//! Checks across items: each sibling method finds its provider, and literal ids and
//! names are unique (expressions are checked by `build()` when the extension starts);
//! and each `scopes = [..]` list.

use syn::LitStr;

use crate::attr::ScopesArg;
use crate::ctxt::{Errors, err};
use crate::helper::SiblingKind;
use crate::model::{Completion, PendingSibling, Prompt, Provider, Resource, Tool};

pub fn attach_siblings(providers: &mut [Provider], siblings: Vec<PendingSibling>, errors: &mut Errors) {
    for pending in siblings {
        let id = pending.provider.shown();
        let Some(provider) = providers.iter_mut().find(|p| p.id.same(&pending.provider, true)) else {
            errors.push(err(
                pending.provider.span(),
                format!(
                    "provider \"{id}\" has no streaming method: add `#[model_provider(id = \"{id}\")]` to an `async fn` that returns `Result<ChatStream, AepError>`"
                ),
            ));
            continue;
        };
        if pending.kind == SiblingKind::Chat && provider.one_shot {
            errors.push(err(
                pending.sibling.method.span(),
                format!(
                    "provider \"{id}\" already answers in one piece (its `#[model_provider]` method returns `ChatResponse`): remove this `#[chat]` method"
                ),
            ));
            continue;
        }
        let slot = match pending.kind {
            SiblingKind::Chat => &mut provider.chat,
            SiblingKind::Models => &mut provider.list_models,
            SiblingKind::Health => &mut provider.health,
        };
        if slot.is_some() {
            errors.push(err(
                pending.sibling.method.span(),
                format!(
                    "provider \"{id}\" already has a `#[{}]` method",
                    pending.kind.name()
                ),
            ));
        } else {
            *slot = Some(pending.sibling);
        }
    }
}

/// Duplicate ids and names among literals (expressions are checked by `build()` when the
/// extension starts).
pub fn check_duplicates(tools: &[Tool], providers: &[Provider], default_server: &str, errors: &mut Errors) {
    for (i, tool) in tools.iter().enumerate() {
        let earlier = &tools[..i];
        if let Some(id) = tool.contribution_id.literal()
            && earlier
                .iter()
                .any(|t| t.contribution_id.literal().as_deref() == Some(&id))
        {
            errors.push(err(
                tool.contribution_id.span(),
                format!("duplicate tool contribution id \"{id}\": give this tool another `id = \"...\"`"),
            ));
        }
        let server = tool.server.as_deref().unwrap_or(default_server);
        if let Some(name) = tool.mcp_name.literal()
            && earlier.iter().any(|t| {
                t.mcp_name.literal().as_deref() == Some(&name)
                    && t.server.as_deref().unwrap_or(default_server) == server
            })
        {
            errors.push(err(
                tool.mcp_name.span(),
                format!(
                    "duplicate MCP tool name \"{name}\" on server \"{server}\": give this tool another `name = \"...\"` or put it on another `server = \"...\"`"
                ),
            ));
        }
    }
    for (i, provider) in providers.iter().enumerate() {
        let Some(id) = provider.id.literal() else { continue };
        if providers[..i].iter().any(|p| p.id.same(&provider.id, true)) {
            errors.push(err(
                provider.id.span(),
                format!("duplicate model provider id \"{id}\" (provider ids match case-insensitively)"),
            ));
        }
    }
}

/// Duplicate resource URIs (or templates) and prompt names on one MCP server.
pub fn check_surface_duplicates(
    resources: &[Resource],
    prompts: &[Prompt],
    default_server: &str,
    errors: &mut Errors,
) {
    for (i, resource) in resources.iter().enumerate() {
        let server = resource.server.as_deref().unwrap_or(default_server);
        let uri = resource.uri.value();
        if resources[..i]
            .iter()
            .any(|r| r.uri.value() == uri && r.server.as_deref().unwrap_or(default_server) == server)
        {
            let what = if resource.is_template {
                "URI template"
            } else {
                "resource URI"
            };
            errors.push(err(
                resource.uri.span(),
                format!("duplicate {what} \"{uri}\" on server \"{server}\": each resource needs its own"),
            ));
        }
    }
    for (i, prompt) in prompts.iter().enumerate() {
        let server = prompt.server.as_deref().unwrap_or(default_server);
        let name = prompt.name.value();
        if prompts[..i]
            .iter()
            .any(|p| p.name.value() == name && p.server.as_deref().unwrap_or(default_server) == server)
        {
            errors.push(err(
                prompt.name.span(),
                format!("duplicate prompt name \"{name}\" on server \"{server}\": give this prompt another `name = \"...\"`"),
            ));
        }
    }
}

/// Each completion names a prompt argument or template variable that exists.
pub fn check_completions(
    completions: &[Completion],
    resources: &[Resource],
    prompts: &[Prompt],
    errors: &mut Errors,
) {
    for completion in completions {
        let target = completion.target.value();
        let name = completion.name.value();
        let names: Option<Vec<String>> = if completion.is_template {
            resources
                .iter()
                .find(|r| r.is_template && r.uri.value() == target)
                .map(|r| {
                    r.params
                        .iter()
                        .filter(|p| !p.is_context)
                        .map(|p| p.name.to_string())
                        .collect()
                })
        } else {
            prompts.iter().find(|p| p.name.value() == target).map(|p| {
                p.params
                    .iter()
                    .filter(|p| !p.is_context)
                    .map(|p| p.name.to_string())
                    .collect()
            })
        };
        let what = if completion.is_template {
            "resource template"
        } else {
            "prompt"
        };
        match names {
            None => errors.push(err(
                completion.target.span(),
                format!("no {what} \"{target}\" in this impl to complete"),
            )),
            Some(names) if !names.contains(&name) => errors.push(err(
                completion.name.span(),
                format!(
                    "{what} \"{target}\" has no {} `{name}`; it has: {}",
                    if completion.is_template {
                        "variable"
                    } else {
                        "argument"
                    },
                    if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    }
                ),
            )),
            Some(_) => {}
        }
    }
}

/// A `scopes = [..]` list: at least one scope, each an RFC 6749 scope token, none twice.
/// The list is kept as written whatever is wrong (an error stops the expansion anyway).
pub fn scopes(written: ScopesArg, errors: &mut Errors) -> Vec<LitStr> {
    let Some((key, list)) = written else {
        return Vec::new();
    };
    if list.is_empty() {
        errors.push(err(
            key,
            "`scopes` names no scope: drop `scopes = []`, or name at least one",
        ));
    }
    for (i, lit) in list.iter().enumerate() {
        let scope = lit.value();
        if let Err(why) = scope_token(&scope) {
            errors.push(err(lit.span(), why));
        } else if list[..i].iter().any(|earlier| earlier.value() == scope) {
            errors.push(err(
                lit.span(),
                format!("scope {scope:?} is listed twice: drop one"),
            ));
        }
    }
    list
}

/// Why `scope` is not a scope token (RFC 6749 section 3.3: `1*( %x21 / %x23-5B / %x5D-7E )`).
/// No spaces: a token's `scope` claim is its scopes joined by spaces.
fn scope_token(scope: &str) -> Result<(), String> {
    let parts: Vec<String> = scope.split_whitespace().map(|p| format!("{p:?}")).collect();
    if parts.is_empty() {
        return Err("an empty scope: name one, e.g. \"files:read\", or drop the string".into());
    }
    if scope.contains(char::is_whitespace) {
        return Err(format!(
            "scope {scope:?} has a space: write `scopes = [{}]`, one scope per string",
            parts.join(", ")
        ));
    }
    match scope
        .chars()
        .find(|&c| !('\x21'..='\x7e').contains(&c) || c == '"' || c == '\\')
    {
        Some(c) => {
            // A control character would not show: escaped; anything else as typed.
            let shown = match c.is_control() {
                true => c.escape_debug().to_string(),
                false => c.to_string(),
            };
            Err(format!(
                "scope {scope:?} contains `{shown}`: a scope is printable ASCII but for space, `\"` and `\\` (RFC 6749 section 3.3)"
            ))
        }
        None => Ok(()),
    }
}
