//! Section 6: every declared MCP server over Streamable HTTP (session and stateless
//! revisions), contributions mapped to listed tools, and tool schemas. Tool calls are in
//! `calls`, resources and prompts in `surface`; both use the server list and tool lists
//! from here.

use std::collections::HashMap;

use aep_sdk::validate::resolve_mcp_endpoint;
use rmcp::model::Tool;
use serde_json::Value;

use super::{Findings, Verdict, need};
use crate::ctx::{Ctx, Missing};
use crate::mcp::McpServer;
use crate::schema::object_schema_problems;

/// Fills `ctx.mcp` from the manifest (once).
pub(super) async fn servers(ctx: &mut Ctx) -> Result<(), Missing> {
    if ctx.mcp.is_none() {
        let manifest = ctx.manifest().await?;
        let mut seen = std::collections::HashSet::new();
        let list = manifest
            .mcp_servers()
            .iter()
            .filter(|s| seen.insert(s.id.clone()))
            .map(|s| {
                let endpoint = resolve_mcp_endpoint(&ctx.http.base, &s.endpoint).map_err(|e| {
                    format!(
                        "endpoint '{}' is invalid: {e} (see 1.manifest.mcp-servers)",
                        s.endpoint
                    )
                });
                McpServer::new(s.id.clone(), endpoint)
            })
            .collect();
        ctx.mcp = Some(list);
    }
    match ctx.mcp.as_ref() {
        Some(list) if !list.is_empty() => Ok(()),
        _ => Err(Missing::skip("no MCP server is declared")),
    }
}

/// `6.mcp.reachable`.
pub(crate) async fn reachable(ctx: &mut Ctx) -> Verdict {
    need!(servers(ctx).await);
    let http = ctx.http.clone();
    let mut findings = Findings::default();
    for server in ctx.mcp.iter_mut().flatten() {
        let Ok(url) = server.endpoint.clone() else {
            findings.skip(format!(
                "server '{}': {}",
                server.id,
                server.endpoint.clone().err().unwrap_or_default()
            ));
            continue;
        };
        findings.check(
            server
                .reachable(&http)
                .await
                .map(|()| format!("server '{}' at {url}", server.id))
                .map_err(|e| format!("server '{}': {e}", server.id)),
        );
    }
    findings.verdict()
}

/// Whether the server was reachable; else a skip note.
pub(super) fn usable(server: &McpServer, findings: &mut Findings) -> bool {
    match &server.reachable {
        Some(Ok(())) => true,
        _ => {
            findings.skip(format!(
                "server '{}' is not reachable (see 6.mcp.reachable)",
                server.id
            ));
            false
        }
    }
}

/// Probes every server with a valid endpoint (once).
pub(super) async fn ensure_probed(ctx: &mut Ctx) {
    let http = ctx.http.clone();
    for server in ctx.mcp.iter_mut().flatten() {
        if server.endpoint.is_ok() {
            let _ = server.reachable(&http).await;
        }
    }
}

/// `6.mcp.initialize`.
pub(crate) async fn initialize(ctx: &mut Ctx) -> Verdict {
    need!(servers(ctx).await);
    ensure_probed(ctx).await;
    let http = ctx.http.clone();
    let mut findings = Findings::default();
    for server in ctx.mcp.iter_mut().flatten() {
        if !usable(server, &mut findings) {
            continue;
        }
        let id = server.id.clone();
        findings.check(match server.session(&http).await {
            Ok(client) => {
                let info = client.peer_info();
                let name = info
                    .as_ref()
                    .and_then(|i| {
                        i.server_info
                            .as_ref()
                            .map(|s| format!("{} {}", s.name, s.version))
                    })
                    .unwrap_or_default();
                let version = info
                    .as_ref()
                    .map(|i| i.protocol_version.to_string())
                    .unwrap_or_default();
                Ok(format!(
                    "server '{id}': initialize -> {name} (revision {version})"
                ))
            }
            Err(error) => Err(format!("server '{id}': initialize failed: {error}")),
        });
    }
    findings.verdict()
}

/// `6.mcp.origin`.
pub(crate) async fn origin(ctx: &mut Ctx) -> Verdict {
    need!(servers(ctx).await);
    ensure_probed(ctx).await;
    let http = ctx.http.clone();
    let mut findings = Findings::default();
    for server in ctx.mcp.iter().flatten() {
        if !usable(server, &mut findings) {
            continue;
        }
        let id = server.id.clone();
        findings.check(
            server
                .refuses_foreign_origin(&http)
                .await
                .map(|()| format!("server '{id}': a foreign Origin gets 403"))
                .map_err(|e| format!("server '{id}': {e}")),
        );
    }
    findings.verdict()
}

/// `6.mcp.stateless`.
pub(crate) async fn stateless(ctx: &mut Ctx) -> Verdict {
    need!(servers(ctx).await);
    ensure_probed(ctx).await;
    let http = ctx.http.clone();
    let mut findings = Findings::default();
    for server in ctx.mcp.iter_mut().flatten() {
        if !usable(server, &mut findings) {
            continue;
        }
        let id = server.id.clone();
        let result = match server.stateless(&http).await {
            Err(error) => Err(format!("server '{id}': server/discover failed: {error}")),
            Ok(client) => match tokio::time::timeout(http.timeout, client.list_all_tools()).await {
                Ok(Ok(tools)) => Ok(format!(
                    "server '{id}': server/discover, then tools/list ({} tools)",
                    tools.len()
                )),
                Ok(Err(error)) => Err(format!("server '{id}': stateless tools/list failed: {error}")),
                Err(_) => Err(format!(
                    "server '{id}': stateless tools/list did not answer in time"
                )),
            },
        };
        findings.check(result);
    }
    findings.verdict()
}

/// Each usable server's tool list; skip notes for the others. A failing `tools/list`
/// through a connected client is a problem.
pub(super) async fn tool_lists(
    ctx: &mut Ctx,
    findings: &mut Findings,
    owner: bool,
) -> HashMap<String, Vec<Tool>> {
    ensure_probed(ctx).await;
    let http = ctx.http.clone();
    let mut lists = HashMap::new();
    for server in ctx.mcp.iter_mut().flatten() {
        if !usable(server, findings) {
            continue;
        }
        match server.tools(&http).await {
            Ok(tools) => {
                lists.insert(server.id.clone(), tools);
            }
            Err(error) if server.caller().is_none() => {
                findings.skip(format!(
                    "server '{}': no MCP client connects (see 6.mcp.initialize): {error}",
                    server.id
                ));
            }
            Err(error) if owner => findings.problem(format!("server '{}': {error}", server.id)),
            Err(error) => findings.skip(format!("server '{}': {error}", server.id)),
        }
    }
    lists
}

/// `6.tools.contribution-maps`.
pub(crate) async fn contribution_maps(ctx: &mut Ctx) -> Verdict {
    let manifest = need!(ctx.manifest().await);
    if manifest.contributions.tools.is_empty() {
        return Verdict::Skip("no tool contribution is declared".to_owned());
    }
    need!(servers(ctx).await);
    let mut findings = Findings::default();
    let lists = tool_lists(ctx, &mut findings, true).await;
    let declared: Vec<String> = ctx.mcp.iter().flatten().map(|s| s.id.clone()).collect();
    for contribution in &manifest.contributions.tools {
        let label = format!("contribution '{}'", contribution.id);
        if !declared.contains(&contribution.mcp.server) {
            findings.skip(format!(
                "{label}: server '{}' is not declared (see 1.manifest.tools.server-ref)",
                contribution.mcp.server
            ));
            continue;
        }
        let Some(tools) = lists.get(&contribution.mcp.server) else {
            continue;
        };
        if tools.iter().any(|t| t.name == contribution.mcp.tool) {
            findings.ok(format!(
                "{label} -> {}/{}",
                contribution.mcp.server, contribution.mcp.tool
            ));
        } else {
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
            findings.problem(format!(
                "{label}: server '{}' lists no tool '{}' (it lists: {})",
                contribution.mcp.server,
                contribution.mcp.tool,
                names.join(", ")
            ));
        }
    }
    findings.verdict()
}

pub(super) fn schema_value(schema: &serde_json::Map<String, Value>) -> Value {
    Value::Object(schema.clone())
}

/// `6.tools.schemas`.
pub(crate) async fn schemas(ctx: &mut Ctx) -> Verdict {
    need!(servers(ctx).await);
    let mut findings = Findings::default();
    let lists = tool_lists(ctx, &mut findings, false).await;
    for (server, tools) in &lists {
        for tool in tools {
            let mut problems: Vec<String> = object_schema_problems(&schema_value(&tool.input_schema))
                .into_iter()
                .map(|p| format!("inputSchema{p}"))
                .collect();
            if let Some(output) = &tool.output_schema {
                problems.extend(
                    object_schema_problems(&schema_value(output))
                        .into_iter()
                        .map(|p| format!("outputSchema{p}")),
                );
            }
            if problems.is_empty() {
                findings.ok(format!("{server}/{}", tool.name));
            } else {
                problems
                    .into_iter()
                    .for_each(|p| findings.problem(format!("{server}/{}: {p}", tool.name)));
            }
        }
    }
    findings.verdict()
}
