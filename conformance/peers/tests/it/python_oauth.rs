//! The official Python MCP SDK's OAuth client (`mcp_oauth_client.py`) end to end with
//! software nobody here wrote on both other sides: a FastMCP server as the resource server
//! (`mcp_oauth_server.py`) and oidc-provider as the authorization server. The SDK
//! discovers, registers, authorizes with PKCE and `resource`, and calls a tool whose answer
//! names the token's subject, client and scopes.

use aep_peers::{OidcOptions, OidcProvider, Peers};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn the_python_sdk_signs_in_and_calls_a_protected_fastmcp_server() {
    let Some(peers) = Peers::require() else { return };
    let server = OidcProvider::start(OidcOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mcp = peers
        .python_oauth_server(server.issuer(), "files:read")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for (method, login) in [("client_secret_post", "alice"), ("none", "bob")] {
        let report = peers
            .python_oauth_client(
                &mcp.url,
                "whoami",
                &json!({}),
                &["--auth-method", method, "--login", login],
            )
            .await
            .unwrap_or_else(|e| panic!("{method}: {e}\n--- oidc-provider\n{}", server.stderr()));
        let shown = report.to_string();
        assert_eq!(report["tools"], json!(["whoami", "echo"]), "{shown}");
        assert_eq!(
            report["authorizations"],
            json!([{"resource": mcp.url, "scope": "files:read", "code_challenge_method": "S256"}]),
            "one authorization, for this server, with the scope its metadata lists: {shown}"
        );
        assert_eq!(report["token"]["scope"], "files:read", "{shown}");
        assert_eq!(report["result"]["isError"], false, "{shown}");
        let text = report["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        let caller: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {shown}"));
        assert_eq!(caller["sub"], login, "{shown}");
        assert_eq!(caller["scopes"], json!(["files:read"]), "{shown}");
        assert!(
            caller["client_id"].as_str().is_some_and(|c| !c.is_empty()),
            "{shown}"
        );
    }
}
