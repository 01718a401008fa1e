//! Section 6: MCP resources and prompts, on the servers whose `initialize` (or
//! `server/discover`) result advertises them; the others are not checked.
//!
//! Every listed resource is read (the first [`MAX_PER_SERVER`] of each server); resource
//! templates are listed but not read, since no URI can be built from a template with
//! confidence. Every listed prompt is got (the first [`MAX_PER_SERVER`]) with each
//! required argument set to [`SAMPLE`]: a prompt that refuses that value as invalid
//! params (-32602) is noted, not failed, since its arguments may accept only some words.

use rmcp::ServiceError;
use rmcp::model::{ErrorCode, GetPromptRequestParams, Prompt, ReadResourceRequestParams, ResourceContents};
use serde_json::Value;

use super::tools::{ensure_probed, servers, usable};
use super::{Findings, Verdict, need};
use crate::ctx::Ctx;
use crate::mcp::{McpClient, McpServer};

/// What a required prompt argument is set to.
pub(crate) const SAMPLE: &str = "sample";

/// At most this many resources are read, and prompts got, per server.
pub(crate) const MAX_PER_SERVER: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Feature {
    Resources,
    Prompts,
}

impl Feature {
    fn name(self) -> &'static str {
        match self {
            Feature::Resources => "resources",
            Feature::Prompts => "prompts",
        }
    }
}

/// The positions in `ctx.mcp` of the usable servers that advertise `feature`; skip notes
/// for the others.
async fn advertising(ctx: &mut Ctx, findings: &mut Findings, feature: Feature) -> Vec<usize> {
    ensure_probed(ctx).await;
    let http = ctx.http.clone();
    let mut found = Vec::new();
    for (index, server) in ctx.mcp.iter_mut().flatten().enumerate() {
        if !usable(server, findings) {
            continue;
        }
        if let Err(error) = server.connected(&http).await {
            findings.skip(format!(
                "server '{}': no MCP client connects (see 6.mcp.initialize): {error}",
                server.id
            ));
            continue;
        }
        let advertised = server.capabilities().is_some_and(|c| match feature {
            Feature::Resources => c.resources.is_some(),
            Feature::Prompts => c.prompts.is_some(),
        });
        if advertised {
            found.push(index);
        } else {
            findings.skip(format!(
                "server '{}' does not advertise {}",
                server.id,
                feature.name()
            ));
        }
    }
    found
}

/// The servers at `positions`.
fn at<'a>(ctx: &'a mut Ctx, positions: &[usize]) -> Vec<&'a mut McpServer> {
    ctx.mcp
        .iter_mut()
        .flatten()
        .enumerate()
        .filter(|(i, _)| positions.contains(i))
        .map(|(_, s)| s)
        .collect()
}

/// `6.resources.list`.
pub(crate) async fn resources_list(ctx: &mut Ctx) -> Verdict {
    need!(servers(ctx).await);
    let mut findings = Findings::default();
    let positions = advertising(ctx, &mut findings, Feature::Resources).await;
    let http = ctx.http.clone();
    for server in at(ctx, &positions) {
        let id = server.id.clone();
        let resources = server.resources(&http).await;
        let templates = server.templates(&http).await;
        match (resources, templates) {
            (Ok(resources), Ok(templates)) => findings.ok(format!(
                "server '{id}': {} resource(s), {} resource template(s)",
                resources.len(),
                templates.len()
            )),
            (resources, templates) => {
                for error in [resources.err(), templates.err()].into_iter().flatten() {
                    findings.problem(format!("server '{id}': {error}"));
                }
            }
        }
    }
    findings.verdict()
}

/// Reads `uri`: its contents must not be empty and one of them must carry `uri`.
async fn read(
    client: &McpClient,
    server: &str,
    uri: &str,
    timeout: std::time::Duration,
) -> Result<String, String> {
    let label = format!("{server}: {uri}");
    let request = client.read_resource(ReadResourceRequestParams::new(uri));
    let result = match tokio::time::timeout(timeout, request).await {
        Err(_) => {
            return Err(format!(
                "{label}: resources/read did not answer within {timeout:?}"
            ));
        }
        Ok(Err(error)) => return Err(format!("{label}: resources/read failed: {error}")),
        Ok(Ok(result)) => result,
    };
    let uris: Vec<String> = result
        .contents
        .iter()
        .map(|content| match content {
            ResourceContents::TextResourceContents { uri, .. }
            | ResourceContents::BlobResourceContents { uri, .. } => uri.clone(),
            other => serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("uri").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_default(),
        })
        .collect();
    if uris.is_empty() {
        return Err(format!("{label}: resources/read answered no contents"));
    }
    if !uris.iter().any(|u| u == uri) {
        return Err(format!(
            "{label}: resources/read answered contents for {}, none for the URI asked for",
            uris.join(", ")
        ));
    }
    Ok(format!("{label}: {} content item(s)", uris.len()))
}

/// `6.resources.read`.
pub(crate) async fn resources_read(ctx: &mut Ctx) -> Verdict {
    need!(servers(ctx).await);
    let mut findings = Findings::default();
    let positions = advertising(ctx, &mut findings, Feature::Resources).await;
    let http = ctx.http.clone();
    for server in at(ctx, &positions) {
        let id = server.id.clone();
        let listed = match server.resources(&http).await {
            Ok(listed) => listed,
            Err(error) => {
                findings.skip(format!(
                    "server '{id}': no resource list (see 6.resources.list): {error}"
                ));
                continue;
            }
        };
        if listed.is_empty() {
            findings.skip(format!("server '{id}' lists no resource"));
            continue;
        }
        let Some(client) = server.caller() else { continue };
        for resource in listed.iter().take(MAX_PER_SERVER) {
            findings.check(read(client, &id, &resource.uri, http.timeout).await);
        }
        if listed.len() > MAX_PER_SERVER {
            findings.skip(format!(
                "server '{id}': {} more resource(s) not read",
                listed.len() - MAX_PER_SERVER
            ));
        }
    }
    findings.verdict()
}

/// `6.prompts.list`.
pub(crate) async fn prompts_list(ctx: &mut Ctx) -> Verdict {
    need!(servers(ctx).await);
    let mut findings = Findings::default();
    let positions = advertising(ctx, &mut findings, Feature::Prompts).await;
    let http = ctx.http.clone();
    for server in at(ctx, &positions) {
        let id = server.id.clone();
        findings.check(
            server
                .prompts(&http)
                .await
                .map(|prompts| format!("server '{id}': {} prompt(s)", prompts.len()))
                .map_err(|error| format!("server '{id}': {error}")),
        );
    }
    findings.verdict()
}

/// What one prompt's `prompts/get` came to.
enum Got {
    /// A note (it answered messages) or a problem.
    Judged(Result<String, String>),
    /// It refused the sample arguments as invalid params: not judged.
    Refused(String),
}

/// Gets `prompt` with its required arguments set to [`SAMPLE`].
async fn get(client: &McpClient, label: &str, prompt: &Prompt, timeout: std::time::Duration) -> Got {
    let required: Vec<&str> = prompt
        .arguments
        .iter()
        .flatten()
        .filter(|a| a.required == Some(true))
        .map(|a| a.name.as_str())
        .collect();
    let mut params = GetPromptRequestParams::new(prompt.name.clone());
    if !required.is_empty() {
        let arguments = required
            .iter()
            .map(|name| ((*name).to_owned(), Value::String(SAMPLE.to_owned())))
            .collect();
        params.arguments = Some(arguments);
    }
    let shown = if required.is_empty() {
        "no arguments".to_owned()
    } else {
        required
            .iter()
            .map(|name| format!("{name}=\"{SAMPLE}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match tokio::time::timeout(timeout, client.get_prompt(params)).await {
        Err(_) => Got::Judged(Err(format!(
            "{label} ({shown}): prompts/get did not answer within {timeout:?}"
        ))),
        Ok(Err(ServiceError::McpError(data)))
            if data.code == ErrorCode::INVALID_PARAMS && !required.is_empty() =>
        {
            Got::Refused(format!(
                "{label}: refused the sample arguments ({shown}) as invalid params: {}",
                data.message
            ))
        }
        Ok(Err(error)) => Got::Judged(Err(format!("{label} ({shown}): prompts/get failed: {error}"))),
        Ok(Ok(result)) if result.messages.is_empty() => {
            Got::Judged(Err(format!("{label} ({shown}): prompts/get answered no message")))
        }
        Ok(Ok(result)) => Got::Judged(Ok(format!(
            "{label} ({shown}): {} message(s)",
            result.messages.len()
        ))),
    }
}

/// `6.prompts.get`.
pub(crate) async fn prompts_get(ctx: &mut Ctx) -> Verdict {
    need!(servers(ctx).await);
    let mut findings = Findings::default();
    let positions = advertising(ctx, &mut findings, Feature::Prompts).await;
    let http = ctx.http.clone();
    for server in at(ctx, &positions) {
        let id = server.id.clone();
        let listed = match server.prompts(&http).await {
            Ok(listed) => listed,
            Err(error) => {
                findings.skip(format!(
                    "server '{id}': no prompt list (see 6.prompts.list): {error}"
                ));
                continue;
            }
        };
        if listed.is_empty() {
            findings.skip(format!("server '{id}' lists no prompt"));
            continue;
        }
        let Some(client) = server.caller() else { continue };
        for prompt in listed.iter().take(MAX_PER_SERVER) {
            let label = format!("{id}/{}", prompt.name);
            match get(client, &label, prompt, http.timeout).await {
                Got::Judged(judged) => findings.check(judged),
                Got::Refused(why) => findings.skip(why),
            }
        }
        if listed.len() > MAX_PER_SERVER {
            findings.skip(format!(
                "server '{id}': {} more prompt(s) not got",
                listed.len() - MAX_PER_SERVER
            ));
        }
    }
    findings.verdict()
}
