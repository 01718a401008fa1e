//! conformance/peers's integration tests in one binary (one link instead of one per file).

mod common;

mod browser;
mod foreign_extension;
mod gateway_mcp;
mod gateway_openai_sdk;
mod help;
mod mcp_peers;
mod oidc;
mod oidc_host;
mod oidc_resource_server;
mod progress_logging;
mod python_oauth;
mod resources_prompts;
