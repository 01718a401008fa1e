//! extensions/ollama's integration tests in one binary (one link instead of one per file).
//! Apart: `load.rs` reads the process's memory.

#[path = "../common/mod.rs"]
mod common;

mod binary;
mod cancellation;
mod chat;
mod faults;
mod identity;
mod models_health;
