//! The recommended MCP checks `6.resources.list`, `6.resources.read`, `6.prompts.list`,
//! `6.prompts.get` and `6.tools.progress`: they pass on the utilities extension (with
//! what they covered in their notes), and on a hand-written rmcp server behind an AEP
//! manifest they fail exactly where it is broken (a listed resource that does not read,
//! a prompt without messages, progress with a token the client never sent), warn without
//! `strict`, and skip when the server does not advertise resources or prompts.

use std::sync::Arc;

use aep_conformance::{Options, Report, Status, check_with};
use aep_sdk::server::AepExtension;
use aep_sdk::testing::spawn;
use axum::Router;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, NumberOrString, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    Prompt, PromptArgument, PromptMessage, PromptsCapability, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
    ResourcesCapability, Role, ServerCapabilities, ServerConfig, Tool, ToolAnnotations, ToolsCapability,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Value, json};

/// The five checks this file is about.
const CHECKS: [&str; 5] = [
    "6.tools.progress",
    "6.resources.list",
    "6.resources.read",
    "6.prompts.list",
    "6.prompts.get",
];

fn section_6(strict: bool) -> Options {
    Options {
        strict,
        only: vec!["6".into()],
        ..Options::default()
    }
}

fn status(report: &Report, id: &str) -> Status {
    report
        .get(id)
        .unwrap_or_else(|| panic!("{id} did not run"))
        .status
}

fn details(report: &Report, id: &str) -> String {
    let result = report.get(id).unwrap_or_else(|| panic!("{id} did not run"));
    let mut text = result.reason.clone().unwrap_or_default();
    for detail in &result.details {
        text.push('\n');
        text.push_str(detail);
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_utilities_extension_passes_them_all() {
    let extension = aep_utilities::Utilities
        .into_extension()
        .expect("valid declaration");
    let server = spawn(extension.router()).await;
    let report = check_with(&server.base_url, &section_6(true)).await;
    let table = report.to_table(false);
    report.assert_success();
    for id in CHECKS {
        assert_eq!(status(&report, id), Status::Passed, "{id}:\n{table}");
    }
    let read = details(&report, "6.resources.read");
    assert!(
        read.contains("utilities: docs://utilities/readme: 1 content item(s)"),
        "{read}"
    );
    let listed = details(&report, "6.resources.list");
    assert!(
        listed.contains("server 'utilities': 1 resource(s), 1 resource template(s)"),
        "{listed}"
    );
    let got = details(&report, "6.prompts.get");
    assert!(
        got.contains(r#"utilities/summarize (text="sample"): 1 message(s)"#),
        "{got}"
    );
    // count_slowly is called with to = 1: one step, one notification, with the token.
    let progress = details(&report, "6.tools.progress");
    assert!(
        progress.contains("utilities/count_slowly: 1 notifications/progress, each with its progressToken"),
        "{progress}"
    );
    assert!(
        progress.contains("no notifications/progress seen for utilities/hash_compute"),
        "{progress}"
    );
}

/// How the hand-written server's `tick` tool reports progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Progress {
    /// Twice, with the request's token.
    Echo,
    /// Twice, with a token of its own.
    Wrong,
    /// Never.
    Silent,
}

/// A hand-written MCP server: the tool `tick`, and when enabled the resource
/// `mem://notes`, the template `mem://{name}`, and the prompts `plain` (no arguments)
/// and `pick` (a required `mode` that only accepts `a` or `b`).
#[derive(Debug, Clone, Copy)]
struct Handwritten {
    resources: bool,
    prompts: bool,
    progress: Progress,
    /// `resources/read` of `mem://notes` answers an internal error.
    read_fails: bool,
    /// `prompts/get` of `plain` answers no message.
    prompt_empty: bool,
}

impl Handwritten {
    const GOOD: Self = Self {
        resources: true,
        prompts: true,
        progress: Progress::Echo,
        read_fails: false,
        prompt_empty: false,
    };
}

fn tick() -> Tool {
    let Value::Object(schema) = json!({"type": "object", "properties": {}}) else {
        unreachable!()
    };
    Tool::new("tick", "Tick twice.", Arc::new(schema)).annotate(ToolAnnotations::new().read_only(true))
}

impl ServerHandler for Handwritten {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::default();
        capabilities.tools = Some(ToolsCapability::default());
        if self.resources {
            capabilities.resources = Some(ResourcesCapability::default());
        }
        if self.prompts {
            capabilities.prompts = Some(PromptsCapability::default());
        }
        ServerConfig::new(capabilities)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![tick()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "tick" {
            return Err(ErrorData::invalid_params("no such tool", None));
        }
        let token = match self.progress {
            Progress::Echo => context.meta.get_progress_token(),
            Progress::Wrong => Some(ProgressToken(NumberOrString::String("not-yours".into()))),
            Progress::Silent => None,
        };
        if let Some(token) = token {
            for step in 1..=2 {
                let mut param = ProgressNotificationParam::new(token.clone(), f64::from(step));
                param.total = Some(2.0);
                let _ = context.peer.notify_progress(param).await;
            }
        }
        Ok(CallToolResult::success(vec![ContentBlock::text("ticked")]).into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let notes = Resource::new("mem://notes", "notes").with_mime_type("text/plain");
        Ok(ListResourcesResult::with_all_items(vec![notes]))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let template = ResourceTemplate::new("mem://{name}", "memory");
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if self.read_fails {
            return Err(ErrorData::internal_error("the notes are gone", None));
        }
        let text = ResourceContents::text("remember the milk", request.uri);
        Ok(ReadResourceResult::new(vec![text]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let plain = Prompt::new("plain", Some("No arguments."), None);
        let mode = PromptArgument::new("mode").with_required(true);
        let pick = Prompt::new("pick", Some("A mode: a or b."), Some(vec![mode]));
        Ok(ListPromptsResult::with_all_items(vec![plain, pick]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let messages = match request.name.as_str() {
            "plain" if self.prompt_empty => Vec::new(),
            "plain" => vec![PromptMessage::new_text(Role::User, "Say something plain.")],
            "pick" => {
                let mode = request
                    .arguments
                    .as_ref()
                    .and_then(|a| a.get("mode"))
                    .and_then(Value::as_str);
                match mode {
                    Some(mode @ ("a" | "b")) => {
                        vec![PromptMessage::new_text(Role::User, format!("Mode {mode}."))]
                    }
                    _ => return Err(ErrorData::invalid_params("mode is a or b", None)),
                }
            }
            _ => return Err(ErrorData::invalid_params("no such prompt", None)),
        };
        Ok(GetPromptResult::new(messages).into())
    }
}

/// The server at `/mcp` behind an AEP manifest declaring it (both discovery routes).
fn extension(server: Handwritten) -> Router {
    let service = StreamableHttpService::new(
        move || Ok(server),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let manifest = |version: &'static str| {
        json!({
            "protocolVersion": version,
            "extension": {"id": "acme.handwritten", "name": "Hand-written", "version": "1.0.0"},
            "capabilities": {
                "aep.health": {"version": "1.0", "endpoint": "/aep/health"},
                "aep.tools": {"version": "1.0"}
            },
            "contributions": {
                "modelProviders": [],
                "tools": [{"id": "tick", "displayName": "Tick", "mcp": {"server": "handwritten", "tool": "tick"}}]
            },
            "mcp": {"servers": [{"id": "handwritten", "endpoint": "/mcp"}]}
        })
    };
    let (v1, current) = (manifest("1.0"), manifest("2026-08-01"));
    Router::new()
        .route(
            "/.well-known/agentstration",
            axum::routing::get(move || async move { axum::Json(v1) }),
        )
        .route(
            "/.well-known/aep",
            axum::routing::get(move || async move { axum::Json(current) }),
        )
        .route_service("/mcp", service)
}

async fn run(server: Handwritten, strict: bool) -> Report {
    let served = spawn(extension(server)).await;
    check_with(&served.base_url, &section_6(strict)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correct_hand_written_server_passes() {
    let report = run(Handwritten::GOOD, true).await;
    let table = report.to_table(false);
    for id in CHECKS {
        assert_eq!(status(&report, id), Status::Passed, "{id}:\n{table}");
    }
    assert!(
        details(&report, "6.resources.read").contains("handwritten: mem://notes: 1 content item(s)"),
        "{table}"
    );
    // `pick` refuses "sample" as invalid params: noted, not failed; `plain` is judged.
    let got = details(&report, "6.prompts.get");
    assert!(
        got.contains("handwritten/plain (no arguments): 1 message(s)"),
        "{got}"
    );
    assert!(
        got.contains(r#"not checked: handwritten/pick: refused the sample arguments (mode="sample") as invalid params: mode is a or b"#),
        "{got}"
    );
    let progress = details(&report, "6.tools.progress");
    assert!(
        progress.contains("handwritten/tick: 2 notifications/progress, each with its progressToken"),
        "{progress}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listed_resource_that_does_not_read_fails_the_read_check() {
    let broken = Handwritten {
        read_fails: true,
        ..Handwritten::GOOD
    };
    let report = run(broken, true).await;
    let table = report.to_table(false);
    assert_eq!(status(&report, "6.resources.read"), Status::Failed, "{table}");
    let reason = details(&report, "6.resources.read");
    assert!(
        reason.contains("handwritten: mem://notes: resources/read failed")
            && reason.contains("the notes are gone"),
        "{reason}"
    );
    for id in [
        "6.resources.list",
        "6.prompts.list",
        "6.prompts.get",
        "6.tools.progress",
    ] {
        assert_eq!(status(&report, id), Status::Passed, "{id}:\n{table}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_without_messages_fails_the_get_check() {
    let broken = Handwritten {
        prompt_empty: true,
        ..Handwritten::GOOD
    };
    let report = run(broken, true).await;
    let table = report.to_table(false);
    assert_eq!(status(&report, "6.prompts.get"), Status::Failed, "{table}");
    assert!(
        details(&report, "6.prompts.get")
            .contains("handwritten/plain (no arguments): prompts/get answered no message"),
        "{table}"
    );
    assert_eq!(status(&report, "6.prompts.list"), Status::Passed, "{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_with_a_foreign_token_fails_and_only_warns_without_strict() {
    let broken = Handwritten {
        progress: Progress::Wrong,
        ..Handwritten::GOOD
    };
    let report = run(broken, true).await;
    let table = report.to_table(false);
    assert_eq!(status(&report, "6.tools.progress"), Status::Failed, "{table}");
    let reason = details(&report, "6.tools.progress");
    assert!(
        reason.contains("handwritten/tick: called with progressToken ")
            && reason.contains(r#"but 2 notifications/progress carried "not-yours", "not-yours""#),
        "{reason}"
    );
    // The call itself is fine.
    assert_eq!(status(&report, "6.tools.call"), Status::Passed, "{table}");

    let lenient = run(broken, false).await;
    assert_eq!(status(&lenient, "6.tools.progress"), Status::Warned);
    assert!(
        !lenient.failed().iter().any(|r| CHECKS.contains(&r.id)),
        "{}",
        lenient.to_table(false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_progress_passes_with_a_note_and_unadvertised_features_are_skipped() {
    let plain = Handwritten {
        resources: false,
        prompts: false,
        progress: Progress::Silent,
        ..Handwritten::GOOD
    };
    let report = run(plain, true).await;
    let table = report.to_table(false);
    assert_eq!(status(&report, "6.tools.progress"), Status::Passed, "{table}");
    assert!(
        details(&report, "6.tools.progress")
            .contains("no notifications/progress seen for handwritten/tick (nothing to compare)"),
        "{table}"
    );
    for (id, feature) in [
        ("6.resources.list", "resources"),
        ("6.resources.read", "resources"),
        ("6.prompts.list", "prompts"),
        ("6.prompts.get", "prompts"),
    ] {
        assert_eq!(status(&report, id), Status::Skipped, "{id}:\n{table}");
        let reason = details(&report, id);
        assert_eq!(
            reason,
            format!("server 'handwritten' does not advertise {feature}")
        );
    }

    // With tool calls turned off, there is nothing to watch for progress.
    let served = spawn(extension(plain)).await;
    let options = Options {
        call_tools: false,
        ..section_6(true)
    };
    let report = check_with(&served.base_url, &options).await;
    assert_eq!(status(&report, "6.tools.progress"), Status::Skipped);
    assert!(details(&report, "6.tools.progress").contains("--no-tool-calls"));
}
