//! JWT access tokens (RFC 9068), checked with `jsonwebtoken`: an asymmetric algorithm of
//! the allow-list (never `none`, never HMAC: a public key is no secret), a key the
//! token's issuer publishes, `iss` a trusted issuer, `exp` and `nbf` with the leeway,
//! `aud` present (which audience is checked per request, by the resource server).

use base64::Engine;
use jsonwebtoken::{Algorithm, Validation};
use serde::Deserialize;

use super::issuer::Issuer;
use super::token::{Refusal, Verified};
use crate::caller::{Claims, TokenFacts};

/// The signature algorithms accepted.
pub(crate) const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The header members read before anything is verified.
#[derive(Deserialize)]
struct RawHeader {
    #[serde(default)]
    alg: Option<String>,
    #[serde(default)]
    typ: Option<String>,
    #[serde(default)]
    kid: Option<String>,
}

/// Whether `token` has the shape of a JWS (three base64url parts whose first is a JSON
/// header): opaque tokens go to introspection instead.
pub(crate) fn looks_like_jwt(token: &str) -> bool {
    let mut parts = token.split('.');
    let header = parts.next().unwrap_or("");
    parts.clone().count() == 2 && decode_part::<RawHeader>(header).is_some()
}

fn decode_part<T: serde::de::DeserializeOwned>(part: &str) -> Option<T> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The algorithm of the header, if it is one of [`ALGORITHMS`]; else why not.
fn algorithm(alg: Option<&str>) -> Result<Algorithm, Refusal> {
    let Some(alg) = alg else {
        return Err(Refusal::invalid("the token's header names no algorithm"));
    };
    if alg.eq_ignore_ascii_case("none") {
        return Err(Refusal::invalid("unsigned tokens (alg none) are refused"));
    }
    ALGORITHMS
        .iter()
        .find(|a| format!("{a:?}") == alg)
        .copied()
        .ok_or_else(|| {
            Refusal::invalid(if alg.starts_with("HS") {
                "tokens signed with a shared secret (HMAC) are refused; asymmetric signatures only".to_owned()
            } else {
                format!("algorithm '{}' is not accepted", shown(alg))
            })
        })
}

/// Checks `token` against the trusted `issuers`.
pub(crate) async fn verify(token: &str, issuers: &[Issuer], leeway: u64) -> Result<Verified, Refusal> {
    let mut parts = token.split('.');
    let header: RawHeader = parts
        .next()
        .and_then(decode_part)
        .ok_or_else(|| Refusal::invalid("the token is not a JWT"))?;
    let alg = algorithm(header.alg.as_deref())?;
    // RFC 9068 section 2.1 asks for `at+jwt`; many providers still write `JWT`. Other
    // types (an ID token's, a logout token's) are not access tokens.
    if let Some(typ) = &header.typ {
        let typ = typ.to_ascii_lowercase();
        if !matches!(typ.as_str(), "at+jwt" | "application/at+jwt" | "jwt") {
            return Err(Refusal::invalid(format!(
                "a token of type '{}' is not an access token",
                shown(&typ)
            )));
        }
    }
    let unverified: Claims = parts
        .next()
        .and_then(decode_part)
        .ok_or_else(|| Refusal::invalid("the token's payload is not JSON"))?;
    let iss = unverified
        .get("iss")
        .and_then(|v| v.as_str())
        .ok_or_else(|| Refusal::invalid("the token has no issuer (iss)"))?;
    let issuer = issuers
        .iter()
        .find(|i| i.is(iss))
        .ok_or_else(|| Refusal::invalid(format!("issuer '{}' is not trusted here", shown(iss))))?;
    let keys = issuer
        .keys(header.kid.as_deref())
        .await
        .map_err(Refusal::Unavailable)?;
    let candidates: Vec<_> = keys
        .keys
        .iter()
        .filter(|k| header.kid.is_none() || k.kid == header.kid)
        .filter(|k| k.alg.is_none_or(|a| a == alg))
        .collect();
    if candidates.is_empty() {
        return Err(Refusal::invalid(match &header.kid {
            Some(kid) => format!(
                "the token is signed with key '{}', which issuer {} does not publish",
                shown(kid),
                issuer.id
            ),
            None => format!("issuer {} publishes no {alg:?} key", issuer.id),
        }));
    }
    let mut validation = Validation::new(alg);
    validation.leeway = leeway;
    validation.validate_nbf = true;
    // The audience depends on the resource requested: checked per request.
    validation.validate_aud = false;
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    validation.set_issuer(&[iss]);
    let mut last = None;
    for key in candidates {
        match jsonwebtoken::decode::<Claims>(token, &key.decoding, &validation) {
            Ok(data) => return facts(issuer, data.claims),
            Err(error) => last = Some(error),
        }
    }
    Err(Refusal::invalid(match last.as_ref().map(|e| e.kind()) {
        Some(jsonwebtoken::errors::ErrorKind::ExpiredSignature) => "the token has expired".to_owned(),
        Some(jsonwebtoken::errors::ErrorKind::ImmatureSignature) => {
            "the token is not valid yet (nbf)".to_owned()
        }
        Some(jsonwebtoken::errors::ErrorKind::MissingRequiredClaim(claim)) => {
            format!("the token has no '{claim}' claim")
        }
        Some(jsonwebtoken::errors::ErrorKind::InvalidSignature) => {
            "the token's signature does not verify".to_owned()
        }
        Some(other) => format!("the token does not verify ({other:?})"),
        None => "the token does not verify".to_owned(),
    }))
}

/// What a verified token's claims say.
fn facts(issuer: &Issuer, claims: Claims) -> Result<Verified, Refusal> {
    let expires_at = claims
        .get("exp")
        .and_then(serde_json::Value::as_u64)
        .ok_or_else(|| Refusal::invalid("the token's exp is not a number"))?;
    let audiences = audiences(claims.get("aud"));
    Ok(Verified {
        audiences,
        expires_at,
        facts: token_facts(issuer.id.clone(), claims),
    })
}

/// `aud` as a list (a string or an array of strings).
pub(crate) fn audiences(aud: Option<&serde_json::Value>) -> Vec<String> {
    match aud {
        Some(serde_json::Value::String(one)) => vec![one.clone()],
        Some(serde_json::Value::Array(many)) => many
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// Subject, client id and scopes from the claims (of a JWT or an introspection answer):
/// `scope` (space-separated) or `scp` (a list, or a string as some providers write it);
/// `client_id`, else `azp`.
pub(crate) fn token_facts(issuer: String, claims: Claims) -> TokenFacts {
    let text = |name: &str| claims.get(name).and_then(|v| v.as_str()).map(str::to_owned);
    let scopes = match (claims.get("scope"), claims.get("scp")) {
        (Some(serde_json::Value::String(s)), _) | (None, Some(serde_json::Value::String(s))) => {
            s.split_whitespace().map(str::to_owned).collect()
        }
        (None, Some(serde_json::Value::Array(list))) => list
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    TokenFacts {
        issuer,
        subject: text("sub"),
        client_id: text("client_id").or_else(|| text("azp")),
        scopes,
        claims,
    }
}

/// A foreign value for an error message: bounded, printable.
pub(crate) fn shown(value: &str) -> String {
    value
        .chars()
        .filter(|c| c.is_ascii_graphic() || *c == ' ')
        .take(80)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_asymmetric_algorithms_of_the_list() {
        assert_eq!(algorithm(Some("RS256")).ok(), Some(Algorithm::RS256));
        assert_eq!(algorithm(Some("EdDSA")).ok(), Some(Algorithm::EdDSA));
        for refused in ["none", "NONE", "HS256", "HS512", "ES512", "RSA-OAEP"] {
            assert!(algorithm(Some(refused)).is_err(), "{refused}");
        }
        assert!(algorithm(None).is_err());
    }

    #[test]
    fn a_jwt_has_three_parts_and_a_json_header() {
        assert!(looks_like_jwt("eyJhbGciOiJSUzI1NiJ9.e30.c2ln"));
        assert!(!looks_like_jwt("opaque-token-value"));
        assert!(!looks_like_jwt("a.b.c"));
        assert!(!looks_like_jwt("eyJhbGciOiJSUzI1NiJ9.e30"));
    }

    #[test]
    fn scopes_from_scope_or_scp() {
        let facts = |json: serde_json::Value| {
            let serde_json::Value::Object(claims) = json else {
                panic!()
            };
            token_facts("https://as".into(), claims)
        };
        assert_eq!(facts(serde_json::json!({"scope": "a b"})).scopes, ["a", "b"]);
        assert_eq!(facts(serde_json::json!({"scp": ["a", "b"]})).scopes, ["a", "b"]);
        assert_eq!(facts(serde_json::json!({"scp": "a b"})).scopes, ["a", "b"]);
        let f = facts(serde_json::json!({"sub": "u1", "azp": "app"}));
        assert_eq!(
            (f.subject.as_deref(), f.client_id.as_deref()),
            (Some("u1"), Some("app"))
        );
    }
}
