//! `aep-host gateway`: the command registers extensions by URL under their manifest's
//! id, serves `/healthz` and `/readyz` without credentials (while its other routes take
//! the serving flags' bearer token), says which extensions answer, and stops gracefully
//! on SIGTERM. The OpenAI and MCP surfaces have tests of their own (`gateway_*.rs`).

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aep_host::catalog::Catalog;
use aep_host::gateway::Gateway;
use aep_host::mcp::McpPool;
use aep_host::registry::Registry;
use aep_sdk::protocol::ProtocolVersion;
use aep_sdk::server::{AepExtension, BearerAuth};
use aep_sdk::testing::{ServeOptions, serve};
use serde_json::{Value, json};

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A port nothing listens on (bound, then let go).
fn closed_url() -> String {
    format!("http://127.0.0.1:{}", free_port())
}

async fn get(url: &str, token: Option<&str>) -> (u16, Value) {
    let mut request = reqwest::Client::new().get(url).timeout(Duration::from_secs(20));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("an answer");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn utilities() -> aep_sdk::testing::ExtensionServer {
    let extension = aep_utilities::Utilities.into_extension().unwrap();
    serve(extension, ServeOptions::new())
}

#[tokio::test]
async fn ready_when_some_extension_answers_and_each_one_is_reported() {
    let up = utilities();
    let down = closed_url();
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &up.base_url, ProtocolVersion::LATEST)
        .unwrap();
    registry
        .register("acme.gone", &down, ProtocolVersion::LATEST)
        .unwrap();
    let gateway = Gateway::new(Arc::new(Catalog::new(Arc::new(registry), McpPool::new())));
    let extension = gateway
        .extension_builder()
        .bearer_auth(BearerAuth::new("gateway-token"))
        .build()
        .unwrap();
    let served = serve(extension, ServeOptions::new());
    let base = &served.base_url;

    assert_eq!(
        get(&format!("{base}/healthz"), None).await,
        (200, json!({"status": "ok"}))
    );
    let (status, body) = get(&format!("{base}/readyz"), None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "ready");
    assert_eq!(body["extensions"]["aep.utilities"], "available");
    // Named by id only: the public probe gives away no URL.
    assert_eq!(body["extensions"]["acme.gone"], "unreachable", "{body}");
    assert!(!body.to_string().contains("127.0.0.1"), "{body}");
    // The rest of the gateway takes its credential.
    assert_eq!(get(&format!("{base}/.well-known/aep"), None).await.0, 401);
    assert_eq!(
        get(&format!("{base}/.well-known/aep"), Some("gateway-token"))
            .await
            .0,
        200
    );

    drop(up);
    let (status, body) = get(&format!("{base}/readyz"), None).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["status"], "unavailable");
}

#[tokio::test]
async fn the_command_registers_urls_by_their_manifest_id_and_stops_on_sigterm() {
    let up = utilities();
    let listen = format!("127.0.0.1:{}", free_port());
    let mut running = start_gateway(&["gateway", "--listen", &listen, &up.base_url], &listen).await;
    let base = format!("http://{listen}");
    let body = get(&format!("{base}/readyz"), None).await.1;
    assert_eq!(
        body["extensions"],
        json!({"aep.utilities": "available"}),
        "{body}"
    );
    let manifest = get(&format!("{base}/.well-known/aep"), None).await.1;
    assert_eq!(manifest["extension"]["id"], "aep.gateway");

    let pid = running.0.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = running.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the gateway did not stop on SIGTERM");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status}");
}

#[test]
fn a_url_that_does_not_answer_is_a_clear_error() {
    let child = Command::new(env!("CARGO_BIN_EXE_aep-host"))
        .args(["gateway", "--listen", "127.0.0.1:0", &closed_url()])
        .env_remove("AEP_HOST_CONFIG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = running.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "it gives up within the bound");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!status.success());
    let mut stderr = String::new();
    std::io::Read::read_to_string(running.0.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("127.0.0.1"), "{stderr}");
}

/// Starts `aep-host ARGS` (a gateway on `listen`) and waits until `/readyz` answers.
async fn start_gateway(args: &[&str], listen: &str) -> Running {
    let child = Command::new(env!("CARGO_BIN_EXE_aep-host"))
        .args(args)
        .env_remove("AEP_HOST_CONFIG")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("aep-host gateway starts");
    let running = Running(child);
    let started = Instant::now();
    while reqwest::get(format!("http://{listen}/readyz")).await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the gateway never answered"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    running
}

#[tokio::test]
async fn the_configurations_tools_are_the_mcp_endpoints_an_aep_one_and_a_direct_one() {
    use rmcp::ServiceExt;
    let up = utilities();
    let dir = std::env::temp_dir().join(format!("aep-gateway-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("host.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[extensions."aep.utilities"]
url = "{base}"

[tools."hash.compute"]
extension = "aep.utilities"
contribution = "hash.compute"

[tools.remote_stats]
mcp_url = "{base}/mcp"
mcp_tool = "text_stats"
"#,
            base = up.base_url
        ),
    )
    .unwrap();
    let listen = format!("127.0.0.1:{}", free_port());
    let _gateway = start_gateway(
        &[
            "--config",
            config.to_str().unwrap(),
            "gateway",
            "--listen",
            &listen,
        ],
        &listen,
    )
    .await;
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://{listen}/mcp"));
    let client = rmcp::model::ClientConfig::default()
        .serve(transport)
        .await
        .unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        ["hash.compute", "remote_stats"],
        "the configured tools only"
    );
    let stats = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new("remote_stats")
                .with_arguments(json!({"text": "a b"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(
        stats.structured_content,
        Some(json!({"characters": 3, "words": 2, "lines": 1}))
    );
    let _ = client.cancel().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// The gateway is an OAuth resource server like any SDK extension: its OpenAI routes
/// and `/mcp` challenge with their protected resource metadata, accept the issuer's
/// tokens for their own audience, and the health routes need none.
#[tokio::test]
async fn with_an_issuer_the_gateway_takes_oauth_tokens_for_each_of_its_resources() {
    use aep_sdk::server::OAuth;
    use aep_sdk::testing::TestIssuer;
    let issuer = TestIssuer::start().await;
    let up = utilities();
    let mut registry = Registry::new();
    registry
        .register("aep.utilities", &up.base_url, ProtocolVersion::LATEST)
        .unwrap();
    let gateway = Gateway::new(Arc::new(Catalog::new(Arc::new(registry), McpPool::new())))
        .discover_tools(true)
        .extension_builder()
        .oauth(OAuth::issuer(issuer.issuer()))
        .build()
        .unwrap();
    let served = serve(gateway, ServeOptions::new());
    let base = served.base_url.trim_end_matches('/').to_owned();
    let mcp = format!("{base}/mcp");

    assert_eq!(get(&format!("{base}/healthz"), None).await.0, 200);
    let refused = reqwest::Client::new()
        .get(format!("{base}/v1/models"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let challenge = refused.headers()["www-authenticate"].to_str().unwrap().to_owned();
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"{base}/.well-known/oauth-protected-resource\""
        )),
        "{challenge}"
    );
    let models = issuer.access_token(&base, &[]);
    assert_eq!(get(&format!("{base}/v1/models"), Some(&models)).await.0, 200);

    // /mcp is a resource of its own: a token for the OpenAI routes does not open it.
    let initialize = |token: &str| {
        reqwest::Client::new()
            .post(&mcp)
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .json(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
            )
            .send()
    };
    let wrong = initialize(&models).await.unwrap();
    assert_eq!(wrong.status(), 401);
    let right = initialize(&issuer.access_token(&mcp, &[])).await.unwrap();
    assert_eq!(right.status(), 200);
    let (status, metadata) = get(&format!("{base}/.well-known/oauth-protected-resource/mcp"), None).await;
    assert_eq!(status, 200);
    assert_eq!(metadata["resource"], mcp);
}
