//! What both suite tests share: where the suite and the baseline are, the suite's
//! verdict on a scenario's checks, the everything server on a loopback port, and where
//! result tables go.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::PathBuf;

use aep_sdk::server::AepExtension;
use aep_sdk::testing::TestServer;
use serde_json::Value;

/// The official MCP conformance suite, as `conformance/peers/install.sh` installs it.
pub fn suite() -> PathBuf {
    aep_peers::repo_root().join("target/peers/bin/conformance")
}

/// `conformance-baseline.yml`, the suite's expected-failures file.
pub fn baseline_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("conformance-baseline.yml")
}

/// As the suite counts it: a FAILURE or a WARNING fails the scenario.
pub fn passed(checks: &[Value]) -> bool {
    !checks
        .iter()
        .any(|c| matches!(c["status"].as_str(), Some("FAILURE" | "WARNING")))
}

/// The everything server on `127.0.0.1:0` and its MCP endpoint.
pub async fn serve_everything() -> (TestServer, String) {
    let extension = aep_mcp_everything::Everything::default()
        .into_extension()
        .expect("a valid declaration");
    let server = aep_sdk::testing::spawn(extension.router()).await;
    let url = format!("{}/mcp", server.base_url);
    (server, url)
}

/// Writes a result table to `target/mcp-conformance/<name>` (the guide's conformance chapter shows it).
pub fn write_result_table(name: &str, text: &str) {
    let dir = aep_peers::repo_root().join("target/mcp-conformance");
    std::fs::create_dir_all(&dir).expect("create target/mcp-conformance");
    std::fs::write(dir.join(name), text).expect("write the result table");
}
