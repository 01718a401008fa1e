//! The oidc-provider harness against the real oidc-provider: what its tokens carry
//! (RFC 9068 JWTs for the requested resource, the requested scopes), its metadata and
//! JWKS, dynamic registration with the authorization code flow and PKCE through the
//! headless login, refresh rotation, and short-lived tokens really expiring. Resource URLs
//! here are never served: the authorization server does not contact resources.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aep_peers::{OidcClient, OidcOptions, OidcProvider, Peers, SigningAlg, jwt_parts};
use serde_json::{Value, json};

const RESOURCE: &str = "http://127.0.0.1:1/mcp";
const REDIRECT: &str = "http://127.0.0.1:8976/callback";

fn cc_client() -> OidcClient {
    OidcClient::client_credentials("cc-client", "cc-secret-not-a-real-one")
}

async fn start(options: OidcOptions) -> OidcProvider {
    OidcProvider::start(options)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn a_client_credentials_token_is_a_jwt_for_the_resource_with_the_scopes_asked() {
    if Peers::require().is_none() {
        return;
    }
    for (alg, signing_alg) in [("RS256", SigningAlg::Rs256), ("ES256", SigningAlg::Es256)] {
        let options = OidcOptions {
            clients: vec![cc_client()],
            signing_alg,
            ..OidcOptions::default()
        };
        let server = start(options).await;
        // `admin` is no scope of the resource server: oidc-provider drops it silently.
        let token = server
            .client_credentials_token(&cc_client(), RESOURCE, "files:read tools:call admin")
            .await
            .unwrap_or_else(|e| panic!("{e}\n{}", server.stderr()));
        assert_eq!(token.token_type, "Bearer");
        assert_eq!(token.scope.as_deref(), Some("files:read tools:call"));
        let (header, claims) = jwt_parts(&token.access_token).unwrap();
        assert_eq!(header["alg"], alg, "{header}");
        assert_eq!(header["typ"], "at+jwt", "{header}");
        assert_eq!(claims["aud"], RESOURCE, "{claims}");
        assert_eq!(claims["scope"], "files:read tools:call", "{claims}");
        assert_eq!(claims["iss"], server.issuer(), "{claims}");
        assert_eq!(claims["client_id"], "cc-client", "{claims}");
        assert_eq!(claims["sub"], "cc-client", "{claims}");
        assert_eq!(lifetime(&claims), 3600, "{claims}");
        let jwks = server.get_json("/jwks").await.unwrap();
        let key = jwks["keys"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["kid"] == header["kid"]);
        assert_eq!(
            key.map(|k| &k["alg"]),
            Some(&json!(alg)),
            "signing key published: {jwks}"
        );

        let wrong = OidcClient::client_credentials("cc-client", "not-the-secret");
        let refused = server
            .client_credentials_token(&wrong, RESOURCE, "files:read")
            .await
            .unwrap_err();
        assert!(
            refused.contains("401") && refused.contains("invalid_client"),
            "{refused}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn metadata_and_jwks_are_served() {
    if Peers::require().is_none() {
        return;
    }
    let server = start(OidcOptions::default()).await;
    for path in [
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ] {
        let metadata = server.get_json(path).await.unwrap();
        let shown = format!("{path}: {metadata}");
        assert_eq!(metadata["issuer"], server.issuer(), "{shown}");
        for endpoint in [
            "authorization_endpoint",
            "token_endpoint",
            "registration_endpoint",
            "introspection_endpoint",
            "jwks_uri",
        ] {
            assert_eq!(
                metadata[endpoint],
                server.endpoint(endpoint),
                "{endpoint}: {shown}"
            );
        }
        assert_eq!(
            metadata["code_challenge_methods_supported"],
            json!(["S256"]),
            "{shown}"
        );
        assert_eq!(metadata["response_types_supported"], json!(["code"]), "{shown}");
        assert_eq!(
            metadata["authorization_response_iss_parameter_supported"], true,
            "{shown}"
        );
        let grants = metadata["grant_types_supported"].to_string();
        for grant in ["authorization_code", "refresh_token", "client_credentials"] {
            assert!(grants.contains(grant), "{grant}: {shown}");
        }
        let scopes = metadata["scopes_supported"].to_string();
        for scope in ["mcp", "files:read", "files:write", "tools:call"] {
            assert!(scopes.contains(scope), "{scope}: {shown}");
        }
    }
    let jwks = server.get_json("/jwks").await.unwrap();
    let keys = jwks["keys"].as_array().cloned().unwrap_or_default();
    let types: Vec<&str> = keys.iter().filter_map(|k| k["kty"].as_str()).collect();
    assert_eq!(types, ["RSA", "EC"], "{jwks}");
    for key in &keys {
        assert!(key["kid"].is_string() && key["use"] == "sig", "{key}");
        // Public halves only: no private exponent or scalar, no CRT parameters.
        for private in ["d", "p", "q", "dp", "dq", "qi"] {
            assert!(key.get(private).is_none(), "JWKS leaks `{private}`");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn registration_code_and_pkce_through_the_login_give_a_token_for_the_resource() {
    if Peers::require().is_none() {
        return;
    }
    let server = start(OidcOptions::default()).await;
    let client = server
        .register(&json!({
            "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "scope": "files:read offline_access",
        }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        client.secret().is_none(),
        "a public client has no secret: {client:?}"
    );

    let token = server
        .authorization_code_token(&client, RESOURCE, "files:read offline_access")
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", server.stderr()));
    let (header, claims) = jwt_parts(&token.access_token).unwrap();
    assert_eq!(header["typ"], "at+jwt", "{header}");
    assert_eq!(claims["aud"], RESOURCE, "{claims}");
    assert_eq!(claims["sub"], "user", "the login is the subject: {claims}");
    assert_eq!(claims["client_id"], client.id(), "{claims}");
    // offline_access is the grant's, not the resource's: the token carries files:read only.
    assert_eq!(claims["scope"], "files:read", "{claims}");

    // offline_access was granted: a refresh token, rotated on use (public client).
    let refresh = token
        .refresh_token
        .clone()
        .expect("a refresh token for offline_access");
    let refreshed = server
        .refresh(&client, &refresh, Some(RESOURCE))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(jwt_parts(&refreshed.access_token).unwrap().1["aud"], RESOURCE);
    assert!(
        refreshed.refresh_token.as_ref().is_some_and(|r| *r != refresh),
        "rotated"
    );
    let reused = server.refresh(&client, &refresh, None).await.unwrap_err();
    assert!(
        reused.contains("invalid_grant"),
        "a used refresh token is refused: {reused}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn public_clients_need_pkce_and_loopback_ports_are_free_for_native_ones() {
    if Peers::require().is_none() {
        return;
    }
    let native = OidcClient::public_native("native-app", "http://127.0.0.1/callback");
    let server = start(OidcOptions {
        clients: vec![native.clone()],
        ..OidcOptions::default()
    })
    .await;
    // RFC 8252 section 7.3: the port of a loopback redirect is the app's choice.
    let mut on_a_port = native.clone();
    on_a_port.metadata["redirect_uris"] = json!(["http://127.0.0.1:49152/callback"]);
    let token = server
        .authorization_code_token(&on_a_port, RESOURCE, "tools:call")
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", server.stderr()));
    assert_eq!(jwt_parts(&token.access_token).unwrap().1["scope"], "tools:call");
    assert!(
        token.refresh_token.is_none(),
        "no offline_access, no refresh token"
    );

    // Without code_challenge the request comes back to the client as an error.
    let url = server.authorize_url(&on_a_port, RESOURCE, "tools:call", "s", &aep_peers::Pkce::new());
    let without: String = url
        .split('&')
        .filter(|p| !p.starts_with("code_challenge"))
        .collect::<Vec<_>>()
        .join("&");
    let redirect = server.login(&without).await.unwrap_or_else(|e| panic!("{e}"));
    let param = |name: &str| {
        redirect
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    assert_eq!(param("error").as_deref(), Some("invalid_request"), "{redirect}");
    assert!(
        param("error_description").is_some_and(|d| d.contains("PKCE")),
        "{redirect}"
    );
    assert_eq!(param("state").as_deref(), Some("s"), "{redirect}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn tokens_expire_with_a_short_ttl() {
    if Peers::require().is_none() {
        return;
    }
    let opaque_resource = "http://127.0.0.1:2/opaque";
    let introspector = OidcClient::introspector("resource-server", "rs-secret-not-a-real-one");
    let server = start(OidcOptions {
        access_token_ttl: Duration::from_secs(2),
        clients: vec![cc_client(), introspector.clone()],
        opaque_resources: vec![opaque_resource.into()],
        ..OidcOptions::default()
    })
    .await;
    let jwt = server
        .client_credentials_token(&cc_client(), RESOURCE, "mcp")
        .await
        .unwrap();
    assert_eq!(jwt.expires_in, Some(2));
    assert_eq!(lifetime(&jwt_parts(&jwt.access_token).unwrap().1), 2);
    // oidc-provider introspects opaque tokens only.
    let refused = server
        .introspect(&introspector, &jwt.access_token)
        .await
        .unwrap_err();
    assert!(refused.contains("unsupported_token_type"), "{refused}");

    let opaque = server
        .client_credentials_token(&cc_client(), opaque_resource, "mcp")
        .await
        .unwrap();
    assert!(
        jwt_parts(&opaque.access_token).is_err(),
        "an opaque token is not a JWT"
    );
    let active = server
        .introspect(&introspector, &opaque.access_token)
        .await
        .unwrap();
    assert_eq!(active["active"], true, "{active}");
    assert_eq!(active["aud"], opaque_resource, "{active}");
    assert_eq!(active["scope"], "mcp", "{active}");
    assert_eq!(active["client_id"], "cc-client", "{active}");
    let exp = active["exp"].as_u64().expect("exp");

    // Wait until one second past `exp` (at most 5 s), then the same token is inactive.
    let wait = (exp + 1).saturating_sub(now()).min(5);
    tokio::time::sleep(Duration::from_secs(wait)).await;
    let expired = server
        .introspect(&introspector, &opaque.access_token)
        .await
        .unwrap();
    assert_eq!(expired, json!({"active": false}));
}

/// `exp - iat` of a token's claims.
fn lifetime(claims: &Value) -> u64 {
    claims["exp"].as_u64().unwrap_or(0) - claims["iat"].as_u64().unwrap_or(0)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn a_bad_pre_registered_client_fails_the_start_with_the_reason() {
    if Peers::require().is_none() {
        return;
    }
    // A confidential client without its secret: oidc-provider's own metadata check.
    let bad = OidcClient::from_metadata(
        json!({"client_id": "bad", "grant_types": ["client_credentials"], "response_types": []}),
    );
    let error = OidcProvider::start(OidcOptions {
        clients: vec![bad],
        ..OidcOptions::default()
    })
    .await
    .unwrap_err();
    assert!(
        error.contains("client bad") && error.contains("client_secret is mandatory"),
        "{error}"
    );
}
