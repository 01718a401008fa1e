//! A real browser, headless Chromium, calling an extension built with the SDK: a page on
//! `localhost` reaches the AEP routes and the MCP endpoint (preflights, the streamed
//! chat, an MCP session whose id the page can read, its DELETE); a page on a foreign
//! origin (`127.0.0.2`) is refused by the browser because the extension answers 403.

use crate::common;

use aep_peers::Peers;
use aep_sdk::server::AepExtension;
use common::{EchoAndTool, serve};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn chromium_on_localhost_gets_through_and_a_foreign_page_does_not() {
    let Some(peers) = Peers::require() else { return };
    let base = serve(EchoAndTool.into_extension().unwrap()).await;
    let report = peers
        .browser_cors(&base, "m")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let local = &report["local"];
    let shown = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(local["well_known"]["status"], 200, "{shown}");
    assert_eq!(local["well_known"]["extensionId"], "peers.echo", "{shown}");
    assert_eq!(local["chat_stream"]["status"], 200, "{shown}");
    assert!(
        local["chat_stream"]["body"]
            .as_str()
            .unwrap_or_default()
            .contains(r#""text":"hi""#),
        "{shown}"
    );
    assert_eq!(local["mcp_initialize"]["status"], 200, "{shown}");
    assert!(
        local["mcp_initialize"]["sessionId"]
            .as_str()
            .is_some_and(|s| !s.is_empty()),
        "session id exposed: {shown}"
    );
    assert_eq!(
        local["mcp_tools_list"]["tools"],
        serde_json::json!(["hello"]),
        "{shown}"
    );
    assert_eq!(local["mcp_delete"]["status"], 200, "{shown}");
    assert_eq!(local["console"], serde_json::json!([]), "{shown}");

    let foreign = &report["foreign"];
    for step in ["well_known", "chat_stream", "mcp_initialize"] {
        assert_eq!(foreign[step]["ok"], false, "{step}: {shown}");
    }
    let console = foreign["console"].to_string();
    assert!(console.contains("CORS"), "Chromium says why: {shown}");
}
