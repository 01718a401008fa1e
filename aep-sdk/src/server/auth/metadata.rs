//! Protected resource metadata (RFC 9728): one document per resource, at
//! `/.well-known/oauth-protected-resource` followed by the resource's path (the AEP
//! routes' resource is the base, so its document is at the bare well-known path).

use axum::Router;
use axum::response::IntoResponse;
use axum::routing::get;
use bytes::Bytes;
use url::Url;

use super::resource_server::{Resource, ResourceServer, canonical};
use super::scopes::ScopePolicy;

/// The well-known prefix of RFC 9728.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The resource at `path` below the public base URL `base`.
pub(crate) fn resource(base: &Url, path: &str) -> Resource {
    let prefix = base.path().trim_end_matches('/');
    let mut at = base.clone();
    at.set_query(None);
    at.set_fragment(None);
    at.set_path(&format!("{prefix}{path}"));
    let id = canonical(at.as_str());
    let metadata_path = format!("{WELL_KNOWN}{prefix}{path}");
    at.set_path(&metadata_path);
    Resource {
        id,
        metadata_url: at.as_str().trim_end_matches('/').to_owned(),
        metadata_path,
    }
}

/// The metadata document of `resource`, whose requests may need `scopes`.
fn document(server: &ResourceServer, resource: &Resource, scopes: &[String]) -> Bytes {
    let mut document = serde_json::json!({
        "resource": resource.id,
        "authorization_servers": server.issuers.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
        "bearer_methods_supported": ["header"],
        "resource_name": server.name,
    });
    if !scopes.is_empty() {
        document["scopes_supported"] = scopes.into();
    }
    Bytes::from(serde_json::to_vec(&document).unwrap_or_default())
}

/// The metadata routes of every resource. They need no token (a client reads them to
/// learn how to get one) and, like every route, follow the origin rule and CORS.
/// A resource's document is also served without the public URL's path, for proxies
/// that strip it.
pub(crate) fn routes(server: &ResourceServer, policy: &ScopePolicy) -> Router {
    let mut router = Router::new();
    let mut add = |resource: &Resource, local_path: &str, scopes: Vec<String>| {
        let body = document(server, resource, &scopes);
        let serve = move || {
            let body = body.clone();
            async move { ([(http::header::CONTENT_TYPE, "application/json")], body).into_response() }
        };
        let mut paths = vec![
            resource.metadata_path.clone(),
            format!("{WELL_KNOWN}{local_path}"),
        ];
        paths.dedup();
        for path in paths {
            router = std::mem::take(&mut router).route(&path, get(serve.clone()));
        }
    };
    let providers = policy.providers.values().flatten().map(String::as_str);
    add(&server.base, "", policy.supported(providers));
    for (path, resource) in &server.mcp {
        let own = policy
            .mcp
            .get(path)
            .map(|t| t.all().map(str::to_owned).collect::<Vec<_>>());
        add(
            resource,
            path,
            policy.supported(own.iter().flatten().map(String::as_str)),
        );
    }
    router
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_and_their_metadata_urls() {
        let base = Url::parse("https://Ext.Example/").unwrap();
        let r = resource(&base, "");
        assert_eq!(r.id, "https://ext.example");
        assert_eq!(
            r.metadata_url,
            "https://ext.example/.well-known/oauth-protected-resource"
        );
        let r = resource(&base, "/mcp");
        assert_eq!(r.id, "https://ext.example/mcp");
        assert_eq!(
            r.metadata_url,
            "https://ext.example/.well-known/oauth-protected-resource/mcp"
        );
        let prefixed = Url::parse("https://gw.example/ext1/").unwrap();
        let r = resource(&prefixed, "/mcp");
        assert_eq!(r.id, "https://gw.example/ext1/mcp");
        assert_eq!(r.metadata_path, "/.well-known/oauth-protected-resource/ext1/mcp");
    }
}
