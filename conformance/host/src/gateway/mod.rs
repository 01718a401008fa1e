//! `aep-host gateway`: the registered extensions turned outward. Their model providers
//! answer OpenAI Chat Completions requests (`/v1/models`, `/v1/chat/completions`), their
//! tool contributions (resolved AEP -> MCP by the [`Catalog`]) form one MCP server at
//! `/mcp`, and `/healthz` and `/readyz` answer load balancers and orchestrators.
//!
//! The gateway is served by aep-sdk's server runtime, as an extension is: the origin
//! rule and CORS, the static bearer token and the OAuth resource server (`--oauth-issuer`),
//! body limits, metrics, traces and graceful shutdown all apply to it. The health routes
//! need no credential.

mod health;
mod mcp;
mod openai;

use std::sync::Arc;

use aep_sdk::server::{Extension, ExtensionBuilder};

use crate::catalog::Catalog;
use crate::error::{ErrorCode, HostError, Result};

/// The gateway's extension id (its manifest at `/.well-known/aep` names it).
pub const ID: &str = "aep.gateway";

/// What the gateway serves from: the extension registry, the MCP client pool and the
/// tool catalog over them. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Gateway {
    catalog: Arc<Catalog>,
    discover_tools: bool,
}

impl Gateway {
    /// A gateway over `catalog` (its registry's extensions, its pool, its tools). Its MCP
    /// server lists the catalog's Tool resources as they are; see
    /// [`Gateway::discover_tools`].
    pub fn new(catalog: Arc<Catalog>) -> Self {
        Self {
            catalog,
            discover_tools: false,
        }
    }

    /// Whether each `tools/list` of the MCP server first adds every registered
    /// extension's tool contributions to the catalog (what `aep-host gateway` does when
    /// the configuration names no `[tools]`): an extension unreachable when the gateway
    /// started contributes its tools once it answers.
    pub fn discover_tools(mut self, discover: bool) -> Self {
        self.discover_tools = discover;
        self
    }

    fn discovers_tools(&self) -> bool {
        self.discover_tools
    }

    /// The tool catalog (and through it the registry and the MCP pool).
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// The gateway's routes on an extension builder, to add to before `build()`.
    pub fn extension_builder(&self) -> ExtensionBuilder {
        let shared = mcp::Shared::new(self.clone());
        Extension::builder(ID, "AEP gateway", env!("CARGO_PKG_VERSION"))
            .description("The registered AEP extensions as OpenAI Chat Completions models and one MCP server")
            .routes(health::router(self.clone()))
            .routes(openai::router(self.clone()))
            .mcp_sessions(mcp::SERVER_ID, mcp::PATH, move || {
                mcp::Session::new(shared.clone())
            })
            .public_path(health::HEALTHZ)
            .public_path(health::READYZ)
    }

    /// The gateway as an extension, ready to serve ([`Extension::serve_with`]) or to
    /// mount ([`Extension::router`]).
    pub fn extension(&self) -> Result<Extension> {
        self.extension_builder()
            .build()
            .map_err(|error| HostError::new(ErrorCode::ConfigurationInvalid, format!("the gateway: {error}")))
    }
}
