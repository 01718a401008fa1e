//! `aep-mcp-everything`: the "everything" server the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) tests SDKs with, written only with
//! `#[aep_extension]` and the SDK's public API, one method per thing a scenario asks
//! for, with the names, arguments and contents the scenarios expect.

use std::time::Duration;

use aep_sdk::prelude::*;
use aep_sdk::tool::{
    Blob, ContentBlock, ElicitationSchema, LogLevel, PromptMessage, PromptRole, ResourceContents,
    Subscriptions,
};
use serde_json::{Value, json};

/// A 1x1 red PNG, base64.
pub const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/// Eight samples of 8 kHz mono silence as a WAV file, base64.
pub const WAV: &str = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// The server's state: the subscriptions it tells of resource changes.
#[derive(Debug, Clone, Default)]
pub struct Everything {
    /// Sessions subscribed to `test://watched-resource` and the others.
    pub subscriptions: Subscriptions,
}

fn schema(value: Value) -> Result<ElicitationSchema, ToolError> {
    serde_json::from_value(value)
        .map_err(|e| ToolError::new(format!("the elicitation schema is invalid: {e}")))
}

fn png() -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(PNG)
        .expect("PNG is valid base64")
}

#[aep_extension(
    id = "aep.mcp-everything",
    name = "MCP everything server",
    description = "The MCP conformance suite's everything server, built with aep-sdk.",
    subscriptions = subscriptions
)]
impl Everything {
    /// Returns a simple text response.
    #[tool]
    async fn test_simple_text(&self) -> &'static str {
        "This is a simple text response for testing."
    }

    /// Returns a 1x1 red PNG.
    #[tool]
    async fn test_image_content(&self) -> Vec<ContentBlock> {
        vec![ContentBlock::image(PNG, "image/png")]
    }

    /// Returns a short WAV clip.
    #[tool]
    async fn test_audio_content(&self) -> Vec<ContentBlock> {
        vec![ContentBlock::audio(WAV, "audio/wav")]
    }

    /// Returns an embedded text resource.
    #[tool]
    async fn test_embedded_resource(&self) -> Vec<ContentBlock> {
        vec![ContentBlock::embedded_text(
            "test://embedded-resource",
            "This is an embedded resource content.",
        )]
    }

    /// Returns text, an image and an embedded JSON resource.
    #[tool]
    async fn test_multiple_content_types(&self) -> Vec<ContentBlock> {
        vec![
            ContentBlock::text("Multiple content types test:"),
            ContentBlock::image(PNG, "image/png"),
            ContentBlock::resource(ResourceContents::TextResourceContents {
                uri: "test://mixed-content-resource".to_owned(),
                mime_type: Some("application/json".to_owned()),
                text: json!({"test": "data", "value": 123}).to_string(),
                meta: None,
            }),
        ]
    }

    /// Sends three info log messages, 50 ms apart.
    #[tool]
    async fn test_tool_with_logging(&self, ctx: ToolContext) -> &'static str {
        ctx.log(LogLevel::Info, "Tool execution started").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.log(LogLevel::Info, "Tool processing data").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.log(LogLevel::Info, "Tool execution completed").await;
        "Tool with logging executed successfully"
    }

    /// Always fails.
    #[tool]
    async fn test_error_handling(&self) -> Result<String, ToolError> {
        Err(ToolError::new(
            "This tool intentionally returns an error for testing",
        ))
    }

    /// Reports progress 0, 50 and 100 of 100, 50 ms apart.
    #[tool]
    async fn test_tool_with_progress(&self, ctx: ToolContext) -> &'static str {
        for (i, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            ctx.progress(done, Some(100.0), None).await;
        }
        "Tool with progress executed successfully"
    }

    /// Asks the client's model to answer `prompt`.
    #[tool]
    async fn test_sampling(
        &self,
        /// The prompt to send to the model.
        prompt: String,
        ctx: ToolContext,
    ) -> Result<String, ToolError> {
        let answer = ctx.sample_text(&prompt, 100).await?;
        Ok(format!("LLM response: {answer}"))
    }

    /// Asks the user for a username and an email address.
    #[tool]
    async fn test_elicitation(
        &self,
        /// The message to show the user.
        message: String,
        ctx: ToolContext,
    ) -> Result<String, ToolError> {
        let requested = schema(json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            },
            "required": ["username", "email"]
        }))?;
        let result = ctx.elicit(&message, requested).await?;
        Ok(format!(
            "User response: <action: {}, content: {}>",
            json!(result.action).as_str().unwrap_or("?"),
            json!(result.content)
        ))
    }

    /// Asks for input with a default for every primitive type (SEP-1034).
    #[tool]
    async fn test_elicitation_sep1034_defaults(&self, ctx: ToolContext) -> Result<String, ToolError> {
        let requested = schema(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active"
                },
                "verified": {"type": "boolean", "description": "Verification status", "default": true}
            },
            "required": []
        }))?;
        let result = ctx
            .elicit(
                "Please review and update the form fields with defaults",
                requested,
            )
            .await?;
        Ok(completed(&result))
    }

    /// Asks for input with each of the five enum forms (SEP-1330).
    #[tool]
    async fn test_elicitation_sep1330_enums(&self, ctx: ToolContext) -> Result<String, ToolError> {
        let requested = schema(json!({
            "type": "object",
            "properties": {
                "untitledSingle": {
                    "type": "string",
                    "description": "Choose one option",
                    "enum": ["option1", "option2", "option3"]
                },
                "titledSingle": {
                    "type": "string",
                    "description": "Choose one titled option",
                    "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"}
                    ]
                },
                "legacyEnum": {
                    "type": "string",
                    "description": "Choose one option (legacy)",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"]
                },
                "untitledMulti": {
                    "type": "array",
                    "description": "Choose several options",
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
                },
                "titledMulti": {
                    "type": "array",
                    "description": "Choose several titled options",
                    "items": {
                        "anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"}
                        ]
                    }
                }
            },
            "required": []
        }))?;
        let result = ctx
            .elicit("Please choose from the enum fields", requested)
            .await?;
        Ok(completed(&result))
    }

    /// Closes its answer's stream mid-call; the client reconnects and gets the answer
    /// on the resumed stream (SEP-1699).
    #[tool]
    async fn test_reconnection(&self, ctx: ToolContext) -> Result<String, ToolError> {
        ctx.close_response_stream(Duration::from_millis(100)).await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        Ok("Reconnection test completed successfully".to_owned())
    }

    /// A tool whose input schema uses JSON Schema 2020-12 features, kept as written.
    #[tool(
        name = "json_schema_2020_12_tool",
        description = "Tool with JSON Schema 2020-12 features",
        input_schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
            "additionalProperties": false
        })
    )]
    async fn json_schema_2020_12_tool(&self, #[args] args: Value) -> String {
        format!("received: {args}")
    }

    /// A static text resource.
    #[resource(
        uri = "test://static-text",
        name = "Static Text Resource",
        mime_type = "text/plain"
    )]
    async fn static_text(&self) -> &'static str {
        "This is the content of the static text resource."
    }

    /// A static binary resource (a 1x1 red PNG).
    #[resource(
        uri = "test://static-binary",
        name = "Static Binary Resource",
        mime_type = "image/png"
    )]
    async fn static_binary(&self) -> Blob {
        Blob(png())
    }

    /// A resource clients subscribe to.
    #[resource(
        uri = "test://watched-resource",
        name = "Watched Resource",
        mime_type = "text/plain"
    )]
    async fn watched(&self) -> &'static str {
        "This resource is watched for updates."
    }

    /// Data for `id`, from a template.
    #[resource(
        uri_template = "test://template/{id}/data",
        name = "Resource Template",
        mime_type = "application/json"
    )]
    async fn template_data(&self, id: String) -> String {
        json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
    }

    /// A simple prompt without arguments.
    #[prompt]
    async fn test_simple_prompt(&self) -> &'static str {
        "This is a simple prompt for testing."
    }

    /// A prompt with two required arguments.
    #[prompt]
    async fn test_prompt_with_arguments(
        &self,
        /// First test argument.
        arg1: String,
        /// Second test argument.
        arg2: String,
    ) -> String {
        format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
    }

    /// A prompt embedding the resource `resourceUri`.
    #[prompt]
    async fn test_prompt_with_embedded_resource(
        &self,
        /// URI of the resource to embed.
        #[allow(non_snake_case)]
        resourceUri: String,
    ) -> Vec<PromptMessage> {
        let contents = ResourceContents::TextResourceContents {
            uri: resourceUri,
            mime_type: Some("text/plain".to_owned()),
            text: "Embedded resource content for testing.".to_owned(),
            meta: None,
        };
        vec![
            PromptMessage::new(PromptRole::User, ContentBlock::resource(contents)),
            PromptMessage::new_text(PromptRole::User, "Please process the embedded resource above."),
        ]
    }

    /// A prompt with an image.
    #[prompt]
    async fn test_prompt_with_image(&self) -> Vec<PromptMessage> {
        vec![
            PromptMessage::new(PromptRole::User, ContentBlock::image(PNG, "image/png")),
            PromptMessage::new_text(PromptRole::User, "Please analyze the image above."),
        ]
    }

    /// Suggestions for `arg1`.
    #[complete(prompt = "test_prompt_with_arguments", argument = "arg1")]
    async fn complete_arg1(&self, value: String) -> Vec<String> {
        ["paris", "park", "party", "test", "testing"]
            .into_iter()
            .filter(|v| v.starts_with(&value))
            .map(str::to_owned)
            .collect()
    }

    /// Suggestions for the template's `id`.
    #[complete(template = "test://template/{id}/data", variable = "id")]
    async fn complete_id(&self, value: String) -> Vec<String> {
        ["123", "456", "789"]
            .into_iter()
            .filter(|v| v.starts_with(&value))
            .map(str::to_owned)
            .collect()
    }
}

fn completed(result: &aep_sdk::tool::ElicitResult) -> String {
    format!(
        "Elicitation completed: action={}, content={}",
        json!(result.action).as_str().unwrap_or("?"),
        json!(result.content)
    )
}
