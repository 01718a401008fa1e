//! # aep-host
//!
//! A thin reference host for AEP extensions:
//!
//! - [`registry`]: extensions by id with their base URL, discovery with exact
//!   protocol negotiation, manifest validation and the identity check;
//! - [`catalog`]: Tool resources resolved through AEP to MCP into provider-neutral
//!   [`catalog::AgentTool`]s, with the spec's explicit failure codes;
//! - [`mcp`]: one rmcp client per MCP server, reused, with a cached `tools/list`, the
//!   server's resources and prompts, and an optional policy answering its elicitations;
//! - [`oauth`]: the OAuth 2.1 client that signs in when an MCP server or an extension's
//!   AEP routes answer 401 (discovery, registration, PKCE, refresh, step-up, client
//!   credentials, a token store);
//! - [`invoke`]: argument checks against the MCP input schema, results as MCP content;
//! - [`models`]: model-provider references and chat through the canonical client;
//! - [`agent`]: the chat-with-tools loop;
//! - [`demo`]: the self-contained walk-through behind `aep-host demo`;
//! - [`gateway`]: the registered extensions as OpenAI Chat Completions models and one
//!   MCP server (`aep-host gateway`);
//! - [`config`]: the TOML host configuration; [`cli`]: the command line; [`render`]:
//!   printing for people.
//!
//! ```no_run
//! # async fn run() -> Result<(), aep_host::HostError> {
//! use std::sync::Arc;
//! use aep_host::{catalog::{Catalog, ToolResource}, mcp::McpPool, registry::Registry};
//! use aep_sdk::protocol::ProtocolVersion;
//!
//! let mut registry = Registry::new();
//! registry.register("aep.utilities", "http://127.0.0.1:8711", ProtocolVersion::LATEST)?;
//! let catalog = Catalog::new(Arc::new(registry), McpPool::new());
//! catalog.add(ToolResource::aep("hash.compute", "aep.utilities", "hash.compute"))?;
//! let output = catalog.invoke("hash.compute", serde_json::json!({"text": "abc"})).await?;
//! println!("{}", output.text());
//! # Ok(()) }
//! ```
//!
//! Modules depend one way: `error` and `invoke` (argument checks, tool output) are
//! leaves; `oauth` uses only `error`; `registry` (extensions, discovery) and `mcp` (the
//! client pool) use `error` and `oauth`; `models` uses `registry`; `catalog` uses `registry`, `mcp` and `invoke`;
//! `config` builds a registry and catalog resources from a file; `agent` uses `catalog`
//! and `models`; `cli`, `demo` and `render` sit on top.
#![warn(missing_docs)]

pub mod agent;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod demo;
pub mod error;
pub mod gateway;
pub mod invoke;
pub mod mcp;
pub mod models;
pub mod oauth;
pub mod registry;
pub mod render;

pub use error::{ErrorCode, HostError};

/// A JSON object (tool arguments, schemas).
pub type JsonObject = serde_json::Map<String, serde_json::Value>;
