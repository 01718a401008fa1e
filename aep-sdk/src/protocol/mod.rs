//! The AEP wire documents as serde types.
//!
//! Every type here serializes with the exact camelCase member names and enum strings
//! of the AEP contract. Writers omit absent optional members; readers accept an
//! optional member that is missing or `null` (the C# reference writes `null`s) and
//! ignore members they do not know.
//!
//! ```
//! use aep_sdk::protocol::{ChatRequest, Message};
//!
//! let request = ChatRequest::new("llama3.2", vec![Message::user("Hello")]);
//! let json = serde_json::to_string(&request).unwrap();
//! assert_eq!(
//!     json,
//!     r#"{"model":"llama3.2","messages":[{"role":"user","contents":[{"kind":"text","text":"Hello"}]}]}"#
//! );
//! ```

mod chat;
mod config;
mod error;
mod manifest;
mod provider;
mod revision;
pub(crate) mod serde_util;

pub use chat::{
    ChatRequest, ChatResponse, ChatUpdate, Content, ContentKind, FinishReason, JsonSchemaFormat, Message,
    ModelOptions, REASONING_MEDIA_TYPE, ResponseFormat, Role, ToolCall, ToolDefinition, ToolResult, Usage,
};
pub use config::{
    CONTRIBUTION_KIND_MODEL_PROVIDER, ConfigurationCatalog, MigrationEdge, MigrationRequest,
    MigrationResponse, OptionSet, OptionSetVersion, SCOPE_MODEL_PROFILE, VersionedOptions,
};
pub use error::{ErrorBody, ErrorResponse};
pub use manifest::{
    CapabilityDescriptor, Contributions, ExtensionIdentity, Manifest, McpDescriptor, McpServerDescriptor,
    McpToolMapping, ToolContribution, capability,
};
pub use provider::{Availability, Health, ModelDescriptor, ModelProviderDescriptor, ProviderCapabilities};
pub use revision::{ProtocolVersion, UnknownProtocolVersion};

/// Fixed paths of the AEP routes, relative to an extension's base URL.
pub mod paths {
    /// Health of the extension as a whole.
    pub const HEALTH: &str = "/aep/health";
    /// Base of the model-provider routes.
    pub const MODEL_PROVIDERS: &str = "/aep/model-providers";
    /// Option-set catalog.
    pub const CONFIGURATION: &str = "/aep/configuration";
    /// Option migration.
    pub const CONFIGURATION_MIGRATE: &str = "/aep/configuration/migrate";
    /// Conventional path of the first co-hosted MCP server.
    pub const MCP: &str = "/mcp";
}
