//! An echo model provider written with `#[aep_extension]`: it streams the last user
//! message back word by word. `echo_runtime.rs` is the same extension written against
//! the runtime directly.
//!
//! Run it with `cargo run -p aep-sdk --example echo -- --listen 127.0.0.1:8710`, then
//! `curl -N -H 'content-type: application/json' -d '{"model":"echo-1","messages":[{"role":"user","contents":[{"kind":"text","text":"hello there"}]}]}' http://127.0.0.1:8710/aep/model-providers/echo/chat/stream`.

use aep_sdk::prelude::*;

/// The echo extension: one provider, `echo`, serving model `echo-1`.
#[derive(Debug, Clone, Default)]
pub struct Echo;

#[aep_extension(
    id = "aep.examples.echo",
    name = "Echo",
    description = "Streams the last user message back, word by word."
)]
impl Echo {
    /// Streams the words of the last user message, then a terminal update with usage.
    #[model_provider(id = "echo", display_name = "Echo", models = ["echo-1"], metadata(deterministic = true))]
    async fn echo(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let text = request.last_user_text().unwrap_or_default();
        let words: Vec<String> = text.split_inclusive(' ').map(str::to_owned).collect();
        let count = words.len() as u64;
        let model = request.model;
        let mut updates: Vec<ChatUpdate> = words
            .into_iter()
            .map(|w| ChatUpdate::text(w).with_model(model.clone()))
            .collect();
        updates.push(ChatUpdate::finish(FinishReason::Stop).with_usage(Usage::new(count, count)));
        Ok(ChatStream::from_updates(updates))
    }
}

/// Builds the extension (what `main` serves; tests start it on port 0).
pub fn extension() -> Result<aep_sdk::server::Extension, aep_sdk::Error> {
    Echo.extension_builder().build()
}

#[tokio::main]
#[allow(dead_code)]
async fn main() -> Result<(), aep_sdk::Error> {
    Echo.serve().await
}
