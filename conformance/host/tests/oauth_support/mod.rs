//! A small authorization server and a guard for protected resources, on loopback, for
//! the OAuth client's tests. The server checks what a real one checks (registered
//! clients and redirect URIs, PKCE S256, the `resource` of the code against the token
//! request's, client authentication) and logs every request it sees; the guard admits
//! only tokens it issued for the resource being requested.
#![allow(dead_code)] // each test binary uses a different subset

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use aep_sdk::server::AepExtension;
use aep_sdk::testing::{TestServer, spawn};
use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

/// What the server does.
#[derive(Debug, Clone)]
pub struct Behaviour {
    /// `expires_in` of issued tokens.
    pub expires_in: u64,
    /// Whether refresh tokens are issued.
    pub refresh: bool,
    /// Answer the authorization request with a login page instead of a redirect.
    pub login_page: bool,
    /// Pre-registered confidential clients: id -> secret.
    pub clients: HashMap<String, String>,
    /// Whether `/register` is offered.
    pub registration: bool,
}

impl Default for Behaviour {
    fn default() -> Self {
        Self {
            expires_in: 3600,
            refresh: false,
            login_page: false,
            clients: HashMap::new(),
            registration: true,
        }
    }
}

/// A request the server saw: its path and parameters (query or form), and whether it
/// came with HTTP Basic client authentication.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub params: HashMap<String, String>,
    pub basic: Option<(String, String)>,
}

impl Seen {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.get(name).map(String::as_str)
    }
}

#[derive(Debug, Clone)]
struct Code {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    resource: String,
    scope: String,
}

#[derive(Debug, Clone)]
struct Issued {
    resource: String,
    scope: String,
    client_id: String,
}

#[derive(Default)]
pub struct Inner {
    base: OnceLock<String>,
    behaviour: Mutex<Behaviour>,
    seen: Mutex<Vec<Seen>>,
    // Dynamically registered clients: id -> redirect URIs.
    registered: Mutex<HashMap<String, Vec<String>>>,
    codes: Mutex<HashMap<String, Code>>,
    tokens: Mutex<HashMap<String, Issued>>,
    refresh_tokens: Mutex<HashMap<String, Issued>>,
    counter: Mutex<u64>,
}

/// The server; cheap to clone.
#[derive(Clone)]
pub struct AuthServer {
    pub inner: Arc<Inner>,
}

impl AuthServer {
    /// Starts a server behaving as `behaviour`; it lives as long as the returned handle.
    pub async fn start(behaviour: Behaviour) -> (Self, TestServer) {
        let server = Self {
            inner: Arc::new(Inner {
                behaviour: Mutex::new(behaviour),
                ..Inner::default()
            }),
        };
        let router = Router::new()
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/register", post(register))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .with_state(server.clone());
        let test = spawn(router).await;
        let _ = server.inner.base.set(test.base_url.clone());
        (server, test)
    }

    pub fn issuer(&self) -> String {
        self.inner.base.get().cloned().unwrap_or_default()
    }

    /// Every request seen so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        self.inner.seen.lock().unwrap().clone()
    }

    /// The requests seen at `path`.
    pub fn seen_at(&self, path: &str) -> Vec<Seen> {
        self.seen().into_iter().filter(|s| s.path == path).collect()
    }

    /// The token requests of grant `grant`.
    pub fn token_requests(&self, grant: &str) -> Vec<Seen> {
        self.seen_at("/token")
            .into_iter()
            .filter(|s| s.param("grant_type") == Some(grant))
            .collect()
    }

    /// Forgets every access token it issued (a revocation).
    pub fn revoke_all(&self) {
        self.inner.tokens.lock().unwrap().clear();
    }

    /// Whether `token` is live for `resource`, and its scopes.
    pub fn check(&self, token: &str, resource: &str) -> Option<String> {
        let tokens = self.inner.tokens.lock().unwrap();
        let issued = tokens.get(token)?;
        (issued.resource == resource).then(|| issued.scope.clone())
    }

    fn next(&self, prefix: &str) -> String {
        let mut counter = self.inner.counter.lock().unwrap();
        *counter += 1;
        format!("{prefix}-{}-{:x}", *counter, std::process::id())
    }

    fn log(&self, path: &str, params: &HashMap<String, String>, headers: &HeaderMap) -> Seen {
        let basic = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Basic "))
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|pair| {
                let (id, secret) = pair.split_once(':')?;
                let decode = |s: &str| {
                    url::form_urlencoded::parse(format!("x={s}").as_bytes())
                        .next()
                        .map(|(_, v)| v.into_owned())
                        .unwrap_or_default()
                };
                Some((decode(id), decode(secret)))
            });
        let seen = Seen {
            path: path.to_owned(),
            params: params.clone(),
            basic,
        };
        self.inner.seen.lock().unwrap().push(seen.clone());
        seen
    }

    fn issue(&self, issued: Issued) -> Value {
        let behaviour = self.inner.behaviour.lock().unwrap().clone();
        let access = self.next("access");
        self.inner
            .tokens
            .lock()
            .unwrap()
            .insert(access.clone(), issued.clone());
        let mut answer = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": behaviour.expires_in,
            "scope": issued.scope,
        });
        if behaviour.refresh {
            let refresh = self.next("refresh");
            self.inner
                .refresh_tokens
                .lock()
                .unwrap()
                .insert(refresh.clone(), issued);
            answer["refresh_token"] = json!(refresh);
        }
        answer
    }
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    (
        status,
        axum::Json(json!({"error": error, "error_description": description})),
    )
        .into_response()
}

async fn metadata(State(server): State<AuthServer>) -> axum::Json<Value> {
    let base = server.issuer();
    let behaviour = server.inner.behaviour.lock().unwrap().clone();
    let mut metadata = json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
    });
    if behaviour.registration {
        metadata["registration_endpoint"] = json!(format!("{base}/register"));
    }
    axum::Json(metadata)
}

async fn register(
    State(server): State<AuthServer>,
    headers: HeaderMap,
    axum::Json(body): axum::Json<Value>,
) -> Response {
    server.log("/register", &HashMap::new(), &headers);
    let redirect_uris: Vec<String> = body["redirect_uris"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    if redirect_uris.is_empty() {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "no redirect_uris",
        );
    }
    let id = server.next("client");
    server
        .inner
        .registered
        .lock()
        .unwrap()
        .insert(id.clone(), redirect_uris.clone());
    (
        StatusCode::CREATED,
        axum::Json(
            json!({"client_id": id, "redirect_uris": redirect_uris, "token_endpoint_auth_method": "none"}),
        ),
    )
        .into_response()
}

async fn authorize(
    State(server): State<AuthServer>,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    server.log("/authorize", &params, &headers);
    if server.inner.behaviour.lock().unwrap().login_page {
        return (StatusCode::OK, "<form>log in</form>").into_response();
    }
    let get = |k: &str| params.get(k).cloned().unwrap_or_default();
    let client_id = get("client_id");
    let redirect_uri = get("redirect_uri");
    let known = server
        .inner
        .registered
        .lock()
        .unwrap()
        .get(&client_id)
        .is_some_and(|uris| uris.contains(&redirect_uri));
    let preregistered = server
        .inner
        .behaviour
        .lock()
        .unwrap()
        .clients
        .contains_key(&client_id);
    if !(known || preregistered) {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "unknown client or redirect_uri",
        );
    }
    if get("code_challenge_method") != "S256"
        || get("code_challenge").is_empty()
        || get("resource").is_empty()
    {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "PKCE S256 and resource required",
        );
    }
    let code = server.next("code");
    server.inner.codes.lock().unwrap().insert(
        code.clone(),
        Code {
            client_id,
            redirect_uri: redirect_uri.clone(),
            challenge: get("code_challenge"),
            resource: get("resource"),
            scope: get("scope"),
        },
    );
    let mut back = url::Url::parse(&redirect_uri).unwrap();
    back.query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &get("state"))
        .append_pair("iss", &server.issuer());
    Redirect::to(back.as_str()).into_response()
}

async fn token(State(server): State<AuthServer>, headers: HeaderMap, body: axum::body::Bytes) -> Response {
    let params: HashMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
    let seen = server.log("/token", &params, &headers);
    let get = |k: &str| params.get(k).cloned().unwrap_or_default();
    match get("grant_type").as_str() {
        "authorization_code" => {
            let Some(code) = server.inner.codes.lock().unwrap().remove(&get("code")) else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "unknown code");
            };
            let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(Sha256::digest(get("code_verifier").as_bytes()));
            if challenge != code.challenge
                || get("redirect_uri") != code.redirect_uri
                || get("resource") != code.resource
                || get("client_id") != code.client_id
                    && seen.basic.as_ref().map(|b| &b.0) != Some(&code.client_id)
            {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "verifier, redirect_uri, resource or client differ",
                );
            }
            axum::Json(server.issue(Issued {
                resource: code.resource,
                scope: code.scope,
                client_id: code.client_id,
            }))
            .into_response()
        }
        "refresh_token" => {
            let Some(issued) = server
                .inner
                .refresh_tokens
                .lock()
                .unwrap()
                .get(&get("refresh_token"))
                .cloned()
            else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "unknown refresh token");
            };
            if get("resource") != issued.resource {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_target", "another resource");
            }
            axum::Json(server.issue(issued)).into_response()
        }
        "client_credentials" => {
            let clients = server.inner.behaviour.lock().unwrap().clients.clone();
            let Some((id, secret)) = seen.basic.clone() else {
                return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "HTTP Basic required");
            };
            if clients.get(&id) != Some(&secret) {
                return oauth_error(
                    StatusCode::UNAUTHORIZED,
                    "invalid_client",
                    "wrong client id or secret",
                );
            }
            if get("resource").is_empty() {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_target", "resource required");
            }
            axum::Json(server.issue(Issued {
                resource: get("resource"),
                scope: get("scope"),
                client_id: id,
            }))
            .into_response()
        }
        other => oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type", other),
    }
}

/// The resource a request's path belongs to: `<base>/mcp` for the MCP endpoint, the
/// base (no trailing slash) for everything else.
fn resource_of(base: &str, path: &str) -> String {
    if path.starts_with("/mcp") {
        format!("{base}/mcp")
    } else {
        base.to_owned()
    }
}

/// `router` behind the authorization server `server`: protected resource metadata for
/// the base and for `/mcp`, and 401 with a challenge for a request without a live token
/// issued for its resource. `base` is filled in once the router is served.
pub fn guarded(router: Router, server: AuthServer, base: Arc<OnceLock<String>>) -> Router {
    let metadata_base = base.clone();
    let issuer = server.issuer();
    let metadata = move |axum::extract::Path(rest): axum::extract::Path<String>| {
        let base = metadata_base.get().cloned().unwrap_or_default();
        let issuer = issuer.clone();
        async move {
            axum::Json(json!({
                "resource": resource_of(&base, &format!("/{rest}")),
                "authorization_servers": [issuer],
            }))
        }
    };
    let root_base = base.clone();
    let root_issuer = server.issuer();
    let root = move || {
        let base = root_base.get().cloned().unwrap_or_default();
        let issuer = root_issuer.clone();
        async move { axum::Json(json!({"resource": base, "authorization_servers": [issuer]})) }
    };
    let guard = middleware::from_fn(move |request: Request, next: Next| {
        let server = server.clone();
        let base = base.get().cloned().unwrap_or_default();
        async move {
            let path = request.uri().path().to_owned();
            let resource = resource_of(&base, &path);
            let token = request
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
                .map(str::to_owned);
            if token
                .as_deref()
                .and_then(|t| server.check(t, &resource))
                .is_some()
            {
                return next.run(request).await;
            }
            let suffix = if path.starts_with("/mcp") { "/mcp" } else { "" };
            let challenge =
                format!("Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource{suffix}\"");
            (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, challenge)],
                "",
            )
                .into_response()
        }
    });
    Router::new()
        .route("/.well-known/oauth-protected-resource", get(root))
        .route("/.well-known/oauth-protected-resource/{*rest}", get(metadata))
        .merge(router.layer(guard))
}

/// The utilities extension behind `server`.
pub async fn guarded_utilities(server: &AuthServer) -> TestServer {
    let base = Arc::new(OnceLock::new());
    let router = aep_utilities::Utilities
        .into_extension()
        .expect("valid declaration")
        .router();
    let test = spawn(guarded(router, server.clone(), base.clone())).await;
    let _ = base.set(test.base_url.clone());
    test
}
