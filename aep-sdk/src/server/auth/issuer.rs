//! One trusted issuer: its metadata (RFC 8414, else OpenID Connect Discovery), found once,
//! and its signing keys (JWKS), cached and fetched again when a token names a key the
//! cache does not have (at most once per refetch interval), or when they are an hour old.
//!
//! Every fetch is single-flight per issuer and bounded ([`Fetcher`]); after a failure the
//! issuer answers with that failure for a few seconds instead of fetching again, so an
//! authorization server that hangs costs each caller at most one bound, and callers of
//! other issuers (or with static tokens) never wait for it.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;
use url::Url;

use super::fetch::{FetchError, Fetcher};

/// How long a failed fetch is remembered before the next request tries again.
const FAILURE_BACKOFF: Duration = Duration::from_secs(5);
/// Keys older than this are fetched again (kept if that fails).
const KEYS_MAX_AGE: Duration = Duration::from_secs(3600);

/// The members of the authorization server's metadata the resource server uses.
#[derive(Debug, Deserialize)]
struct Metadata {
    issuer: String,
    #[serde(default)]
    jwks_uri: Option<String>,
    #[serde(default)]
    introspection_endpoint: Option<String>,
}

/// One verification key of the issuer.
pub(crate) struct Key {
    pub(crate) kid: Option<String>,
    /// The key's own `alg`, when its JWK names one: a token must use exactly that.
    pub(crate) alg: Option<Algorithm>,
    pub(crate) decoding: DecodingKey,
}

/// The issuer's keys as last fetched.
pub(crate) struct KeySet {
    pub(crate) keys: Vec<Key>,
    fetched: Instant,
}

impl KeySet {
    fn has(&self, kid: &str) -> bool {
        self.keys.iter().any(|k| k.kid.as_deref() == Some(kid))
    }
}

#[derive(Default)]
struct Refresh {
    metadata: Option<(Option<Url>, Option<Url>)>,
    failure: Option<(Instant, String)>,
    last_unknown_kid: Option<Instant>,
}

/// A configured issuer.
pub(crate) struct Issuer {
    /// The issuer identifier as configured; a token's `iss` must equal it.
    pub(crate) id: String,
    url: Url,
    fetcher: Fetcher,
    refetch_interval: Duration,
    keys: RwLock<Option<Arc<KeySet>>>,
    refresh: tokio::sync::Mutex<Refresh>,
    /// JWKS documents fetched (for tests and logs).
    pub(crate) key_fetches: std::sync::atomic::AtomicU64,
}

impl Issuer {
    pub(crate) fn new(id: String, url: Url, fetcher: Fetcher, refetch_interval: Duration) -> Self {
        Self {
            id,
            url,
            fetcher,
            refetch_interval,
            keys: RwLock::new(None),
            refresh: tokio::sync::Mutex::new(Refresh::default()),
            key_fetches: Default::default(),
        }
    }

    /// Whether `iss` names this issuer (a trailing `/` on an empty path aside).
    pub(crate) fn is(&self, iss: &str) -> bool {
        same_issuer(&self.id, iss)
    }

    fn cached(&self) -> Option<Arc<KeySet>> {
        self.keys.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The keys to check a token signed with key `kid` against: the cached set when it
    /// has `kid` (or the token names none) and is fresh, else a newly fetched one. An
    /// unknown `kid` fetches the set again at most once per refetch interval.
    pub(crate) async fn keys(&self, kid: Option<&str>) -> Result<Arc<KeySet>, String> {
        if let Some(set) = self.cached()
            && kid.is_none_or(|kid| set.has(kid))
            && set.fetched.elapsed() < KEYS_MAX_AGE
        {
            return Ok(set);
        }
        let mut refresh = self.refresh.lock().await;
        // Another request may have fetched them while this one waited.
        let current = self.cached();
        if let Some(set) = &current {
            let stale = set.fetched.elapsed() >= KEYS_MAX_AGE;
            match kid {
                Some(kid) if !set.has(kid) && !stale => {
                    let recent = refresh
                        .last_unknown_kid
                        .is_some_and(|at| at.elapsed() < self.refetch_interval);
                    if recent {
                        return Ok(set.clone());
                    }
                    refresh.last_unknown_kid = Some(Instant::now());
                }
                _ if !stale => return Ok(set.clone()),
                _ => {}
            }
        }
        if let Some((at, reason)) = &refresh.failure
            && at.elapsed() < FAILURE_BACKOFF
        {
            return current.ok_or_else(|| reason.clone());
        }
        match self.fetch_keys(&mut refresh).await {
            Ok(set) => {
                refresh.failure = None;
                let set = Arc::new(set);
                *self.keys.write().unwrap_or_else(|e| e.into_inner()) = Some(set.clone());
                Ok(set)
            }
            Err(reason) => {
                tracing::warn!(issuer = %self.id, "cannot fetch the issuer's keys: {reason}");
                refresh.failure = Some((Instant::now(), reason.clone()));
                // Keys that are merely old still verify what they signed.
                current.ok_or(reason)
            }
        }
    }

    /// The introspection endpoint the issuer's metadata names, if any.
    pub(crate) async fn introspection_endpoint(&self) -> Result<Option<Url>, String> {
        let mut refresh = self.refresh.lock().await;
        if let Some((at, reason)) = &refresh.failure
            && refresh.metadata.is_none()
            && at.elapsed() < FAILURE_BACKOFF
        {
            return Err(reason.clone());
        }
        match self.metadata(&mut refresh).await {
            Ok((_, introspection)) => Ok(introspection),
            Err(reason) => {
                refresh.failure = Some((Instant::now(), reason.clone()));
                Err(reason)
            }
        }
    }

    async fn fetch_keys(&self, refresh: &mut Refresh) -> Result<KeySet, String> {
        let (jwks, _) = self.metadata(refresh).await?;
        let jwks = jwks.ok_or_else(|| format!("the metadata of issuer {} names no jwks_uri", self.id))?;
        self.key_fetches
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let document: JwksDocument = self
            .fetcher
            .get(&jwks)
            .await
            .map_err(|e| format!("the key set of issuer {}: {e}", self.id))?;
        let keys: Vec<Key> = document.keys.iter().filter_map(verification_key).collect();
        if keys.is_empty() {
            return Err(format!(
                "the key set of issuer {} ({jwks}) has no usable signing key (RSA, EC or OKP)",
                self.id
            ));
        }
        Ok(KeySet {
            keys,
            fetched: Instant::now(),
        })
    }

    /// The metadata's JWKS and introspection URLs, found once.
    async fn metadata(&self, refresh: &mut Refresh) -> Result<(Option<Url>, Option<Url>), String> {
        if let Some(found) = &refresh.metadata {
            return Ok(found.clone());
        }
        let mut tried = Vec::new();
        let deadline = Instant::now() + self.fetcher.timeout();
        for candidate in metadata_urls(&self.url) {
            if Instant::now() >= deadline {
                break;
            }
            match self.fetcher.get::<Metadata>(&candidate).await {
                Ok(metadata) => {
                    // RFC 8414 section 3.3: a document naming another issuer is refused
                    // (a mix-up attack, or a misconfiguration).
                    if !same_issuer(&metadata.issuer, &self.id) {
                        return Err(format!(
                            "the metadata at {candidate} names issuer '{}', not '{}': refused (RFC 8414 section 3.3)",
                            shown(&metadata.issuer),
                            self.id
                        ));
                    }
                    let jwks = endpoint(metadata.jwks_uri.as_deref(), "jwks_uri", &candidate)?;
                    let introspection = endpoint(
                        metadata.introspection_endpoint.as_deref(),
                        "introspection_endpoint",
                        &candidate,
                    )?;
                    let found = (jwks, introspection);
                    refresh.metadata = Some(found.clone());
                    return Ok(found);
                }
                Err(error) => {
                    let last = !error.not_found;
                    tried.push(error);
                    // Only a 404 means "look at the next well-known place"; a hang or an
                    // HTML page is reported as it is.
                    if last {
                        break;
                    }
                }
            }
        }
        Err(format!(
            "no authorization server metadata for issuer {}: {}",
            self.id,
            tried
                .iter()
                .map(FetchError::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        ))
    }
}

#[derive(Deserialize)]
struct JwksDocument {
    keys: Vec<serde_json::Value>,
}

/// A JWK usable to verify signatures: RSA, EC or OKP, not marked for encryption. Keys
/// of other types (`oct` among them: an HMAC secret has no place in a public key set)
/// are skipped, as are keys this library cannot read.
fn verification_key(value: &serde_json::Value) -> Option<Key> {
    let jwk: Jwk = serde_json::from_value(value.clone()).ok()?;
    if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)) {
        return None;
    }
    if !matches!(
        jwk.algorithm,
        AlgorithmParameters::RSA(_)
            | AlgorithmParameters::EllipticCurve(_)
            | AlgorithmParameters::OctetKeyPair(_)
    ) {
        return None;
    }
    let alg = match jwk.common.key_algorithm {
        None => None,
        Some(alg) => Some(signing_algorithm(alg)?),
    };
    Some(Key {
        kid: jwk.common.key_id.clone(),
        alg,
        decoding: DecodingKey::from_jwk(&jwk).ok()?,
    })
}

/// A JWK `alg` naming an asymmetric signature algorithm.
fn signing_algorithm(alg: KeyAlgorithm) -> Option<Algorithm> {
    Some(match alg {
        KeyAlgorithm::RS256 => Algorithm::RS256,
        KeyAlgorithm::RS384 => Algorithm::RS384,
        KeyAlgorithm::RS512 => Algorithm::RS512,
        KeyAlgorithm::PS256 => Algorithm::PS256,
        KeyAlgorithm::PS384 => Algorithm::PS384,
        KeyAlgorithm::PS512 => Algorithm::PS512,
        KeyAlgorithm::ES256 => Algorithm::ES256,
        KeyAlgorithm::ES384 => Algorithm::ES384,
        KeyAlgorithm::EdDSA => Algorithm::EdDSA,
        _ => return None,
    })
}

/// A URL member of the metadata: absent, or an allowed absolute URL.
fn endpoint(value: Option<&str>, member: &str, source: &Url) -> Result<Option<Url>, String> {
    let Some(value) = value else { return Ok(None) };
    let url =
        Url::parse(value).map_err(|e| format!("the metadata at {source}: {member} is not a URL ({e})"))?;
    if !super::fetch::allowed(&url) {
        return Err(format!(
            "the metadata at {source}: {member} {url} is neither HTTPS nor loopback"
        ));
    }
    Ok(Some(url))
}

/// Where the metadata of issuer `url` may be, in the order the MCP authorization
/// specification gives: RFC 8414 with path insertion, OpenID Connect Discovery with path
/// insertion, then with the path appended (the last two coincide for a root issuer).
pub(crate) fn metadata_urls(url: &Url) -> Vec<Url> {
    let path = url.path().trim_end_matches('/');
    let at = |path: String| {
        let mut candidate = url.clone();
        candidate.set_path(&path);
        candidate.set_query(None);
        candidate.set_fragment(None);
        candidate
    };
    let mut urls = vec![
        at(format!("/.well-known/oauth-authorization-server{path}")),
        at(format!("/.well-known/openid-configuration{path}")),
    ];
    if !path.is_empty() {
        urls.push(at(format!("{path}/.well-known/openid-configuration")));
    }
    urls
}

/// Issuer identifiers compare as strings, except that `https://as.example` and
/// `https://as.example/` name the same issuer.
pub(crate) fn same_issuer(a: &str, b: &str) -> bool {
    fn root(s: &str) -> &str {
        match s.strip_suffix('/') {
            Some(rest)
                if !rest
                    .trim_start_matches("https://")
                    .trim_start_matches("http://")
                    .contains('/') =>
            {
                rest
            }
            _ => s,
        }
    }
    root(a) == root(b)
}

/// A foreign value for an error message: bounded, one line.
fn shown(value: &str) -> String {
    value.chars().filter(|c| !c.is_control()).take(120).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls_insert_the_path() {
        let urls = |s: &str| -> Vec<String> {
            metadata_urls(&Url::parse(s).unwrap())
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert_eq!(
            urls("https://as.example"),
            [
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            urls("https://as.example/tenant1/"),
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant1",
                "https://as.example/.well-known/openid-configuration/tenant1",
                "https://as.example/tenant1/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn issuers_compare_exactly_but_for_a_root_slash() {
        assert!(same_issuer("https://as.example", "https://as.example/"));
        assert!(same_issuer("http://127.0.0.1:9/", "http://127.0.0.1:9"));
        assert!(!same_issuer("https://as.example/t1", "https://as.example/t1/"));
        assert!(!same_issuer("https://as.example", "https://evil.example"));
        assert!(!same_issuer("https://as.example", "https://AS.example"));
    }
}
