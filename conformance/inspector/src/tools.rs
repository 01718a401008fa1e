//! The tool explorer's work: every tool contribution resolved AEP -> MCP through the
//! host's catalog (AEP metadata merged with MCP's schemas and annotations), and calls
//! with their duration and the structured content checked against the output schema.

use std::time::Instant;

use aep_host::catalog::ToolResource;
use aep_sdk::schema::Validator;
use serde_json::{Value, json};

use crate::connection::Connection;
use crate::error::ApiError;
use crate::limits::{REQUEST_TIMEOUT, bounded};

/// `{"tools": [AgentTool...], "failures": [{code, message, target}...]}`.
pub async fn list(connection: &Connection) -> Value {
    let mut failures: Vec<Value> = Vec::new();
    if let Some(problems) = &connection.invalid {
        let declared = connection.manifest.contributions.tools.len();
        failures.push(json!({
            "code": aep_sdk::client::codes::DESCRIPTOR_INVALID,
            "message": format!(
                "the manifest fails validation ({} problems), so the host's catalog does not resolve its {declared} tool contributions; the tools its MCP servers list are shown as they are, each named server/tool",
                problems.len()
            ),
            "target": connection.base.as_str(),
        }));
        failures.extend(add_server_tools(connection).await);
    }
    let resolved = connection.catalog.resolve_enabled().await;
    failures.extend(
        resolved
            .failures
            .iter()
            .map(|e| json!({"code": e.code.as_str(), "message": e.message, "target": e.target})),
    );
    json!({"tools": resolved.tools, "failures": failures})
}

/// For a connection whose manifest fails validation: each declared MCP server's tools
/// added to the catalog directly (`server/tool`), as a host adds a plain MCP server's.
/// Answers the failures (a server that cannot be reached, ...).
async fn add_server_tools(connection: &Connection) -> Vec<Value> {
    let mut failures = Vec::new();
    for server in connection.manifest.mcp_servers() {
        let listed = async {
            let url = crate::surface::server_url(connection, &server.id)?;
            let tools = bounded(
                REQUEST_TIMEOUT,
                "tools/list",
                connection.catalog.pool().tools(&url),
            )
            .await?;
            Ok::<_, ApiError>((url, tools))
        }
        .await;
        match listed {
            Ok((url, tools)) => {
                for tool in tools.iter() {
                    let id = format!("{}/{}", server.id, tool.name);
                    if connection.catalog.resource(&id).is_none() {
                        let _ =
                            connection
                                .catalog
                                .add(ToolResource::mcp(&id, url.as_str(), tool.name.as_ref()));
                    }
                }
            }
            Err(e) => failures.push(json!({"code": e.code, "message": e.message, "target": server.id})),
        }
    }
    failures
}

/// Calls tool `id` with `arguments` (checked against its input schema first).
///
/// Answers `{"output": {content, structured?, isError}, "durationMs", "outputCheck"}`,
/// where `outputCheck` is `null` without an output schema or structured content, else
/// `{"valid": bool, "issues": [..]}`.
pub async fn call(connection: &Connection, id: &str, arguments: Value) -> Result<Value, ApiError> {
    let tool = connection.catalog.resolve(id).await?;
    let started = Instant::now();
    let output = connection.catalog.invoke_resolved(&tool, arguments).await?;
    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    let output_check = match (&tool.output_schema, &output.structured) {
        (Some(schema), Some(structured)) => Some(check_output(schema, structured)),
        _ => None,
    };
    Ok(json!({"output": output, "durationMs": duration_ms, "outputCheck": output_check}))
}

fn check_output(schema: &Value, structured: &Value) -> Value {
    match Validator::new(schema) {
        Ok(validator) => {
            let issues: Vec<String> = validator
                .issues(structured)
                .iter()
                .map(|i| i.describe("structuredContent"))
                .collect();
            json!({"valid": issues.is_empty(), "issues": issues})
        }
        Err(e) => json!({"valid": false, "issues": [format!("the output schema does not compile: {e}")]}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structured_content_is_checked_against_the_output_schema() {
        let schema =
            json!({"type": "object", "required": ["words"], "properties": {"words": {"type": "integer"}}});
        assert_eq!(
            check_output(&schema, &json!({"words": 2})),
            json!({"valid": true, "issues": []})
        );
        let bad = check_output(&schema, &json!({"words": "two"}));
        assert_eq!(bad["valid"], false);
        assert!(
            bad["issues"][0]
                .as_str()
                .unwrap()
                .contains("structuredContent.words"),
            "{bad}"
        );
    }
}
