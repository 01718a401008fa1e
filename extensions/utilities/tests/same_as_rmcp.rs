//! The macro-generated MCP server answers `tools/list` and `tools/call` the same as a
//! hand-written rmcp `#[tool_router]` server for the same tools. The only intended
//! difference: ours is shaped for strict clients (no `$schema`, `$defs` inlined), so
//! rmcp's schemas are normalized that way before comparing.

mod common;

use std::sync::Arc;

use aep_utilities::{Case, TextStats, sha256_hex};
use common::{McpClient, call, connect, start};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[derive(Deserialize, JsonSchema)]
struct HashArgs {
    /// The text to hash, as UTF-8.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct CompactArgs {
    /// The JSON document, as text.
    json: String,
}

#[derive(Deserialize, JsonSchema)]
struct CaseArgs {
    /// The text to convert.
    text: String,
    /// Target case: `upper`, `lower` or `title`.
    case: Case,
}

#[derive(Deserialize, JsonSchema)]
struct StatsArgs {
    /// The text to measure.
    text: String,
    /// Count only lines that are not blank (default false).
    #[serde(default)]
    skip_blank_lines: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
struct CountArgs {
    /// The number to count to, at most 100.
    to: u32,
}

#[derive(Clone)]
struct HandWritten {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl HandWritten {
    /// Compute the lowercase hex SHA-256 digest of UTF-8 text.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn hash_compute(&self, Parameters(args): Parameters<HashArgs>) -> String {
        sha256_hex(&args.text)
    }

    /// Remove insignificant whitespace from JSON text.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn json_compact(&self, Parameters(args): Parameters<CompactArgs>) -> Result<String, String> {
        serde_json::from_str::<Value>(&args.json)
            .map(|v| v.to_string())
            .map_err(|e| format!("not valid JSON: {e}"))
    }

    /// Change the letter case of text.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn text_case(&self, Parameters(args): Parameters<CaseArgs>) -> String {
        match args.case {
            Case::Upper => args.text.to_uppercase(),
            Case::Lower => args.text.to_lowercase(),
            Case::Title => args.text.split(' ').map(title).collect::<Vec<_>>().join(" "),
        }
    }

    /// Count the characters, words and lines of text.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn text_stats(&self, Parameters(args): Parameters<StatsArgs>) -> Json<TextStats> {
        let skip = args.skip_blank_lines.unwrap_or(false);
        Json(TextStats {
            characters: args.text.chars().count(),
            words: args.text.split_whitespace().count(),
            lines: args
                .text
                .lines()
                .filter(|l| !skip || !l.trim().is_empty())
                .count(),
        })
    }

    /// Count from 1 to `to` (at most 100), 10 ms a step, reporting progress at each step.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn count_slowly(&self, Parameters(args): Parameters<CountArgs>) -> Result<String, String> {
        if args.to > 100 {
            return Err(format!("count to 100 at most, not {}", args.to));
        }
        tokio::time::sleep(std::time::Duration::from_millis(10 * u64::from(args.to))).await;
        Ok(format!("counted to {}", args.to))
    }
}

fn title(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| {
            c.to_uppercase()
                .chain(chars.flat_map(char::to_lowercase))
                .collect()
        })
        .unwrap_or_default()
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for HandWritten {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

async fn hand_written() -> aep_sdk::testing::TestServer {
    let service = StreamableHttpService::new(
        || {
            Ok(HandWritten {
                tool_router: HandWritten::tool_router(),
            })
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    aep_sdk::testing::spawn(axum_router(service)).await
}

fn axum_router(service: StreamableHttpService<HandWritten, LocalSessionManager>) -> axum::Router {
    axum::Router::new().route_service("/mcp", service)
}

/// Inlines `$ref`s to `$defs` (a referring schema's own members win) and drops
/// `$schema`: the strict-client shape the SDK generates directly.
fn normalize(schema: &Map<String, Value>) -> Value {
    fn inline(value: &Value, defs: &Map<String, Value>) -> Value {
        match value {
            Value::Object(object) => {
                let mut out = Map::new();
                if let Some(Value::String(reference)) = object.get("$ref") {
                    let name = reference.trim_start_matches("#/$defs/");
                    if let Some(Value::Object(target)) = defs.get(name).map(|d| inline(d, defs)) {
                        out.extend(target);
                    }
                }
                for (key, member) in object {
                    if key != "$ref" && key != "$defs" && key != "$schema" {
                        out.insert(key.clone(), inline(member, defs));
                    }
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(|i| inline(i, defs)).collect()),
            other => other.clone(),
        }
    }
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    inline(&Value::Object(schema.clone()), &defs)
}

/// The SDK's standard shaping (idempotent on its own schemas): only standard `format`s,
/// and optional inputs without their `null`.
fn shaped(mut schema: Value, input: bool) -> Value {
    aep_sdk::schema::standardize(&mut schema);
    if input {
        aep_sdk::schema::optional_without_null(&mut schema);
    }
    schema
}

fn comparable(tools: Vec<rmcp::model::Tool>) -> Vec<Value> {
    let mut tools: Vec<Value> = tools
        .into_iter()
        .map(|t| {
            json!({
                "name": t.name,
                "title": t.title,
                "description": t.description,
                "inputSchema": shaped(normalize(&t.input_schema), true),
                "outputSchema": t.output_schema.map(|s| shaped(normalize(&s), false)),
                "annotations": t.annotations,
            })
        })
        .collect();
    tools.sort_by_key(|t| t["name"].as_str().unwrap_or_default().to_owned());
    tools
}

async fn both() -> (
    McpClient,
    McpClient,
    aep_sdk::testing::TestServer,
    aep_sdk::testing::TestServer,
) {
    let ours = start().await;
    let theirs = hand_written().await;
    let a = connect(&format!("{}/mcp", ours.base_url)).await;
    let b = connect(&format!("{}/mcp", theirs.base_url)).await;
    (a, b, ours, theirs)
}

#[tokio::test]
async fn tools_list_matches_a_hand_written_rmcp_server() {
    let (ours, theirs, _a, _b) = both().await;
    let ours_listed = ours.list_all_tools().await.unwrap();
    // Ours needs no normalization: it is already in the strict shape.
    for tool in &ours_listed {
        assert_eq!(
            normalize(&tool.input_schema),
            Value::Object((*tool.input_schema).clone())
        );
    }
    assert_eq!(
        comparable(ours_listed),
        comparable(theirs.list_all_tools().await.unwrap())
    );
}

#[tokio::test]
async fn tools_call_matches_a_hand_written_rmcp_server() {
    let (ours, theirs, _a, _b) = both().await;
    let calls = [
        ("hash_compute", json!({"text": "abc"})),
        ("json_compact", json!({"json": "[1, 2]"})),
        ("json_compact", json!({"json": "nope"})),
        ("text_case", json!({"text": "hello world", "case": "upper"})),
        ("text_stats", json!({"text": "a b\nc"})),
        ("count_slowly", json!({"to": 3})),
        ("count_slowly", json!({"to": 101})),
    ];
    for (name, arguments) in calls {
        let a = call(&ours, name, arguments.clone()).await;
        let b = call(&theirs, name, arguments).await;
        assert_eq!(
            (a.content, a.structured_content, a.is_error.unwrap_or(false)),
            (b.content, b.structured_content, b.is_error.unwrap_or(false)),
            "{name}"
        );
    }
}
