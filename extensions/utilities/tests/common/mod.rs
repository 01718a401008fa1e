//! Shared test support: start the extension and connect rmcp's client.
#![allow(dead_code)] // each test binary uses a different subset

use aep_sdk::server::AepExtension;
use aep_sdk::testing::{TestServer, spawn};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::Value;

pub type McpClient = RunningService<RoleClient, ClientConfig>;

pub async fn start() -> TestServer {
    let extension = aep_utilities::Utilities
        .into_extension()
        .expect("valid declaration");
    spawn(extension.router()).await
}

pub async fn connect(url: &str) -> McpClient {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()),
    );
    ClientConfig::default()
        .serve(transport)
        .await
        .expect("MCP initialize succeeds")
}

pub async fn call(client: &McpClient, name: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
        .await
        .expect("tools/call answers")
}

pub fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}
