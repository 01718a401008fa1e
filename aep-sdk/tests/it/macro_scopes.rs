//! `scopes = [..]` of `#[aep_extension]`, `#[tool]`, `#[resource]`, `#[prompt]` and
//! `#[model_provider]` reach the resource server: each protected resource's metadata
//! lists what may be asked for, a challenge names the default, and a call lacking an
//! item's scopes is refused before its method runs (`tests/oauth.rs` checks the resource
//! server itself, with servers built by hand).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use aep_sdk::prelude::*;
use aep_sdk::server::{BearerAuth, ExtensionBuilder, OAuth};
use aep_sdk::testing::{ServeOptions, TestIssuer, serve, spawn};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

use crate::common;

use common::answer::answer;

const STATIC: &str = "static-operator-token";

#[derive(Default)]
struct Files {
    /// How often a method ran.
    runs: Arc<AtomicU64>,
}

#[aep_extension(id = "t.files", name = "Files", scopes = ["files:use"])]
impl Files {
    /// Needs the default.
    #[tool]
    async fn stat(&self) -> String {
        self.runs.fetch_add(1, Ordering::SeqCst);
        "a file".into()
    }

    /// Needs both of its scopes instead of the default.
    #[tool(scopes = ["files:write", "files:read"])]
    async fn write(&self, text: String) -> String {
        self.runs.fetch_add(1, Ordering::SeqCst);
        format!("wrote {text}")
    }

    /// On another MCP server, another resource.
    #[tool(server = "admin", scopes = ["admin"])]
    async fn reset(&self) {
        self.runs.fetch_add(1, Ordering::SeqCst);
    }

    /// The guide.
    #[resource(uri = "docs://guide", scopes = ["docs:read"])]
    async fn guide(&self) -> String {
        self.runs.fetch_add(1, Ordering::SeqCst);
        "read me".into()
    }

    /// A file.
    #[resource(uri_template = "file://{+path}", scopes = ["files:read"])]
    async fn file(&self, path: String) -> String {
        self.runs.fetch_add(1, Ordering::SeqCst);
        path
    }

    /// Ask for a summary.
    #[prompt(scopes = ["prompts:use"])]
    async fn summarize(&self, text: String) -> String {
        self.runs.fetch_add(1, Ordering::SeqCst);
        text
    }

    #[model_provider(id = "echo", scopes = ["chat"])]
    async fn echo(&self, _request: ChatRequest) -> Result<ChatStream, AepError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Ok(ChatStream::from_updates([ChatUpdate::text("hi")]))
    }
}

fn files() -> (Arc<AtomicU64>, ExtensionBuilder) {
    let ext = Files::default();
    (ext.runs.clone(), ext.extension_builder())
}

fn chat(base: &str, token: Option<&str>) -> reqwest::RequestBuilder {
    let request = reqwest::Client::new()
        .post(format!("{base}/aep/model-providers/echo/chat"))
        .json(&ChatRequest::new("m", vec![Message::user("hi")]));
    match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    }
}

/// One JSON-RPC request to `url` (no session: scopes are checked before rmcp sees it).
fn rpc(url: &str, token: Option<&str>, method: &str, params: Value) -> reqwest::RequestBuilder {
    let request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}));
    match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    }
}

#[tokio::test]
async fn metadata_lists_each_resources_scopes_and_challenges_name_the_default() {
    // The issuer never needs to answer: no token is checked here.
    let oauth = OAuth::issuer("http://127.0.0.1:9").public_url("http://127.0.0.1:1");
    let extension = files().1.oauth(oauth).build().unwrap();
    let server = spawn(extension.router()).await;
    let metadata = |path: &str| {
        let url = format!("{}/.well-known/oauth-protected-resource{path}", server.base_url);
        async move { answer(reqwest::Client::new().get(url)).await }
    };
    let (status, _, mcp) = metadata("/mcp").await;
    assert_eq!(status, 200, "{mcp}");
    assert_eq!(mcp["resource"], "http://127.0.0.1:1/mcp");
    assert_eq!(
        mcp["scopes_supported"],
        json!([
            "docs:read",
            "files:read",
            "files:use",
            "files:write",
            "prompts:use"
        ])
    );
    let (_, _, admin) = metadata("/mcp/admin").await;
    assert_eq!(admin["scopes_supported"], json!(["admin", "files:use"]));
    let (_, _, base) = metadata("").await;
    assert_eq!(base["scopes_supported"], json!(["chat", "files:use"]));

    let mcp_url = format!("{}/mcp", server.base_url);
    let (status, challenge, _) = answer(rpc(&mcp_url, None, "initialize", json!({}))).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        "Bearer resource_metadata=\"http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp\", scope=\"files:use\""
    );
    let (status, challenge, _) = answer(chat(&server.base_url, None)).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        "Bearer resource_metadata=\"http://127.0.0.1:1/.well-known/oauth-protected-resource\", scope=\"chat\""
    );
}

#[tokio::test]
async fn a_call_lacking_an_items_scopes_is_refused_before_its_method_runs() {
    let issuer = TestIssuer::start().await;
    let (runs, builder) = files();
    let extension = builder
        .bearer_auth(BearerAuth::new(STATIC))
        .oauth(OAuth::issuer(issuer.issuer()))
        .build()
        .unwrap();
    let server = serve(extension, ServeOptions::new());
    let (base, mcp) = (&server.base_url, format!("{}/mcp", server.base_url));
    let default = issuer.access_token(&mcp, &["files:use"]);

    // Each item needs its own scopes (all of them), not the default.
    let refused = [
        (
            "tools/call",
            json!({"name": "write", "arguments": {"text": "x"}}),
            "files:write files:read",
        ),
        ("resources/read", json!({"uri": "docs://guide"}), "docs:read"),
        ("resources/read", json!({"uri": "file://a/b.txt"}), "files:read"),
        (
            "prompts/get",
            json!({"name": "summarize", "arguments": {"text": "x"}}),
            "prompts:use",
        ),
    ];
    for (method, params, lacking) in refused {
        let (status, challenge, body) = answer(rpc(&mcp, Some(&default), method, params)).await;
        assert_eq!(status, 403, "{method}: {body}");
        assert!(challenge.contains("error=\"insufficient_scope\""), "{challenge}");
        assert!(
            challenge.contains(&format!("scope=\"files:use {lacking}\"")),
            "{challenge}"
        );
    }
    let admin = format!("{mcp}/admin");
    let token = issuer.access_token(&admin, &["files:use"]);
    let params = json!({"name": "reset", "arguments": {}});
    let (status, challenge, _) = answer(rpc(&admin, Some(&token), "tools/call", params)).await;
    assert_eq!(status, 403);
    assert!(challenge.contains("scope=\"files:use admin\""), "{challenge}");
    let (status, _, _) = answer(chat(base, Some(&issuer.access_token(base, &["files:use"])))).await;
    assert_eq!(status, 403, "the provider needs `chat` instead of the default");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "no method ran");

    // The default scope opens a session that lists every tool and calls those without
    // scopes of their own; a token with the tool's scopes calls it.
    for (scopes, tool, arguments, said) in [
        (&["files:use"][..], "stat", json!({}), "a file"),
        (
            &["files:use", "files:read", "files:write"],
            "write",
            json!({"text": "x"}),
            "wrote x",
        ),
    ] {
        let config = StreamableHttpClientTransportConfig::with_uri(mcp.clone())
            .auth_header(issuer.access_token(&mcp, scopes));
        let client = ClientConfig::default()
            .serve(StreamableHttpClientTransport::from_config(config))
            .await
            .expect("an MCP session");
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
        assert_eq!(names, ["stat", "write"]);
        let call = CallToolRequestParams::new(tool).with_arguments(arguments.as_object().unwrap().clone());
        let result = serde_json::to_value(client.call_tool(call).await.unwrap()).unwrap();
        assert_eq!(result["content"][0]["text"], said);
        client.cancel().await.unwrap();
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);

    // A static bearer token is held to no scope.
    let (status, _, body) = answer(chat(base, Some(STATIC))).await;
    assert_eq!(status, 200, "{body}");
}
