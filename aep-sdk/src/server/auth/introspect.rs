//! Opaque access tokens, checked by RFC 7662 introspection with the resource server's
//! own client credentials. The endpoint is the configured one, else the one the first
//! issuer's metadata names.

use serde::Deserialize;
use url::Url;

use super::fetch::Fetcher;
use super::issuer::Issuer;
use super::jwt::{audiences, shown, token_facts};
use super::token::{Refusal, Verified, now};
use crate::caller::Claims;

/// How long an introspection answer is trusted at most: a revoked token stops working
/// within this bound even when it would live longer.
pub(crate) const MAX_TRUST_SECS: u64 = 300;

/// The resource server's introspection client.
#[derive(Clone)]
pub(crate) struct Introspection {
    pub(crate) endpoint: Option<Url>,
    pub(crate) client_id: String,
    pub(crate) client_secret: String,
}

#[derive(Deserialize)]
struct Answer {
    active: bool,
    #[serde(flatten)]
    claims: Claims,
}

impl Introspection {
    /// Asks the authorization server about `token`. An inactive token is
    /// `Err(Refusal::Invalid)`; one whose answer names no audience is refused too (the
    /// resource server must know the token was meant for it).
    pub(crate) async fn check(
        &self,
        token: &str,
        issuers: &[Issuer],
        fetcher: &Fetcher,
    ) -> Result<Verified, Refusal> {
        let endpoint = match &self.endpoint {
            Some(endpoint) => endpoint.clone(),
            None => {
                let first = issuers
                    .first()
                    .ok_or_else(|| Refusal::Unavailable("no issuer to introspect tokens with".into()))?;
                first
                    .introspection_endpoint()
                    .await
                    .map_err(Refusal::Unavailable)?
                    .ok_or_else(|| {
                        Refusal::Unavailable(format!(
                            "issuer {} names no introspection_endpoint; configure one for opaque tokens",
                            first.id
                        ))
                    })?
            }
        };
        let answer: Answer = fetcher
            .post_form(
                &endpoint,
                &[("token", token), ("token_type_hint", "access_token")],
                (&self.client_id, &self.client_secret),
            )
            .await
            .map_err(|e| Refusal::Unavailable(format!("token introspection at {e}")))?;
        if !answer.active {
            return Err(Refusal::invalid("the token is not active (introspection)"));
        }
        let claims = answer.claims;
        let issuer = match claims.get("iss").and_then(|v| v.as_str()) {
            Some(iss) => issuers
                .iter()
                .find(|i| i.is(iss))
                .map(|i| i.id.clone())
                .ok_or_else(|| Refusal::invalid(format!("issuer '{}' is not trusted here", shown(iss))))?,
            None => issuers.first().map(|i| i.id.clone()).unwrap_or_default(),
        };
        let audiences = audiences(claims.get("aud"));
        if audiences.is_empty() {
            return Err(Refusal::invalid(
                "the introspection answer names no audience (aud), so the token cannot be known to be for this resource",
            ));
        }
        let now = now();
        let expires_at = claims
            .get("exp")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(u64::MAX)
            .min(now + MAX_TRUST_SECS);
        if expires_at < now {
            return Err(Refusal::invalid("the token has expired"));
        }
        Ok(Verified {
            audiences,
            expires_at,
            facts: token_facts(issuer, claims),
        })
    }
}
