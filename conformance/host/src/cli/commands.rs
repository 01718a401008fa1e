//! The subcommands.

use std::process::ExitCode;

use aep_sdk::protocol::Message;
use serde_json::Value;

use super::{Cli, Command, Host};
use crate::agent::{Agent, AgentEvent, AgentStop};
use crate::demo::DemoOptions;
use crate::error::{ErrorCode, HostError, Result};
use crate::registry::{ExtensionEntry, discover, parse_revision};
use crate::render::{self, EventPrinter, Out};

macro_rules! say {
    ($out:expr) => { let _ = writeln!($out); };
    ($out:expr, $($arg:tt)*) => { let _ = writeln!($out, $($arg)*); };
}

/// Runs one command, writing to `out`. Exit code 2 means the tool reported an error.
pub async fn run(cli: Cli, out: Out<'_>) -> Result<ExitCode> {
    match &cli.command {
        Command::Demo { scripted } => {
            let options = if *scripted {
                DemoOptions::scripted()
            } else {
                DemoOptions::from_env()
            };
            crate::demo::run_with(out, options)
                .await
                .map(|_| ExitCode::SUCCESS)
        }
        Command::Inspect { args } => super::inspect::inspect(args),
        Command::Gateway { serve, urls } => super::gateway::gateway(&cli, serve, urls).await,
        Command::Discover { url, id, json } => discover_command(&cli, out, url, id.as_deref(), *json).await,
        Command::Resources {
            extension,
            server,
            json,
            action,
        } => super::surface::resources(&cli, out, extension, server.as_deref(), *json, action).await,
        Command::Prompts {
            extension,
            server,
            json,
            action,
        } => super::surface::prompts(&cli, out, extension, server.as_deref(), *json, action).await,
        Command::Tools { json } => tools(&Host::from_cli(&cli).await?, out, *json).await,
        Command::Call { tool, arguments } => call(&Host::from_cli(&cli).await?, out, tool, arguments).await,
        Command::Chat {
            model,
            tools,
            max_steps,
            system,
            prompt,
        } => {
            let host = Host::from_cli(&cli).await?;
            let request = ChatArgs {
                model: model.as_deref(),
                tools: tools.as_deref(),
                max_steps: *max_steps,
                system: system.as_deref(),
                prompt: prompt.join(" "),
            };
            chat(&host, out, request).await
        }
    }
}

async fn discover_command(
    cli: &Cli,
    out: Out<'_>,
    url: &str,
    id: Option<&str>,
    json: bool,
) -> Result<ExitCode> {
    let revision = parse_revision(&cli.revision)?;
    let entry = ExtensionEntry::new(id.unwrap_or("(any)"), url, revision)?;
    let entry = super::host::with_flags(entry, cli.oauth.options()?.as_ref())?;
    let manifest = match id {
        Some(_) => discover(&entry).await?,
        None => entry.client().discover().await?,
    };
    if json {
        say!(
            out,
            "{}",
            serde_json::to_string_pretty(&manifest).unwrap_or_default()
        );
    } else {
        say!(out, "{url}: valid manifest, protocol {revision}");
        let _ = render::manifest(out, &manifest);
        health(entry.client(), &manifest, out).await;
    }
    Ok(ExitCode::SUCCESS)
}

async fn tools(host: &Host, out: Out<'_>, json: bool) -> Result<ExitCode> {
    let resolved = host.catalog.resolve_enabled().await;
    let disabled: Vec<String> = host
        .catalog
        .resources()
        .into_iter()
        .filter(|r| !r.enabled)
        .map(|r| r.id)
        .collect();
    if json {
        say!(
            out,
            "{}",
            serde_json::to_string_pretty(&resolved.tools).unwrap_or_default()
        );
    } else {
        if resolved.tools.is_empty() && resolved.failures.is_empty() {
            say!(
                out,
                "no tools: register an extension (--extension ID=URL) or configure [tools]"
            );
        }
        for tool in &resolved.tools {
            let _ = render::tool(out, tool, true);
        }
        for id in &disabled {
            say!(out, "  {id} (disabled)");
        }
    }
    for failure in &resolved.failures {
        eprintln!("unresolved: {failure}");
    }
    Ok(if resolved.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

async fn call(host: &Host, out: Out<'_>, tool: &str, arguments: &str) -> Result<ExitCode> {
    let arguments: Value = serde_json::from_str(arguments).map_err(|e| {
        HostError::new(
            ErrorCode::InvalidArguments,
            format!("arguments are not JSON: {e}"),
        )
        .with_target("arguments")
    })?;
    let output = host.catalog.invoke(tool, arguments).await?;
    let _ = render::output(out, &output);
    Ok(if output.is_error {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

struct ChatArgs<'a> {
    model: Option<&'a str>,
    tools: Option<&'a [String]>,
    max_steps: usize,
    system: Option<&'a str>,
    prompt: String,
}

async fn chat(host: &Host, out: Out<'_>, args: ChatArgs<'_>) -> Result<ExitCode> {
    let model = host.model(args.model)?;
    let tools = match args.tools {
        None => Vec::new(),
        Some([]) => {
            let resolved = host.catalog.resolve_enabled().await;
            for failure in &resolved.failures {
                eprintln!("tool left out: {failure}");
            }
            resolved.tools
        }
        Some(ids) => host
            .catalog
            .resolve_many(ids)
            .await
            .into_iter()
            .collect::<Result<Vec<_>>>()?,
    };
    let mut messages = Vec::new();
    if let Some(system) = args.system {
        messages.push(Message::system(system));
    }
    messages.push(Message::user(args.prompt));
    let agent = Agent::new(&host.catalog, model)
        .tools(tools)
        .max_steps(args.max_steps);
    let mut printer = EventPrinter::default();
    let outcome = {
        let mut print = |event: &AgentEvent| {
            let _ = printer.print(&mut *out, event);
        };
        agent.run(messages, &mut print).await?
    };
    let _ = printer.end_line(out);
    if outcome.stop == AgentStop::StepLimit {
        eprintln!(
            "stopped: the model still asked for tools after {} turns",
            outcome.steps
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the extension's and each provider's health: the status as the extension said
/// it (an open string) and its details, or why it could not be read.
async fn health(client: &aep_sdk::client::Client, manifest: &aep_sdk::protocol::Manifest, out: Out<'_>) {
    let line =
        |result: std::result::Result<aep_sdk::protocol::Health, aep_sdk::client::ClientError>| match result {
            Ok(health) => render::health(&health),
            Err(error) => format!("unknown ({error})"),
        };
    say!(out, "    health: {}", line(client.health().await));
    for provider in &manifest.contributions.model_providers {
        say!(
            out,
            "    provider {} health: {}",
            provider.id,
            line(client.provider_health(&provider.id).await)
        );
    }
}
