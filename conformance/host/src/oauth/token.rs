//! The token endpoint: the authorization code, refresh token and client credentials
//! grants, with the client authenticating as `client_secret_basic`,
//! `client_secret_post` or `none`, and the RFC 8707 `resource` on every request.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use url::Url;

use super::discovery::failed;
use super::metadata::ServerMetadata;
use super::secret::Secret;
use super::store::StoredClient;
use crate::error::Result;

/// How the client authenticates at the token endpoint (RFC 7591 names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthMethod {
    /// HTTP Basic with the form-encoded id and secret (RFC 6749 section 2.3.1).
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form.
    ClientSecretPost,
    /// A public client: `client_id` in the form, no secret.
    None,
}

impl AuthMethod {
    /// The RFC 7591 name.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthMethod::ClientSecretBasic => "client_secret_basic",
            AuthMethod::ClientSecretPost => "client_secret_post",
            AuthMethod::None => "none",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        match name {
            "client_secret_basic" => Some(AuthMethod::ClientSecretBasic),
            "client_secret_post" => Some(AuthMethod::ClientSecretPost),
            "none" => Some(AuthMethod::None),
            _ => None,
        }
    }

    /// The method for a client: the one its registration named, else none without a
    /// secret, else what the server's metadata lists (basic first; basic when silent).
    pub fn choose(metadata: &ServerMetadata, has_secret: bool, registered: Option<&str>) -> Result<Self> {
        if let Some(name) = registered {
            return match Self::from_name(name) {
                Some(AuthMethod::None) => Ok(AuthMethod::None),
                Some(method) if has_secret => Ok(method),
                Some(method) => Err(failed(format!(
                    "the client is registered for {} but has no secret",
                    method.as_str()
                ))),
                None => Err(failed(format!(
                    "the client is registered for token endpoint authentication '{name}'; \
                     aep-host does client_secret_basic, client_secret_post and none"
                ))),
            };
        }
        if !has_secret {
            return Ok(AuthMethod::None);
        }
        let Some(supported) = &metadata.token_endpoint_auth_methods_supported else {
            return Ok(AuthMethod::ClientSecretBasic);
        };
        for method in [
            AuthMethod::ClientSecretBasic,
            AuthMethod::ClientSecretPost,
            AuthMethod::None,
        ] {
            if supported.iter().any(|m| m == method.as_str()) {
                return Ok(method);
            }
        }
        Err(failed(format!(
            "the authorization server authenticates clients only by {}; aep-host does \
             client_secret_basic, client_secret_post and none",
            supported.join(", ")
        )))
    }

    /// What to ask for in a dynamic registration: `none` (a public client using PKCE)
    /// unless the server lists only secret-based methods.
    pub fn for_registration(metadata: &ServerMetadata) -> Self {
        let Some(supported) = &metadata.token_endpoint_auth_methods_supported else {
            return AuthMethod::None;
        };
        [
            AuthMethod::None,
            AuthMethod::ClientSecretBasic,
            AuthMethod::ClientSecretPost,
        ]
        .into_iter()
        .find(|m| supported.iter().any(|s| s == m.as_str()))
        .unwrap_or(AuthMethod::None)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(methods: Option<&[&str]>) -> ServerMetadata {
        ServerMetadata {
            token_endpoint_auth_methods_supported: methods.map(|m| m.iter().map(|s| s.to_string()).collect()),
            ..ServerMetadata::default()
        }
    }

    #[test]
    fn the_method_follows_registration_then_metadata() {
        let basic = metadata(Some(&["client_secret_basic"]));
        let post = metadata(Some(&["client_secret_post"]));
        let none = metadata(Some(&["none"]));
        assert_eq!(
            AuthMethod::choose(&basic, true, None).unwrap(),
            AuthMethod::ClientSecretBasic
        );
        assert_eq!(
            AuthMethod::choose(&post, true, None).unwrap(),
            AuthMethod::ClientSecretPost
        );
        assert_eq!(AuthMethod::choose(&none, true, None).unwrap(), AuthMethod::None);
        assert_eq!(AuthMethod::choose(&basic, false, None).unwrap(), AuthMethod::None);
        assert_eq!(
            AuthMethod::choose(&metadata(None), true, None).unwrap(),
            AuthMethod::ClientSecretBasic
        );
        assert_eq!(
            AuthMethod::choose(&none, true, Some("client_secret_post")).unwrap(),
            AuthMethod::ClientSecretPost
        );
        assert!(AuthMethod::choose(&metadata(Some(&["private_key_jwt"])), true, None).is_err());
        assert_eq!(AuthMethod::for_registration(&post), AuthMethod::ClientSecretPost);
        assert_eq!(AuthMethod::for_registration(&metadata(None)), AuthMethod::None);
    }
}
