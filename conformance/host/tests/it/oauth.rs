//! The host's OAuth client where the MCP conformance suite does not reach: an
//! extension whose AEP routes and MCP server are each a protected resource, client
//! credentials, refresh, the file token store, and refused redirects, against a small
//! authorization server on loopback (tests/oauth_support).

use crate::oauth_support;

use std::sync::Arc;
use std::time::Duration;

use aep_host::catalog::{Catalog, ToolResource};
use aep_host::mcp::McpPool;
use aep_host::oauth::{AuthorizationRequest, Authorize, OAuthOptions, Secret, SignIn, TokenStore};
use aep_host::registry::{ExtensionEntry, Registry};
use aep_host::{ErrorCode, HostError};
use aep_sdk::protocol::ProtocolVersion;
use oauth_support::{AuthServer, Behaviour, guarded_utilities};
use serde_json::json;
use url::Url;

fn headless() -> OAuthOptions {
    OAuthOptions::authorization_code(Authorize::headless())
}

fn mcp_url(base: &str) -> Url {
    Url::parse(&format!("{base}/mcp")).unwrap()
}

/// A fresh directory under the system's temporary one.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("aep-host-oauth-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[tokio::test]
async fn an_extension_signs_in_for_its_aep_routes_and_its_mcp_server() {
    let (auth, _as) = AuthServer::start(Behaviour::default()).await;
    let extension = guarded_utilities(&auth).await;

    // Without sign-in the extension refuses the host.
    let entry = ExtensionEntry::new("aep.utilities", &extension.base_url, ProtocolVersion::LATEST).unwrap();
    let refused = entry.client().discover().await.unwrap_err();
    assert_eq!(refused.status.map(|s| s.as_u16()), Some(401), "{refused}");

    let entry = entry.with_oauth(headless()).unwrap();
    let mut registry = Registry::new();
    registry.insert(entry).unwrap();
    let catalog = Catalog::new(Arc::new(registry), McpPool::new());
    catalog
        .add(ToolResource::aep("sha", "aep.utilities", "hash.compute"))
        .unwrap();
    let output = catalog
        .invoke("sha", json!({"text": "abc"}))
        .await
        .expect("discovery, tools/list and tools/call, signed in");
    assert!(output.text().contains("ba7816bf"), "{}", output.text());

    // Two resources, two authorizations, each with its own `resource` (RFC 8707), the
    // same in the authorization and the token request.
    let resources: Vec<String> = auth
        .seen_at("/authorize")
        .iter()
        .map(|s| s.param("resource").unwrap().to_owned())
        .collect();
    assert_eq!(
        resources,
        [extension.base_url.clone(), format!("{}/mcp", extension.base_url)]
    );
    let exchanged: Vec<String> = auth
        .token_requests("authorization_code")
        .iter()
        .map(|s| s.param("resource").unwrap().to_owned())
        .collect();
    assert_eq!(exchanged, resources);
    // One dynamic registration serves both (kept in the shared store).
    assert_eq!(auth.seen_at("/register").len(), 1);

    // More calls reuse the tokens.
    catalog.invoke("sha", json!({"text": "abd"})).await.unwrap();
    assert_eq!(auth.seen_at("/authorize").len(), 2);
    assert!(
        !format!("{catalog:?}").contains("access-"),
        "Debug never shows a token"
    );
}

#[tokio::test]
async fn client_credentials_sign_a_machine_in_without_a_person() {
    let behaviour = Behaviour {
        clients: [("machine".to_owned(), "s3cret:+/".to_owned())].into(),
        ..Behaviour::default()
    };
    let (auth, _as) = AuthServer::start(behaviour).await;
    let extension = guarded_utilities(&auth).await;
    let mcp = mcp_url(&extension.base_url);

    let options = OAuthOptions::client_credentials("machine", Secret::new("s3cret:+/")).with_scope("tools");
    let pool = McpPool::new();
    pool.set_oauth(&mcp, options.clone());
    let tools = pool
        .tools(&mcp)
        .await
        .expect("tools/list after client credentials");
    assert!(tools.iter().any(|t| t.name == "hash_compute"));
    let grants = auth.token_requests("client_credentials");
    assert_eq!(grants.len(), 1);
    // HTTP Basic with the form-encoded id and secret (RFC 6749 section 2.3.1).
    assert_eq!(
        grants[0].basic,
        Some(("machine".to_owned(), "s3cret:+/".to_owned()))
    );
    assert_eq!(grants[0].param("resource"), Some(mcp.as_str()));
    assert_eq!(grants[0].param("scope"), Some("tools"));
    assert!(auth.seen_at("/authorize").is_empty());

    // A wrong secret: the server's reason, never the secret.
    let wrong = SignIn::new(
        &mcp,
        OAuthOptions::client_credentials("machine", Secret::new("guess-7f3a")),
    )
    .unwrap();
    let error = wrong.sign_in(None).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::AuthorizationFailed);
    assert!(error.message.contains("invalid_client"), "{error}");
    assert!(!error.to_string().contains("guess-7f3a"), "{error}");

    // Without a secret there is nothing to send.
    let mut options = options;
    options.client_secret = None;
    let error = SignIn::new(&mcp, options)
        .unwrap()
        .sign_in(None)
        .await
        .unwrap_err();
    assert!(error.message.contains("client id and secret"), "{error}");
}

#[tokio::test]
async fn an_expired_or_revoked_token_is_refreshed() {
    let behaviour = Behaviour {
        // Within the client's 30 s skew: expired as soon as it is issued.
        expires_in: 5,
        refresh: true,
        ..Behaviour::default()
    };
    let (auth, _as) = AuthServer::start(behaviour).await;
    let extension = guarded_utilities(&auth).await;
    let mcp = mcp_url(&extension.base_url);
    let sign_in = SignIn::new(&mcp, headless()).unwrap();
    let first = sign_in.sign_in(None).await.unwrap();

    // Asking for the token refreshes it (with the same resource).
    let second = sign_in.access_token().await.expect("a refreshed token");
    assert_ne!(first, second);
    let refreshes = auth.token_requests("refresh_token");
    assert_eq!(refreshes.len(), 1);
    assert_eq!(refreshes[0].param("resource"), Some(mcp.as_str()));
    assert_eq!(auth.seen_at("/authorize").len(), 1, "no new authorization");

    // A revoked token refused with 401: the pool refreshes and sends the request again.
    let (auth, _as) = AuthServer::start(Behaviour {
        refresh: true,
        ..Behaviour::default()
    })
    .await;
    let extension = guarded_utilities(&auth).await;
    let mcp = mcp_url(&extension.base_url);
    let pool = McpPool::new();
    pool.set_oauth(&mcp, headless());
    pool.tools(&mcp).await.unwrap();
    auth.revoke_all();
    pool.refresh_tools(&mcp)
        .await
        .expect("tools/list after a refresh");
    assert_eq!(auth.token_requests("refresh_token").len(), 1);
    assert_eq!(auth.seen_at("/authorize").len(), 1, "a refresh, not a sign-in");
}

#[tokio::test]
async fn the_file_store_is_private_and_outlives_the_process() {
    let (auth, _as) = AuthServer::start(Behaviour::default()).await;
    let extension = guarded_utilities(&auth).await;
    let mcp = mcp_url(&extension.base_url);
    let dir = scratch("store");
    let path = dir.join("nested").join("tokens.json");

    let store = TokenStore::file(&path);
    let sign_in = SignIn::new(&mcp, headless().with_store(store.clone())).unwrap();
    let token = sign_in.sign_in(None).await.unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(token.expose()), "the store keeps the token");
    for shown in [
        format!("{store:?}"),
        format!("{sign_in:?}"),
        format!("{:?}", sign_in.options()),
        format!("{token:?}"),
    ] {
        assert!(!shown.contains(token.expose()), "{shown}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        // A store someone made readable is narrowed again before it is read.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        drop((sign_in, store));
        let again = SignIn::new(&mcp, headless().with_store(TokenStore::file(&path))).unwrap();
        assert_eq!(
            again.access_token().await.as_ref(),
            Some(&token),
            "read back, no sign-in"
        );
        assert_eq!(mode(&path), 0o600);
    }
    assert_eq!(auth.seen_at("/authorize").len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_forged_or_refused_redirect_gives_no_token() {
    let (auth, _as) = AuthServer::start(Behaviour::default()).await;
    let extension = guarded_utilities(&auth).await;
    let mcp = mcp_url(&extension.base_url);
    let redirect = Url::parse("http://127.0.0.1:9/callback").unwrap();

    // A redirect whose state is not this sign-in's.
    let forged = |request: AuthorizationRequest| async move {
        let mut back = aep_host::oauth::follow_redirects(&request, Duration::from_secs(5)).await?;
        let pairs: Vec<(String, String)> = back
            .query_pairs()
            .map(|(k, v)| {
                let v = if k == "state" {
                    "forged".to_owned()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        back.query_pairs_mut().clear().extend_pairs(pairs);
        Ok::<_, HostError>(back)
    };
    let options = OAuthOptions::authorization_code(Authorize::custom(redirect.clone(), forged));
    let error = SignIn::new(&mcp, options)
        .unwrap()
        .sign_in(None)
        .await
        .unwrap_err();
    assert!(error.message.contains("state does not match"), "{error}");

    // The person said no.
    let denied = |request: AuthorizationRequest| async move {
        let mut back = request.redirect_uri.clone();
        back.query_pairs_mut()
            .append_pair("error", "access_denied")
            .append_pair("error_description", "the user said no");
        Ok::<_, HostError>(back)
    };
    let options = OAuthOptions::authorization_code(Authorize::custom(redirect, denied));
    let error = SignIn::new(&mcp, options)
        .unwrap()
        .sign_in(None)
        .await
        .unwrap_err();
    assert!(
        error.message.contains("access_denied: the user said no"),
        "{error}"
    );
    assert!(auth.token_requests("authorization_code").is_empty());
}

#[tokio::test]
async fn headless_mode_against_a_login_page_says_to_use_a_browser() {
    let behaviour = Behaviour {
        login_page: true,
        ..Behaviour::default()
    };
    let (auth, _as) = AuthServer::start(behaviour).await;
    let extension = guarded_utilities(&auth).await;
    let pool = McpPool::new();
    let mcp = mcp_url(&extension.base_url);
    pool.set_oauth(&mcp, headless());
    let error = pool.tools(&mcp).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::AuthorizationFailed, "{error}");
    assert!(error.message.contains("HTTP 200"), "{error}");
    assert!(error.message.contains("browser"), "{error}");
}

#[tokio::test]
async fn no_registration_and_no_client_id_is_explained() {
    let behaviour = Behaviour {
        registration: false,
        ..Behaviour::default()
    };
    let (auth, _as) = AuthServer::start(behaviour).await;
    let extension = guarded_utilities(&auth).await;
    let error = SignIn::new(&mcp_url(&extension.base_url), headless())
        .unwrap()
        .sign_in(None)
        .await
        .unwrap_err();
    assert!(error.message.contains("--oauth-client-id"), "{error}");
    assert!(auth.seen_at("/authorize").is_empty());
}
