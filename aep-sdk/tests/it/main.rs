//! aep-sdk's integration tests, one module per concern, in one binary: one link instead
//! of one per file. `load.rs` stays a binary of its own: it reads the process's memory.

mod common;

mod authoring;
mod browser_access;
mod chat_routes_agree;
mod config;
mod echo_example;
mod hostile_http;
mod hostile_json;
mod hostile_mcp;
mod hostile_options;
mod hostile_routes;
mod macro_scopes;
mod mcp_client_requests;
mod mcp_server;
mod mcp_surface;
mod metrics;
mod oauth;
mod properties;
mod protocol_golden;
mod scale_out;
mod security;
mod server_runtime;
mod tool_context;
mod validate;
