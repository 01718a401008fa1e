//! Signing in with OAuth: the Inspector as the OAuth client of an extension that is a
//! resource server (its AEP routes and two MCP servers, each its own resource), against
//! panva's oidc-provider (dynamic registration, PKCE, resource indicators, JWT access
//! tokens, its login and consent pages walked over HTTP). Then connecting with the
//! tokens, signing out, and each way a sign-in fails: a forged redirect, a refused
//! consent, an expired trip, an authorization server that is down.

use std::time::{Duration, Instant};

use aep_peers::{OidcClient, OidcOptions, OidcProvider, Peers};
use serde_json::{Value, json};

use crate::common::oauth::{guarded, param, refuse};
use crate::common::{Inspector, api, fixtures, id_of};
use crate::{exchanges, ids};

/// How every JWT begins (base64url of `{"`): no answer to the page may hold one.
const JWT: &str = "eyJ";

/// oidc-provider with `options`, or `None` (skipped outside CI) when the peers are missing.
async fn authorization_server(options: OidcOptions) -> Option<OidcProvider> {
    let peers = Peers::require()?;
    Some(peers.oidc_provider(options).await.expect("oidc-provider starts"))
}

fn no_token(what: &str, text: &str) {
    assert!(!text.contains(JWT), "{what} holds a token: {text}");
}

/// Walks each trip of the sign-in `started` as `login` (oidc-provider's pages, then the
/// Inspector's callback, which sends the browser on to the next trip) until the callback
/// says it is signed in; the authorization URLs of the trips.
async fn walk(inspector: &Inspector, oidc: &OidcProvider, started: &Value, login: &str) -> Vec<String> {
    let mut trips = Vec::new();
    let mut next = started["authorizationUrl"].as_str().unwrap().to_owned();
    for _ in 0..5 {
        trips.push(next.clone());
        let back = oidc.login_as(&next, login).await.unwrap();
        let callback = format!("{}/oauth/callback?", inspector.url);
        assert!(back.as_str().starts_with(&callback), "{back}");
        let (status, location, page) = inspector.visit(back.as_str()).await;
        no_token("the callback page", &page);
        match status {
            303 => next = location.unwrap(),
            200 => {
                assert!(page.contains("Signed in to AEP routes"), "{page}");
                return trips;
            }
            other => panic!("the callback answered {other}: {page}"),
        }
    }
    panic!("more than five trips: {trips:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn signing_in_gives_each_resource_its_own_token_and_signing_out_forgets_them() {
    let Some(oidc) = authorization_server(OidcOptions::default()).await else {
        return;
    };
    let extension = guarded(oidc.issuer());
    let base = extension.base_url.clone();
    let inspector = Inspector::start(vec![]).await;

    // Without a sign-in, the page is told to sign in, and where the metadata is.
    let refused = inspector
        .post_expect("/api/connections", json!({"url": base}), 401)
        .await;
    assert_eq!(refused["error"]["code"], "sign_in_required", "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("{base}/.well-known/aep answered HTTP 401")),
        "{message}"
    );
    assert_eq!(
        refused["error"]["details"],
        json!([format!(
            "protected resource metadata: {base}/.well-known/oauth-protected-resource"
        )])
    );

    let started = inspector
        .post_expect("/api/sign-ins", json!({"url": base}), 201)
        .await;
    no_token("the sign-in", &started.to_string());
    assert_eq!(started["status"], "pending", "{started}");
    assert_eq!(started["trip"], 1);
    assert_eq!(started["resource"], base);
    assert_eq!(started["issuer"], oidc.issuer());
    assert!(started["expiresInSeconds"].as_u64().unwrap() > 100, "{started}");
    let id = started["id"].as_str().unwrap().to_owned();

    let trips = walk(&inspector, &oidc, &started, "ada").await;
    // One trip per resource, one registration for all, the Inspector's exact callback,
    // PKCE S256 and the resource indicator each time.
    let resources: Vec<String> = trips.iter().map(|t| param(t, "resource").unwrap()).collect();
    assert_eq!(
        resources,
        [base.clone(), format!("{base}/mcp"), format!("{base}/mcp/admin")]
    );
    let client = param(&trips[0], "client_id").unwrap();
    for trip in &trips {
        assert_eq!(param(trip, "client_id").unwrap(), client);
        assert_eq!(
            param(trip, "redirect_uri").unwrap(),
            format!("{}/oauth/callback", inspector.url)
        );
        assert_eq!(param(trip, "response_type").unwrap(), "code");
        assert_eq!(param(trip, "code_challenge_method").unwrap(), "S256");
        assert_eq!(param(trip, "code_challenge").unwrap().len(), 43);
        assert!(
            param(trip, "scope").unwrap().split(' ').any(|s| s == "mcp"),
            "{trip}"
        );
    }

    let done = inspector.get_ok(&format!("/api/sign-ins/{id}")).await;
    no_token("the sign-in", &done.to_string());
    assert_eq!(done["status"], "signed_in", "{done}");
    let signed: Vec<&str> = done["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["resource"].as_str().unwrap())
        .collect();
    assert_eq!(signed, resources);
    assert_eq!(done["resources"][2]["what"], "MCP server admin");
    assert!(
        done["resources"][1]["scopes"]
            .as_array()
            .unwrap()
            .contains(&json!("mcp"))
    );

    // Connected with the tokens: the AEP routes, the MCP servers, the trace.
    let summary = inspector.connect(&base).await;
    no_token("the summary", &summary.to_string());
    assert_eq!(summary["auth"], "oauth");
    assert_eq!(summary["signIn"], id);
    assert_eq!(summary["extension"]["id"], "test.guarded");
    let connection = id_of(&summary);
    let health = inspector.get_ok(&api(&connection, "health")).await;
    assert_eq!(health["extension"]["status"], "available", "{health}");
    let tools = inspector.get_ok(&api(&connection, "tools")).await;
    assert_eq!(tools["failures"], json!([]), "{tools}");
    assert_eq!(ids(&tools["tools"]), ["guarded.admin_whoami", "guarded.whoami"]);
    for (tool, server) in [("guarded.whoami", "default"), ("guarded.admin_whoami", "admin")] {
        let call = json!({"tool": tool, "arguments": {}});
        let result = inspector.post_ok(&api(&connection, "tools/call"), call).await;
        let seen = &result["output"]["structured"];
        assert_eq!(seen["subject"], "ada", "{result}");
        assert_eq!(seen["server"], server);
        assert!(
            seen["scopes"].as_array().unwrap().contains(&json!("mcp")),
            "{seen}"
        );
    }
    let servers = inspector.get_ok(&api(&connection, "mcp")).await;
    assert!(!servers.to_string().contains("error"), "{servers}");
    let chat = crate::chat("echo", "echo-1", "through the token");
    let answer = inspector.post_ok(&api(&connection, "chat"), chat.clone()).await;
    assert_eq!(
        answer["response"]["messages"][0]["contents"][0]["text"],
        "through the token"
    );
    let streamed = inspector.events(&api(&connection, "chat/stream"), chat).await;
    assert_eq!(streamed.last().unwrap().0, "end", "{streamed:?}");
    let manifests = inspector.get_ok(&api(&connection, "manifests")).await;
    assert_eq!(manifests["documents"][1]["status"], 200, "{manifests}");
    let trace = inspector.trace(&connection).await;
    no_token("the trace", &trace.to_string());
    let mcp = exchanges(&trace)
        .find(|x| x["url"].as_str().unwrap().ends_with("/mcp/admin"))
        .expect("the admin server's exchanges are traced");
    let authorization = mcp["requestHeaders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h[0] == "authorization")
        .expect("a token was sent");
    assert_eq!(authorization[1], "<redacted>");

    // Signing out forgets the tokens and closes the connection.
    let response = inspector
        .send(reqwest::Method::DELETE, &format!("/api/sign-ins/{id}"), None)
        .await;
    assert_eq!(response.status(), 200);
    let out: Value = response.json().await.unwrap();
    assert_eq!(out["closed"], json!([connection]));
    inspector
        .get_refused(&api(&connection, "overview"), 404, "connection_not_found")
        .await;
    inspector
        .get_refused(&format!("/api/sign-ins/{id}"), 404, "sign_in_not_found")
        .await;
    inspector
        .post_refused("/api/connections", json!({"url": base}), 401, "sign_in_required")
        .await;

    // Signed in again and connected; a newer sign-in to the same extension replaces that
    // one: its tokens are forgotten and its connection closed.
    let again = inspector
        .post_expect("/api/sign-ins", json!({"url": base}), 201)
        .await;
    walk(&inspector, &oidc, &again, "grace").await;
    let connection = inspector.connect_id(&base).await;
    let newer = inspector
        .post_expect("/api/sign-ins", json!({"url": base}), 201)
        .await;
    assert_ne!(newer["id"], again["id"]);
    inspector
        .get_refused(&api(&connection, "overview"), 404, "connection_not_found")
        .await;
    let old = format!("/api/sign-ins/{}", again["id"].as_str().unwrap());
    inspector.get_refused(&old, 404, "sign_in_not_found").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn a_forged_redirect_a_refused_consent_and_an_expired_sign_in_are_said_so() {
    // A pre-registered public client: no registration, any loopback port.
    let client = OidcClient::public_native("aep-inspector-test", "http://127.0.0.1/oauth/callback");
    let options = OidcOptions {
        clients: vec![client],
        ..OidcOptions::default()
    };
    let Some(oidc) = authorization_server(options).await else {
        return;
    };
    let extension = guarded(oidc.issuer());
    let base = extension.base_url.clone();
    let inspector = Inspector::start(vec![]).await;
    let start = json!({"url": base, "clientId": "aep-inspector-test", "scope": "mcp"});
    let started = inspector.post_expect("/api/sign-ins", start.clone(), 201).await;
    let authorize = started["authorizationUrl"].as_str().unwrap().to_owned();
    assert_eq!(param(&authorize, "client_id").unwrap(), "aep-inspector-test");
    // The scope asked for (and offline_access, which the server offers, for a refresh).
    assert_eq!(param(&authorize, "scope").unwrap(), "mcp offline_access");
    let id = started["id"].as_str().unwrap();

    // A redirect whose state is not this sign-in's is refused and changes nothing.
    let forged = format!("{}/oauth/callback?code=stolen&state=forged", inspector.url);
    let (status, _, page) = inspector.visit(&forged).await;
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("state matches no sign-in waiting here"), "{page}");
    let still = inspector.get_ok(&format!("/api/sign-ins/{id}")).await;
    assert_eq!(still["status"], "pending", "{still}");

    // Consent refused at the authorization server.
    let back = refuse(&oidc, &authorize).await;
    assert_eq!(param(back.as_str(), "error").as_deref(), Some("access_denied"));
    let (status, _, page) = inspector.visit(back.as_str()).await;
    assert_eq!(status, 400, "{page}");
    assert!(
        page.contains("access_denied: End-User aborted interaction"),
        "{page}"
    );
    let failed = inspector.get_ok(&format!("/api/sign-ins/{id}")).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], "authorization_failed");
    let why = failed["error"]["message"].as_str().unwrap();
    assert!(
        why.contains(&format!(
            "{} refused the authorization: access_denied",
            oidc.issuer()
        )),
        "{why}"
    );
    // The same redirect again: nothing is waiting for it any more.
    let (status, _, _) = inspector.visit(back.as_str()).await;
    assert_eq!(status, 400);
    // Consented to, the pre-registered client gets every token (no registration).
    let started = inspector.post_expect("/api/sign-ins", start.clone(), 201).await;
    let trips = walk(&inspector, &oidc, &started, "ada").await;
    assert!(
        trips
            .iter()
            .all(|t| param(t, "client_id").unwrap() == "aep-inspector-test")
    );
    let summary = inspector.connect(&base).await;
    assert_eq!(summary["auth"], "oauth");

    // Nobody comes back within the bound: the trip expires, and a late redirect is refused.
    let mut state = aep_inspector::Inspector::new(vec![]);
    state.sign_in_timeout = Duration::from_secs(2);
    let hasty = Inspector::start_with(state).await;
    let started = hasty.post_expect("/api/sign-ins", start, 201).await;
    let id = started["id"].as_str().unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    let expired = loop {
        let now = hasty.get_ok(&format!("/api/sign-ins/{id}")).await;
        if now["status"] != "pending" || Instant::now() > deadline {
            break now;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(expired["error"]["code"], "sign_in_expired", "{expired}");
    let why = expired["error"]["message"].as_str().unwrap();
    assert!(why.contains("within 2 s"), "{why}");
    let late = oidc
        .login(started["authorizationUrl"].as_str().unwrap())
        .await
        .unwrap();
    let (status, _, page) = hasty.visit(late.as_str()).await;
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("nothing was exchanged"), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorization_server_that_is_down_is_named() {
    let down = fixtures::unreachable_url().await;
    let extension = guarded(&down);
    let inspector = Inspector::start(vec![]).await;
    inspector
        .post_refused(
            "/api/connections",
            json!({"url": extension.base_url}),
            401,
            "sign_in_required",
        )
        .await;
    let refused = inspector
        .post_refused(
            "/api/sign-ins",
            json!({"url": extension.base_url}),
            502,
            "authorization_failed",
        )
        .await;
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains(&format!("{down}/.well-known/")), "{message}");
}
