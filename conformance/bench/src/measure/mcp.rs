//! 3. MCP tool calls: `tools/call` on the macro-generated server vs a hand-written rmcp
//!    `#[tool_router]` server, same tool, concurrency 1 and 32; calls/s.

use std::time::Instant;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use super::{LONG_ROUNDS, interleave};
use crate::report::Row;
use crate::servers;

pub(super) type Client = RunningService<RoleClient, ClientConfig>;

/// A client of the MCP endpoint at `{base}/mcp`, initialized.
pub(super) async fn connect(base: &str) -> Client {
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{base}/mcp"));
    ClientConfig::default()
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("MCP initialize")
}

/// `count` calls of `add`, one after another.
pub(super) async fn calls(client: &Client, count: usize) {
    for i in 0..count {
        let arguments = serde_json::json!({"a": i, "b": 1})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let result = client
            .call_tool(CallToolRequestParams::new("add").with_arguments(arguments))
            .await
            .expect("tools/call");
        assert_ne!(result.is_error, Some(true));
    }
}

pub async fn rows() -> Vec<Row> {
    let sdk = servers::sdk().await;
    let base = servers::baseline().await;
    let mut rows = Vec::new();
    for (concurrency, per_client) in [(1usize, 1000usize), (32, 100)] {
        let mut sdk_clients = Vec::new();
        let mut base_clients = Vec::new();
        for _ in 0..concurrency {
            sdk_clients.push(connect(&sdk.base_url).await);
            base_clients.push(connect(&base.base_url).await);
        }
        for client in sdk_clients.iter().chain(&base_clients) {
            calls(client, 5).await;
        }
        let (s, b) = interleave(LONG_ROUNDS, |use_sdk| {
            let clients = if use_sdk { &sdk_clients } else { &base_clients };
            async move {
                let start = Instant::now();
                futures::future::join_all(clients.iter().map(|c| calls(c, per_client))).await;
                (concurrency * per_client) as f64 / start.elapsed().as_secs_f64()
            }
        })
        .await;
        rows.push(
            Row::compare(
                format!("3. MCP tools/call, concurrency {concurrency}"),
                "calls/s",
                &s,
                &b,
            )
            .ratio_at_least(0.95),
        );
        for client in sdk_clients.into_iter().chain(base_clients) {
            let _ = client.cancel().await;
        }
    }
    rows
}
