//! Protected resource metadata (RFC 9728): one document per resource, at
//! `/.well-known/oauth-protected-resource` followed by the resource's path (the AEP
//! routes' resource is the base, so its document is at the bare well-known path).

use super::resource_server::{Resource, ResourceServer, WELL_KNOWN};
use super::scopes::ScopePolicy;
use axum::Router;
use axum::response::IntoResponse;
use axum::routing::get;
use bytes::Bytes;

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
