//! The refusals, as RFC 6750 and the MCP authorization specification word them: a 401
//! with `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` (and
//! `error="invalid_token"` when a token was sent), a 403 `insufficient_scope` naming the
//! scopes to step up to, a 503 when a token cannot be checked now; each with the body of
//! the route's family (an AEP error, or a JSON-RPC error on MCP endpoints).

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};

use crate::AepError;
use crate::error::codes;

/// Which body a refusal carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Aep,
    Mcp,
}

/// A parameter value for a `WWW-Authenticate` quoted string: no quote, no backslash,
/// printable ASCII only (RFC 6750 section 3).
fn quoted(value: &str) -> String {
    value
        .chars()
        .map(|c| if c == '"' { '\'' } else { c })
        .filter(|c| (c.is_ascii_graphic() || *c == ' ') && *c != '\\')
        .take(300)
        .collect()
}

/// `Bearer k="v", ...` from the parameters given.
fn bearer(params: &[(&str, &str)]) -> HeaderValue {
    let params: Vec<String> = params
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}=\"{}\"", quoted(v)))
        .collect();
    let value = if params.is_empty() {
        "Bearer".to_owned()
    } else {
        format!("Bearer {}", params.join(", "))
    };
    HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
}

fn body(family: Family, status: StatusCode, code: &str, message: &str) -> Response {
    match family {
        Family::Mcp => crate::server::jsonrpc::refused(status, message),
        Family::Aep => AepError::new(status, code, message).into_response(),
    }
}

/// 401: no token, or `invalid` says why the token sent is not good. `metadata_url` is
/// the protected resource metadata (none with static tokens only); `scopes` are what
/// the request needs.
pub(crate) fn unauthorized(
    family: Family,
    metadata_url: Option<&str>,
    scopes: &[String],
    invalid: Option<&str>,
) -> Response {
    let scope = scopes.join(" ");
    let message = match invalid {
        Some(reason) => format!("invalid access token: {reason}"),
        None if metadata_url.is_some() => {
            "an access token is required (Authorization: Bearer); see WWW-Authenticate for where to get one"
                .to_owned()
        }
        None => "missing or invalid bearer token".to_owned(),
    };
    let mut params = vec![];
    if invalid.is_some() {
        params.push(("error", "invalid_token"));
        params.push(("error_description", invalid.unwrap_or_default()));
    }
    params.push(("resource_metadata", metadata_url.unwrap_or_default()));
    params.push(("scope", &scope));
    let mut response = body(family, StatusCode::UNAUTHORIZED, codes::UNAUTHORIZED, &message);
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, bearer(&params));
    response
}

/// 403 `insufficient_scope`: the token lacks `missing`; `scopes` (what the token has
/// and what the request needs) is what to ask for, so no granted scope is lost.
pub(crate) fn insufficient_scope(
    family: Family,
    metadata_url: &str,
    scopes: &[String],
    missing: &[String],
) -> Response {
    let description = format!("this request needs scope {}", missing.join(" "));
    let scope = scopes.join(" ");
    let params = [
        ("error", "insufficient_scope"),
        ("scope", scope.as_str()),
        ("resource_metadata", metadata_url),
        ("error_description", description.as_str()),
    ];
    let mut response = body(
        family,
        StatusCode::FORBIDDEN,
        codes::INSUFFICIENT_SCOPE,
        &description,
    );
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, bearer(&params));
    response
}

/// 503: the token cannot be checked now (its authorization server is unreachable or
/// misbehaves); the caller may retry later.
#[cfg(feature = "oauth")]
pub(crate) fn unavailable(family: Family, reason: &str) -> Response {
    let message = format!("the access token cannot be checked now: {reason}");
    let mut response = body(
        family,
        StatusCode::SERVICE_UNAVAILABLE,
        codes::AUTHORIZATION_UNAVAILABLE,
        &message,
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn challenge(response: &Response) -> &str {
        response.headers()[header::WWW_AUTHENTICATE].to_str().unwrap()
    }

    #[test]
    fn challenges_as_the_specification_words_them() {
        let url = "https://ext.example/.well-known/oauth-protected-resource/mcp";
        let scopes = vec!["files:read".to_owned()];
        let none = unauthorized(Family::Mcp, Some(url), &scopes, None);
        assert_eq!(none.status(), 401);
        assert_eq!(
            challenge(&none),
            format!("Bearer resource_metadata=\"{url}\", scope=\"files:read\"")
        );
        let bad = unauthorized(Family::Aep, Some(url), &[], Some("the token has \"expired\""));
        assert_eq!(
            challenge(&bad),
            format!(
                "Bearer error=\"invalid_token\", error_description=\"the token has 'expired'\", resource_metadata=\"{url}\""
            )
        );
        let forbidden = insufficient_scope(Family::Mcp, url, &["a".into(), "b".into()], &["b".into()]);
        assert_eq!(forbidden.status(), 403);
        assert!(challenge(&forbidden).starts_with("Bearer error=\"insufficient_scope\", scope=\"a b\""));
        assert_eq!(challenge(&unauthorized(Family::Aep, None, &[], None)), "Bearer");
    }
}
