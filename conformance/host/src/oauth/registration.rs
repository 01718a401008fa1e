//! Who the client is to the authorization server: a pre-registered client, a Client ID
//! Metadata Document URL (when the server says `client_id_metadata_document_supported`),
//! a client registered dynamically before (kept in the token store), or a new dynamic
//! registration (RFC 7591).

use serde::Deserialize;
use serde_json::json;
use url::Url;

use super::auth_method::AuthMethod;
use super::challenge::split_scopes;
use super::discovery::{Discovery, failed};
use super::options::OAuthOptions;
use super::secret::Secret;
use super::store::StoredClient;
use crate::error::Result;

#[derive(Deserialize)]
struct Registered {
    client_id: String,
    #[serde(default)]
    client_secret: Option<Secret>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
    #[serde(default)]
    scope: Option<String>,
}

/// The client for an authorization code grant redirecting to `redirect_uri`.
pub async fn client_for(
    http: &reqwest::Client,
    options: &OAuthOptions,
    discovery: &Discovery,
    redirect_uri: &Url,
    scopes: &[String],
) -> Result<StoredClient> {
    let metadata = &discovery.metadata;
    if let Some(client) = preregistered(options, discovery)? {
        return Ok(client);
    }
    if let Some(url) = &options.client_metadata_url
        && metadata.client_id_metadata_document_supported
    {
        return Ok(StoredClient {
            client_id: url.to_string(),
            client_secret: None,
            auth_method: AuthMethod::None,
            redirect_uri: None,
            scope: None,
        });
    }
    let known = options.store.client(&discovery.issuer)?.filter(|known| {
        known
            .redirect_uri
            .as_deref()
            .is_some_and(|uri| same_redirect(uri, redirect_uri))
    });
    // A client registered for fewer scopes may not ask for more (oidc-provider answers
    // `invalid_scope`, e.g. on a step-up, or for another resource of the same server):
    // then register again, for the scopes it had and those asked now.
    let mut wanted = Vec::new();
    if let Some(known) = known {
        let Some(registered) = &known.scope else {
            return Ok(known);
        };
        wanted = split_scopes(registered);
        if scopes.iter().all(|s| wanted.contains(s)) {
            return Ok(known);
        }
    }
    for scope in scopes {
        if !wanted.contains(scope) {
            wanted.push(scope.clone());
        }
    }
    let Some(endpoint) = &metadata.registration_endpoint else {
        return Err(failed(format!(
            "the authorization server {} offers no dynamic client registration{}: \
             give a pre-registered client (--oauth-client-id, --oauth-client-secret-file)",
            discovery.issuer,
            if options.client_metadata_url.is_some() {
                " and no client ID metadata documents"
            } else {
                ""
            }
        )));
    };
    let client = register(http, options, discovery, endpoint, redirect_uri, &wanted).await?;
    options.store.save_client(&discovery.issuer, client.clone())?;
    Ok(client)
}

/// The pre-registered client of the options, if any.
pub fn preregistered(options: &OAuthOptions, discovery: &Discovery) -> Result<Option<StoredClient>> {
    let Some(client_id) = &options.client_id else {
        return Ok(None);
    };
    let secret = options.client_secret.clone();
    Ok(Some(StoredClient {
        client_id: client_id.clone(),
        auth_method: AuthMethod::choose(&discovery.metadata, secret.is_some(), None)?,
        client_secret: secret,
        redirect_uri: None,
        scope: None,
    }))
}

async fn register(
    http: &reqwest::Client,
    options: &OAuthOptions,
    discovery: &Discovery,
    endpoint: &Url,
    redirect_uri: &Url,
    scopes: &[String],
) -> Result<StoredClient> {
    let mut body = json!({
        "client_name": options.client_name,
        "redirect_uris": [redirect_uri.as_str()],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": AuthMethod::for_registration(&discovery.metadata).as_str(),
        // A command-line host on a loopback redirect (OpenID Connect registration).
        "application_type": "native",
    });
    if !scopes.is_empty() {
        body["scope"] = json!(scopes.join(" "));
    }
    let response = http
        .post(endpoint.clone())
        .json(&body)
        .send()
        .await
        .map_err(|e| {
            failed(format!(
                "client registration at {endpoint}: {}",
                aep_sdk::client::error_chain(&e)
            ))
        })?;
    let status = response.status();
    let bytes = response.bytes().await.unwrap_or_default();
    if !status.is_success() {
        let reason = serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .map(|v| {
                format!(
                    "{} {}",
                    v["error"].as_str().unwrap_or(""),
                    v["error_description"].as_str().unwrap_or("")
                )
            })
            .unwrap_or_default();
        return Err(failed(format!(
            "client registration at {endpoint} refused (HTTP {}): {}",
            status.as_u16(),
            reason.trim()
        )));
    }
    let registered: Registered = serde_json::from_slice(&bytes).map_err(|e| {
        failed(format!(
            "client registration at {endpoint}: not a registration response: {e}"
        ))
    })?;
    // Some servers send "" for a public client.
    let secret = registered.client_secret.filter(|s| !s.expose().is_empty());
    Ok(StoredClient {
        client_id: registered.client_id,
        auth_method: AuthMethod::choose(
            &discovery.metadata,
            secret.is_some(),
            registered.token_endpoint_auth_method.as_deref(),
        )?,
        client_secret: secret,
        redirect_uri: Some(redirect_uri.to_string()),
        // What the server registered, else what was asked for.
        scope: registered
            .scope
            .or_else(|| (!scopes.is_empty()).then(|| scopes.join(" "))),
    })
}

/// Whether a registered redirect URI serves for `wanted`: equal, or both on a loopback
/// IP with only the port differing (RFC 8252 section 7.3: servers allow any port there).
fn same_redirect(registered: &str, wanted: &Url) -> bool {
    let Ok(registered) = Url::parse(registered) else {
        return false;
    };
    if &registered == wanted {
        return true;
    }
    let loopback = |u: &Url| matches!(u.host_str(), Some("127.0.0.1" | "[::1]"));
    loopback(&registered)
        && registered.scheme() == wanted.scheme()
        && registered.host_str() == wanted.host_str()
        && registered.path() == wanted.path()
        && loopback(wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loopback_redirect_matches_on_any_port() {
        let wanted = Url::parse("http://127.0.0.1:5000/callback").unwrap();
        assert!(same_redirect("http://127.0.0.1:4000/callback", &wanted));
        assert!(!same_redirect("http://127.0.0.1:4000/other", &wanted));
        assert!(!same_redirect(
            "http://localhost:4000/callback",
            &Url::parse("http://localhost:5000/callback").unwrap()
        ));
    }
}
