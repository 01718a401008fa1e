//! A scripted, deterministic model provider: the demo's and the tests' stand-in for a
//! real model. Given the tool it is built for, it asks for that tool with the user's
//! (quoted) text, then answers with what the tool returned.

use aep_sdk::prelude::*;
use aep_sdk::protocol::{ModelDescriptor, ModelProviderDescriptor, ProviderCapabilities};
use aep_sdk::server::{ChatStream, Extension, ModelProvider, RequestContext};
use serde_json::{Value, json};

/// Extension id of [`scripted_extension`].
pub const SCRIPTED_EXTENSION_ID: &str = "aep.demo.scripted";
/// Provider id of [`scripted_extension`].
pub const SCRIPTED_PROVIDER_ID: &str = "scripted";
/// Model id of [`scripted_extension`].
pub const SCRIPTED_MODEL_ID: &str = "scripted-1";

/// The scripted provider. Its turns:
///
/// 1. after a tool result: streams "`<tool>` returned: `<result>`" and stops;
/// 2. when the request offers its tool: streams a short sentence, then a `toolCall` of
///    that tool with `{"text": <the text between the first pair of double quotes of the
///    last user message, or all of it>}`, and stops with `toolCalls`;
/// 3. otherwise: echoes the last user message.
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    tool: String,
}

impl ScriptedModel {
    /// A provider that asks for `tool` (a function name from the request's `tools`).
    pub fn new(tool: impl Into<String>) -> Self {
        Self { tool: tool.into() }
    }

    fn turn(&self, request: &ChatRequest) -> Vec<ChatUpdate> {
        let last = request.messages.last();
        if let Some(result) = last
            .filter(|m| m.role == Role::Tool)
            .and_then(|m| m.contents.iter().find_map(|c| c.tool_result.as_ref()))
        {
            let value = match &result.result {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let verb = if result.is_error { "failed" } else { "returned" };
            let mut updates = words(&format!("{} {verb}: {value}", self.tool));
            updates.push(ChatUpdate::finish(FinishReason::Stop));
            return updates;
        }
        let user = request.last_user_text().unwrap_or_default();
        if request.tools.iter().any(|t| t.name == self.tool) {
            let subject = quoted(&user).unwrap_or(&user).to_owned();
            let mut updates = words("Let me use a tool for that. ");
            updates.push(ChatUpdate::tool_call(
                "call_1",
                &self.tool,
                json!({ "text": subject }),
            ));
            updates.push(ChatUpdate::finish(FinishReason::ToolCalls));
            return updates;
        }
        let mut updates = words(&user);
        updates.push(ChatUpdate::finish(FinishReason::Stop));
        updates
    }
}

fn words(text: &str) -> Vec<ChatUpdate> {
    text.split_inclusive(' ').map(ChatUpdate::text).collect()
}

fn quoted(text: &str) -> Option<&str> {
    let start = text.find('"')? + 1;
    let end = start + text[start..].find('"')?;
    Some(&text[start..end])
}

impl ModelProvider for ScriptedModel {
    async fn chat_stream(&self, request: ChatRequest, _ctx: RequestContext) -> Result<ChatStream, AepError> {
        let model = request.model.clone();
        let updates: Vec<ChatUpdate> = self
            .turn(&request)
            .into_iter()
            .map(|u| u.with_model(model.clone()))
            .collect();
        Ok(ChatStream::from_updates(updates))
    }
}

/// The extension serving [`ScriptedModel`] for `tool` as provider `scripted`, model
/// `scripted-1`.
pub fn scripted_extension(tool: &str) -> Result<Extension, aep_sdk::Error> {
    let descriptor = ModelProviderDescriptor {
        capabilities: ProviderCapabilities {
            tools: true,
            ..ProviderCapabilities::default()
        },
        models: Some(vec![ModelDescriptor::new(SCRIPTED_MODEL_ID)]),
        ..ModelProviderDescriptor::new(SCRIPTED_PROVIDER_ID, "Scripted model")
    };
    Extension::builder(SCRIPTED_EXTENSION_ID, "Scripted model", env!("CARGO_PKG_VERSION"))
        .description("A deterministic model that calls one tool, then reports its result.")
        .model_provider(descriptor, ScriptedModel::new(tool))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_for_the_tool_then_reports_its_result() {
        let model = ScriptedModel::new("hash.compute");
        let mut request = ChatRequest::new("scripted-1", vec![Message::user(r#"Hash "abc" please"#)]);
        request.tools.push(aep_sdk::protocol::ToolDefinition {
            name: "hash.compute".into(),
            description: None,
            parameters: json!({}),
        });
        let turn = model.turn(&request);
        let call = turn
            .iter()
            .find_map(|u| u.contents.iter().find_map(|c| c.tool_call.clone()))
            .unwrap();
        assert_eq!(
            (call.name.as_str(), &call.arguments),
            ("hash.compute", &json!({"text": "abc"}))
        );
        assert_eq!(turn.last().unwrap().finish_reason, Some(FinishReason::ToolCalls));

        request.messages.push(Message::new(
            Role::Tool,
            vec![Content::tool_result("call_1", json!("ba78"), false)],
        ));
        let text: String = model.turn(&request).iter().map(ChatUpdate::text_delta).collect();
        assert_eq!(text, "hash.compute returned: ba78");
    }
}
