//! # aep-rig
//!
//! [rig](https://docs.rs/rig-core) (0.44) and AEP, both ways.
//!
//! **AEP -> rig** (a library): an AEP model provider, reached through the SDK's
//! canonical client, as a rig completion model ([`model::aep_model`]: a rig `Model` of
//! an [`model::AepWire`] and an [`model::AepTransport`], which rig-agent's
//! `AgentBuilder::new` takes), and tools resolved by the host's catalog (AEP -> MCP) as
//! rig `DynamicTool`s ([`tools::catalog_tools`]).
//!
//! **rig -> AEP** (the `aep-rig` binary): a rig provider ([`providers::Upstream`], by
//! name, base URL and key) served as the AEP model provider `rig` of the extension
//! `aep.rig` ([`serve::RigExtension`], written with `#[aep_extension]`; [`cli::Cli`] is
//! its command line).
//!
//! Modules: [`map`] holds the pure mapping between the two sets of types (requests,
//! replies, errors); [`model`], [`tools`], [`providers`] and [`serve`] use it;
//! [`cli`] builds a [`serve::RigExtension`] from flags.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use aep_host::{catalog::Catalog, mcp::McpPool, registry::Registry};
//! use aep_sdk::client::Client;
//! use aep_sdk::protocol::ProtocolVersion;
//!
//! // The model: provider `openai` of the extension on port 8710.
//! let model = aep_rig::model::aep_model(Client::new("http://127.0.0.1:8710")?, "openai", "smollm2");
//! // The tools: the utilities extension's, through the host's catalog.
//! let mut registry = Registry::new();
//! registry.register("aep.utilities", "http://127.0.0.1:8711", ProtocolVersion::LATEST)?;
//! let catalog = Arc::new(Catalog::new(Arc::new(registry), McpPool::new()));
//! catalog.add_extension_tools("aep.utilities").await?;
//! let tools = aep_rig::tools::catalog_tools(&catalog, &["hash.compute"]).await?;
//!
//! let agent = rig_agent::AgentBuilder::new(model).dynamic_tools(tools).build();
//! let answer = agent.prompt("What is the SHA-256 of 'abc'?").max_turns(4).await?;
//! println!("{}", answer.output());
//! # Ok(()) }
//! ```
#![warn(missing_docs)]

pub mod cli;
pub mod map;
pub mod model;
pub mod providers;
pub mod serve;
pub mod tools;
