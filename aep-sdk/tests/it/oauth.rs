//! The OAuth 2.1 resource server on AEP and MCP routes, against `TestIssuer` (a real
//! HTTP authorization server on loopback): protected resource metadata, challenges,
//! token validation and its refusals, scopes before handlers, caching, key rotation,
//! introspection and hostile authorization servers. The same server is checked with a
//! real authorization server (panva's oidc-provider) and the official Python MCP SDK's
//! OAuth client in conformance/peers.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use aep_sdk::caller::Caller;
use aep_sdk::prelude::*;
use aep_sdk::server::{BearerAuth, Extension, ModelProvider, OAuth};
use aep_sdk::testing::{ExtensionServer, Fault, ServeOptions, TestIssuer, serve};
use aep_sdk::tool::{CallToolResult, JsonObject, McpScopes, ToolContext, ToolDef, ToolServer};

fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![rmcp::model::ContentBlock::text(text.into())])
}
use base64::Engine;
use futures::future::BoxFuture;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::common;

use common::answer::answer;
use common::capture::Capture;

const STATIC: &str = "static-operator-token";

/// How often each handler ran.
#[derive(Default)]
struct Runs {
    write: AtomicU64,
    chat: AtomicU64,
}

/// Answers with what it was told about its caller, and whether a credential reached it.
struct Echo(Arc<Runs>);

impl ModelProvider for Echo {
    async fn chat_stream(&self, _request: ChatRequest, ctx: RequestContext) -> Result<ChatStream, AepError> {
        self.0.chat.fetch_add(1, Ordering::SeqCst);
        let caller = ctx.caller().map(describe).unwrap_or(Value::Null);
        let answer =
            json!({ "caller": caller, "authorization": ctx.headers().contains_key("authorization") });
        Ok(ChatStream::from_updates([ChatUpdate::text(answer.to_string())]))
    }
}

fn describe(caller: &Caller) -> Value {
    json!({
        "identity": caller.identity(),
        "subject": caller.subject(),
        "client_id": caller.client_id(),
        "issuer": caller.issuer(),
        "scopes": caller.scopes(),
        "tenant": caller.claim::<String>("tenant").unwrap(),
    })
}

fn whoami(_: Arc<Runs>, _: JsonObject, ctx: ToolContext) -> BoxFuture<'static, CallToolResult> {
    let caller = ctx.caller().map(describe).unwrap_or(Value::Null);
    Box::pin(async move { text_result(caller.to_string()) })
}

fn write(runs: Arc<Runs>, _: JsonObject, _: ToolContext) -> BoxFuture<'static, CallToolResult> {
    runs.write.fetch_add(1, Ordering::SeqCst);
    Box::pin(async { text_result("written") })
}

fn schema() -> Arc<JsonObject> {
    let Value::Object(schema) = json!({"type": "object"}) else {
        unreachable!()
    };
    Arc::new(schema)
}

struct Protected {
    server: ExtensionServer,
    runs: Arc<Runs>,
}

impl Protected {
    fn base(&self) -> &str {
        &self.server.base_url
    }
    fn mcp(&self) -> String {
        format!("{}/mcp", self.server.base_url)
    }
}

/// An extension trusting `issuer`, with a provider needing `chat`, a tool needing
/// `files:write`, and `default` for everything else; `oauth` adjusts the settings.
fn protected(issuer: &TestIssuer, default: &[&str], oauth: impl FnOnce(OAuth) -> OAuth) -> Protected {
    let runs = Arc::new(Runs::default());
    let tools = ToolServer::new(
        runs.clone(),
        "probe",
        "1.0.0",
        vec![
            ToolDef::new("whoami", schema(), whoami),
            ToolDef::new("write", schema(), write).scopes(["files:write"]),
        ],
    );
    let extension = Extension::builder("t.protected", "Protected", "1.0.0")
        .model_provider(ModelProviderDescriptor::new("echo", "Echo"), Echo(runs.clone()))
        .provider_scopes("echo", ["chat"])
        .tool_server("probe", "/mcp", tools)
        .default_scopes(default.iter().copied())
        .bearer_auth(BearerAuth::named("operator", STATIC))
        .oauth(oauth(
            OAuth::issuer(issuer.issuer()).leeway(Duration::from_secs(2)),
        ))
        .build()
        .unwrap();
    Protected {
        server: serve(extension, ServeOptions::new()),
        runs,
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

fn chat(base: &str, token: Option<&str>) -> reqwest::RequestBuilder {
    let request = http()
        .post(format!("{base}/aep/model-providers/echo/chat"))
        .json(&ChatRequest::new("m", vec![Message::user("hi")]));
    match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    }
}

fn tools_call(mcp: &str, token: &str, tool: &str) -> reqwest::RequestBuilder {
    http()
        .post(mcp)
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": {}}}))
}

fn initialize(mcp: &str, token: Option<&str>) -> reqwest::RequestBuilder {
    let request = http()
        .post(mcp)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    }
}

/// An MCP client session with `token`.
async fn mcp_client(mcp: &str, token: &str) -> rmcp::service::RunningService<rmcp::RoleClient, ClientConfig> {
    let config = StreamableHttpClientTransportConfig::with_uri(mcp.to_owned()).auth_header(token.to_owned());
    ClientConfig::default()
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("an MCP session")
}

fn text(result: &CallToolResult) -> String {
    let value = serde_json::to_value(result).unwrap();
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn protected_resource_metadata_and_the_first_challenge() {
    let issuer = TestIssuer::start().await;
    let ext = protected(&issuer, &["mcp:use"], |o| o);
    let base = ext.base();
    let (status, _, root) = answer(http().get(format!("{base}/.well-known/oauth-protected-resource"))).await;
    assert_eq!(status, 200, "{root}");
    assert_eq!(root["resource"], base);
    assert_eq!(root["authorization_servers"], json!([issuer.issuer()]));
    assert_eq!(root["bearer_methods_supported"], json!(["header"]));
    assert_eq!(root["resource_name"], "Protected");
    assert_eq!(root["scopes_supported"], json!(["chat", "mcp:use"]));
    let (status, _, mcp) =
        answer(http().get(format!("{base}/.well-known/oauth-protected-resource/mcp"))).await;
    assert_eq!(status, 200);
    assert_eq!(mcp["resource"], ext.mcp());
    assert_eq!(mcp["scopes_supported"], json!(["files:write", "mcp:use"]));

    // Readable by a page on this machine, like every route.
    let response = http()
        .get(format!("{base}/.well-known/oauth-protected-resource/mcp"))
        .header("origin", "http://localhost:5173")
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.headers()["access-control-allow-origin"],
        "http://localhost:5173"
    );

    let (status, challenge, body) = answer(chat(base, None)).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        format!("Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource\", scope=\"chat\"")
    );
    assert_eq!(body["error"]["code"], "unauthorized");
    let (status, challenge, body) = answer(initialize(&ext.mcp(), None)).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        format!(
            "Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\", scope=\"mcp:use\""
        )
    );
    assert_eq!(
        (&body["jsonrpc"], &body["error"]["code"]),
        (&json!("2.0"), &json!(-32600))
    );
    assert_eq!(ext.runs.chat.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_token_for_the_resource_is_accepted_and_its_facts_reach_handlers_but_not_the_token() {
    let issuer = TestIssuer::start().await;
    let ext = protected(&issuer, &[], |o| o);
    let mut claims = issuer.claims(ext.base(), &["chat", "extra"]);
    claims["tenant"] = json!("acme");
    let token = issuer.token(&claims);
    let (status, _, body) = answer(chat(ext.base(), Some(&token))).await;
    assert_eq!(status, 200, "{body}");
    let said = ChatResponse::deserialize(&body).unwrap().all_text();
    let said: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(
        said,
        json!({
            "caller": {"identity": "test-user", "subject": "test-user", "client_id": "test-client",
                       "issuer": issuer.issuer(), "scopes": ["chat", "extra"], "tenant": "acme"},
            "authorization": false,
        })
    );

    let mut claims = issuer.claims(&ext.mcp(), &[]);
    claims["tenant"] = json!("acme");
    claims.as_object_mut().unwrap().remove("sub");
    let client = mcp_client(&ext.mcp(), &issuer.token(&claims)).await;
    let result = client
        .call_tool(CallToolRequestParams::new("whoami"))
        .await
        .unwrap();
    let said: Value = serde_json::from_str(&text(&result)).unwrap();
    assert_eq!(
        said["identity"], "test-client",
        "no subject: the client is the identity"
    );
    assert_eq!(said["tenant"], "acme");
    client.cancel().await.unwrap();

    // The static token keeps working beside OAuth, unrestricted by scopes.
    let (status, _, _) = answer(chat(ext.base(), Some(STATIC))).await;
    assert_eq!(status, 200);
    let (status, _, _) = answer(tools_call(&ext.mcp(), STATIC, "write")).await;
    assert_ne!(status, 403, "a static token passes scope checks");
}

/// `token` with its payload replaced by `claims` (the signature left as it was).
fn tampered(token: &str, claims: &Value) -> String {
    let parts: Vec<&str> = token.split('.').collect();
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims.to_string());
    format!("{}.{payload}.{}", parts[0], parts[2])
}

fn unsigned(header: &Value, claims: &Value, signature: &str) -> String {
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    format!("{}.{}.{signature}", b64(header), b64(claims))
}

#[tokio::test]
async fn bad_tokens_are_refused_with_invalid_token_on_both_families() {
    let issuer = TestIssuer::start().await;
    let stranger = TestIssuer::start().await;
    let ext = protected(&issuer, &[], |o| o);
    let (base, mcp) = (ext.base().to_owned(), ext.mcp());
    let now = issuer.claims("x", &[])["iat"].as_u64().unwrap();
    for (resource, route_is_mcp) in [(base.clone(), false), (mcp.clone(), true)] {
        let good = issuer.claims(&resource, &["chat"]);
        let with = |key: &str, value: Value| {
            let mut claims = good.clone();
            claims[key] = value;
            claims
        };
        let mut no_aud = good.clone();
        no_aud.as_object_mut().unwrap().remove("aud");
        let other_resource = if route_is_mcp { base.clone() } else { mcp.clone() };
        let hmac_with_public_key = {
            let header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
            let key = jsonwebtoken::EncodingKey::from_secret(issuer.issuer().as_bytes());
            jsonwebtoken::encode(&header, &good, &key).unwrap()
        };
        let bad = [
            (
                "another audience",
                issuer.access_token(&other_resource, &["chat"]),
                "for another resource",
            ),
            (
                "an untrusted issuer",
                stranger.access_token(&resource, &["chat"]),
                "not trusted",
            ),
            (
                "alg none",
                unsigned(&json!({"alg": "none", "typ": "JWT"}), &good, ""),
                "alg none",
            ),
            ("HMAC", hmac_with_public_key, "HMAC"),
            (
                "a tampered payload",
                tampered(&issuer.token(&good), &with("scope", json!("chat admin"))),
                "signature",
            ),
            (
                "an expired token",
                issuer.token(&with("exp", json!(now - 60))),
                "expired",
            ),
            (
                "a future nbf",
                issuer.token(&with("nbf", json!(now + 600))),
                "not valid yet",
            ),
            ("no audience", issuer.token(&no_aud), "'aud'"),
            (
                "an unpublished key",
                issuer.token_with_unpublished_key(&good),
                "does not publish",
            ),
            ("garbage", "not-a-token-at-all".to_owned(), "not a JWT"),
        ];
        for (what, token, reason) in bad {
            let request = if route_is_mcp {
                initialize(&mcp, Some(&token))
            } else {
                chat(&base, Some(&token))
            };
            let (status, challenge, body) = answer(request).await;
            assert_eq!(status, 401, "{what} on {resource}: {body}");
            assert!(
                challenge.starts_with("Bearer error=\"invalid_token\""),
                "{what}: {challenge}"
            );
            assert!(challenge.contains("resource_metadata=\""), "{what}: {challenge}");
            let message = body["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains(reason), "{what}: {message}");
            assert!(
                !message.contains(&token) || token.len() < 20,
                "{what}: the token is not echoed"
            );
        }
    }
    assert_eq!(ext.runs.chat.load(Ordering::SeqCst), 0, "no handler ran");
}

#[tokio::test]
async fn a_missing_scope_is_refused_before_the_handler_then_step_up_succeeds() {
    let issuer = TestIssuer::start().await;
    let ext = protected(&issuer, &["mcp:use"], |o| o);
    let mcp = ext.mcp();
    let metadata = format!("{}/.well-known/oauth-protected-resource/mcp", ext.base());
    let basic = issuer.access_token(&mcp, &["mcp:use"]);
    // initialize needs the default scope, which it has; the session opens.
    let client = mcp_client(&mcp, &basic).await;
    let said = text(
        &client
            .call_tool(CallToolRequestParams::new("whoami"))
            .await
            .unwrap(),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&said).unwrap()["scopes"],
        json!(["mcp:use"])
    );
    client.cancel().await.unwrap();

    let (status, challenge, body) = answer(tools_call(&mcp, &basic, "write")).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        challenge,
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"mcp:use files:write\", resource_metadata=\"{metadata}\", error_description=\"this request needs scope files:write\""
        )
    );
    assert_eq!(body["error"]["code"], -32600);
    assert_eq!(ext.runs.write.load(Ordering::SeqCst), 0, "the tool never ran");

    let (status, challenge, body) = answer(initialize(&mcp, Some(&issuer.access_token(&mcp, &[])))).await;
    assert_eq!(status, 403, "initialize without the default scope: {body}");
    assert!(challenge.contains("scope=\"mcp:use\""), "{challenge}");

    let (status, challenge, body) = answer(chat(
        ext.base(),
        Some(&issuer.access_token(ext.base(), &["mcp:use"])),
    ))
    .await;
    assert_eq!(status, 403);
    assert!(challenge.contains("scope=\"mcp:use chat\""), "{challenge}");
    assert_eq!(body["error"]["code"], "insufficient_scope");
    assert_eq!(ext.runs.chat.load(Ordering::SeqCst), 0);

    // Step up: a token with the scope asked for.
    let stepped = issuer.access_token(&mcp, &["mcp:use", "files:write"]);
    let client = mcp_client(&mcp, &stepped).await;
    let result = client
        .call_tool(CallToolRequestParams::new("write"))
        .await
        .unwrap();
    assert_eq!(text(&result), "written");
    assert_eq!(ext.runs.write.load(Ordering::SeqCst), 1);
    client.cancel().await.unwrap();
    let (status, _, _) = answer(chat(
        ext.base(),
        Some(&issuer.access_token(ext.base(), &["chat"])),
    ))
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_cached_token_is_good_until_it_expires_and_no_longer() {
    let issuer = TestIssuer::start().await;
    let ext = protected(&issuer, &[], |o| o.leeway(Duration::ZERO));
    let mut claims = issuer.claims(ext.base(), &["chat"]);
    claims["exp"] = json!(claims["iat"].as_u64().unwrap() + 2);
    let token = issuer.token(&claims);
    for _ in 0..3 {
        assert_eq!(answer(chat(ext.base(), Some(&token))).await.0, 200);
    }
    assert_eq!(issuer.jwks_fetches(), 1, "keys fetched once");
    tokio::time::sleep(Duration::from_millis(3100)).await;
    let (status, challenge, _) = answer(chat(ext.base(), Some(&token))).await;
    assert_eq!(status, 401);
    assert!(challenge.contains("expired"), "{challenge}");
}

#[tokio::test]
async fn an_unknown_key_fetches_the_key_set_again_at_most_once_per_interval() {
    let issuer = TestIssuer::start().await;
    let ext = protected(&issuer, &[], |o| o.key_refetch_interval(Duration::from_secs(600)));
    let claims = issuer.claims(ext.base(), &["chat"]);
    assert_eq!(
        answer(chat(ext.base(), Some(&issuer.token(&claims)))).await.0,
        200
    );
    assert_eq!(issuer.jwks_fetches(), 1);
    issuer.rotate_key();
    assert_eq!(
        answer(chat(ext.base(), Some(&issuer.token(&claims)))).await.0,
        200,
        "the new key is fetched"
    );
    assert_eq!(issuer.jwks_fetches(), 2);
    for _ in 0..3 {
        let forged = issuer.token_with_unpublished_key(&claims);
        assert_eq!(answer(chat(ext.base(), Some(&forged))).await.0, 401);
    }
    assert_eq!(
        issuer.jwks_fetches(),
        2,
        "unknown keys within the interval fetch nothing"
    );
    assert_eq!(issuer.metadata_fetches(), 1, "metadata found once");
}

#[tokio::test]
async fn opaque_tokens_are_introspected_once_while_they_live() {
    let issuer = TestIssuer::start().await;
    let (id, secret) = issuer.introspection_client();
    let ext = protected(&issuer, &[], |o| o.introspection(id, secret));
    let claims = issuer.claims(ext.base(), &["chat"]);
    let token = issuer.opaque_token(&claims);
    for _ in 0..3 {
        let (status, _, body) = answer(chat(ext.base(), Some(&token))).await;
        assert_eq!(status, 200, "{body}");
    }
    assert_eq!(issuer.introspections(), 1);
    for _ in 0..2 {
        let (status, challenge, _) = answer(chat(ext.base(), Some("opaque-unknown"))).await;
        assert_eq!(status, 401);
        assert!(challenge.contains("not active"), "{challenge}");
    }
    assert_eq!(issuer.introspections(), 2, "an inactive answer is remembered too");
    let elsewhere = issuer.opaque_token(&issuer.claims("https://other.example", &["chat"]));
    assert_eq!(answer(chat(ext.base(), Some(&elsewhere))).await.0, 401);
}

#[tokio::test]
async fn hostile_authorization_servers_get_a_clear_error_within_the_bound_and_others_are_served() {
    let cases = [
        ("metadata", Fault::Hang, "no complete answer within"),
        ("metadata", Fault::Huge, "larger than"),
        ("metadata", Fault::Html, "text/html, not JSON"),
        (
            "metadata",
            Fault::OtherIssuer,
            "names issuer 'https://attacker.example'",
        ),
        ("jwks", Fault::Hang, "no complete answer within"),
        ("jwks", Fault::Huge, "larger than"),
        ("jwks", Fault::Html, "not JSON"),
    ];
    for (document, fault, reason) in cases {
        let issuer = TestIssuer::start().await;
        match document {
            "metadata" => issuer.metadata_fault(fault),
            _ => issuer.jwks_fault(fault),
        }
        let ext = protected(&issuer, &[], |o| o.fetch_timeout(Duration::from_secs(1)));
        let base = ext.base().to_owned();
        let token = issuer.access_token(&base, &["chat"]);
        let waiting = tokio::spawn(answer(chat(&base, Some(&token))));
        let fetches = || issuer.metadata_fetches() + issuer.jwks_fetches();
        aep_sdk::testing::eventually("the authorization server is asked", || fetches() > 0).await;
        // Meanwhile another caller is served.
        let (status, _, _) = answer(chat(&base, Some(STATIC))).await;
        assert_eq!(
            status, 200,
            "{document} {fault:?}: the static caller waits for nothing"
        );
        let (status, _, body) = waiting.await.unwrap();
        assert_eq!(status, 503, "{document} {fault:?}: {body}");
        assert_eq!(body["error"]["code"], "authorization_unavailable");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(reason), "{document} {fault:?}: {message}");
        // Within the backoff the same error comes at once, without a second wait.
        let (status, _, _) = answer(chat(&base, Some(&token))).await;
        assert_eq!(status, 503);
    }
}

#[test]
fn issuers_must_be_https_except_on_loopback() {
    for (issuer, ok) in [
        ("http://auth.example.com", false),
        ("https://auth.example.com", true),
        ("http://127.0.0.1:9000", true),
        ("http://localhost:9000/realms/x", true),
        ("not a url", false),
        ("https://auth.example.com/?tenant=1", false),
    ] {
        let built = Extension::builder("t.x", "X", "1.0.0")
            .oauth(OAuth::issuer(issuer))
            .build();
        assert_eq!(built.is_ok(), ok, "{issuer}");
        if let Err(error) = built {
            assert!(error.to_string().contains(issuer), "{error}");
        }
    }
    let scopes = McpScopes::new().tool("t", ["a"]);
    let unknown = Extension::builder("t.x", "X", "1.0.0")
        .mcp_scopes("nope", scopes)
        .build();
    let error = unknown.err().expect("refused").to_string();
    assert!(error.contains("no MCP server 'nope'"), "{error}");
}

#[tokio::test(flavor = "current_thread")]
async fn no_token_or_claim_value_reaches_the_logs() {
    let capture = Capture::default();
    let _guard = tracing::subscriber::set_default(capture.subscriber());
    let issuer = TestIssuer::start().await;
    let ext = protected(&issuer, &[], |o| o);
    let mut claims = issuer.claims(ext.base(), &["chat", "scope-value-3d"]);
    claims["sub"] = json!("subject-value-7f");
    claims["tenant"] = json!("tenant-value-9c");
    let good = issuer.token(&claims);
    let mut expired = claims.clone();
    expired["exp"] = json!(claims["iat"].as_u64().unwrap() - 600);
    let expired = issuer.token(&expired);
    let forged = issuer.token_with_unpublished_key(&claims);
    for token in [&good, &expired, &forged] {
        let _ = answer(chat(ext.base(), Some(token))).await;
    }
    assert_eq!(answer(chat(ext.base(), Some(&good))).await.0, 200);
    let logs = capture.text();
    assert!(
        logs.contains("/aep/model-providers/echo/chat"),
        "requests are traced: {logs}"
    );
    for secret in [&good, &expired, &forged] {
        assert!(
            !logs.contains(secret.as_str()),
            "a token leaked into the logs:\n{logs}"
        );
    }
    for value in ["subject-value-7f", "tenant-value-9c", "scope-value-3d"] {
        assert!(
            !logs.contains(value),
            "claim value '{value}' leaked into the logs:\n{logs}"
        );
    }
}

#[tokio::test]
async fn a_public_path_needs_no_credential_and_the_rest_still_does() {
    let issuer = TestIssuer::start().await;
    let probe = axum::Router::new().route("/healthz", axum::routing::get(|| async { "ok" }));
    let extension = Extension::builder("t.probe", "Probe", "1.0.0")
        .routes(probe)
        .public_path("/healthz")
        .bearer_auth(BearerAuth::new(STATIC))
        .oauth(OAuth::issuer(issuer.issuer()))
        .build()
        .unwrap();
    let server = serve(extension, ServeOptions::new());
    let base = &server.base_url;
    let (status, _, body) = answer(http().get(format!("{base}/healthz"))).await;
    assert_eq!((status, body), (200, json!("ok")));
    assert_eq!(answer(http().get(format!("{base}/aep/health"))).await.0, 401);
    assert_eq!(
        answer(http().get(format!("{base}/healthz/x"))).await.0,
        401,
        "only that path"
    );
}
