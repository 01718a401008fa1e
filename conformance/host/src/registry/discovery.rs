//! Discovery of one registered extension: the canonical client's exact revision
//! negotiation and manifest validation, then the identity check.
//!
//! One deliberate leniency: a manifest whose only problem is that some tool
//! contributions name an MCP server it does not declare is kept. Those contributions
//! then fail to resolve with `aep_mcp_server_not_found` (naming the missing server),
//! while the extension's other tools and model providers keep working. Any other
//! broken rule refuses the whole manifest with `aep_descriptor_invalid`.

use aep_sdk::client::codes;
use aep_sdk::protocol::Manifest;
use aep_sdk::validate::{Problem, validate_manifest, validate_manifest_json};

use super::entry::{CONNECT_TIMEOUT, ExtensionEntry, READ_TIMEOUT};
use crate::error::{ErrorCode, HostError, Result};

/// Discovers `entry`: exact revision, manifest rules, then the identity check
/// (`extension_identity_mismatch` when the manifest's `extension.id` is not the
/// registered id).
pub async fn discover(entry: &ExtensionEntry) -> Result<Manifest> {
    let manifest = match entry.client().discover().await {
        Ok(manifest) => manifest,
        Err(error) if error.code == codes::DESCRIPTOR_INVALID => match tolerated(entry).await {
            Some(manifest) => manifest,
            None => return Err(HostError::from_client(error).with_target(&entry.id)),
        },
        Err(error) => return Err(HostError::from_client(error).with_target(&entry.id)),
    };
    if manifest.extension.id != entry.id {
        return Err(HostError::new(
            ErrorCode::ExtensionIdentityMismatch,
            format!(
                "{} was registered as extension '{}' but its manifest says '{}'",
                entry.base_url, entry.id, manifest.extension.id
            ),
        )
        .with_target(&entry.id));
    }
    Ok(manifest)
}

/// A contribution naming an undeclared MCP server (checked per tool at resolution).
fn dangling_server(problem: &Problem) -> bool {
    problem.path.starts_with("$.contributions.tools[") && problem.path.ends_with("].mcp.server")
}

/// Fetches the manifest again and keeps it when its only problems are dangling
/// server references. `None` means: refuse it as the client did.
async fn tolerated(entry: &ExtensionEntry) -> Option<Manifest> {
    let url = format!(
        "{}{}",
        entry.base_url.as_str().trim_end_matches('/'),
        entry.revision.discovery_path()
    );
    let http = reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(READ_TIMEOUT)
        .build()
        .ok()?;
    let document: serde_json::Value = http.get(&url).send().await.ok()?.json().await.ok()?;
    if document.get("protocolVersion").and_then(|v| v.as_str()) != Some(entry.revision.as_str())
        || !validate_manifest_json(&document).is_empty()
    {
        return None;
    }
    let manifest: Manifest = serde_json::from_value(document).ok()?;
    let problems = validate_manifest(&manifest);
    if problems.is_empty() || !problems.iter().all(dangling_server) {
        return None;
    }
    tracing::warn!(
        extension = %entry.id,
        "manifest kept with tool contributions naming undeclared MCP servers: {}",
        problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    );
    Some(manifest)
}
