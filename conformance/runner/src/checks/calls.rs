//! Section 6: tool calls (`6.tools.call`) and the progress they report
//! (`6.tools.progress`).
//!
//! Which tools are called: only tools whose annotations say `readOnlyHint: true` and do
//! not say `destructiveHint: true`, and only when their input schema lets arguments be
//! synthesized. Tools without annotations default to "may modify, may destroy" in MCP,
//! so they are never called. `Options::call_tools = false` (`--no-tool-calls`) calls none.
//!
//! The calls are made once, by whichever of the two checks runs first, one after the
//! other on each server's client. Every request rmcp sends carries a `progressToken` in
//! its `_meta`; the token of each call is kept, with the `notifications/progress` that
//! arrived from its start until the next call started (after the last one, until 50 ms
//! passed without any).

use std::collections::HashMap;
use std::time::Duration;

use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ProgressToken, ServerResult, Tool,
};
use rmcp::service::PeerRequestOptions;
use serde_json::Value;

use super::tools::{schema_value, servers, tool_lists};
use super::{Findings, Verdict, need};
use crate::ctx::Ctx;
use crate::mcp::{CallOutcome, McpClient, ToolCall};
use crate::schema::{object_schema_problems, synthesize};

/// How long progress notifications may trail a server's last call.
const SETTLE: Duration = Duration::from_millis(500);

/// Whether the call rule allows calling `tool`.
fn callable(tool: &Tool) -> Result<(), String> {
    let annotations = tool.annotations.as_ref();
    if annotations.and_then(|a| a.read_only_hint) != Some(true) {
        return Err("not annotated readOnlyHint: true".to_owned());
    }
    if annotations.and_then(|a| a.destructive_hint) == Some(true) {
        return Err("annotated destructiveHint: true".to_owned());
    }
    Ok(())
}

/// One `tools/call`, bounded by `timeout`: the request's progress token (once sent) and
/// the result.
async fn call(
    client: &McpClient,
    label: &str,
    shown: &str,
    params: CallToolRequestParams,
    timeout: Duration,
) -> (Option<ProgressToken>, Result<Box<CallToolResult>, String>) {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let sent = tokio::time::timeout(
        timeout,
        client.send_request_with_option(request, PeerRequestOptions::with_timeout(timeout)),
    )
    .await;
    let handle = match sent {
        Err(_) => {
            return (
                None,
                Err(format!(
                    "{label}: tools/call could not be sent within {timeout:?}"
                )),
            );
        }
        Ok(Err(error)) => return (None, Err(format!("{label}: tools/call {shown} failed: {error}"))),
        Ok(Ok(handle)) => handle,
    };
    let token = handle.progress_token.clone();
    let bound = timeout + Duration::from_secs(1);
    let result = match tokio::time::timeout(bound, handle.await_response()).await {
        Err(_) | Ok(Err(ServiceError::Timeout { .. })) => {
            Err(format!("{label}: tools/call did not answer within {timeout:?}"))
        }
        Ok(Err(error)) => Err(format!("{label}: tools/call {shown} failed: {error}")),
        Ok(Ok(ServerResult::CallToolResult(result))) => Ok(Box::new(result)),
        Ok(Ok(other)) => Err(format!(
            "{label}: tools/call {shown} answered {}, not a CallToolResult",
            crate::render::clip(&serde_json::to_string(&other).unwrap_or_default(), 80)
        )),
    };
    (Some(token), result)
}

/// The calls of one server's `tools`, one after the other, with the progress each got.
async fn call_all(client: &McpClient, server: &str, tools: &[Tool], timeout: Duration) -> Vec<ToolCall> {
    let mut made = Vec::new();
    let mut windows = Vec::new();
    for tool in tools {
        let label = format!("{server}/{}", tool.name);
        let skipped = |why: String| ToolCall {
            label: label.clone(),
            tool: tool.clone(),
            outcome: CallOutcome::Skipped(format!("{label}: {why}")),
        };
        if let Err(why) = callable(tool) {
            made.push(skipped(why));
            continue;
        }
        let schema = schema_value(&tool.input_schema);
        let arguments = match synthesize(&schema, &schema) {
            Some(Value::Object(arguments)) if object_schema_problems(&schema).is_empty() => arguments,
            _ => {
                made.push(skipped(
                    "no arguments can be synthesized from its input schema".to_owned(),
                ));
                continue;
            }
        };
        let shown = crate::render::clip(&Value::Object(arguments.clone()).to_string(), 80);
        let params = CallToolRequestParams::new(tool.name.clone()).with_arguments(arguments);
        let start = client.service().progress_count();
        let (token, result) = call(client, &label, &shown, params, timeout).await;
        if token.is_some() {
            windows.push((made.len(), start));
        }
        made.push(ToolCall {
            label,
            tool: tool.clone(),
            outcome: CallOutcome::Called {
                arguments: shown,
                token,
                result,
                progress: Vec::new(),
            },
        });
    }
    if windows.is_empty() {
        return made;
    }
    client.service().settle(SETTLE).await;
    let first = windows[0].1;
    let seen = client.service().progress_since(first);
    for (k, &(index, start)) in windows.iter().enumerate() {
        let end = windows.get(k + 1).map_or(first + seen.len(), |&(_, next)| next);
        if let CallOutcome::Called { progress, .. } = &mut made[index].outcome {
            *progress = seen
                .get(start - first..end.max(start) - first)
                .map(<[_]>::to_vec)
                .unwrap_or_default();
        }
    }
    made
}

/// Makes the calls of every usable server (once); skip notes for the servers that
/// cannot be called.
async fn calls(ctx: &mut Ctx, findings: &mut Findings) {
    let lists = tool_lists(ctx, findings, false).await;
    let timeout = ctx.http.timeout;
    for server in ctx.mcp.iter_mut().flatten() {
        if server.calls.is_some() {
            continue;
        }
        let Some(tools) = lists.get(&server.id) else {
            continue;
        };
        let Some(client) = server.caller() else { continue };
        let made = call_all(client, &server.id, tools, timeout).await;
        server.calls = Some(made);
    }
}

/// What `6.tools.call` says of one answered call.
fn judge(label: &str, tool: &Tool, shown: &str, result: &CallToolResult) -> Result<String, String> {
    let is_error = result.is_error == Some(true);
    match (&tool.output_schema, &result.structured_content, is_error) {
        (Some(_), None, false) => Err(format!(
            "{label}: declares an outputSchema but its result has no structuredContent"
        )),
        (Some(output), Some(structured), false) => {
            match aep_sdk::schema::Validator::new(&schema_value(output)) {
                Err(error) => Err(format!("{label}: its outputSchema cannot be used: {error}")),
                Ok(validator) => {
                    let issues = validator.issues(structured);
                    if issues.is_empty() {
                        Ok(format!("{label} {shown}: structured result"))
                    } else {
                        let listed: Vec<String> =
                            issues.iter().map(|i| i.describe("structuredContent")).collect();
                        Err(format!(
                            "{label}: structuredContent does not match outputSchema: {}",
                            listed.join("; ")
                        ))
                    }
                }
            }
        }
        (_, _, true) => Ok(format!(
            "{label} {shown}: a tool error result (isError), a valid answer"
        )),
        _ => Ok(format!(
            "{label} {shown}: {} content item(s)",
            result.content.len()
        )),
    }
}

/// `6.tools.call`.
pub(crate) async fn call_check(ctx: &mut Ctx) -> Verdict {
    if !ctx.options.call_tools {
        return Verdict::Skip("tool calls are turned off (--no-tool-calls)".to_owned());
    }
    need!(servers(ctx).await);
    let mut findings = Findings::default();
    calls(ctx, &mut findings).await;
    for made in ctx
        .mcp
        .iter()
        .flatten()
        .filter_map(|s| s.calls.as_ref())
        .flatten()
    {
        match &made.outcome {
            CallOutcome::Skipped(why) => findings.skip(why.clone()),
            CallOutcome::Called {
                arguments, result, ..
            } => findings.check(
                result
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|result| judge(&made.label, &made.tool, arguments, result)),
            ),
        }
    }
    findings.verdict()
}

/// A progress token as written on the wire.
fn token_text(token: &ProgressToken) -> String {
    serde_json::to_string(&token.0).unwrap_or_default()
}

/// `6.tools.progress`.
pub(crate) async fn progress(ctx: &mut Ctx) -> Verdict {
    if !ctx.options.call_tools {
        return Verdict::Skip("tool calls are turned off (--no-tool-calls)".to_owned());
    }
    need!(servers(ctx).await);
    let mut findings = Findings::default();
    calls(ctx, &mut findings).await;
    let mut none_seen = Vec::new();
    for server in ctx.mcp.iter().flatten() {
        let Some(made) = &server.calls else { continue };
        // Every token this suite sent to the server: a notification carrying one of them
        // belongs to that call, wherever it arrived.
        let mut counts: HashMap<&ProgressToken, usize> = HashMap::new();
        for call in made {
            if let CallOutcome::Called {
                token: Some(token), ..
            } = &call.outcome
            {
                counts.entry(token).or_default();
            }
        }
        for call in made {
            if let CallOutcome::Called { progress, .. } = &call.outcome {
                for notification in progress {
                    if let Some(count) = counts.get_mut(&notification.progress_token) {
                        *count += 1;
                    }
                }
            }
        }
        for call in made {
            let (token, progress) = match &call.outcome {
                CallOutcome::Skipped(why) => {
                    findings.skip(why.clone());
                    continue;
                }
                CallOutcome::Called { token: None, .. } => {
                    findings.skip(format!("{}: the call could not be sent", call.label));
                    continue;
                }
                CallOutcome::Called {
                    token: Some(token),
                    progress,
                    ..
                } => (token, progress),
            };
            let foreign: Vec<String> = progress
                .iter()
                .filter(|n| !counts.contains_key(&n.progress_token))
                .map(|n| token_text(&n.progress_token))
                .collect();
            let count = counts.get(token).copied().unwrap_or(0);
            if !foreign.is_empty() {
                findings.problem(format!(
                    "{}: called with progressToken {}, but {} notifications/progress carried {}",
                    call.label,
                    token_text(token),
                    foreign.len(),
                    foreign.join(", ")
                ));
            } else if count > 0 {
                findings.ok(format!(
                    "{}: {count} notifications/progress, each with its progressToken {}",
                    call.label,
                    token_text(token)
                ));
            } else {
                none_seen.push(call.label.clone());
            }
        }
    }
    if !none_seen.is_empty() {
        findings.ok(format!(
            "no notifications/progress seen for {} (nothing to compare)",
            none_seen.join(", ")
        ));
    }
    findings.verdict()
}
