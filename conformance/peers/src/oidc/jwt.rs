//! Reading a JWT's header and claims, without verifying it: the tests check what the
//! authorization server put in its tokens; verifying them is the resource server's job.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

/// The header and the claims of the compact JWS `token` (three base64url parts), not
/// verified. An error never contains the token.
pub fn jwt_parts(token: &str) -> Result<(Value, Value), String> {
    let parts: Vec<&str> = token.split('.').collect();
    let [header, claims, _signature] = parts[..] else {
        return Err(format!("not a compact JWS: {} parts, not 3", parts.len()));
    };
    let decode = |part: &str, what: &str| -> Result<Value, String> {
        let bytes = URL_SAFE_NO_PAD
            .decode(part)
            .map_err(|e| format!("the JWT's {what} is not base64url: {e}"))?;
        serde_json::from_slice(&bytes).map_err(|e| format!("the JWT's {what} is not JSON: {e}"))
    };
    Ok((decode(header, "header")?, decode(claims, "claims")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_decoded() {
        let (header, claims) = jwt_parts("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln").unwrap();
        assert_eq!(header["alg"], "RS256");
        assert_eq!(claims["sub"], "a");
        assert!(jwt_parts("opaque-token").unwrap_err().contains("1 parts"));
    }
}
