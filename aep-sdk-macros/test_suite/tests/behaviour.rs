//! What the generated code does: providers with their sibling methods and request
//! context, tools with a context, an argument struct, annotations, metadata, several
//! MCP servers, and shared state.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aep_sdk::client::Client;
use aep_sdk::prelude::*;
use aep_sdk::testing::spawn;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

#[derive(Clone, Default)]
struct Counter {
    calls: Arc<AtomicUsize>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// First addend.
    a: i64,
    /// Second addend.
    b: i64,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    sum: i64,
}

#[aep_extension(id = "t.counter", name = "Counter", version = "2.1.0", mcp_server = "main")]
impl Counter {
    /// Count one call and return the total so far.
    #[tool(
        id = "counter.bump",
        display_name = "Bump",
        destructive = false,
        open_world = false,
        title = "Bump the counter"
    )]
    async fn bump(&self, ctx: ToolContext) -> u64 {
        assert!(!ctx.cancellation().is_cancelled());
        (self.calls.fetch_add(1, Ordering::SeqCst) + 1) as u64
    }

    /// Add two numbers.
    #[tool(server = "math", metadata(category = "math", weight = 3, beta = true))]
    async fn add(&self, #[args] args: AddArgs) -> Sum {
        Sum { sum: args.a + args.b }
    }

    /// Refuse.
    #[tool(server = "math")]
    async fn refuse(&self) -> Result<(), ToolError> {
        Err(ToolError::new("no, thank you"))
    }

    /// Answers with the number of calls so far, as text.
    #[model_provider(
        id = "count",
        display_name = "Count",
        tools,
        vision = true,
        streaming = true,
        chat = false
    )]
    async fn count(&self, request: ChatRequest, ctx: RequestContext) -> Result<ChatStream, AepError> {
        let auth = ctx
            .headers()
            .get("x-test")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("none")
            .to_owned();
        let text = format!("{} {} {auth}", request.model, self.calls.load(Ordering::SeqCst));
        Ok(ChatStream::new(futures::stream::iter([
            Ok(ChatUpdate::text(text)),
            Ok(ChatUpdate::finish(FinishReason::Stop)),
        ])))
    }

    #[chat(provider = "count")]
    async fn count_once(&self, request: ChatRequest) -> Result<ChatResponse, AepError> {
        Ok(ChatResponse {
            messages: vec![Message::assistant(format!("once {}", request.model))],
            ..Default::default()
        })
    }

    #[models(provider = "COUNT")]
    async fn count_models(&self, ctx: RequestContext) -> Result<Vec<ModelDescriptor>, AepError> {
        Ok(vec![ModelDescriptor::new(format!("for-{}", ctx.descriptor().id))])
    }

    #[health(provider = "count")]
    async fn count_health(&self) -> Result<Health, AepError> {
        Ok(Health::unavailable("resting"))
    }
}

async fn mcp(url: String) -> rmcp::service::RunningService<rmcp::service::RoleClient, ClientConfig> {
    let transport =
        StreamableHttpClientTransport::from_config(StreamableHttpClientTransportConfig::with_uri(url));
    ClientConfig::default().serve(transport).await.unwrap()
}

#[tokio::test]
async fn manifest_reflects_the_attributes() {
    let server = spawn(Counter::default().into_extension().unwrap().router()).await;
    let manifest = Client::new(&server.base_url).unwrap().discover().await.unwrap();
    assert_eq!(manifest.extension.version, "2.1.0");
    let provider = &manifest.contributions.model_providers[0];
    assert_eq!(
        (provider.id.as_str(), provider.display_name.as_str()),
        ("count", "Count")
    );
    let caps = provider.capabilities;
    assert!(caps.tools && caps.vision && caps.streaming && !caps.chat && !caps.thinking);
    let servers: Vec<_> = manifest
        .mcp_servers()
        .iter()
        .map(|s| (s.id.as_str(), s.endpoint.as_str()))
        .collect();
    assert_eq!(servers, [("main", "/mcp"), ("math", "/mcp/math")]);
    let tools: Vec<_> = manifest
        .contributions
        .tools
        .iter()
        .map(|t| {
            (
                t.id.as_str(),
                t.display_name.as_str(),
                t.mcp.server.as_str(),
                t.mcp.tool.as_str(),
            )
        })
        .collect();
    assert_eq!(
        tools,
        [
            ("counter.bump", "Bump", "main", "bump"),
            ("add", "Add", "math", "add"),
            ("refuse", "Refuse", "math", "refuse")
        ]
    );
    let add = &manifest.contributions.tools[1];
    assert_eq!(add.description.as_deref(), Some("Add two numbers."));
    assert_eq!(
        Value::Object(add.metadata.clone().unwrap()),
        json!({"category": "math", "weight": 3, "beta": true})
    );
}

#[tokio::test]
async fn provider_siblings_and_context() {
    let server = spawn(Counter::default().into_extension().unwrap().router()).await;
    let client = Client::new(&server.base_url).unwrap();
    let request = ChatRequest::new("m1", vec![Message::user("hi")]);
    assert_eq!(
        client.chat("count", &request).await.unwrap().all_text(),
        "once m1"
    );
    let response = reqwest::Client::new()
        .post(format!(
            "{}/aep/model-providers/count/chat/stream",
            server.base_url
        ))
        .header("x-test", "seen")
        .json(&request)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(response.contains("m1 0 seen"), "{response}");
    assert_eq!(client.models("count").await.unwrap()[0].id, "for-count");
    let health = client.provider_health("count").await.unwrap();
    assert_eq!(health.details.as_deref(), Some("resting"));
}

#[tokio::test]
async fn tools_share_state_across_servers() {
    let state = Counter::default();
    let calls = state.calls.clone();
    let server = spawn(state.into_extension().unwrap().router()).await;
    let main = mcp(format!("{}/mcp", server.base_url)).await;
    let math = mcp(format!("{}/mcp/math", server.base_url)).await;

    let listed = main.list_all_tools().await.unwrap();
    assert_eq!(listed.len(), 1);
    let bump = &listed[0];
    assert_eq!(bump.title.as_deref(), Some("Bump the counter"));
    let annotations = bump.annotations.clone().unwrap();
    assert_eq!(
        (
            annotations.destructive_hint,
            annotations.open_world_hint,
            annotations.read_only_hint
        ),
        (Some(false), Some(false), None)
    );
    assert_eq!(
        Value::Object((*bump.input_schema).clone()),
        json!({"type": "object", "properties": {}})
    );
    // A non-object result is wrapped as {"result": ...}, and so is its schema.
    let output = Value::Object((**bump.output_schema.as_ref().unwrap()).clone());
    assert_eq!(output["properties"]["result"]["type"], "integer");
    for expected in 1..=3 {
        let result = main.call_tool(CallToolRequestParams::new("bump")).await.unwrap();
        assert_eq!(result.structured_content, Some(json!({"result": expected})));
    }
    assert_eq!(calls.load(Ordering::SeqCst), 3);

    let math_tools = math.list_all_tools().await.unwrap();
    let add = math_tools.iter().find(|t| t.name == "add").unwrap();
    let schema = Value::Object((*add.input_schema).clone());
    assert_eq!(schema["required"], json!(["a", "b"]));
    assert_eq!(schema["properties"]["a"]["description"], "First addend.");
    let args = json!({"a": 2, "b": 40}).as_object().unwrap().clone();
    let result = math
        .call_tool(CallToolRequestParams::new("add").with_arguments(args))
        .await
        .unwrap();
    assert_eq!(result.structured_content, Some(json!({"sum": 42})));
    let result = math
        .call_tool(CallToolRequestParams::new("refuse"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    // Tools of one server are not on the other.
    assert!(main.call_tool(CallToolRequestParams::new("add")).await.is_err());
    main.cancel().await.unwrap();
    math.cancel().await.unwrap();
}

#[derive(Clone, Default)]
struct Tuned;

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TunedOptions {
    /// Words to answer with.
    #[schemars(range(min = 1, max = 5))]
    words: u32,
}

#[aep_extension(id = "t.tuned", name = "Tuned")]
impl Tuned {
    #[model_provider(id = "tuned")]
    async fn tuned(&self, _request: ChatRequest, ctx: RequestContext) -> Result<ChatStream, AepError> {
        let words = ctx.native_options::<TunedOptions>().map(|o| o.words).unwrap_or(1);
        let text = vec!["la"; words as usize].join(" ");
        Ok(ChatStream::new(futures::stream::iter([
            Ok(ChatUpdate::text(text)),
            Ok(ChatUpdate::finish(FinishReason::Stop)),
        ])))
    }

    #[option_set]
    fn tuned_options(&self) -> aep_sdk::config::OptionSetDecl {
        aep_sdk::config::OptionSetDecl::new("t.tuned/model-profile", "tuned")
            .version_from_type::<TunedOptions>("1.0.0")
    }
}

#[tokio::test]
async fn option_sets_declared_through_the_macro() {
    let server = spawn(Tuned.into_extension().unwrap().router()).await;
    let client = Client::new(&server.base_url).unwrap();
    let manifest = client.discover().await.unwrap();
    assert!(manifest.capabilities.contains_key("aep.configuration"));
    let catalog = client.configuration().await.unwrap();
    let set = &catalog.option_sets[0];
    assert_eq!(
        (set.id.as_str(), set.contribution_id.as_str()),
        ("t.tuned/model-profile", "tuned")
    );
    let version = &set.versions[0];
    let mut request = ChatRequest::new("m", vec![Message::user("hi")]);
    let envelope = |words: u32| aep_sdk::protocol::VersionedOptions {
        option_set: set.id.clone(),
        version: version.version.clone(),
        schema_digest: version.schema_digest.clone(),
        values: json!({ "words": words }),
    };
    request.options = Some(aep_sdk::protocol::ModelOptions {
        native_options: Some(envelope(3)),
        ..Default::default()
    });
    assert_eq!(
        client.chat("tuned", &request).await.unwrap().all_text(),
        "la la la"
    );
    request.options = Some(aep_sdk::protocol::ModelOptions {
        native_options: Some(envelope(9)),
        ..Default::default()
    });
    let error = client.chat("tuned", &request).await.unwrap_err();
    assert_eq!(
        (error.status.map(|s| s.as_u16()), error.remote_code()),
        (Some(422), Some("invalid_options"))
    );
}
