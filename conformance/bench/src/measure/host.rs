//! 6. Host: resolving 100 tools across 10 extensions through the catalog (Tool resource
//!    -> AEP contribution -> MCP server -> MCP tool), cold (new registry and MCP pool:
//!    discovery, `initialize`, `tools/list`) and warm (the same catalog again: manifests,
//!    sessions and tool lists cached).

use std::sync::Arc;
use std::time::Instant;

use aep_host::catalog::{Catalog, ToolResource};
use aep_host::mcp::McpPool;
use aep_host::registry::Registry;
use aep_sdk::protocol::{McpToolMapping, ProtocolVersion, ToolContribution};
use aep_sdk::server::Extension;
use aep_sdk::tool::{JsonObject, ToolContext, ToolDef, ToolServer, input_schema};
use futures::future::BoxFuture;
use rmcp::model::CallToolResult;

use crate::report::Row;

const EXTENSIONS: usize = 10;
const TOOLS: usize = 10;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    /// Some text.
    #[allow(dead_code)]
    text: String,
}

fn call(_: Arc<()>, _: JsonObject, _: ToolContext) -> BoxFuture<'static, CallToolResult> {
    Box::pin(async { CallToolResult::success(vec![rmcp::model::ContentBlock::text("ok")]) })
}

fn extension(index: usize) -> Extension {
    let id = format!("bench.ext{index}");
    let tools = (0..TOOLS)
        .map(|t| ToolDef::new(&format!("tool_{t}"), input_schema::<Args>(), call).description("A tool."));
    let server = ToolServer::new(Arc::new(()), &id, "1.0.0", tools.collect());
    let mut builder =
        Extension::builder(&id, format!("Extension {index}"), "1.0.0").tool_server("tools", "/mcp", server);
    for t in 0..TOOLS {
        builder = builder.tool(ToolContribution {
            id: format!("tool.{t}"),
            display_name: format!("Tool {t}"),
            description: None,
            metadata: None,
            mcp: McpToolMapping {
                server: "tools".into(),
                tool: format!("tool_{t}"),
            },
        });
    }
    builder.build().expect("valid declaration")
}

fn catalog(servers: &[aep_sdk::testing::TestServer]) -> (Catalog, Vec<String>) {
    let mut registry = Registry::new();
    for (i, server) in servers.iter().enumerate() {
        registry
            .register(
                &format!("bench.ext{i}"),
                &server.base_url,
                ProtocolVersion::LATEST,
            )
            .expect("register");
    }
    let catalog = Catalog::new(Arc::new(registry), McpPool::new());
    let mut ids = Vec::new();
    for e in 0..servers.len() {
        for t in 0..TOOLS {
            let id = format!("e{e}.t{t}");
            catalog
                .add(ToolResource::aep(
                    &id,
                    format!("bench.ext{e}"),
                    format!("tool.{t}"),
                ))
                .expect("add");
            ids.push(id);
        }
    }
    (catalog, ids)
}

pub async fn rows() -> Vec<Row> {
    let mut servers = Vec::new();
    for i in 0..EXTENSIONS {
        servers.push(aep_sdk::testing::spawn(extension(i).router()).await);
    }
    let (mut cold, mut warm) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let (catalog, ids) = catalog(&servers);
        let start = Instant::now();
        let resolved = catalog.resolve_many(&ids).await;
        cold.push(start.elapsed().as_secs_f64() * 1e3);
        assert!(resolved.iter().all(Result::is_ok), "every tool resolves");
        let start = Instant::now();
        let resolved = catalog.resolve_many(&ids).await;
        warm.push(start.elapsed().as_secs_f64() * 1e3);
        assert!(resolved.iter().all(Result::is_ok));
        catalog.pool().close().await;
    }
    let speedup = Row::compare("6. host: warm / cold resolution", "ratio", &warm, &cold)
        .note("warm reuses manifests, MCP sessions and cached tools/list");
    vec![
        Row::single("6. host: resolve 100 tools / 10 extensions, cold", "ms", &cold)
            .note("10 discoveries, 10 initialize, 10 tools/list, concurrently"),
        Row::single("6. host: resolve 100 tools / 10 extensions, warm", "ms", &warm),
        speedup,
    ]
}
