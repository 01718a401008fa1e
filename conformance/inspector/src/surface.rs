//! The tool explorer's resources and prompts: for each MCP server the manifest declares,
//! what its `initialize` result advertises, its resources, resource templates and
//! prompts (listed only when advertised), and reading a resource or getting a prompt,
//! all through the host's MCP pool (the same sessions as the tool calls).

use std::time::Instant;

use aep_host::JsonObject;
use aep_host::mcp::Capability;
use aep_sdk::validate::resolve_mcp_endpoint;
use axum::http::StatusCode;
use serde_json::{Value, json};
use url::Url;

use crate::connection::Connection;
use crate::error::ApiError;
use crate::limits::{REQUEST_TIMEOUT, bounded};

/// The URL of MCP server `id` of the manifest, or `mcp_server_not_found`.
pub fn server_url(connection: &Connection, id: &str) -> Result<Url, ApiError> {
    let servers = connection.manifest.mcp_servers();
    let server = servers.iter().find(|s| s.id == id).ok_or_else(|| {
        let known: Vec<&str> = servers.iter().map(|s| s.id.as_str()).collect();
        ApiError::new(
            StatusCode::NOT_FOUND,
            "mcp_server_not_found",
            format!(
                "the manifest declares no MCP server '{id}' (it declares: {})",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ),
        )
    })?;
    // Through the recording proxy, as the catalog's tools are (an absolute endpoint
    // is reached directly).
    let base = connection.proxy.base_for(crate::proxy::Sender::Mcp);
    let url = resolve_mcp_endpoint(&base, &server.endpoint).map_err(|e| {
        ApiError::upstream(
            aep_sdk::client::codes::ENDPOINT_INVALID,
            format!("MCP server '{id}' endpoint {}: {e}", server.endpoint),
        )
    })?;
    if let Some(token) = connection.static_token() {
        connection.catalog.pool().set_bearer_token(&base, token);
    }
    Ok(url)
}

fn outcome<T: serde::Serialize>(result: Result<T, ApiError>) -> Value {
    match result {
        Ok(value) => json!(value),
        Err(error) => error.body(),
    }
}

/// `{"servers": [{id, url, resources?, prompts?, error?}]}`: each of `resources`
/// (`{resources, templates}`) and `prompts` is `null` when the server does not advertise
/// it, else a list or `{"error"}`.
pub async fn list(connection: &Connection) -> Value {
    let mut out = Vec::new();
    for server in connection.manifest.mcp_servers() {
        let url = match server_url(connection, &server.id) {
            Ok(url) => url,
            Err(error) => {
                out.push(
                    json!({"id": server.id, "endpoint": server.endpoint, "error": error.body()["error"]}),
                );
                continue;
            }
        };
        let pool = connection.catalog.pool();
        let capabilities = match bounded(REQUEST_TIMEOUT, "MCP initialize", pool.capabilities(&url)).await {
            Ok(capabilities) => capabilities,
            Err(error) => {
                out.push(json!({"id": server.id, "url": url.as_str(), "error": error.body()["error"]}));
                continue;
            }
        };
        let mut entry = json!({"id": server.id, "url": url.as_str(), "resources": null, "prompts": null});
        if Capability::Resources.advertised_in(&capabilities) {
            let (resources, templates) = futures::join!(
                bounded(REQUEST_TIMEOUT, "resources/list", pool.resources(&url)),
                bounded(
                    REQUEST_TIMEOUT,
                    "resources/templates/list",
                    pool.resource_templates(&url)
                ),
            );
            entry["resources"] = json!({"resources": outcome(resources), "templates": outcome(templates)});
        }
        if Capability::Prompts.advertised_in(&capabilities) {
            entry["prompts"] = outcome(bounded(REQUEST_TIMEOUT, "prompts/list", pool.prompts(&url)).await);
        }
        out.push(entry);
    }
    json!({ "servers": out })
}

/// `resources/read` of `uri` on MCP server `server`: `{result, durationMs}`.
pub async fn read(connection: &Connection, server: &str, uri: &str) -> Result<Value, ApiError> {
    if uri.trim().is_empty() {
        return Err(ApiError::bad_request("give the URI of the resource to read"));
    }
    let url = server_url(connection, server)?;
    let started = Instant::now();
    let result = bounded(
        REQUEST_TIMEOUT,
        "resources/read",
        connection.catalog.pool().read_resource(&url, uri),
    )
    .await?;
    Ok(json!({"result": result, "durationMs": started.elapsed().as_secs_f64() * 1000.0}))
}

/// `prompts/get` of `name` with string `arguments` on MCP server `server`:
/// `{result, durationMs}`.
pub async fn get_prompt(
    connection: &Connection,
    server: &str,
    name: &str,
    arguments: JsonObject,
) -> Result<Value, ApiError> {
    let url = server_url(connection, server)?;
    let started = Instant::now();
    let result = bounded(
        REQUEST_TIMEOUT,
        "prompts/get",
        connection.catalog.pool().get_prompt(&url, name, arguments),
    )
    .await?;
    Ok(json!({"result": result, "durationMs": started.elapsed().as_secs_f64() * 1000.0}))
}
