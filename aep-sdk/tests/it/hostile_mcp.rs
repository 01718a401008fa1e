//! Hostile requests to the co-hosted MCP endpoint (issue 10, item 2), sent over raw TCP
//! to [`Tooly`](common::hostile::Tooly)'s `/mcp`; then a session client must still be
//! served, and bad tool arguments must be an MCP error, not a transport failure. The
//! rules every case follows (a 4xx answer, never a 5xx or a hang, still serving
//! afterwards) and the table runner are in `common/hostile.rs`.
//!
//! Documented exceptions, each a row of the table with its reason:
//! - **Mcp**: the co-hosted MCP endpoint is not an AEP route: rmcp answers with its own
//!   plain-text bodies, and the table pins their 4xx statuses. Failures to read an MCP
//!   body (bad chunking, a stalled client, over the extension's limit) are AEP errors:
//!   the SDK reads the body before rmcp, which would answer them with a 500.

use crate::common;

use aep_sdk::testing::raw::Delivery;
use common::hostile::*;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::time::timeout;

const ACCEPT: &str = "Accept: application/json, text/event-stream";
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}"#;

fn mcp_post(body: &[u8]) -> Vec<u8> {
    request("POST", "/mcp", &[JSON, ACCEPT], body)
}

/// Cases for the co-hosted MCP endpoint (rmcp answers; not an AEP route).
fn mcp_cases() -> Vec<Case> {
    vec![
        mcp("MCP: truncated JSON", mcp_post(&INITIALIZE.as_bytes()[..30]), 415),
        mcp("MCP: 100k '['", mcp_post(&vec![b'['; 100_000]), 415),
        mcp(
            "MCP: invalid UTF-8",
            mcp_post(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xFF\"}"),
            415,
        ),
        mcp("MCP: null body", mcp_post(b"null"), 415),
        mcp("MCP: empty body", mcp_post(b""), 415),
        mcp(
            "MCP: JSON-RPC batch",
            mcp_post(format!("[{INITIALIZE}]").as_bytes()),
            415,
        ),
        mcp(
            "MCP: jsonrpc 1.0",
            mcp_post(br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            415,
        ),
        mcp(
            "MCP: id is an object",
            mcp_post(br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#),
            415,
        ),
        mcp(
            "MCP: 5 MiB body (over rmcp's 4 MiB)",
            mcp_post(&vec![b' '; 5 * MIB]),
            413,
        ),
        // Over the extension's own 16 MiB limit: refused before rmcp reads it.
        aep(
            "MCP: 17 MiB body",
            mcp_post(&vec![b' '; 17 * MIB]),
            413,
            "invalid_request",
        ),
        mcp(
            "MCP: text/plain",
            request(
                "POST",
                "/mcp",
                &["Content-Type: text/plain", ACCEPT],
                INITIALIZE.as_bytes(),
            ),
            415,
        ),
        mcp(
            "MCP: no Accept",
            request("POST", "/mcp", &[JSON], INITIALIZE.as_bytes()),
            406,
        ),
        mcp(
            "MCP: unknown session id",
            request(
                "POST",
                "/mcp",
                &[JSON, ACCEPT, "Mcp-Session-Id: nope"],
                br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            ),
            404,
        ),
        mcp(
            "MCP: Host evil.example (DNS rebinding)",
            request("POST", "/mcp", &[JSON, ACCEPT], INITIALIZE.as_bytes())
                .replacen(b"Host: 127.0.0.1", b"Host: evil.example"),
            403,
        ),
        mcp("MCP: PUT", request("PUT", "/mcp", &[JSON], b"{}"), 405),
        mcp("MCP: PATCH", request("PATCH", "/mcp", &[JSON], b"{}"), 405),
        mcp(
            "MCP: GET without a session",
            request("GET", "/mcp", &["Accept: text/event-stream"], b""),
            400,
        ),
        mcp(
            "MCP: DELETE without a session",
            request("DELETE", "/mcp", &[], b""),
            400,
        ),
        // Body read failures are AEP errors: the SDK reads MCP bodies before rmcp, which
        // would answer them with a 500.
        aep(
            "MCP: chunked body with a bad chunk size",
            request(
                "POST",
                "/mcp",
                &[JSON, ACCEPT, "Transfer-Encoding: chunked"],
                b"zz\r\n{}\r\n0\r\n\r\n",
            ),
            400,
            "invalid_request",
        ),
        case(
            "MCP: body cut off, then EOF",
            Delivery::CutShort(request(
                "POST",
                "/mcp",
                &[JSON, ACCEPT, "Content-Length: 999"],
                INITIALIZE.as_bytes(),
            )),
            Expect::CutShort,
        ),
        case(
            "MCP: stalled body",
            Delivery::Stalled({
                let raw = mcp_post(INITIALIZE.as_bytes());
                raw[..raw.len() - 20].to_vec()
            }),
            Expect::StalledBody,
        ),
    ]
}

trait ReplaceBytes {
    fn replacen(self, from: &[u8], to: &[u8]) -> Vec<u8>;
}

impl ReplaceBytes for Vec<u8> {
    fn replacen(self, from: &[u8], to: &[u8]) -> Vec<u8> {
        match self.windows(from.len()).position(|w| w == from) {
            Some(i) => bytes(&[&self[..i], to, &self[i + from.len()..]]),
            None => self,
        }
    }
}

#[tokio::test]
async fn mcp_endpoint_survives_hostile_requests() {
    let server = tooly_server();
    survives(&server, "mcp", mcp_cases()).await;

    // The MCP server itself still serves a session client, and bad tool arguments are an
    // MCP error, not a transport failure.
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", server.base_url)),
    );
    let client = timeout(CASE_BOUND, ClientConfig::default().serve(transport))
        .await
        .expect("bounded")
        .expect("MCP initialize");
    let call = |arguments: Value| {
        let Value::Object(arguments) = arguments else {
            unreachable!()
        };
        client.call_tool(CallToolRequestParams::new("reverse".to_owned()).with_arguments(arguments))
    };
    let ok = timeout(CASE_BOUND, call(json!({"text": "abc"})))
        .await
        .expect("bounded")
        .expect("tools/call");
    assert_eq!(ok.content[0].as_text().map(|t| t.text.as_str()), Some("cba"));
    for bad in [json!({"text": 5}), json!({}), json!({"text": "x".repeat(MIB)})] {
        let result = timeout(CASE_BOUND, call(bad.clone())).await.expect("bounded");
        match result {
            Ok(result) if bad["text"].is_string() => assert_ne!(result.is_error, Some(true)),
            Ok(result) => assert_eq!(result.is_error, Some(true), "{bad}: {result:?}"),
            Err(error) => assert!(!bad["text"].is_string(), "{error}"),
        }
    }
    client.cancel().await.ok();
}
