//! Instruction-count probe for MCP tools/call: `mcp_micro sdk|baseline N` runs N calls
//! in-process against one server (run it under `valgrind --tool=callgrind`).
use aep_sdk::server::AepExtension;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
#[path = "../src/servers.rs"]
#[allow(dead_code)]
mod servers;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let kind = std::env::args().nth(1).unwrap_or_else(|| "sdk".into());
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let server = if kind == "sdk" {
        servers::sdk().await
    } else {
        servers::baseline().await
    };
    let _ = servers::SdkBench.into_extension();
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", server.base_url));
    let client = ClientConfig::default()
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap();
    for i in 0..n {
        let arguments = serde_json::json!({"a": i, "b": 1}).as_object().cloned().unwrap();
        client
            .call_tool(CallToolRequestParams::new("add").with_arguments(arguments))
            .await
            .unwrap();
    }
    let _ = client.cancel().await;
}
