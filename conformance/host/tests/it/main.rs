//! aep-host's integration tests in one binary (one link instead of one per file). Apart:
//! `auth.rs` and `oauth_browser.rs` set environment variables, and `inspect.rs` copies
//! and runs the binary (an executable written while other tests fork can fail to start).

mod common;
mod gateway_openai_support;
#[path = "../oauth_support/mod.rs"]
mod oauth_support;

mod agent;
mod catalog;
mod cli;
mod elicitation;
mod failures;
mod gateway;
mod gateway_async_openai;
mod gateway_mcp;
mod gateway_openai;
mod oauth;
mod oauth_cli;
mod ollama;
mod otel;
mod pool;
mod surface;
