//! PKCE (RFC 7636, S256 only) and the `state` value of an authorization request.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};

use crate::error::{ErrorCode, HostError, Result};

/// `n` bytes from the operating system's random source, base64url without padding.
pub fn random(n: usize) -> Result<String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).map_err(|e| {
        HostError::new(
            ErrorCode::AuthorizationFailed,
            format!("no random numbers from the operating system: {e}"),
        )
    })?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// A code verifier (32 random bytes: 43 characters) and its S256 challenge.
pub struct Pkce {
    /// Sent with the code to the token endpoint.
    pub verifier: String,
    /// `BASE64URL(SHA256(verifier))`, sent with the authorization request.
    pub challenge: String,
}

impl Pkce {
    /// A fresh pair.
    pub fn new() -> Result<Self> {
        let verifier = random(32)?;
        let challenge = challenge_of(&verifier);
        Ok(Self { verifier, challenge })
    }
}

/// The S256 challenge of `verifier`.
pub fn challenge_of(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_7636_appendix_b() {
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let pkce = Pkce::new().unwrap();
        assert_eq!(pkce.verifier.len(), 43);
        assert_ne!(pkce.verifier, Pkce::new().unwrap().verifier);
    }
}
