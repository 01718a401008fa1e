//! [`AuthMethod`]: how the client authenticates at the token endpoint, and how it is chosen.

use serde::{Deserialize, Serialize};

use super::discovery::failed;
use super::metadata::ServerMetadata;
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
