//! extensions/openai-compatible's integration tests in one binary (one link instead of one per file).
//! Apart: `load.rs` reads the process's memory; `real_model.rs` and `llama_server.rs` run a real model, alone.

#[path = "../common/mod.rs"]
mod common;

mod cancellation;
mod chat;
mod conformance;
mod faults;
mod identity;
mod models_health;
