//! The token endpoint: the authorization code, refresh token and client credentials
//! grants, with the client authenticating as `client_secret_basic`,
//! `client_secret_post` or `none`, and the RFC 8707 `resource` on every request.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde::Deserialize;
use url::Url;

use super::auth_method::AuthMethod;
use super::discovery::failed;
use super::secret::Secret;
use super::store::StoredClient;
use crate::error::Result;

/// What the token endpoint gave.
#[derive(Debug, Clone)]
pub struct Granted {
    /// The access token.
    pub access_token: Secret,
    /// A refresh token, if any.
    pub refresh_token: Option<Secret>,
    /// Expiry, seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// The granted scopes, when the server said (RFC 6749 section 5.1).
    pub scopes: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: Secret,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
    #[serde(default)]
    refresh_token: Option<Secret>,
    #[serde(default)]
    scope: Option<String>,
}

#[derive(Deserialize)]
struct ErrorResponse {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// One token request of `grant` with `form` (the grant's parameters), the client's
/// authentication added.
pub async fn request(
    http: &reqwest::Client,
    endpoint: &Url,
    client: &StoredClient,
    grant: &str,
    form: Vec<(&str, String)>,
) -> Result<Granted> {
    let mut form = form;
    form.insert(0, ("grant_type", grant.to_owned()));
    let mut request = http
        .post(endpoint.clone())
        .header(reqwest::header::ACCEPT, "application/json");
    let secret = client.client_secret.as_ref().map(Secret::expose);
    match (client.auth_method, secret) {
        (AuthMethod::ClientSecretBasic, Some(secret)) => {
            let pair = format!("{}:{}", form_encode(&client.client_id), form_encode(secret));
            let value = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(pair));
            request = request.header(reqwest::header::AUTHORIZATION, value);
        }
        (AuthMethod::ClientSecretPost, Some(secret)) => {
            form.push(("client_id", client.client_id.clone()));
            form.push(("client_secret", secret.to_owned()));
        }
        _ => form.push(("client_id", client.client_id.clone())),
    }
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    let response = request
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .map_err(|e| {
            failed(format!(
                "token endpoint {endpoint}: {}",
                aep_sdk::client::error_chain(&e)
            ))
        })?;
    let status = response.status();
    let bytes = response.bytes().await.map_err(|e| {
        failed(format!(
            "token endpoint {endpoint}: {}",
            aep_sdk::client::error_chain(&e)
        ))
    })?;
    if !status.is_success() {
        let reason = match serde_json::from_slice::<ErrorResponse>(&bytes) {
            Ok(e) => format!(
                "{}{}",
                e.error,
                e.error_description.map(|d| format!(": {d}")).unwrap_or_default()
            ),
            Err(_) => "no OAuth error body".to_owned(),
        };
        return Err(failed(format!(
            "token endpoint {endpoint} refused the {grant} request (HTTP {}): {reason}",
            status.as_u16()
        )));
    }
    // The error of a failed parse names a position, never the body (which holds the token).
    let answer: TokenResponse = serde_json::from_slice(&bytes)
        .map_err(|e| failed(format!("token endpoint {endpoint}: not a token response: {e}")))?;
    if let Some(kind) = &answer.token_type
        && !kind.eq_ignore_ascii_case("bearer")
    {
        return Err(failed(format!(
            "token endpoint {endpoint} issued a '{kind}' token; aep-host sends Bearer tokens only"
        )));
    }
    Ok(Granted {
        access_token: answer.access_token,
        refresh_token: answer.refresh_token,
        expires_at: answer.expires_in.map(|s| now().saturating_add(s)),
        scopes: answer.scope.map(|s| super::challenge::split_scopes(&s)),
    })
}

fn form_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
