//! An echo model provider written against the runtime directly (no macro): it streams
//! the last user message back word by word.
//!
//! The same extension as `echo.rs`, which uses the macro.
//!
//! Run it with `cargo run -p aep-sdk --example echo_runtime -- --listen 127.0.0.1:8710`, then
//! `curl -N -H 'content-type: application/json' -d '{"model":"echo-1","messages":[{"role":"user","contents":[{"kind":"text","text":"hello there"}]}]}' http://127.0.0.1:8710/aep/model-providers/echo/chat/stream`.

use aep_sdk::prelude::*;
use aep_sdk::server::{Extension, ModelProvider};

/// Streams the words of the last user message, then a terminal update with usage.
pub struct Echo;

impl ModelProvider for Echo {
    async fn chat_stream(&self, request: ChatRequest, _ctx: RequestContext) -> Result<ChatStream, AepError> {
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

/// The echo extension: one provider, `echo`, serving model `echo-1`.
pub fn extension() -> Result<Extension, aep_sdk::Error> {
    let mut descriptor = ModelProviderDescriptor::new("echo", "Echo");
    descriptor.models = Some(vec![ModelDescriptor::new("echo-1")]);
    descriptor.metadata = Some(serde_json::Map::from_iter([(
        "deterministic".to_owned(),
        true.into(),
    )]));
    Extension::builder("aep.examples.echo", "Echo", env!("CARGO_PKG_VERSION"))
        .description("Streams the last user message back, word by word.")
        .model_provider(descriptor, Echo)
        .build()
}

#[tokio::main]
#[allow(dead_code)]
async fn main() -> Result<(), aep_sdk::Error> {
    extension()?.serve().await
}
