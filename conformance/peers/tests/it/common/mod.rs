//! The extensions the peers are run against besides the bundled ones: one with two MCP
//! servers and one with a provider and a tool (for the browser), each served the way
//! `Extension::serve` serves it.
#![allow(dead_code)] // each test binary uses a different subset

pub mod progress;

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

/// A model provider `echo` (model `m`) and one tool on the default server at `/mcp`:
/// what the browser check calls.
#[derive(Debug, Clone, Default)]
pub struct EchoAndTool;

#[aep_extension(id = "peers.echo", name = "Echo and a tool", version = "1.0.0")]
impl EchoAndTool {
    /// Says hello.
    #[tool(read_only)]
    async fn hello(
        &self,
        /** Who to greet. */
        name: String,
    ) -> String {
        format!("hello {name}")
    }

    #[model_provider(id = "echo", models = ["m"])]
    async fn echo(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let text = request.last_user_text().unwrap_or_default();
        Ok(ChatStream::new(futures::stream::iter([Ok(ChatUpdate::text(
            text,
        ))])))
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
