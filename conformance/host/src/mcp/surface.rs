//! A pooled server's resources and prompts: `resources/list`, `resources/templates/list`,
//! `resources/read`, `prompts/list` and `prompts/get` through the slot's one client,
//! each refused up front when the server's `initialize` result does not advertise the
//! capability.

use std::future::Future;
use std::sync::Arc;

use rmcp::ServiceError;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResult, Prompt, ReadResourceRequestParams, ReadResourceResult, Resource,
    ResourceTemplate, ServerCapabilities,
};
use tokio::time::timeout;

use super::failure::{Failure, unreachable};
use super::slot::{Client, Slot};
use crate::JsonObject;
use crate::error::{ErrorCode, HostError, Result};

/// An MCP server capability the surface requests need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// `resources`: `resources/list`, `resources/templates/list`, `resources/read`.
    Resources,
    /// `prompts`: `prompts/list`, `prompts/get`.
    Prompts,
}

impl Capability {
    /// The capability's name in the `initialize` result.
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::Resources => "resources",
            Capability::Prompts => "prompts",
        }
    }

    /// Whether `capabilities` advertise it.
    pub fn advertised_in(self, capabilities: &ServerCapabilities) -> bool {
        match self {
            Capability::Resources => capabilities.resources.is_some(),
            Capability::Prompts => capabilities.prompts.is_some(),
        }
    }
}

impl Slot {
    /// The capabilities the server advertised when the current connection was made.
    pub(crate) async fn capabilities(&self) -> Result<ServerCapabilities> {
        let client = self.client().await?;
        Ok(client
            .peer_info()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default())
    }

    /// `mcp_capability_missing` unless the server advertises `capability`.
    async fn require(&self, capability: Capability, what: &str) -> Result<()> {
        if capability.advertised_in(&self.capabilities().await?) {
            return Ok(());
        }
        Err(HostError::new(
            ErrorCode::McpCapabilityMissing,
            format!(
                "{}: {what}: the MCP server does not advertise the '{}' capability in its initialize result",
                self.url,
                capability.as_str()
            ),
        )
        .with_target(self.url.as_str()))
    }

    /// One read-only request, bounded by the request timeout; after a transport failure
    /// the connection is replaced and the request sent once more (reading is safe to
    /// repeat).
    async fn read_only<T, F, Fut>(&self, capability: Capability, what: &str, send: F) -> Result<T>
    where
        F: Fn(Arc<Client>) -> Fut,
        Fut: Future<Output = Result<T, ServiceError>>,
    {
        self.require(capability, what).await?;
        let mut last = None;
        for _ in 0..2 {
            let client = self.client().await?;
            match timeout(self.options.request_timeout, send(client.clone())).await {
                Ok(Ok(value)) => return Ok(value),
                Ok(Err(error)) => match self.classify(what, error) {
                    Failure::Transport(error) => {
                        self.discard(&client).await;
                        last = Some(error);
                    }
                    other => return Err(other.into_error()),
                },
                Err(_) => {
                    return Err(unreachable(
                        &self.url,
                        what,
                        &format!("no answer within {:?}", self.options.request_timeout),
                    ));
                }
            }
        }
        Err(last.unwrap_or_else(|| unreachable(&self.url, what, "failed")))
    }

    /// `resources/list`, every page.
    pub(crate) async fn resources(&self) -> Result<Vec<Resource>> {
        self.read_only(Capability::Resources, "resources/list", |client| async move {
            client.list_all_resources().await
        })
        .await
    }

    /// `resources/templates/list`, every page.
    pub(crate) async fn resource_templates(&self) -> Result<Vec<ResourceTemplate>> {
        self.read_only(
            Capability::Resources,
            "resources/templates/list",
            |client| async move { client.list_all_resource_templates().await },
        )
        .await
    }

    /// `resources/read` of `uri`.
    pub(crate) async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        let what = format!("resources/read '{uri}'");
        self.read_only(Capability::Resources, &what, |client| {
            let params = ReadResourceRequestParams::new(uri);
            async move { client.read_resource(params).await }
        })
        .await
    }

    /// `prompts/list`, every page.
    pub(crate) async fn prompts(&self) -> Result<Vec<Prompt>> {
        self.read_only(Capability::Prompts, "prompts/list", |client| async move {
            client.list_all_prompts().await
        })
        .await
    }

    /// `prompts/get` of `name` with string `arguments`.
    pub(crate) async fn get_prompt(&self, name: &str, arguments: JsonObject) -> Result<GetPromptResult> {
        let what = format!("prompts/get '{name}'");
        self.read_only(Capability::Prompts, &what, |client| {
            let mut params = GetPromptRequestParams::new(name);
            params.arguments = Some(arguments.clone());
            async move { client.get_prompt(params).await }
        })
        .await
    }
}
