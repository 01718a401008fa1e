//! [`HostError`]: one error type for the host, with a stable [`ErrorCode`].

use std::fmt;

use aep_sdk::client::{ClientError, codes};

/// Stable, machine-readable error codes.
///
/// The resolution codes are the ones of spec section 6; `invalid_response` and
/// `extension_request_failed` are the canonical client's (spec section 4); the rest are
/// the host's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// No Tool resource has this id.
    ToolNotFound,
    /// The extension's manifest has no tool contribution with this id.
    AepToolNotFound,
    /// The contribution names an MCP server the manifest does not declare.
    AepMcpServerNotFound,
    /// The MCP server's `tools/list` has no tool with this name.
    McpToolNotFound,
    /// The Tool resource is disabled.
    ToolDisabled,
    /// The extension or MCP server could not be reached (connect error, timeout, lost
    /// connection), or no base URL is registered for the extension.
    ExtensionUnreachable,
    /// The manifest's `extension.id` differs from the id the extension is registered under.
    ExtensionIdentityMismatch,
    /// The manifest breaks a rule of spec section 1.
    AepDescriptorInvalid,
    /// The extension does not speak the exact protocol revision asked for.
    ProtocolIncompatible,
    /// A base URL or MCP endpoint is not HTTP(S), carries credentials, or is not a URL.
    EndpointInvalid,
    /// The extension answered something the protocol does not allow.
    InvalidResponse,
    /// The extension answered with an AEP error.
    ExtensionRequestFailed,
    /// Tool arguments do not match the MCP input schema (checked before the call).
    InvalidArguments,
    /// The MCP server answered a request with a JSON-RPC error (not a tool error).
    McpRequestFailed,
    /// The MCP server does not advertise the capability a request needs (`resources`,
    /// `prompts`) in its `initialize` result.
    McpCapabilityMissing,
    /// The manifest has no model provider with this id.
    ModelProviderNotFound,
    /// The host configuration (TOML file or flags) is malformed.
    ConfigurationInvalid,
    /// `aep-host inspect` found no `aep-inspector` binary to run.
    InspectorNotFound,
    /// A protected resource refused the host (401/403) and signing in with OAuth failed
    /// or would not help; the message says why and what to do.
    AuthorizationFailed,
}

impl ErrorCode {
    /// The wire spelling, e.g. `tool_not_found`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ToolNotFound => "tool_not_found",
            ErrorCode::AepToolNotFound => "aep_tool_not_found",
            ErrorCode::AepMcpServerNotFound => "aep_mcp_server_not_found",
            ErrorCode::McpToolNotFound => "mcp_tool_not_found",
            ErrorCode::ToolDisabled => "tool_disabled",
            ErrorCode::ExtensionUnreachable => "extension_unreachable",
            ErrorCode::ExtensionIdentityMismatch => "extension_identity_mismatch",
            ErrorCode::AepDescriptorInvalid => "aep_descriptor_invalid",
            ErrorCode::ProtocolIncompatible => "protocol_incompatible",
            ErrorCode::EndpointInvalid => "endpoint_invalid",
            ErrorCode::InvalidResponse => "invalid_response",
            ErrorCode::ExtensionRequestFailed => "extension_request_failed",
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::McpRequestFailed => "mcp_request_failed",
            ErrorCode::McpCapabilityMissing => "mcp_capability_missing",
            ErrorCode::ModelProviderNotFound => "model_provider_not_found",
            ErrorCode::ConfigurationInvalid => "configuration_invalid",
            ErrorCode::InspectorNotFound => "inspector_not_found",
            ErrorCode::AuthorizationFailed => "authorization_failed",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a host operation failed: a stable code, a sentence for people, and what it is
/// about (a tool id, an extension id, a URL).
#[derive(Debug, Clone, PartialEq)]
pub struct HostError {
    /// Stable code.
    pub code: ErrorCode,
    /// What went wrong, naming the tool, extension, URL or argument path concerned.
    pub message: String,
    /// The id or URL the error concerns, when there is one.
    pub target: Option<String>,
}

impl HostError {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            target: None,
        }
    }

    /// Sets what the error concerns.
    pub fn with_target(mut self, target: impl Into<String>) -> Self {
        self.target = Some(target.into());
        self
    }

    /// Converts an error of the canonical AEP client, keeping its code.
    pub fn from_client(error: ClientError) -> Self {
        let code = match error.code {
            codes::EXTENSION_UNREACHABLE => ErrorCode::ExtensionUnreachable,
            codes::PROTOCOL_INCOMPATIBLE => ErrorCode::ProtocolIncompatible,
            codes::DESCRIPTOR_INVALID => ErrorCode::AepDescriptorInvalid,
            codes::ENDPOINT_INVALID => ErrorCode::EndpointInvalid,
            codes::EXTENSION_REQUEST_FAILED => ErrorCode::ExtensionRequestFailed,
            codes::AUTHORIZATION_FAILED => ErrorCode::AuthorizationFailed,
            _ => ErrorCode::InvalidResponse,
        };
        Self::new(code, error.to_string())
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for HostError {}

impl From<ClientError> for HostError {
    fn from(error: ClientError) -> Self {
        Self::from_client(error)
    }
}

/// `Result` with a [`HostError`].
pub type Result<T, E = HostError> = std::result::Result<T, E>;
