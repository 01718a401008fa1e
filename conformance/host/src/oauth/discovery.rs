//! Where the authorization server is and what it offers, starting from a protected
//! resource (an MCP server's URL, an extension's base URL) and its 401 challenge:
//!
//! 1. Protected resource metadata (RFC 9728): the challenge's `resource_metadata`, then
//!    `/.well-known/oauth-protected-resource/<path>`, then the root form. Its `resource`
//!    must name this resource (same origin, a prefix of the path), else sign-in stops.
//! 2. Authorization server metadata for its first `authorization_servers` entry (RFC 8414
//!    and OpenID Connect Discovery with the path-insertion rule); the `issuer` must match.
//! 3. The 2025-03-26 fallbacks: no resource metadata at all means the resource's own
//!    origin is the authorization server (its metadata at the root, issuer unchecked);
//!    no authorization server metadata means `/authorize`, `/token`, `/register`.

use serde::de::DeserializeOwned;
use url::Url;

use super::challenge::Challenge;
use super::metadata::{ResourceMetadata, ServerMetadata};
use crate::error::{ErrorCode, HostError, Result};

/// What sign-in works with.
#[derive(Debug, Clone)]
pub struct Discovery {
    /// The `resource` parameter (RFC 8707): the metadata's `resource`, or the canonical
    /// URL of the resource when it published none.
    pub resource: String,
    /// The resource metadata's `scopes_supported`.
    pub resource_scopes: Option<Vec<String>>,
    /// The authorization server's issuer identifier.
    pub issuer: String,
    /// Its endpoints and capabilities.
    pub metadata: ServerMetadata,
}

/// The canonical URI of a resource (MCP authorization, RFC 8707): no fragment, no query,
/// and no trailing `/` for the root.
pub fn canonical(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    url.set_query(None);
    let text = url.to_string();
    if url.path() == "/" {
        text.trim_end_matches('/').to_owned()
    } else {
        text
    }
}

/// Discovers the authorization server of `target` (see the module documentation).
pub async fn discover(
    http: &reqwest::Client,
    target: &Url,
    challenge: Option<&Challenge>,
) -> Result<Discovery> {
    match resource_metadata(http, target, challenge).await? {
        Some((at, prm)) => {
            let resource = check_resource(target, &at, prm.resource.as_deref())?;
            let Some(issuer) = prm.authorization_servers.first() else {
                return Err(failed(format!(
                    "the protected resource metadata at {at} lists no authorization_servers"
                )));
            };
            let issuer_url = Url::parse(issuer).map_err(|e| {
                failed(format!(
                    "the protected resource metadata at {at} names the authorization server '{issuer}', not a URL: {e}"
                ))
            })?;
            let metadata = server_metadata(http, &issuer_url, true).await?;
            Ok(Discovery {
                resource,
                resource_scopes: prm.scopes_supported,
                issuer: issuer.clone(),
                metadata,
            })
        }
        None => {
            // 2025-03-26: the MCP server's origin is its authorization server.
            let origin = target.join("/").map_err(|e| failed(format!("{target}: {e}")))?;
            tracing::debug!(%target, "no protected resource metadata; trying the origin as authorization server");
            let metadata = server_metadata(http, &origin, false).await?;
            Ok(Discovery {
                resource: canonical(target),
                resource_scopes: None,
                issuer: canonical(&origin),
                metadata,
            })
        }
    }
}

/// The first protected resource metadata document found, with its URL.
async fn resource_metadata(
    http: &reqwest::Client,
    target: &Url,
    challenge: Option<&Challenge>,
) -> Result<Option<(Url, ResourceMetadata)>> {
    let mut candidates = Vec::new();
    if let Some(value) = challenge.and_then(Challenge::resource_metadata) {
        match target.join(value) {
            Ok(url) if url.scheme() == "https" || target.scheme() == "http" => candidates.push(url),
            Ok(url) => tracing::warn!(%url, "ignoring resource_metadata: it would downgrade from https"),
            Err(e) => tracing::warn!("ignoring resource_metadata '{value}': {e}"),
        }
    }
    let path = target.path().trim_end_matches('/');
    for suffix in [path, ""] {
        if let Ok(url) = target.join(&format!("/.well-known/oauth-protected-resource{suffix}"))
            && !candidates.contains(&url)
        {
            candidates.push(url);
        }
    }
    for url in candidates {
        if let Some(document) = fetch::<ResourceMetadata>(http, &url).await? {
            return Ok(Some((url, document)));
        }
    }
    Ok(None)
}

/// The `resource` to send, once the metadata's own is checked against `target`.
fn check_resource(target: &Url, at: &Url, resource: Option<&str>) -> Result<String> {
    let Some(resource) = resource else {
        return Ok(canonical(target));
    };
    let parsed = Url::parse(resource).ok();
    let matches = parsed.as_ref().is_some_and(|r| {
        let prefix = r.path().trim_end_matches('/');
        r.fragment().is_none()
            && r.scheme() == target.scheme()
            && r.host_str() == target.host_str()
            && r.port_or_known_default() == target.port_or_known_default()
            && (target.path().trim_end_matches('/') == prefix
                || target.path().starts_with(&format!("{prefix}/")))
    });
    if !matches {
        return Err(failed(format!(
            "the protected resource metadata at {at} is for '{resource}', not for {target}: \
             refusing to sign in (a token for it must not be sent here, RFC 9728 section 3.3)"
        )));
    }
    Ok(resource.to_owned())
}

/// The authorization server metadata of `issuer`, or the 2025-03-26 default endpoints.
async fn server_metadata(http: &reqwest::Client, issuer: &Url, check_issuer: bool) -> Result<ServerMetadata> {
    for url in metadata_urls(issuer) {
        let Some(metadata) = fetch::<ServerMetadata>(http, &url).await? else {
            continue;
        };
        if check_issuer && !same_issuer(metadata.issuer.as_deref(), issuer) {
            return Err(failed(format!(
                "the authorization server metadata at {url} names the issuer '{}', not {issuer} (RFC 8414 section 3.3)",
                metadata.issuer.as_deref().unwrap_or("<none>")
            )));
        }
        return Ok(metadata);
    }
    tracing::debug!(%issuer, "no authorization server metadata; using /authorize, /token and /register");
    Ok(ServerMetadata::defaults(issuer))
}

/// RFC 8414 section 3.1 and OpenID Connect Discovery: for an issuer with a path, the
/// well-known segment goes before the path (and, for OpenID Connect, also after it).
pub fn metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    let paths = if path.is_empty() {
        vec![
            "/.well-known/oauth-authorization-server".to_owned(),
            "/.well-known/openid-configuration".to_owned(),
        ]
    } else {
        vec![
            format!("/.well-known/oauth-authorization-server{path}"),
            format!("/.well-known/openid-configuration{path}"),
            format!("{path}/.well-known/openid-configuration"),
        ]
    };
    paths.iter().filter_map(|p| issuer.join(p).ok()).collect()
}

fn same_issuer(named: Option<&str>, expected: &Url) -> bool {
    let trimmed = |u: &Url| u.as_str().trim_end_matches('/').to_owned();
    named
        .and_then(|n| Url::parse(n).ok())
        .is_some_and(|n| trimmed(&n) == trimmed(expected))
}

/// GETs a JSON document: `None` when the server has none there (any 4xx).
async fn fetch<T: DeserializeOwned>(http: &reqwest::Client, url: &Url) -> Result<Option<T>> {
    let response = http
        .get(url.clone())
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| failed(format!("{url}: {}", aep_sdk::client::error_chain(&e))))?;
    let status = response.status();
    if status.is_client_error() {
        tracing::debug!(%url, status = status.as_u16(), "no metadata here");
        return Ok(None);
    }
    if !status.is_success() {
        return Err(failed(format!("{url}: HTTP {}", status.as_u16())));
    }
    let body = response
        .bytes()
        .await
        .map_err(|e| failed(format!("{url}: {}", aep_sdk::client::error_chain(&e))))?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| failed(format!("{url}: not a metadata document: {e}")))
}

pub(super) fn failed(message: String) -> HostError {
    HostError::new(ErrorCode::AuthorizationFailed, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn path_insertion_for_tenants_and_the_root_form_without() {
        let paths: Vec<String> = metadata_urls(&url("https://as.example/tenant1"))
            .iter()
            .map(|u| u.path().to_owned())
            .collect();
        assert_eq!(
            paths,
            [
                "/.well-known/oauth-authorization-server/tenant1",
                "/.well-known/openid-configuration/tenant1",
                "/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(metadata_urls(&url("https://as.example")).len(), 2);
    }

    #[test]
    fn the_resource_must_name_this_server() {
        let target = url("http://127.0.0.1:9/mcp");
        let at = url("http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp");
        assert_eq!(
            check_resource(&target, &at, Some("http://127.0.0.1:9/mcp")).unwrap(),
            "http://127.0.0.1:9/mcp"
        );
        assert!(check_resource(&target, &at, Some("http://127.0.0.1:9")).is_ok());
        assert!(check_resource(&target, &at, Some("https://evil.example.com/mcp")).is_err());
        assert!(check_resource(&target, &at, Some("http://127.0.0.1:9/mc")).is_err());
        assert_eq!(
            check_resource(&target, &at, None).unwrap(),
            "http://127.0.0.1:9/mcp"
        );
        assert_eq!(canonical(&url("http://h:1/#x")), "http://h:1");
    }
}
