//! Resources, resource templates, prompts, the tool switch and the caller identity, as a
//! real MCP client (rmcp's) sees them: listed and read, errors with MCP's codes,
//! capabilities exactly for what exists, and `notifications/tools/list_changed` when the
//! extension switches a tool off and on.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aep_sdk::prelude::*;
use aep_sdk::server::BearerAuth;
use aep_sdk::testing::{eventually, spawn};
use aep_sdk::tool::{Blob, ToolSwitch};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, GetPromptRequestParams, PromptMessage, ReadResourceRequestParams,
    ResourceContents, Role,
};
use rmcp::service::{NotificationContext, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::json;

#[derive(Clone, Default)]
struct Library {
    switch: ToolSwitch,
}

#[aep_extension(id = "t.library", name = "Library", version = "1.0.0", tool_switch = switch)]
impl Library {
    /// The library's rules.
    #[resource(uri = "docs://library/rules", name = "rules", mime_type = "text/markdown")]
    async fn rules(&self) -> Result<String, ToolError> {
        Ok("# Rules\nBe quiet.".to_owned())
    }

    /// A tiny PNG-ish blob.
    #[resource(uri = "docs://library/logo", name = "logo", mime_type = "image/png")]
    async fn logo(&self) -> Vec<u8> {
        vec![0x89, b'P', b'N', b'G']
    }

    /// Book `id` of shelf `shelf` (shelf 0 is empty).
    #[resource(
        uri_template = "books://{shelf}/{id}",
        name = "book",
        mime_type = "text/plain"
    )]
    async fn book(&self, shelf: u32, id: String, ctx: ToolContext) -> Result<Blob, ToolError> {
        let _ = ctx.cancellation();
        if shelf == 0 {
            return Err(ToolError::not_found(format!("shelf 0 has no book '{id}'")));
        }
        Ok(Blob(format!("{shelf}:{id}").into_bytes()))
    }

    /// Asks for a summary of `text`.
    #[prompt(name = "summarize")]
    async fn summarize(
        &self,
        /// The text to summarize.
        text: String,
        /// How: "short" or "bullets".
        style: Option<String>,
    ) -> Result<String, ToolError> {
        Ok(format!(
            "Summarize ({}): {text}",
            style.as_deref().unwrap_or("short")
        ))
    }

    /// A two-message conversation about `n` books.
    #[prompt]
    async fn recommend(&self, n: u8) -> Vec<PromptMessage> {
        vec![
            PromptMessage::new_text(Role::User, format!("Recommend {n} books.")),
            PromptMessage::new_text(Role::Assistant, "Which genre?"),
        ]
    }

    /// Who called.
    #[tool]
    async fn whoami(&self, ctx: ToolContext) -> String {
        ctx.caller()
            .map_or("nobody".to_owned(), |c| c.identity().to_owned())
    }

    /// Answers with who called.
    #[model_provider(id = "whoami", models = ["who-1"])]
    async fn whoami_provider(
        &self,
        _request: ChatRequest,
        ctx: RequestContext,
    ) -> Result<ChatResponse, AepError> {
        let who = ctx.caller().map_or("nobody", |c| c.identity());
        Ok(ChatResponse::text(who))
    }

    /// Switched off and on by the test.
    #[tool]
    async fn lend(&self) -> String {
        "lent".to_owned()
    }
}

#[derive(Clone, Default)]
struct Watch {
    list_changed: Arc<AtomicUsize>,
}

impl ClientHandler for Watch {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }
}

fn read(uri: &str) -> ReadResourceRequestParams {
    ReadResourceRequestParams::new(uri)
}

fn text_of(contents: &ResourceContents) -> (&str, Option<&str>, &str) {
    match contents {
        ResourceContents::TextResourceContents {
            uri, mime_type, text, ..
        } => (uri, mime_type.as_deref(), text),
        other => panic!("text contents expected, got {other:?}"),
    }
}

fn blob_of(contents: &ResourceContents) -> (&str, &str) {
    match contents {
        ResourceContents::BlobResourceContents { uri, blob, .. } => (uri, blob),
        other => panic!("blob contents expected, got {other:?}"),
    }
}

#[tokio::test]
async fn resources_and_templates_list_and_read() {
    let server = spawn(Library::default().into_extension().unwrap().router()).await;
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let client = ClientConfig::default().serve(transport).await.unwrap();
    let capabilities = client.peer_info().unwrap().capabilities.clone();
    assert!(capabilities.resources.is_some(), "resources advertised");
    assert!(capabilities.prompts.is_some(), "prompts advertised");
    assert_eq!(
        capabilities.tools.unwrap().list_changed,
        Some(true),
        "a switch means listChanged"
    );

    let listed = client.list_all_resources().await.unwrap();
    let uris: Vec<_> = listed.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["docs://library/rules", "docs://library/logo"]);
    assert_eq!(listed[0].name, "rules");
    assert_eq!(listed[0].description.as_deref(), Some("The library's rules."));
    assert_eq!(listed[0].mime_type.as_deref(), Some("text/markdown"));

    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates.len(), 1);
    assert_eq!(templates[0].uri_template, "books://{shelf}/{id}");
    assert_eq!(
        templates[0].description.as_deref(),
        Some("Book `id` of shelf `shelf` (shelf 0 is empty).")
    );

    let rules = client.read_resource(read("docs://library/rules")).await.unwrap();
    assert_eq!(
        text_of(&rules.contents[0]),
        (
            "docs://library/rules",
            Some("text/markdown"),
            "# Rules\nBe quiet."
        )
    );
    let logo = client.read_resource(read("docs://library/logo")).await.unwrap();
    assert_eq!(blob_of(&logo.contents[0]), ("docs://library/logo", "iVBORw=="));

    // A template read: variables parsed into typed parameters, percent-decoded.
    let book = client
        .read_resource(read("books://7/war%20and%20peace"))
        .await
        .unwrap();
    let (uri, blob) = blob_of(&book.contents[0]);
    assert_eq!(uri, "books://7/war%20and%20peace");
    use base64::Engine;
    let decoded = base64::engine::general_purpose::STANDARD.decode(blob).unwrap();
    assert_eq!(decoded, b"7:war and peace");

    // Unknown URIs, a variable that does not parse, and the method's own not-found.
    for (uri, code, says) in [
        ("docs://library/nothing", -32002, "no resource matches"),
        ("books://7", -32002, "no resource matches"),
        ("books://seven/x", -32602, "argument 'shelf'"),
        ("books://0/x", -32002, "shelf 0 has no book 'x'"),
    ] {
        let error = client.read_resource(read(uri)).await.unwrap_err();
        let rmcp::ServiceError::McpError(error) = error else {
            panic!("{uri}: a JSON-RPC error expected, got {error:?}");
        };
        assert_eq!(error.code.0, code, "{uri}: {error:?}");
        assert!(error.message.contains(says), "{uri}: {}", error.message);
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn prompts_list_and_get_and_refuse_missing_arguments() {
    let server = spawn(Library::default().into_extension().unwrap().router()).await;
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let client = ClientConfig::default().serve(transport).await.unwrap();

    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<_> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["summarize", "recommend"]);
    let arguments = prompts[0].arguments.as_ref().unwrap();
    assert_eq!(arguments[0].name, "text");
    assert_eq!(arguments[0].required, Some(true));
    assert_eq!(
        arguments[0].description.as_deref(),
        Some("The text to summarize.")
    );
    assert_eq!(arguments[1].name, "style");
    assert_eq!(arguments[1].required, Some(false));
    assert_eq!(
        prompts[0].description.as_deref(),
        Some("Asks for a summary of `text`.")
    );

    let args = |v: serde_json::Value| v.as_object().unwrap().clone();
    let got = client
        .get_prompt(
            GetPromptRequestParams::new("summarize").with_arguments(args(json!({"text": "a long story"}))),
        )
        .await
        .unwrap();
    assert_eq!(got.messages.len(), 1);
    assert_eq!(got.messages[0].role, Role::User);
    assert_eq!(
        got.messages[0].content.as_text().unwrap().text,
        "Summarize (short): a long story"
    );
    let got = client
        .get_prompt(
            GetPromptRequestParams::new("summarize")
                .with_arguments(args(json!({"text": "t", "style": "bullets"}))),
        )
        .await
        .unwrap();
    assert_eq!(
        got.messages[0].content.as_text().unwrap().text,
        "Summarize (bullets): t"
    );
    let got = client
        .get_prompt(GetPromptRequestParams::new("recommend").with_arguments(args(json!({"n": "3"}))))
        .await
        .unwrap();
    assert_eq!(got.messages.len(), 2);
    assert_eq!(got.messages[1].role, Role::Assistant);

    for (name, arguments, says) in [
        ("summarize", json!({}), "missing required argument 'text'"),
        ("recommend", json!({"n": "many"}), "argument 'n'"),
        ("nope", json!({}), "prompt 'nope' not found"),
    ] {
        let error = client
            .get_prompt(GetPromptRequestParams::new(name).with_arguments(args(arguments)))
            .await
            .unwrap_err();
        let rmcp::ServiceError::McpError(error) = error else {
            panic!("{name}: a JSON-RPC error expected, got {error:?}");
        };
        assert_eq!(error.code.0, -32602, "{name}: {error:?}");
        assert!(error.message.contains(says), "{name}: {}", error.message);
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_connected_client_sees_tools_switched_off_and_on() {
    let library = Library::default();
    let server = spawn(library.clone().into_extension().unwrap().router()).await;
    let watch = Watch::default();
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let client = watch.clone().serve(transport).await.unwrap();
    let names = async || -> Vec<String> {
        let tools = client.list_all_tools().await.unwrap();
        tools.into_iter().map(|t| t.name.to_string()).collect()
    };
    assert_eq!(names().await, ["whoami", "lend"]);

    assert!(library.switch.disable("lend").await);
    eventually("a list_changed notification", || {
        watch.list_changed.load(Ordering::SeqCst) == 1
    })
    .await;
    assert_eq!(names().await, ["whoami"]);
    let refused = client
        .call_tool(CallToolRequestParams::new("lend"))
        .await
        .unwrap_err();
    assert!(
        format!("{refused:?}").contains("tool 'lend' is switched off"),
        "{refused:?}"
    );

    assert!(
        !library.switch.disable("lend").await,
        "no change, no notification"
    );
    assert!(library.switch.enable("lend").await);
    eventually("a second list_changed notification", || {
        watch.list_changed.load(Ordering::SeqCst) == 2
    })
    .await;
    assert_eq!(names().await, ["whoami", "lend"]);
    let lent = client
        .call_tool(CallToolRequestParams::new("lend"))
        .await
        .unwrap();
    assert_eq!(lent.content[0].as_text().unwrap().text, "lent");
    assert_eq!(watch.list_changed.load(Ordering::SeqCst), 2);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_tool_knows_the_caller_identity_and_never_the_token() {
    let auth = BearerAuth::named("ci-bot", "t0ken-one").token("alice", "t0ken-two");
    let extension = Library::default()
        .extension_builder()
        .bearer_auth(auth)
        .build()
        .unwrap();
    let server = spawn(extension.router()).await;
    for (token, identity) in [("t0ken-one", "ci-bot"), ("t0ken-two", "alice")] {
        let config = rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
            format!("{}/mcp", server.base_url),
        )
        .auth_header(token);
        let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
        let client = ClientConfig::default().serve(transport).await.unwrap();
        let result = client
            .call_tool(CallToolRequestParams::new("whoami"))
            .await
            .unwrap();
        assert_eq!(result.content[0].as_text().unwrap().text, identity);
        client.cancel().await.unwrap();
    }
    // A model provider sees it too.
    let client = aep_sdk::client::Client::builder(&server.base_url)
        .bearer_token("t0ken-two")
        .build()
        .unwrap();
    let request = ChatRequest::new("who-1", vec![Message::user("who am I?")]);
    assert_eq!(client.chat("whoami", &request).await.unwrap().all_text(), "alice");
    // Without auth there is no caller.
    let server = spawn(Library::default().into_extension().unwrap().router()).await;
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", server.base_url));
    let client = ClientConfig::default().serve(transport).await.unwrap();
    let result = client
        .call_tool(CallToolRequestParams::new("whoami"))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "nobody");
    client.cancel().await.unwrap();
}
