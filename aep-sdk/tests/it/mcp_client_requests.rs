//! What a tool asks of the client (sampling, elicitation), completions, resource
//! subscriptions, rich content and an input schema kept as written, as a real MCP client
//! (rmcp's) sees them.
#![allow(deprecated)] // sampling (SEP-2577) is deprecated in rmcp, still spoken by clients

use std::sync::{Arc, Mutex};
use std::time::Duration;

use aep_sdk::prelude::*;
use aep_sdk::testing::spawn;
use aep_sdk::tool::{ContentBlock, ElicitationSchema, PromptMessage, PromptRole, Subscriptions};
use base64::Engine;
use rmcp::model::{
    ArgumentInfo, CallToolRequestParams, ClientCapabilities, ClientConfig, CompleteRequestParams,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction,
    Reference, ResourceUpdatedNotificationParam, SamplingMessage, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ErrorData, ServiceExt};
use serde_json::{Value, json};

#[derive(Clone, Default)]
struct Everything {
    subscriptions: Subscriptions,
}

const PIXEL: &[u8] = b"\x89PNG\r\n\x1a\n";

fn elicitation_schema() -> ElicitationSchema {
    serde_json::from_value(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        },
        "required": ["name"]
    }))
    .expect("an elicitation schema")
}

#[aep_extension(id = "t.everything", name = "Everything", subscriptions = subscriptions)]
impl Everything {
    /// Asks the client's model.
    #[tool]
    async fn ask(&self, prompt: String, ctx: ToolContext) -> Result<String, ToolError> {
        let answer = ctx.sample_text(&prompt, 100).await?;
        Ok(format!("LLM response: {answer}"))
    }

    /// Asks the user.
    #[tool]
    async fn form(&self, ctx: ToolContext) -> Result<String, ToolError> {
        let result = ctx.elicit("Who are you?", elicitation_schema()).await?;
        Ok(format!(
            "action={:?}, content={}",
            result.action,
            json!(result.content)
        ))
    }

    /// An image, an audio clip and an embedded resource.
    #[tool]
    async fn rich(&self) -> Vec<ContentBlock> {
        let data = base64::engine::general_purpose::STANDARD.encode(PIXEL);
        vec![
            ContentBlock::text("three kinds"),
            ContentBlock::image(data.clone(), "image/png"),
            ContentBlock::audio(data, "audio/wav"),
            ContentBlock::embedded_text("test://embedded", "embedded text"),
        ]
    }

    /// A schema exactly as written (JSON Schema 2020-12).
    #[tool(input_schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": false
    }))]
    async fn as_written(&self, #[args] args: Value) -> String {
        args["name"].as_str().unwrap_or("nobody").to_owned()
    }

    /// Frees its connection mid-call; the answer comes on the resumed stream.
    #[tool]
    async fn patient(&self, ctx: ToolContext) -> Result<String, ToolError> {
        ctx.close_response_stream(Duration::from_millis(50)).await?;
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok("answered after the reconnection".to_owned())
    }

    /// A resource that changes.
    #[resource(uri = "test://watched", mime_type = "text/plain")]
    async fn watched(&self) -> &'static str {
        "watch me"
    }

    /// City `city`.
    #[resource(uri_template = "cities://{city}")]
    async fn city(&self, city: String) -> String {
        city
    }

    /// Plans a trip.
    #[prompt]
    async fn trip(&self, city: String, mode: Option<String>) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(
            PromptRole::User,
            format!("{city} by {}", mode.unwrap_or_default()),
        )]
    }

    #[complete(prompt = "trip", argument = "city")]
    async fn complete_city(&self, value: String) -> Vec<String> {
        ["paris", "park", "prague", "rome"]
            .into_iter()
            .filter(|c| c.starts_with(&value))
            .map(str::to_owned)
            .collect()
    }

    #[complete(template = "cities://{city}", variable = "city")]
    async fn complete_template_city(&self, value: String) -> Result<Vec<String>, ToolError> {
        Ok((0..150).map(|i| format!("{value}{i}")).collect())
    }
}

#[derive(Clone, Default)]
struct Client {
    sampled: Arc<Mutex<Vec<CreateMessageRequestParams>>>,
    elicited: Arc<Mutex<Vec<Value>>>,
    updated: Arc<Mutex<Vec<String>>>,
    capabilities: ClientCapabilities,
}

impl ClientHandler for Client {
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.sampled.lock().unwrap().push(params);
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("Paris is lovely"),
            "test-model".to_owned(),
        ))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.elicited
            .lock()
            .unwrap()
            .push(serde_json::to_value(&request).unwrap());
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": "Jane"})))
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().unwrap().push(params.uri);
    }

    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.capabilities = self.capabilities.clone();
        config
    }
}

fn offering(capabilities: Value) -> Client {
    Client {
        capabilities: serde_json::from_value(capabilities).unwrap(),
        ..Client::default()
    }
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.clone())
        .collect()
}

async fn connect(url: &str, client: Client) -> rmcp::service::RunningService<RoleClient, Client> {
    let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
    client.serve(transport).await.unwrap()
}

#[tokio::test]
async fn a_tool_samples_the_clients_model_and_elicits_input() {
    let server = spawn(Everything::default().into_extension().unwrap().router()).await;
    let url = format!("{}/mcp", server.base_url);
    let client = offering(json!({"sampling": {}, "elicitation": {"form": {}}}));
    let session = connect(&url, client.clone()).await;
    let args = json!({"prompt": "Where to?"}).as_object().unwrap().clone();
    let asked = session
        .call_tool(CallToolRequestParams::new("ask").with_arguments(args))
        .await
        .unwrap();
    assert_eq!(text(&asked), "LLM response: Paris is lovely");
    let sampled = client.sampled.lock().unwrap().clone();
    assert_eq!(sampled.len(), 1);
    assert_eq!(sampled[0].max_tokens, 100);
    assert_eq!(json!(sampled[0].messages[0])["content"]["text"], "Where to?");

    let form = session
        .call_tool(CallToolRequestParams::new("form"))
        .await
        .unwrap();
    assert_eq!(form.is_error, Some(false), "{form:?}");
    assert!(
        text(&form).contains(r#"content={"name":"Jane"}"#),
        "{}",
        text(&form)
    );
    let elicited = client.elicited.lock().unwrap()[0].clone();
    assert_eq!(elicited["message"], "Who are you?");
    let properties = &elicited["requestedSchema"]["properties"];
    assert_eq!(properties["age"], json!({"type": "integer", "default": 30}));
    assert_eq!(properties["status"]["default"], "active");
    session.cancel().await.unwrap();

    // A client without the capabilities: a tool error saying so, no request sent.
    let bare = offering(json!({}));
    let session = connect(&url, bare.clone()).await;
    for (tool, says) in [
        ("ask", "no `sampling` capability"),
        ("form", "no `elicitation` capability"),
    ] {
        let args = json!({"prompt": "x"}).as_object().unwrap().clone();
        let refused = session
            .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
            .await
            .unwrap();
        assert_eq!(refused.is_error, Some(true));
        assert!(text(&refused).contains(says), "{}", text(&refused));
    }
    assert!(bare.sampled.lock().unwrap().is_empty() && bare.elicited.lock().unwrap().is_empty());
    session.cancel().await.unwrap();
}

#[tokio::test]
async fn completions_suggest_prompt_arguments_and_template_variables() {
    let server = spawn(Everything::default().into_extension().unwrap().router()).await;
    let session = connect(&format!("{}/mcp", server.base_url), Client::default()).await;
    assert!(session.peer_info().unwrap().capabilities.completions.is_some());
    let complete = |reference: Reference, name: &str, value: &str| {
        CompleteRequestParams::new(reference, ArgumentInfo::new(name, value))
    };
    let cities = session
        .complete(complete(Reference::for_prompt("trip"), "city", "pa"))
        .await
        .unwrap();
    assert_eq!(cities.completion.values, ["paris", "park"]);
    assert_eq!(
        (cities.completion.total, cities.completion.has_more),
        (Some(2), Some(false))
    );
    // At most 100 values; the rest counted.
    let many = session
        .complete(complete(Reference::for_resource("cities://{city}"), "city", "c"))
        .await
        .unwrap();
    assert_eq!(many.completion.values.len(), 100);
    assert_eq!(
        (many.completion.total, many.completion.has_more),
        (Some(150), Some(true))
    );
    // An argument nobody completes: no suggestions.
    let none = session
        .complete(complete(Reference::for_prompt("trip"), "mode", "b"))
        .await
        .unwrap();
    assert!(none.completion.values.is_empty());
    session.cancel().await.unwrap();
}

#[tokio::test]
async fn subscribed_sessions_hear_of_updates_and_unsubscribed_ones_do_not() {
    let everything = Everything::default();
    let server = spawn(everything.clone().into_extension().unwrap().router()).await;
    let url = format!("{}/mcp", server.base_url);
    let (one, two) = (Client::default(), Client::default());
    let (first, second) = (connect(&url, one.clone()).await, connect(&url, two.clone()).await);
    let resources = first.peer_info().unwrap().capabilities.resources.clone().unwrap();
    assert_eq!(resources.subscribe, Some(true));

    first
        .subscribe(SubscribeRequestParams::new("test://watched"))
        .await
        .unwrap();
    second
        .subscribe(SubscribeRequestParams::new("cities://rome"))
        .await
        .unwrap();
    let unknown = first
        .subscribe(SubscribeRequestParams::new("test://nothing"))
        .await
        .unwrap_err();
    assert!(format!("{unknown:?}").contains("-32002"), "{unknown:?}");

    assert_eq!(everything.subscriptions.updated("test://watched").await, 1);
    assert_eq!(everything.subscriptions.updated("cities://rome").await, 1);
    assert_eq!(everything.subscriptions.updated("cities://paris").await, 0);
    tokio::time::timeout(Duration::from_secs(5), async {
        while one.updated.lock().unwrap().is_empty() || two.updated.lock().unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("both sessions notified within 5 s");
    assert_eq!(*one.updated.lock().unwrap(), ["test://watched"]);
    assert_eq!(*two.updated.lock().unwrap(), ["cities://rome"]);

    first
        .unsubscribe(UnsubscribeRequestParams::new("test://watched"))
        .await
        .unwrap();
    assert_eq!(everything.subscriptions.updated("test://watched").await, 0);
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
}

#[tokio::test]
async fn rich_content_and_a_schema_kept_as_written() {
    let server = spawn(Everything::default().into_extension().unwrap().router()).await;
    let session = connect(&format!("{}/mcp", server.base_url), Client::default()).await;
    let rich = session
        .call_tool(CallToolRequestParams::new("rich"))
        .await
        .unwrap();
    let kinds: Vec<String> = rich
        .content
        .iter()
        .map(|c| json!(c)["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["text", "image", "audio", "resource"]);
    assert_eq!(json!(rich.content[2])["mimeType"], "audio/wav");

    let tools = session.list_all_tools().await.unwrap();
    let as_written = tools.iter().find(|t| t.name == "as_written").unwrap();
    let schema = Value::Object((*as_written.input_schema).clone());
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(schema["$defs"]["address"]["properties"]["city"]["type"], "string");
    assert_eq!(schema["additionalProperties"], false);
    let args = json!({"name": "Ada"}).as_object().unwrap().clone();
    let called = session
        .call_tool(CallToolRequestParams::new("as_written").with_arguments(args))
        .await
        .unwrap();
    assert_eq!(text(&called), "Ada");
    session.cancel().await.unwrap();
}

#[tokio::test]
async fn a_tool_closes_its_stream_and_the_client_resumes_for_the_answer() {
    let server = spawn(Everything::default().into_extension().unwrap().router()).await;
    let session = connect(&format!("{}/mcp", server.base_url), Client::default()).await;
    let answer = tokio::time::timeout(
        Duration::from_secs(10),
        session.call_tool(CallToolRequestParams::new("patient")),
    )
    .await
    .expect("the answer within 10 s")
    .unwrap();
    assert_eq!(text(&answer), "answered after the reconnection");
    session.cancel().await.unwrap();

    // Called directly (no HTTP stream to close): a tool error saying so.
    let ctx = ToolContext::new(tokio_util::sync::CancellationToken::new());
    let refused = ctx
        .close_response_stream(Duration::from_millis(50))
        .await
        .unwrap_err();
    assert!(
        refused.message().contains("not sent on a session's SSE stream"),
        "{refused}"
    );
}
