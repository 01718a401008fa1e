//! [`TestIssuer`]: an OAuth authorization server on a loopback port for tests of a
//! protected extension: metadata, a key set, signed access tokens, introspection of
//! opaque tokens, and the faults of a misbehaving server.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use super::{TestServer, serve_on};

/// How one of the issuer's documents misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fault {
    /// Served as it should be.
    #[default]
    None,
    /// Never answered.
    Hang,
    /// 10 MiB of JSON.
    Huge,
    /// An HTML page (a login portal, a proxy's error page).
    Html,
    /// The metadata names another issuer (a mix-up).
    OtherIssuer,
}

/// One ES256 signing key.
struct SigningKey {
    kid: String,
    encoding: EncodingKey,
    jwk: Value,
}

impl SigningKey {
    fn generate(kid: &str) -> Self {
        let rng = SystemRandom::new();
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("a P-256 key");
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref()).expect("a key pair");
        // An uncompressed point: 0x04, x, y.
        let point = pair.public_key().as_ref();
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        Self {
            kid: kid.to_owned(),
            encoding: EncodingKey::from_ec_der(pkcs8.as_ref()),
            jwk: json!({
                "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": kid,
                "x": b64(&point[1..33]), "y": b64(&point[33..65]),
            }),
        }
    }
}

#[derive(Default)]
struct Shared {
    issuer: String,
    published: Mutex<Vec<Value>>,
    metadata_fault: Mutex<Fault>,
    jwks_fault: Mutex<Fault>,
    opaque: Mutex<HashMap<String, Value>>,
    jwks_fetches: AtomicU64,
    metadata_fetches: AtomicU64,
    introspections: AtomicU64,
}

/// The introspection client's credentials ([`TestIssuer::introspection_client`]).
const CLIENT: (&str, &str) = ("resource-server", "rs-secret");

/// An authorization server for tests: serves RFC 8414 metadata, a JWKS and RFC 7662
/// introspection on `127.0.0.1:0`, and mints ES256 access tokens. Stopped on drop.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use aep_sdk::server::{Extension, OAuth};
/// use aep_sdk::testing::{ServeOptions, TestIssuer, serve};
///
/// let issuer = TestIssuer::start().await;
/// let extension = Extension::builder("acme.t", "T", "1.0.0")
///     .oauth(OAuth::issuer(issuer.issuer()))
///     .build()
///     .unwrap();
/// let server = serve(extension, ServeOptions::new());
/// let health = format!("{}/aep/health", server.base_url);
/// let http = reqwest::Client::new();
/// assert_eq!(http.get(&health).send().await.unwrap().status(), 401);
/// let token = issuer.access_token(&server.base_url, &[]);
/// assert_eq!(http.get(&health).bearer_auth(token).send().await.unwrap().status(), 200);
/// # }
/// ```
pub struct TestIssuer {
    shared: Arc<Shared>,
    keys: Mutex<Vec<Arc<SigningKey>>>,
    _server: TestServer,
}

impl TestIssuer {
    /// Starts the server with one signing key.
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("a local address");
        let key = Arc::new(SigningKey::generate("key-1"));
        let shared = Arc::new(Shared {
            issuer: format!("http://{addr}"),
            published: Mutex::new(vec![key.jwk.clone()]),
            ..Shared::default()
        });
        let router = Router::new()
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/jwks", get(jwks))
            .route("/introspect", post(introspect))
            .with_state(shared.clone());
        Self {
            shared,
            keys: Mutex::new(vec![key]),
            _server: serve_on(listener, router),
        }
    }

    /// The issuer identifier, `http://127.0.0.1:PORT`.
    pub fn issuer(&self) -> &str {
        &self.shared.issuer
    }

    /// `(client_id, client_secret)` the introspection endpoint accepts (HTTP Basic).
    pub fn introspection_client(&self) -> (&'static str, &'static str) {
        CLIENT
    }

    fn current(&self) -> Arc<SigningKey> {
        self.keys.lock().unwrap().last().cloned().expect("a key")
    }

    /// A token with exactly `claims`, signed with the current key (header `typ` at+jwt).
    pub fn token(&self, claims: &Value) -> String {
        sign(&self.current(), claims)
    }

    /// The claims of an access token for `audience` with `scopes`, valid for five
    /// minutes: `iss`, `sub` "test-user", `client_id` "test-client", `aud`, `scope`,
    /// `iat`, `exp`.
    pub fn claims(&self, audience: &str, scopes: &[&str]) -> Value {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        json!({
            "iss": self.issuer(), "sub": "test-user", "client_id": "test-client",
            "aud": audience, "scope": scopes.join(" "), "iat": now, "exp": now + 300,
        })
    }

    /// An access token for `audience` with `scopes` ([`TestIssuer::claims`]).
    pub fn access_token(&self, audience: &str, scopes: &[&str]) -> String {
        self.token(&self.claims(audience, scopes))
    }

    /// An opaque token whose introspection answers `active: true` with `claims`.
    pub fn opaque_token(&self, claims: &Value) -> String {
        let mut random = [0u8; 16];
        aws_lc_rs::rand::fill(&mut random).expect("random bytes");
        let token = format!(
            "opaque-{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random)
        );
        self.shared
            .opaque
            .lock()
            .unwrap()
            .insert(token.clone(), claims.clone());
        token
    }

    /// Signs from now on with a new key, published beside the old ones.
    pub fn rotate_key(&self) {
        let mut keys = self.keys.lock().unwrap();
        let key = Arc::new(SigningKey::generate(&format!("key-{}", keys.len() + 1)));
        self.shared.published.lock().unwrap().push(key.jwk.clone());
        keys.push(key);
    }

    /// A token signed with a key the issuer never published.
    pub fn token_with_unpublished_key(&self, claims: &Value) -> String {
        sign(&SigningKey::generate("unpublished"), claims)
    }

    /// Makes the metadata misbehave.
    pub fn metadata_fault(&self, fault: Fault) {
        *self.shared.metadata_fault.lock().unwrap() = fault;
    }

    /// Makes the key set misbehave.
    pub fn jwks_fault(&self, fault: Fault) {
        *self.shared.jwks_fault.lock().unwrap() = fault;
    }

    /// How often the key set was fetched.
    pub fn jwks_fetches(&self) -> u64 {
        self.shared.jwks_fetches.load(Ordering::SeqCst)
    }

    /// How often the metadata was fetched.
    pub fn metadata_fetches(&self) -> u64 {
        self.shared.metadata_fetches.load(Ordering::SeqCst)
    }

    /// How many introspection requests were answered.
    pub fn introspections(&self) -> u64 {
        self.shared.introspections.load(Ordering::SeqCst)
    }
}

fn sign(key: &SigningKey, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some(key.kid.clone());
    header.typ = Some("at+jwt".into());
    jsonwebtoken::encode(&header, claims, &key.encoding).expect("a signed token")
}

/// The document, or the fault in its place.
async fn faulty(fault: Fault, document: Value) -> Response {
    match fault {
        Fault::None | Fault::OtherIssuer => axum::Json(document).into_response(),
        Fault::Hang => std::future::pending().await,
        Fault::Huge => {
            let mut body = String::from("{\"padding\":\"");
            body.push_str(&"x".repeat(10 * 1024 * 1024));
            body.push_str("\"}");
            ([(header::CONTENT_TYPE, "application/json")], body).into_response()
        }
        Fault::Html => (
            [(header::CONTENT_TYPE, "text/html")],
            "<html><body>Please sign in</body></html>",
        )
            .into_response(),
    }
}

async fn metadata(State(shared): State<Arc<Shared>>) -> Response {
    shared.metadata_fetches.fetch_add(1, Ordering::SeqCst);
    let fault = *shared.metadata_fault.lock().unwrap();
    let issuer = match fault {
        Fault::OtherIssuer => "https://attacker.example".to_owned(),
        _ => shared.issuer.clone(),
    };
    let document = json!({
        "issuer": issuer,
        "jwks_uri": format!("{}/jwks", shared.issuer),
        "introspection_endpoint": format!("{}/introspect", shared.issuer),
        "token_endpoint": format!("{}/token", shared.issuer),
        "response_types_supported": ["code"],
    });
    faulty(fault, document).await
}

async fn jwks(State(shared): State<Arc<Shared>>) -> Response {
    shared.jwks_fetches.fetch_add(1, Ordering::SeqCst);
    let fault = *shared.jwks_fault.lock().unwrap();
    let keys = shared.published.lock().unwrap().clone();
    faulty(fault, json!({ "keys": keys })).await
}

async fn introspect(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: String) -> Response {
    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", CLIENT.0, CLIENT.1))
    );
    if headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) != Some(expected.as_str()) {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"error": "invalid_client"})),
        )
            .into_response();
    }
    shared.introspections.fetch_add(1, Ordering::SeqCst);
    let token = url::form_urlencoded::parse(body.as_bytes())
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    let answer = match shared.opaque.lock().unwrap().get(&token) {
        Some(Value::Object(claims)) => {
            let mut answer = claims.clone();
            answer.insert("active".into(), true.into());
            Value::Object(answer)
        }
        _ => json!({ "active": false }),
    };
    axum::Json(answer).into_response()
}
