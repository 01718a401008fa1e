//! Progress notifications, log levels and cancellation seen by the official Python MCP
//! SDKs (1.x, and 2.x over its legacy connection, the one with `logging/setLevel`): the
//! utilities extension's `count_slowly`, which reports progress and logs through its
//! `ToolContext` and checks its cancellation token every 10 ms step, called after
//! `logging/setLevel debug` and after `logging/setLevel warning`, then cancelled.
//!
//! Cancellation: a count to 100 (~1 s) gets `notifications/cancelled` after its third
//! progress notification (1.x: sent explicitly with `send_notification`, 1.x does not
//! send it by itself; 2.x: sent by the SDK when the awaiting task is cancelled). The
//! client keeps listening for 1.5 s. The tool stops at its next step, so at most the step
//! under way still reports (one progress and one log, up to 10 ms later; a log sent just
//! before the cancel may also still be on its way): nothing may arrive more than
//! [`CANCEL_BOUND`] after the cancel went out, and the call is not answered. The bound is the 100 ms
//! the tool has to notice its token plus 50 ms of slack for scheduling on two busy cores
//! (measured: the last notification 11-24 ms after the cancel). A server that ignored the
//! cancel would keep sending ~190 notifications for another second.

use crate::common;

use aep_peers::{Peers, PythonSdk};
use aep_sdk::server::{AepExtension, ConnectionLimits};
use common::progress::{cancellation, progress_and_levels};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn python_clients_get_progress_in_order_only_the_logs_at_their_level_and_cancel_in_time() {
    let Some(peers) = Peers::require() else {
        return;
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let extension = aep_utilities::Utilities.into_extension().unwrap();
    tokio::spawn(extension.serve_listener(listener, std::future::pending(), ConnectionLimits::default()));

    for sdk in [PythonSdk::V1, PythonSdk::V2("legacy")] {
        let report = peers
            .python_progress(sdk, &url)
            .await
            .unwrap_or_else(|e| panic!("{sdk:?}: {e}"));
        progress_and_levels(sdk, &report);
        let latency = cancellation(sdk, &report);
        eprintln!("{sdk:?}: last notification {latency:?} after notifications/cancelled");
    }
}
