//! The extensions the peers are run against: the bundled utilities extension and one
//! with two MCP servers, each served the way `Extension::serve` serves it.

use aep_sdk::prelude::*;
use aep_sdk::server::{ConnectionLimits, Extension};
use schemars::JsonSchema;
use serde::Serialize;

/// Two MCP servers, `text` at `/mcp/text` and `math` at `/mcp/math`, with integer types
/// whose schemas once carried non-standard formats.
#[derive(Debug, Clone, Default)]
pub struct TwoServers;

/// A sum and how many terms it had.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Sum {
    /// The sum.
    pub total: u64,
    /// How many numbers were added.
    pub terms: usize,
}

#[aep_extension(id = "peers.two-servers", name = "Two servers", version = "1.0.0")]
impl TwoServers {
    /// Reverses text.
    #[tool(server = "text", read_only)]
    async fn reverse(
        &self,
        /** The text to reverse. */
        text: String,
    ) -> String {
        text.chars().rev().collect()
    }

    /// Repeats text `times` times (at most 100).
    #[tool(server = "text", read_only)]
    async fn repeat(
        &self,
        /** The text. */
        text: String,
        /** How often. */
        times: u8,
    ) -> Result<String, ToolError> {
        if times > 100 {
            return Err(ToolError::new("at most 100 repetitions"));
        }
        Ok(text.repeat(usize::from(times)))
    }

    /// Adds unsigned numbers.
    #[tool(server = "math", read_only)]
    async fn add(
        &self,
        /** The numbers to add. */
        numbers: Vec<u32>,
        /** Added once more. */
        offset: Option<i32>,
    ) -> Sum {
        let total = numbers.iter().map(|n| u64::from(*n)).sum::<u64>();
        let total = total.saturating_add_signed(i64::from(offset.unwrap_or(0)));
        Sum {
            total,
            terms: numbers.len(),
        }
    }

    /// Forgets everything (never called by the peers: not read-only).
    #[tool(server = "math", destructive)]
    async fn reset(&self) -> String {
        "reset".to_owned()
    }
}

/// Serves `extension` on `127.0.0.1:0` through `serve_listener` (what `serve` runs) and
/// returns its base URL; the server lives as long as the test's runtime.
pub async fn serve(extension: Extension) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("bound");
    tokio::spawn(extension.serve_listener(listener, std::future::pending(), ConnectionLimits::default()));
    format!("http://{addr}")
}
