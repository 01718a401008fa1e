//! Requests to oidc-provider's token, introspection and registration endpoints, made the
//! way a client makes them (form bodies, the client's own authentication method), and the
//! authorization code flow with PKCE on top of [`OidcProvider::login`].

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::Value;
use sha2::{Digest, Sha256};
use url::form_urlencoded;

use super::{OidcClient, OidcProvider};

/// A successful token endpoint answer. `Debug` shows no token.
#[derive(Clone)]
pub struct Token {
    /// The access token (a JWT for a resource, unless configured opaque).
    pub access_token: String,
    /// `Bearer`.
    pub token_type: String,
    /// Seconds.
    pub expires_in: Option<u64>,
    /// What was granted, space-separated.
    pub scope: Option<String>,
    /// When one was issued.
    pub refresh_token: Option<String>,
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("token_type", &self.token_type)
            .field("expires_in", &self.expires_in)
            .field("scope", &self.scope)
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "(issued)"))
            .finish_non_exhaustive()
    }
}

/// A PKCE pair (RFC 7636, S256): a fresh random verifier and its challenge.
#[derive(Clone)]
pub struct Pkce {
    /// Sent with the code at the token endpoint.
    pub verifier: String,
    /// `BASE64URL(SHA256(verifier))`, sent in the authorization request.
    pub challenge: String,
}

impl Pkce {
    /// A new pair (64 hex characters of verifier, from two random UUIDs).
    pub fn new() -> Self {
        let verifier = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        Self { verifier, challenge }
    }
}

impl Default for Pkce {
    fn default() -> Self {
        Self::new()
    }
}

impl OidcProvider {
    /// A token request with `form`, authenticated as `client` does it
    /// (`client_secret_basic`, `client_secret_post` or `none`). An error answer is `Err`
    /// with its status and body (which never holds a token).
    pub async fn token_request(&self, client: &OidcClient, form: &[(&str, &str)]) -> Result<Token, String> {
        let body = self
            .authenticated(client, self.endpoint("token_endpoint"), form)
            .await?;
        let text = |key: &str| body[key].as_str().map(str::to_owned);
        Ok(Token {
            access_token: text("access_token").ok_or("token response without access_token")?,
            token_type: text("token_type").unwrap_or_default(),
            expires_in: body["expires_in"].as_u64(),
            scope: text("scope"),
            refresh_token: text("refresh_token"),
        })
    }

    /// `grant_type=client_credentials` for `resource` with `scope` (either may be empty:
    /// then it is not sent).
    pub async fn client_credentials_token(
        &self,
        client: &OidcClient,
        resource: &str,
        scope: &str,
    ) -> Result<Token, String> {
        let mut form = vec![("grant_type", "client_credentials")];
        form.extend(non_empty("resource", resource));
        form.extend(non_empty("scope", scope));
        self.token_request(client, &form).await
    }

    /// Exchanges an authorization `code` (redirect URI: the client's first) with the PKCE
    /// verifier, for `resource` when given (oidc-provider then checks it was granted).
    pub async fn exchange_code(
        &self,
        client: &OidcClient,
        code: &str,
        pkce: &Pkce,
        resource: Option<&str>,
    ) -> Result<Token, String> {
        let redirect_uri = client.redirect_uri().ok_or("the client has no redirect_uris")?;
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", &pkce.verifier),
        ];
        form.extend(resource.map(|r| ("resource", r)));
        self.token_request(client, &form).await
    }

    /// `grant_type=refresh_token`, for `resource` when given.
    pub async fn refresh(
        &self,
        client: &OidcClient,
        refresh_token: &str,
        resource: Option<&str>,
    ) -> Result<Token, String> {
        let mut form = vec![("grant_type", "refresh_token"), ("refresh_token", refresh_token)];
        form.extend(resource.map(|r| ("resource", r)));
        self.token_request(client, &form).await
    }

    /// RFC 7662 introspection of `token` by `client`: the answer (`{"active": false}` for
    /// an expired, revoked or unknown token). oidc-provider refuses JWTs here (400
    /// `unsupported_token_type`): see [`OidcOptions::opaque_resources`](super::OidcOptions).
    pub async fn introspect(&self, client: &OidcClient, token: &str) -> Result<Value, String> {
        self.authenticated(
            client,
            self.endpoint("introspection_endpoint"),
            &[("token", token)],
        )
        .await
    }

    /// RFC 7591 dynamic registration of `metadata`: the registered client (with its
    /// `client_id`, and `client_secret` unless `token_endpoint_auth_method` is `none`).
    pub async fn register(&self, metadata: &Value) -> Result<OidcClient, String> {
        let url = self.endpoint("registration_endpoint");
        let response = self
            .http
            .post(url)
            .json(metadata)
            .send()
            .await
            .map_err(|e| format!("POST {url}: {e}"))?;
        let status = response.status();
        let body: Value = response
            .json()
            .await
            .map_err(|e| format!("POST {url}: {status}: {e}"))?;
        if status != reqwest::StatusCode::CREATED {
            return Err(format!("registration: {status}: {body}"));
        }
        Ok(OidcClient::from_metadata(body))
    }

    /// The authorization request URL for `client` (code flow, S256), naming `resource` and
    /// `scope` when not empty, and `prompt=consent` when `scope` has `offline_access`
    /// (oidc-provider drops `offline_access` without it, as OIDC Core section 11 says).
    pub fn authorize_url(
        &self,
        client: &OidcClient,
        resource: &str,
        scope: &str,
        state: &str,
        pkce: &Pkce,
    ) -> String {
        let mut query = form_urlencoded::Serializer::new(String::new());
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", client.id())
            .append_pair("redirect_uri", client.redirect_uri().unwrap_or_default())
            .append_pair("state", state)
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256");
        query.extend_pairs(
            non_empty("resource", resource)
                .into_iter()
                .chain(non_empty("scope", scope)),
        );
        if scope.split(' ').any(|s| s == "offline_access") {
            query.append_pair("prompt", "consent");
        }
        format!("{}?{}", self.endpoint("authorization_endpoint"), query.finish())
    }

    /// The whole authorization code flow for `client`: PKCE, the authorization request,
    /// [`OidcProvider::login`] through the login and consent pages, the state check and the
    /// code exchange (with `resource` again).
    pub async fn authorization_code_token(
        &self,
        client: &OidcClient,
        resource: &str,
        scope: &str,
    ) -> Result<Token, String> {
        let pkce = Pkce::new();
        let state = uuid::Uuid::new_v4().simple().to_string();
        let redirect = self
            .login(&self.authorize_url(client, resource, scope, &state, &pkce))
            .await?;
        let param = |name: &str| {
            redirect
                .query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
        };
        if let Some(error) = param("error") {
            return Err(format!(
                "authorization refused: {error}: {}",
                param("error_description").unwrap_or_default()
            ));
        }
        if param("state").as_deref() != Some(state.as_str()) {
            return Err("the redirect does not carry the request's state".into());
        }
        let code = param("code").ok_or("the redirect carries no code")?;
        let resource = (!resource.is_empty()).then_some(resource);
        self.exchange_code(client, &code, &pkce, resource).await
    }

    /// POSTs `form` to `url` with `client`'s authentication; the JSON answer of a 200.
    async fn authenticated(
        &self,
        client: &OidcClient,
        url: &str,
        form: &[(&str, &str)],
    ) -> Result<Value, String> {
        let mut pairs: Vec<(&str, &str)> = form.to_vec();
        let mut request = self.http.post(url);
        match (client.auth_method(), client.secret()) {
            ("client_secret_basic", Some(secret)) => {
                // RFC 6749 section 2.3.1: both halves form-urlencoded before base64.
                let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
                let basic = STANDARD.encode(format!("{}:{}", encode(client.id()), encode(secret)));
                request = request.header("authorization", format!("Basic {basic}"));
            }
            ("client_secret_post", Some(secret)) => {
                pairs.extend([("client_id", client.id()), ("client_secret", secret)])
            }
            _ => pairs.push(("client_id", client.id())),
        }
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        let response = request
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(|e| format!("POST {url}: {e}"))?;
        let status = response.status();
        let text = response.text().await.map_err(|e| format!("POST {url}: {e}"))?;
        if !status.is_success() {
            return Err(format!("POST {url}: {status}: {text}"));
        }
        // A success body holds tokens: never echo it.
        serde_json::from_str(&text).map_err(|e| format!("POST {url}: {status}: the answer is not JSON ({e})"))
    }
}

fn non_empty<'a>(name: &'a str, value: &'a str) -> Option<(&'a str, &'a str)> {
    (!value.is_empty()).then_some((name, value))
}
