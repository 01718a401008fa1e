//! Printing manifests, tools, tool outputs, agent events, MCP resources and prompts for
//! people.

use std::io::{self, Write};

use aep_sdk::protocol::Manifest;
use rmcp::model::{GetPromptResult, Prompt, Resource, ResourceContents, ResourceTemplate, Role};
use serde_json::Value;
use url::Url;

use crate::agent::AgentEvent;
use crate::catalog::AgentTool;
use crate::invoke::ToolOutput;

/// Where output goes: stdout for the CLI, a buffer in tests.
pub type Out<'a> = &'a mut (dyn Write + Send);

/// `loading (model is loading), not serving`: the status as sent, then its details;
/// only `available` counts as serving.
pub fn health(health: &aep_sdk::protocol::Health) -> String {
    let details = health
        .details
        .as_deref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    let serving = if health.is_serving() { "" } else { ", not serving" };
    format!("{}{details}{serving}", health.status)
}

/// A few lines describing a manifest.
pub fn manifest(out: Out<'_>, manifest: &Manifest) -> io::Result<()> {
    let ext = &manifest.extension;
    writeln!(
        out,
        "  {} {} \"{}\" (protocol {})",
        ext.id, ext.version, ext.name, manifest.protocol_version
    )?;
    if let Some(description) = &ext.description {
        writeln!(out, "    {description}")?;
    }
    let capabilities: Vec<&str> = manifest.capabilities.keys().map(String::as_str).collect();
    writeln!(out, "    capabilities: {}", capabilities.join(", "))?;
    for provider in &manifest.contributions.model_providers {
        let models: Vec<&str> = provider.models.iter().flatten().map(|m| m.id.as_str()).collect();
        writeln!(
            out,
            "    model provider {} \"{}\"{}{}",
            provider.id,
            provider.display_name,
            if provider.capabilities.tools {
                ", tools"
            } else {
                ""
            },
            if models.is_empty() {
                String::new()
            } else {
                format!(", models: {}", models.join(", "))
            }
        )?;
    }
    for server in manifest.mcp_servers() {
        writeln!(out, "    MCP server {} at {}", server.id, server.endpoint)?;
    }
    for tool in &manifest.contributions.tools {
        writeln!(
            out,
            "    tool contribution {} \"{}\" -> {}/{}",
            tool.id, tool.display_name, tool.mcp.server, tool.mcp.tool
        )?;
    }
    Ok(())
}

/// One resolved tool; with `schemas`, its input and output schemas too.
pub fn tool(out: Out<'_>, tool: &AgentTool, schemas: bool) -> io::Result<()> {
    let origin = &tool.origin;
    let path = match (&origin.extension, &origin.contribution, &origin.mcp_server) {
        (Some(e), Some(c), Some(s)) => format!(
            "AEP {e}/{c} -> MCP server {s} ({}) -> {}",
            origin.mcp_url, origin.mcp_tool
        ),
        _ => format!("direct MCP {} -> {}", origin.mcp_url, origin.mcp_tool),
    };
    let mut hints = Vec::new();
    if tool.hints.read_only == Some(true) {
        hints.push("read-only");
    }
    if tool.hints.idempotent == Some(true) {
        hints.push("idempotent");
    }
    if tool.hints.destructive == Some(true) {
        hints.push("destructive");
    }
    let hints = if hints.is_empty() {
        String::new()
    } else {
        format!(" [{}]", hints.join(", "))
    };
    writeln!(out, "  {} \"{}\"{hints}", tool.id, tool.display_name)?;
    writeln!(out, "      {path}")?;
    if let Some(description) = &tool.description {
        writeln!(out, "      {description}")?;
    }
    if !tool.metadata.is_empty() {
        writeln!(out, "      metadata: {}", Value::Object(tool.metadata.clone()))?;
    }
    if schemas {
        writeln!(out, "      input:  {}", tool.input_schema)?;
        if let Some(output) = &tool.output_schema {
            writeln!(out, "      output: {output}")?;
        }
    }
    Ok(())
}

/// A tool's output.
pub fn output(out: Out<'_>, output: &ToolOutput) -> io::Result<()> {
    let label = if output.is_error { "tool error" } else { "result" };
    writeln!(out, "  {label}: {}", output.text())?;
    if let Some(structured) = &output.structured {
        writeln!(out, "  structured: {structured}")?;
    }
    Ok(())
}

/// `MCP server utilities (http://127.0.0.1:8711/mcp):`.
pub fn server_header(out: Out<'_>, server: &str, url: &Url) -> io::Result<()> {
    writeln!(out, "MCP server {server} ({url}):")
}

/// ` "Title"` when there is a title, ` (mime/type)` when there is a MIME type.
fn title_and_type(title: Option<&str>, mime_type: Option<&str>) -> String {
    let mut text = String::new();
    if let Some(title) = title {
        text.push_str(&format!(" \"{title}\""));
    }
    if let Some(mime_type) = mime_type {
        text.push_str(&format!(" ({mime_type})"));
    }
    text
}

/// The resources of `resources/list`: URI, name, title, MIME type, description.
pub fn resources(out: Out<'_>, resources: &[Resource]) -> io::Result<()> {
    if resources.is_empty() {
        writeln!(out, "  no resources")?;
    }
    for resource in resources {
        let about = title_and_type(resource.title.as_deref(), resource.mime_type.as_deref());
        writeln!(out, "  {} {}{about}", resource.uri, resource.name)?;
        if let Some(description) = &resource.description {
            writeln!(out, "      {description}")?;
        }
    }
    Ok(())
}

/// The templates of `resources/templates/list`.
pub fn resource_templates(out: Out<'_>, templates: &[ResourceTemplate]) -> io::Result<()> {
    if templates.is_empty() {
        writeln!(out, "  no resource templates")?;
    }
    for template in templates {
        let about = title_and_type(template.title.as_deref(), template.mime_type.as_deref());
        writeln!(out, "  {} {}{about}", template.uri_template, template.name)?;
        if let Some(description) = &template.description {
            writeln!(out, "      {description}")?;
        }
    }
    Ok(())
}

/// The contents of a `resources/read`: per content a line with its URI and MIME type,
/// then the text as it is (a blob: its size and its base64 text).
pub fn resource_contents(out: Out<'_>, contents: &[ResourceContents]) -> io::Result<()> {
    if contents.is_empty() {
        writeln!(out, "(no contents)")?;
    }
    for content in contents {
        match content {
            ResourceContents::TextResourceContents {
                uri, mime_type, text, ..
            } => {
                writeln!(out, "{uri}{}", title_and_type(None, mime_type.as_deref()))?;
                if text.ends_with('\n') {
                    write!(out, "{text}")?;
                } else {
                    writeln!(out, "{text}")?;
                }
            }
            ResourceContents::BlobResourceContents {
                uri, mime_type, blob, ..
            } => {
                let about = title_and_type(None, mime_type.as_deref());
                writeln!(out, "{uri}{about}: binary, {} base64 characters", blob.len())?;
                writeln!(out, "{blob}")?;
            }
            other => writeln!(out, "{}", serde_json::to_string(other).unwrap_or_default())?,
        }
    }
    Ok(())
}

/// The prompts of `prompts/list`, each with its arguments as `--arg` flags.
pub fn prompts(out: Out<'_>, prompts: &[Prompt]) -> io::Result<()> {
    if prompts.is_empty() {
        writeln!(out, "  no prompts")?;
    }
    for prompt in prompts {
        writeln!(
            out,
            "  {}{}",
            prompt.name,
            title_and_type(prompt.title.as_deref(), None)
        )?;
        if let Some(description) = &prompt.description {
            writeln!(out, "      {description}")?;
        }
        for argument in prompt.arguments.iter().flatten() {
            let required = if argument.required == Some(true) {
                " (required)"
            } else {
                ""
            };
            let description = argument
                .description
                .as_deref()
                .map(|d| format!(": {d}"))
                .unwrap_or_default();
            writeln!(out, "      --arg {}=...{required}{description}", argument.name)?;
        }
    }
    Ok(())
}

/// The messages of a `prompts/get`: `[user]` or `[assistant]`, then the text (other
/// content as JSON).
pub fn prompt_messages(out: Out<'_>, prompt: &GetPromptResult) -> io::Result<()> {
    if let Some(description) = &prompt.description {
        writeln!(out, "{description}")?;
    }
    if prompt.messages.is_empty() {
        writeln!(out, "(no messages)")?;
    }
    for message in &prompt.messages {
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        writeln!(out, "[{role}]")?;
        match message.content.as_text() {
            Some(text) => writeln!(out, "{}", text.text)?,
            None => writeln!(
                out,
                "{}",
                serde_json::to_string(&message.content).unwrap_or_default()
            )?,
        }
    }
    Ok(())
}

/// Prints agent events as they come: text streams inline, tool traffic on its own lines.
#[derive(Debug, Default)]
pub struct EventPrinter {
    mid_line: bool,
}

impl EventPrinter {
    /// Prints one event.
    pub fn print(&mut self, out: Out<'_>, event: &AgentEvent) -> io::Result<()> {
        match event {
            AgentEvent::StepStarted { step } => {
                self.end_line(out)?;
                write!(out, "  [turn {step}] assistant: ")?;
                self.mid_line = true;
            }
            AgentEvent::TextDelta(delta) => {
                write!(out, "{delta}")?;
                self.mid_line = true;
            }
            AgentEvent::Reasoning(delta) => {
                write!(out, "\x1b[2m{delta}\x1b[0m")?;
                self.mid_line = true;
            }
            AgentEvent::ToolCall(call) => {
                self.end_line(out)?;
                writeln!(
                    out,
                    "    -> tool call {} {} (id {})",
                    call.name, call.arguments, call.id
                )?;
            }
            AgentEvent::ToolResult { call, outcome } => {
                self.end_line(out)?;
                match outcome {
                    Ok(output) if output.is_error => {
                        writeln!(out, "    <- {} tool error: {}", call.name, output.text())?
                    }
                    Ok(output) => writeln!(out, "    <- {} result: {}", call.name, output.result_value())?,
                    Err(error) => writeln!(out, "    <- {} failed: {error}", call.name)?,
                }
            }
            AgentEvent::StepFinished { finish_reason, .. } => {
                if let Some(reason) = finish_reason {
                    let reason = serde_json::to_value(reason).unwrap_or(Value::Null);
                    let reason = reason.as_str().unwrap_or("?");
                    if self.mid_line {
                        write!(out, " ({reason})")?;
                    } else {
                        write!(out, "    (turn ended: {reason})")?;
                    }
                }
                self.mid_line = true;
                self.end_line(out)?;
            }
        }
        out.flush()
    }

    /// Ends the current line if text was written on it.
    pub fn end_line(&mut self, out: Out<'_>) -> io::Result<()> {
        if self.mid_line {
            writeln!(out)?;
            self.mid_line = false;
        }
        Ok(())
    }
}
