//! Host configuration: extensions, Tool resources and model references, from a TOML
//! file and/or command-line flags.
//!
//! ```toml
//! [extensions."aep.utilities"]
//! url = "http://127.0.0.1:8711"
//! revision = "2026-08-01"            # optional; "1.0" or "2026-08-01" (default)
//!
//! [tools."hash.compute"]             # a Tool resource backed by an AEP contribution
//! extension = "aep.utilities"
//! contribution = "hash.compute"
//!
//! [tools.remote_hash]                # a Tool resource pointing straight at an MCP server
//! mcp_url = "http://127.0.0.1:8711/mcp"
//! mcp_tool = "hash_compute"
//! enabled = false                    # optional, default true
//!
//! [models.default]
//! extension = "aep.ollama"
//! provider = "ollama"
//! model = "llama3.2"
//! ```
//!
//! ## Signing in with OAuth
//!
//! An `oauth` table under an extension (its AEP routes and MCP servers) or under a tool
//! that points straight at an MCP server makes the host sign in with OAuth 2.1 when
//! that resource answers 401 (see [`crate::oauth`]). Every key is optional; an empty
//! table means dynamic client registration, a browser and tokens in memory:
//!
//! ```toml
//! [extensions."acme.tools"]
//! url = "https://tools.example.com"
//! [extensions."acme.tools".oauth]
//! client_id = "aep-host"                 # pre-registered client (else CIMD or registration)
//! client_secret_file = "~/.config/aep-host/acme.secret"   # its secret, first line
//! client_metadata_url = "https://host.example/client.json" # CIMD, where the server supports it
//! scope = "tools:read tools:call"        # else the challenge's, else scopes_supported
//! client_credentials = false             # true: machine to machine (needs id and secret)
//! headless = false                       # true: follow the redirects, no browser
//! open_browser = true                    # open the authorization URL in a browser
//! redirect_port = 8765                   # the 127.0.0.1 redirect listener (default: any)
//! token_store = "file"                   # "memory" (default), "file" (the default file), or a path
//!
//! [tools.remote_hash.oauth]              # a direct MCP source: that server only
//! headless = true
//! ```
//!
//! Secrets never go in the file itself: `client_secret_file` names a file, and
//! `token_env` an environment variable.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::catalog::{ToolResource, ToolSource};
use crate::error::{ErrorCode, HostError, Result};
use crate::models::ModelRef;
use crate::oauth::{OAuthOptions, OAuthSettings};
use aep_sdk::protocol::ProtocolVersion;
use url::Url;

use crate::registry::{ExtensionEntry, Registry, parse_revision};

/// The whole configuration file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// Extensions by id.
    #[serde(default)]
    pub extensions: BTreeMap<String, ExtensionConfig>,
    /// Tool resources by id (the id is the name a model calls).
    #[serde(default)]
    pub tools: BTreeMap<String, ToolConfig>,
    /// Model references by a local name (`default` is used when none is named).
    #[serde(default)]
    pub models: BTreeMap<String, ModelConfig>,
}

/// `[extensions.<id>]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtensionConfig {
    /// Base URL: absolute HTTP(S), no credentials.
    pub url: String,
    /// Protocol revision to negotiate (`"1.0"` or `"2026-08-01"`); the newest by default.
    #[serde(default)]
    pub revision: Option<String>,
    /// Name of an environment variable holding a bearer token for this extension (sent
    /// to its AEP routes and its MCP servers). The token itself never goes in the file.
    #[serde(default)]
    pub token_env: Option<String>,
    /// Sign in with OAuth when the extension answers 401 (see the module documentation).
    #[serde(default)]
    pub oauth: Option<OAuthSettings>,
}

/// `[tools.<id>]`: exactly one of (`extension` + `contribution`) or (`mcp_url` + `mcp_tool`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolConfig {
    /// Registered extension id (AEP source).
    #[serde(default)]
    pub extension: Option<String>,
    /// Tool contribution id in that extension's manifest (AEP source).
    #[serde(default)]
    pub contribution: Option<String>,
    /// MCP server URL (direct source).
    #[serde(default)]
    pub mcp_url: Option<String>,
    /// Tool name in that server's `tools/list` (direct source).
    #[serde(default)]
    pub mcp_tool: Option<String>,
    /// Display name override.
    #[serde(default)]
    pub display_name: Option<String>,
    /// Description override.
    #[serde(default)]
    pub description: Option<String>,
    /// Whether agents may use the tool (default true).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Sign in with OAuth when the MCP server (direct source) answers 401.
    #[serde(default)]
    pub oauth: Option<OAuthSettings>,
}

fn yes() -> bool {
    true
}

/// `[models.<name>]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Registered extension id.
    pub extension: String,
    /// Model provider contribution id.
    pub provider: String,
    /// Model id as sent in `ChatRequest.model`.
    pub model: String,
}

impl HostConfig {
    /// The registry of this configuration's extensions (their `token_env` variables
    /// read now).
    pub fn registry(&self) -> Result<Registry> {
        let mut registry = Registry::new();
        for (id, extension) in &self.extensions {
            let revision = match &extension.revision {
                Some(text) => parse_revision(text)?,
                None => ProtocolVersion::LATEST,
            };
            let mut entry = ExtensionEntry::new(id, &extension.url, revision)?;
            if let Some(variable) = &extension.token_env {
                let token = std::env::var(variable).map_err(|_| {
                    HostError::new(
                        ErrorCode::ConfigurationInvalid,
                        format!("extension '{id}': token_env names '{variable}', which is not set"),
                    )
                })?;
                entry = entry.with_bearer_token(&token)?;
            }
            if let Some(oauth) = &extension.oauth {
                let options = oauth.options().map_err(|mut e| {
                    e.message = format!("extension '{id}': {}", e.message);
                    e
                })?;
                entry = entry.with_oauth(options)?;
            }
            registry.insert(entry)?;
        }
        Ok(registry)
    }

    /// Parses TOML text.
    pub fn from_toml(text: &str) -> Result<Self> {
        toml::from_str(text).map_err(|e| {
            HostError::new(
                ErrorCode::ConfigurationInvalid,
                format!("host configuration: {e}"),
            )
        })
    }

    /// Reads and parses a TOML file.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            HostError::new(
                ErrorCode::ConfigurationInvalid,
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        Self::from_toml(&text).map_err(|mut e| {
            e.message = format!("{}: {}", path.display(), e.message);
            e
        })
    }

    /// The Tool resources, each checked to select exactly one source.
    pub fn tool_resources(&self) -> Result<Vec<ToolResource>> {
        self.tools.iter().map(|(id, tool)| tool.to_resource(id)).collect()
    }

    /// The OAuth options of the tools that point straight at an MCP server, by server URL.
    pub fn mcp_oauth(&self) -> Result<Vec<(Url, OAuthOptions)>> {
        let mut servers = Vec::new();
        for (id, tool) in &self.tools {
            let (Some(url), Some(oauth)) = (&tool.mcp_url, &tool.oauth) else {
                continue;
            };
            let url = Url::parse(url).map_err(|e| {
                HostError::new(
                    ErrorCode::ConfigurationInvalid,
                    format!("tool '{id}': mcp_url '{url}': {e}"),
                )
            })?;
            let options = oauth.options().map_err(|mut e| {
                e.message = format!("tool '{id}': {}", e.message);
                e
            })?;
            servers.push((url, options));
        }
        Ok(servers)
    }

    /// The model reference named `name`.
    pub fn model(&self, name: &str) -> Option<ModelRef> {
        self.models.get(name).map(|m| ModelRef {
            extension: m.extension.clone(),
            provider: m.provider.clone(),
            model: m.model.clone(),
        })
    }
}

impl ToolConfig {
    /// The Tool resource `id` this entry declares.
    pub fn to_resource(&self, id: &str) -> Result<ToolResource> {
        let source = match (&self.extension, &self.contribution, &self.mcp_url, &self.mcp_tool) {
            (Some(extension), Some(contribution), None, None) => ToolSource::Aep {
                extension: extension.clone(),
                contribution: contribution.clone(),
            },
            (None, None, Some(url), Some(tool)) => ToolSource::Mcp {
                url: url.clone(),
                tool: tool.clone(),
            },
            _ => {
                return Err(HostError::new(
                    ErrorCode::ConfigurationInvalid,
                    format!(
                        "tool '{id}' must select exactly one source: either `extension` + \
                         `contribution`, or `mcp_url` + `mcp_tool`"
                    ),
                )
                .with_target(id));
            }
        };
        Ok(ToolResource {
            id: id.to_owned(),
            source,
            enabled: self.enabled,
            display_name: self.display_name.clone(),
            description: self.description.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_example() {
        let text = r#"
            [extensions."aep.utilities"]
            url = "http://127.0.0.1:8711"
            revision = "1.0"

            [tools."hash.compute"]
            extension = "aep.utilities"
            contribution = "hash.compute"

            [tools.remote_hash]
            mcp_url = "http://127.0.0.1:8711/mcp"
            mcp_tool = "hash_compute"
            enabled = false

            [models.default]
            extension = "aep.ollama"
            provider = "ollama"
            model = "llama3.2"
        "#;
        let config = HostConfig::from_toml(text).unwrap();
        assert_eq!(
            config.extensions["aep.utilities"].revision.as_deref(),
            Some("1.0")
        );
        let tools = config.tool_resources().unwrap();
        assert_eq!(tools.len(), 2);
        assert!(tools[0].enabled);
        assert!(matches!(tools[0].source, ToolSource::Aep { .. }));
        assert!(!tools[1].enabled);
        assert!(matches!(tools[1].source, ToolSource::Mcp { .. }));
        assert_eq!(config.model("default").unwrap().model, "llama3.2");
    }

    #[test]
    fn a_tool_selects_exactly_one_source() {
        for body in [
            "extension = \"e\"\ncontribution = \"c\"\nmcp_url = \"http://h/mcp\"\nmcp_tool = \"t\"",
            "extension = \"e\"",
            "",
        ] {
            let config = HostConfig::from_toml(&format!("[tools.x]\n{body}")).unwrap();
            let error = config.tool_resources().unwrap_err();
            assert_eq!(error.code, ErrorCode::ConfigurationInvalid, "{body}");
        }
    }

    #[test]
    fn an_oauth_table_signs_the_extension_in() {
        let text = r#"
            [extensions.x]
            url = "http://127.0.0.1:9"
            [extensions.x.oauth]
            client_id = "host"
            scope = "a b"
            headless = true

            [tools.direct]
            mcp_url = "http://127.0.0.1:9/mcp"
            mcp_tool = "t"
            [tools.direct.oauth]
        "#;
        let config = HostConfig::from_toml(text).unwrap();
        let registry = config.registry().unwrap();
        let options = registry.get("x").unwrap().oauth().expect("OAuth options");
        assert_eq!(options.client_id.as_deref(), Some("host"));
        assert_eq!(options.scope.as_deref(), Some("a b"));
        let direct = config.mcp_oauth().unwrap();
        assert_eq!(direct.len(), 1);
        assert_eq!(direct[0].0.as_str(), "http://127.0.0.1:9/mcp");

        for (body, says) in [
            (
                "client_secret_file = \"/nonexistent/secret\"\nclient_id = \"c\"",
                "/nonexistent/secret",
            ),
            ("client_credentials = true", "client credentials need"),
            (
                "client_secret_file = \"/nonexistent/secret\"",
                "/nonexistent/secret",
            ),
            ("token_store = 7", "token_store"),
            ("port = 1", "port"),
        ] {
            let text = format!("[extensions.x]\nurl = \"http://h\"\n[extensions.x.oauth]\n{body}");
            let error = HostConfig::from_toml(&text)
                .and_then(|c| c.registry())
                .expect_err(body);
            assert_eq!(error.code, ErrorCode::ConfigurationInvalid, "{body}");
            assert!(error.message.contains(says), "{body}: {error}");
        }
    }

    #[test]
    fn unknown_keys_are_refused() {
        let error = HostConfig::from_toml("[extensions.x]\nurl = \"http://h\"\nport = 1").unwrap_err();
        assert_eq!(error.code, ErrorCode::ConfigurationInvalid);
        assert!(error.message.contains("port"), "{}", error.message);
    }
}
