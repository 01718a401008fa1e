//! Serves the everything server: `aep-mcp-everything --listen 127.0.0.1:8791`, MCP at
//! `/mcp`.

use aep_sdk::server::AepExtension;

#[tokio::main]
async fn main() -> Result<(), aep_sdk::Error> {
    aep_mcp_everything::Everything::default().serve().await
}
