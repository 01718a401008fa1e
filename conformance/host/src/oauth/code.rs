//! The authorization code grant with PKCE S256: the authorization URL (with `state`,
//! the challenge, `resource` and `scope`), the visit, the redirect's checks (`error`,
//! `state`, `iss` of RFC 9207), and the code's exchange with the verifier.

use url::Url;

use super::discovery::{Discovery, failed};
use super::options::{OAuthOptions, OFFLINE_ACCESS};
use super::pkce::{self, Pkce};
use super::registration;
use super::store::StoredClient;
use super::token::{self, Granted};
use super::visit::{AuthorizationRequest, Authorize};
use crate::error::Result;

/// Authorization code with PKCE: visit, check the redirect, exchange the code.
pub async fn grant(
    http: &reqwest::Client,
    options: &OAuthOptions,
    authorize: &Authorize,
    discovery: &Discovery,
    token_endpoint: &Url,
    scopes: &[String],
) -> Result<(StoredClient, Granted)> {
    let metadata = &discovery.metadata;
    if let Some(methods) = &metadata.code_challenge_methods_supported
        && !methods.iter().any(|m| m == "S256")
    {
        return Err(failed(format!(
            "the authorization server {} does not support PKCE with S256 (it lists: {})",
            discovery.issuer,
            methods.join(", ")
        )));
    }
    let endpoint = metadata.authorization_endpoint.clone().ok_or_else(|| {
        failed(format!(
            "the authorization server {} names no authorization_endpoint",
            discovery.issuer
        ))
    })?;
    let prepared = authorize.prepare(options.request_timeout).await?;
    let redirect_uri = prepared.redirect_uri.clone();
    let client = registration::client_for(http, options, discovery, &redirect_uri, scopes).await?;
    let pkce = Pkce::new()?;
    let state = pkce::random(16)?;
    let mut url = endpoint;
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", &client.client_id)
            .append_pair("redirect_uri", redirect_uri.as_str())
            .append_pair("state", &state)
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("resource", &discovery.resource);
        if !scopes.is_empty() {
            query.append_pair("scope", &scopes.join(" "));
        }
        // OpenID Connect Core section 11: `offline_access` is ignored unless the request
        // carries prompt=consent. oidc-provider drops it silently, so the host got no
        // refresh token, and a resource naming no scope of its own got `access_denied`
        // (nothing left to grant). Plain OAuth servers ignore the parameter.
        if scopes.iter().any(|s| s == OFFLINE_ACCESS) {
            query.append_pair("prompt", "consent");
        }
    }
    let back = prepared
        .visit(AuthorizationRequest {
            url,
            redirect_uri: redirect_uri.clone(),
            resource: discovery.resource.clone(),
            issuer: discovery.issuer.clone(),
        })
        .await?;
    let code = read_redirect(&back, &state, discovery)?;
    let form = vec![
        ("code", code),
        ("redirect_uri", redirect_uri.to_string()),
        ("code_verifier", pkce.verifier),
        ("resource", discovery.resource.clone()),
    ];
    let granted = token::request(http, token_endpoint, &client, "authorization_code", form).await?;
    Ok((client, granted))
}

/// The code of the redirect, once its `state` (and `iss`, RFC 9207) are checked.
fn read_redirect(url: &Url, state: &str, discovery: &Discovery) -> Result<String> {
    let get = |name: &str| {
        url.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    if let Some(error) = get("error") {
        let description = get("error_description")
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        return Err(failed(format!(
            "the authorization server {} refused the authorization: {error}{description}",
            discovery.issuer
        )));
    }
    if get("state").as_deref() != Some(state) {
        return Err(failed(
            "the redirect's state does not match this sign-in (a stale or forged redirect): try again"
                .to_owned(),
        ));
    }
    let metadata = &discovery.metadata;
    match (get("iss"), &metadata.issuer) {
        (Some(iss), Some(issuer)) if iss.trim_end_matches('/') != issuer.trim_end_matches('/') => {
            return Err(failed(format!(
                "the redirect comes from issuer '{iss}', not {issuer} (RFC 9207): refusing the code"
            )));
        }
        (None, _) if metadata.authorization_response_iss_parameter_supported => {
            return Err(failed(
                "the redirect lacks the iss parameter its authorization server promises (RFC 9207)"
                    .to_owned(),
            ));
        }
        _ => {}
    }
    get("code")
        .filter(|c| !c.is_empty())
        .ok_or_else(|| failed(format!("the redirect to {} carries no code", url.path())))
}
