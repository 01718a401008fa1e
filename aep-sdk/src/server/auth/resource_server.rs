//! The resource server: turns a presented access token into a [`Caller`] for the
//! resource requested, or says why not.

use std::sync::Arc;

use url::Url;

use super::fetch::{Fetcher, allowed};
use super::introspect::Introspection;
use super::issuer::Issuer;
use super::jwt;
use super::oauth::OAuth;
use super::token::{Cached, Digester, Refusal, TokenCache, now};
use crate::Error;
use crate::caller::Caller;

/// Verdicts kept at most (distinct live tokens).
const CACHE_CAPACITY: usize = 16_384;
/// How long an introspection answer `active: false` is remembered.
const REFUSED_SECS: u64 = 60;

/// One protected resource: the AEP routes, or one MCP endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Resource {
    /// Its identifier, the canonical URL tokens must name in `aud`.
    pub(crate) id: String,
    /// Where its protected resource metadata is, as clients reach it.
    pub(crate) metadata_url: String,
    /// The local path that metadata is served at.
    pub(crate) metadata_path: String,
}

pub(crate) struct ResourceServer {
    pub(crate) issuers: Vec<Issuer>,
    introspection: Option<Introspection>,
    fetcher: Fetcher,
    cache: TokenCache,
    digester: Digester,
    leeway: u64,
    /// Accepted on every resource besides its own identifier (canonical).
    extra_audiences: Vec<String>,
    pub(crate) base: Resource,
    /// By MCP endpoint path.
    pub(crate) mcp: Vec<(String, Resource)>,
    pub(crate) name: String,
}

impl ResourceServer {
    /// The resource server of `oauth` for an extension reached at `public` (when
    /// `oauth` names no public URL) with MCP endpoints at `mcp_paths`.
    pub(crate) fn new(
        oauth: &OAuth,
        public: &str,
        mcp_paths: &[String],
        name: &str,
    ) -> Result<Arc<Self>, Error> {
        if oauth.issuers.is_empty() {
            return Err(Error::Config(
                "OAuth needs at least one issuer (--oauth-issuer)".into(),
            ));
        }
        let fetcher = Fetcher::new(oauth.fetch_timeout);
        let mut issuers = Vec::new();
        for id in &oauth.issuers {
            let url = Url::parse(id)
                .map_err(|e| Error::Config(format!("OAuth issuer '{id}' is not a URL: {e}")))?;
            if !allowed(&url) || url.query().is_some() || url.fragment().is_some() {
                return Err(Error::Config(format!(
                    "OAuth issuer '{id}' must be an https URL without query or fragment (http only on loopback)"
                )));
            }
            issuers.push(Issuer::new(
                id.clone(),
                url,
                fetcher.clone(),
                oauth.key_refetch_interval,
            ));
        }
        let public = oauth.public_url.as_deref().unwrap_or(public);
        let base = Url::parse(public)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
            .ok_or_else(|| Error::Config(format!("the public URL '{public}' is not an http(s) URL")))?;
        let introspection = match &oauth.introspection {
            None => None,
            Some((client_id, client_secret)) => {
                let endpoint = match &oauth.introspection_endpoint {
                    None => None,
                    Some(raw) => Some(Url::parse(raw).ok().filter(allowed).ok_or_else(|| {
                        Error::Config(format!(
                            "the introspection endpoint '{raw}' must be an https URL (http only on loopback)"
                        ))
                    })?),
                };
                Some(Introspection {
                    endpoint,
                    client_id: client_id.clone(),
                    client_secret: client_secret.clone(),
                })
            }
        };
        let base_resource = resource(&base, "");
        let mcp = mcp_paths
            .iter()
            .map(|path| (path.clone(), resource(&base, path)))
            .collect();
        Ok(Arc::new(Self {
            issuers,
            introspection,
            fetcher,
            cache: TokenCache::new(CACHE_CAPACITY),
            digester: Digester::new(),
            leeway: oauth.leeway.as_secs(),
            extra_audiences: oauth.audiences.iter().map(|a| canonical(a)).collect(),
            base: base_resource,
            mcp,
            name: oauth.resource_name.clone().unwrap_or_else(|| name.to_owned()),
        }))
    }

    /// The resource a request to `path` is for.
    pub(crate) fn resource_for(&self, path: &str) -> &Resource {
        self.mcp
            .iter()
            .find(|(p, _)| p == path)
            .map_or(&self.base, |(_, r)| r)
    }

    /// The caller `token` stands for on `resource`. A cached verdict costs a hash and a
    /// lookup; only a token not seen before is read as text and verified.
    pub(crate) async fn authenticate(&self, token: &[u8], resource: &Resource) -> Result<Caller, Refusal> {
        let key = self.digester.digest(token);
        let now = now();
        let (caller, audiences) = match self.cache.get(&key, now) {
            Some(Cached::Accepted {
                caller, audiences, ..
            }) => (caller, audiences),
            Some(Cached::Refused { reason, .. }) => return Err(Refusal::Invalid(reason.to_string())),
            None => {
                let token =
                    std::str::from_utf8(token).map_err(|_| Refusal::invalid("the token is not text"))?;
                let opaque = !jwt::looks_like_jwt(token);
                let verified = match (&self.introspection, opaque) {
                    (_, false) => jwt::verify(token, &self.issuers, self.leeway).await,
                    (Some(introspection), true) => {
                        introspection.check(token, &self.issuers, &self.fetcher).await
                    }
                    (None, true) => Err(Refusal::invalid(
                        "the token is not a JWT, and this resource introspects no opaque tokens",
                    )),
                };
                match verified {
                    Ok(verified) => {
                        let audiences: Arc<[String]> =
                            verified.audiences.iter().map(|a| canonical(a)).collect();
                        let caller = Caller::from_token(verified.facts);
                        let until = verified.expires_at.saturating_add(self.leeway);
                        let verdict = Cached::Accepted {
                            caller: caller.clone(),
                            audiences: audiences.clone(),
                            until,
                        };
                        self.cache.put(key, verdict, now);
                        (caller, audiences)
                    }
                    Err(Refusal::Invalid(reason)) if opaque && self.introspection.is_some() => {
                        let verdict = Cached::Refused {
                            reason: reason.as_str().into(),
                            until: now + REFUSED_SECS,
                        };
                        self.cache.put(key, verdict, now);
                        return Err(Refusal::Invalid(reason));
                    }
                    Err(refusal) => return Err(refusal),
                }
            }
        };
        let accepted = audiences
            .iter()
            .any(|aud| *aud == resource.id || self.extra_audiences.contains(aud));
        if !accepted {
            return Err(Refusal::invalid(format!(
                "the token is for another resource; this one is {}",
                resource.id
            )));
        }
        Ok(caller)
    }
}

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

/// An audience or resource URL compared the way RFC 8707 resources are: scheme and host
/// in lowercase, no default port, no trailing `/`. Anything that is not an http(s) URL
/// is compared as written.
pub(crate) fn canonical(value: &str) -> String {
    match Url::parse(value) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => {
            url.as_str().trim_end_matches('/').to_owned()
        }
        _ => value.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_resources() {
        assert_eq!(canonical("HTTPS://Ext.Example:443/"), "https://ext.example");
        assert_eq!(canonical("https://ext.example/mcp/"), "https://ext.example/mcp");
        assert_eq!(
            canonical("http://127.0.0.1:8710/mcp"),
            "http://127.0.0.1:8710/mcp"
        );
        assert_eq!(canonical("urn:example:api"), "urn:example:api");
    }

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
