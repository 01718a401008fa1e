//! The bundled `aep-utilities` binary as an OAuth 2.1 resource server of a real
//! authorization server (panva's oidc-provider), started with `--oauth-issuer` twice:
//! the 401 challenges and both protected resource metadata documents, JWT access tokens
//! (RS256 and ES256) accepted for their own resource only, refusals with `invalid_token`
//! on MCP and AEP routes alike (another audience, an untrusted issuer, `alg: none`, a
//! tampered payload, a forged key, expiry, garbage), and the official Python SDK's OAuth
//! client signing in and calling a tool. `aep-sdk/tests/it/oauth.rs` checks the same server
//! against the SDK's own stand-in issuer.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aep_host::mcp::McpPool;
use aep_peers::{
    OidcClient, OidcOptions, OidcProvider, Peers, RunningBinary, SigningAlg, jwt_parts, start_binary_with,
    utilities_binary,
};
use base64::Engine;
use serde_json::{Value, json};
use url::Url;

const ABC_SHA256: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const LEEWAY_SECS: u64 = 1;

fn machine() -> OidcClient {
    OidcClient::client_credentials("rs-machine", "rs-machine-secret-not-a-real-one")
}

async fn provider(signing_alg: SigningAlg, ttl: Duration) -> OidcProvider {
    let options = OidcOptions {
        clients: vec![machine()],
        access_token_ttl: ttl,
        signing_alg,
        ..OidcOptions::default()
    };
    OidcProvider::start(options)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Two trusted issuers (RS256 for an hour; ES256 for 3 s), one stranger, and the
/// utilities binary trusting the first two with a leeway of one second.
struct Setup {
    trusted: OidcProvider,
    short: OidcProvider,
    stranger: OidcProvider,
    utilities: RunningBinary,
}

impl Setup {
    async fn start() -> Self {
        let hour = Duration::from_secs(3600);
        let (trusted, short, stranger) = tokio::join!(
            provider(SigningAlg::Rs256, hour),
            provider(SigningAlg::Es256, Duration::from_secs(3)),
            provider(SigningAlg::Rs256, hour),
        );
        let binary = utilities_binary().await.unwrap_or_else(|e| panic!("{e}"));
        let leeway = format!("{LEEWAY_SECS}s");
        let args = [
            "--oauth-issuer",
            trusted.issuer(),
            "--oauth-issuer",
            short.issuer(),
            "--oauth-leeway",
            &leeway,
        ];
        let utilities = start_binary_with(&binary, &args)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        Self {
            trusted,
            short,
            stranger,
            utilities,
        }
    }

    fn base(&self) -> &str {
        &self.utilities.base_url
    }

    fn mcp(&self) -> String {
        format!("{}/mcp", self.utilities.base_url)
    }

    /// Where `resource`'s protected resource metadata is.
    fn metadata_url(&self, resource: &str) -> String {
        let path = resource.strip_prefix(self.base()).unwrap_or_default();
        format!("{}/.well-known/oauth-protected-resource{path}", self.base())
    }
}

/// A client credentials token of `issuer` for `resource`.
async fn token_for(issuer: &OidcProvider, resource: &str) -> String {
    issuer
        .client_credentials_token(&machine(), resource, "mcp")
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", issuer.stderr()))
        .access_token
}

/// A request to one route of `resource`'s family: `initialize` on the MCP endpoint, the
/// discovery document for the AEP routes.
fn request(resource: &str, token: Option<&str>) -> reqwest::RequestBuilder {
    let request = if resource.ends_with("/mcp") {
        http()
            .post(resource)
            .header("accept", "application/json, text/event-stream")
            .json(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "peers", "version": "1"}}}),
            )
    } else {
        http().get(format!("{resource}/.well-known/aep"))
    };
    match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

/// Status, `WWW-Authenticate` and body (JSON, else text) of a response.
async fn answer(request: reqwest::RequestBuilder) -> (u16, String, Value) {
    let response = request.send().await.expect("an answer");
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    let text = response.text().await.unwrap_or_default();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, challenge, body)
}

/// The refusal message of either family's error body.
fn message(body: &Value) -> &str {
    body["error"]["message"].as_str().unwrap_or_default()
}

fn b64(value: &Value) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn the_binary_challenges_serves_its_metadata_and_takes_tokens_for_each_resource() {
    if Peers::require().is_none() {
        return;
    }
    let setup = Setup::start().await;
    let (base, mcp) = (setup.base(), setup.mcp());

    // No token: 401 naming the metadata, in each family's body.
    for resource in [base, &mcp] {
        let (status, challenge, body) = answer(request(resource, None)).await;
        assert_eq!(status, 401, "{resource}: {body}");
        let metadata = setup.metadata_url(resource);
        assert_eq!(challenge, format!("Bearer resource_metadata=\"{metadata}\""));
        if resource == mcp {
            assert_eq!(
                (&body["jsonrpc"], &body["error"]["code"]),
                (&json!("2.0"), &json!(-32600))
            );
        } else {
            assert_eq!(body["error"]["code"], "unauthorized", "{body}");
        }
        let (status, _, document) = answer(http().get(&metadata)).await;
        assert_eq!(status, 200, "{metadata}: {document}");
        assert_eq!(document["resource"], resource, "{document}");
        assert_eq!(
            document["authorization_servers"],
            json!([setup.trusted.issuer(), setup.short.issuer()]),
            "{document}"
        );
        assert_eq!(document["bearer_methods_supported"], json!(["header"]));
        assert_eq!(document["resource_name"], "Utilities");
    }
    let (status, _, _) = answer(http().get(format!("{base}/aep/health"))).await;
    assert_eq!(status, 401, "every AEP route is protected");

    // A token for the AEP routes opens them; a token for the MCP endpoint opens a session.
    let token = token_for(&setup.trusted, base).await;
    let (header, claims) = jwt_parts(&token).unwrap();
    assert_eq!(
        (&header["alg"], &header["typ"]),
        (&json!("RS256"), &json!("at+jwt"))
    );
    assert_eq!(claims["aud"], base, "{claims}");
    let (status, _, document) = answer(request(base, Some(&token))).await;
    assert_eq!(status, 200, "{document}");
    assert_eq!(document["extension"]["id"], "aep.utilities", "{document}");

    let token = token_for(&setup.trusted, &mcp).await;
    let pool = McpPool::new();
    let url = Url::parse(&mcp).unwrap();
    pool.set_bearer_token(&url, &token);
    let arguments = json!({"text": "abc"}).as_object().cloned().unwrap();
    let result = pool
        .call(&url, "hash_compute", arguments)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let result = serde_json::to_value(result).unwrap();
    assert_eq!(result["content"][0]["text"], ABC_SHA256, "{result}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn bad_tokens_are_refused_with_invalid_token_on_mcp_and_aep_routes() {
    if Peers::require().is_none() {
        return;
    }
    let setup = Setup::start().await;
    let (base, mcp) = (setup.base().to_owned(), setup.mcp());
    for (resource, other) in [(&base, &mcp), (&mcp, &base)] {
        let good = token_for(&setup.trusted, resource).await;
        let (status, _, body) = answer(request(resource, Some(&good))).await;
        assert_eq!(status, 200, "the control: a good token for {resource}: {body}");

        let parts: Vec<&str> = good.split('.').collect();
        let (header, claims) = jwt_parts(&good).unwrap();
        let mut more = claims.clone();
        more["scope"] = json!("mcp files:write");
        let none = json!({"alg": "none", "typ": "at+jwt"});
        // The stranger's token, made to say it comes from the trusted issuer.
        let stranger = token_for(&setup.stranger, resource).await;
        let mut posing = jwt_parts(&stranger).unwrap().1;
        posing["iss"] = json!(setup.trusted.issuer());
        let stranger_parts: Vec<&str> = stranger.split('.').collect();
        let bad = [
            (
                "a token for the extension's other resource",
                token_for(&setup.trusted, other).await,
                "for another resource",
            ),
            (
                "a token for another server",
                token_for(&setup.trusted, "http://127.0.0.1:1/mcp").await,
                "for another resource",
            ),
            ("an untrusted issuer's", stranger.clone(), "not trusted"),
            ("alg none", format!("{}.{}.", b64(&none), parts[1]), "alg none"),
            (
                "alg none with the signature kept",
                format!("{}.{}.{}", b64(&none), parts[1], parts[2]),
                "alg none",
            ),
            (
                "a tampered payload",
                format!("{}.{}.{}", parts[0], b64(&more), parts[2]),
                "signature does not verify",
            ),
            (
                "another issuer's key posing as the trusted issuer",
                format!("{}.{}.{}", stranger_parts[0], b64(&posing), stranger_parts[2]),
                "does not publish",
            ),
            ("garbage", "not-a-token-at-all".to_owned(), "not a JWT"),
            ("three parts of garbage", "a.b.c".to_owned(), "not a JWT"),
        ];
        let metadata = setup.metadata_url(resource);
        for (what, token, reason) in bad {
            let (status, challenge, body) = answer(request(resource, Some(&token))).await;
            let shown = format!("{what} on {resource}: {challenge} {body}");
            assert_eq!(status, 401, "{shown}");
            assert!(
                challenge.starts_with("Bearer error=\"invalid_token\", error_description=\""),
                "{shown}"
            );
            assert!(
                challenge.contains(&format!("resource_metadata=\"{metadata}\"")),
                "{shown}"
            );
            assert!(message(&body).contains(reason), "{shown}");
            assert!(
                !message(&body).contains(&token) || token.len() < 20,
                "{what}: the token is echoed"
            );
            if resource == &mcp {
                assert_eq!(body["error"]["code"], -32600, "{shown}");
            } else {
                assert_eq!(body["error"]["code"], "unauthorized", "{shown}");
            }
        }
        assert_eq!(
            header["kid"].as_str().map(|k| k.starts_with("rs256-")),
            Some(true)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn an_es256_token_of_the_second_issuer_is_good_until_it_expires() {
    if Peers::require().is_none() {
        return;
    }
    let setup = Setup::start().await;
    let (base, mcp) = (setup.base().to_owned(), setup.mcp());
    let mut tokens = Vec::new();
    for resource in [&base, &mcp] {
        let token = token_for(&setup.short, resource).await;
        let (header, claims) = jwt_parts(&token).unwrap();
        assert_eq!(header["alg"], "ES256", "{header}");
        assert_eq!(claims["iss"], setup.short.issuer(), "{claims}");
        let (status, _, body) = answer(request(resource, Some(&token))).await;
        assert_eq!(status, 200, "{resource}, fresh: {body}");
        tokens.push((resource, token, claims["exp"].as_u64().expect("exp")));
    }
    // Past `exp` and the leeway by a second (3 s tokens: at most ~5 s).
    let last = tokens.iter().map(|(_, _, exp)| *exp).max().unwrap_or(0);
    let wait = (last + LEEWAY_SECS + 1).saturating_sub(now());
    tokio::time::sleep(Duration::from_secs(wait.min(6)) + Duration::from_millis(200)).await;
    for (resource, token, _) in tokens {
        let (status, challenge, body) = answer(request(resource, Some(&token))).await;
        assert_eq!(status, 401, "{resource}, expired: {body}");
        assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
        assert!(message(&body).contains("expired"), "{body}");
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn the_python_sdk_signs_in_to_the_utilities_binary_and_calls_a_tool() {
    let Some(peers) = Peers::require() else { return };
    let setup = Setup::start().await;
    let mcp = setup.mcp();
    let metadata = setup
        .trusted
        .get_json("/.well-known/oauth-authorization-server")
        .await
        .unwrap();
    let offered: Vec<&str> = metadata["scopes_supported"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let offered = offered.join(" ");
    for (method, login) in [("none", "alice"), ("client_secret_post", "bob")] {
        let report = peers
            .python_oauth_client(
                &mcp,
                "hash_compute",
                &json!({"text": "abc"}),
                &["--auth-method", method, "--login", login],
            )
            .await
            .unwrap_or_else(|e| panic!("{method}: {e}\n--- oidc-provider\n{}", setup.trusted.stderr()));
        let shown = report.to_string();
        let authorizations = report["authorizations"].as_array().cloned().unwrap_or_default();
        assert_eq!(authorizations.len(), 1, "{shown}");
        assert_eq!(authorizations[0]["resource"], mcp, "{shown}");
        assert_eq!(authorizations[0]["code_challenge_method"], "S256", "{shown}");
        // The resource names no scope (no `scope` in the challenge, no scopes_supported):
        // the SDK asks for every scope the authorization server lists.
        assert_eq!(authorizations[0]["scope"], offered, "{shown}");
        assert_eq!(report["result"]["isError"], false, "{shown}");
        assert_eq!(report["result"]["content"][0]["text"], ABC_SHA256, "{shown}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn an_issuer_restarted_with_new_keys_is_followed_and_its_old_key_is_dropped() {
    if Peers::require().is_none() {
        return;
    }
    let hour = Duration::from_secs(3600);
    let first = provider(SigningAlg::Rs256, hour).await;
    let (issuer, port) = (first.issuer().to_owned(), first.port());
    let binary = utilities_binary().await.unwrap_or_else(|e| panic!("{e}"));
    let utilities = start_binary_with(&binary, &["--oauth-issuer", &issuer])
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let base = utilities.base_url.as_str();
    let (seen, unseen) = (token_for(&first, base).await, token_for(&first, base).await);
    assert_eq!(answer(request(base, Some(&seen))).await.0, 200);
    let old_kid = jwt_parts(&seen).unwrap().0["kid"].clone();

    // The same issuer (same port) with fresh keys: a token naming an unknown key makes
    // the resource server fetch the key set again.
    drop(first);
    let second = restart(port).await;
    assert_eq!(second.issuer(), issuer);
    let fresh = token_for(&second, base).await;
    assert_ne!(jwt_parts(&fresh).unwrap().0["kid"], old_kid, "new keys");
    let (status, _, body) = answer(request(base, Some(&fresh))).await;
    assert_eq!(status, 200, "a token of the new key: {body}");
    // A token of the old key, not seen before, is no longer good.
    let (status, _, body) = answer(request(base, Some(&unseen))).await;
    assert_eq!(status, 401, "{body}");
    assert!(message(&body).contains("does not publish"), "{body}");
}

/// oidc-provider on `port` again, once the one killed before has let go of it (at most
/// 5 s).
async fn restart(port: u16) -> OidcProvider {
    let options = OidcOptions {
        clients: vec![machine()],
        port: Some(port),
        ..OidcOptions::default()
    };
    let mut last = String::new();
    for _ in 0..20 {
        match OidcProvider::start(options.clone()).await {
            Ok(provider) => return provider,
            Err(error) => last = error,
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("oidc-provider did not start again on port {port}: {last}");
}
