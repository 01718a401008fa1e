//! `scopes = [..]` lists.

use crate::attr::Scopes;
use crate::ctxt::{Ctxt, err};

/// A `scopes = [..]` list: at least one scope, each an RFC 6749 scope token, none twice.
pub fn check(cx: &Ctxt, Scopes { key, list }: &Scopes) {
    if list.is_empty() {
        cx.push(err(
            *key,
            "`scopes` names no scope: drop `scopes = []`, or name at least one",
        ));
    }
    for (i, lit) in list.iter().enumerate() {
        let scope = lit.value();
        if let Err(why) = scope_token(&scope) {
            cx.push(err(lit.span(), why));
        } else if list[..i].iter().any(|earlier| earlier.value() == scope) {
            cx.push(err(
                lit.span(),
                format!("scope {scope:?} is listed twice: drop one"),
            ));
        }
    }
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
