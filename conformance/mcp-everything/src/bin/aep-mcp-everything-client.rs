//! The official MCP conformance suite's everything client, built on the host's MCP client
//! pool (`aep_host::mcp::McpPool`, rmcp's client over Streamable HTTP).
//!
//! The suite runs it as `aep-mcp-everything-client <server URL>` with the scenario in
//! `MCP_CONFORMANCE_SCENARIO`. Every scenario gets the same client: connect and
//! initialize, list the tools, call each one with arguments built from its input schema,
//! and answer elicitations by accepting with the schema defaults
//! ([`ElicitationPolicy::AcceptDefaults`]). A scenario the client knows also names the
//! tool it must find (`tools_call`: `add_numbers`; `sse-retry`: `test_reconnection`, whose
//! answer comes on the resumed stream; `elicitation-sep1034-client-defaults`: a tool that
//! elicits, and at least one elicitation must have been answered).
//!
//! A server that answers 401 gets the host's OAuth client (`aep_host::oauth`), headless:
//! the suite's authorization servers redirect straight back with the code. The client
//! id is a Client ID Metadata Document URL where the server supports those (the suite's
//! fixed one), else dynamic registration, or the pre-registered `client_id` and
//! `client_secret` of `MCP_CONFORMANCE_CONTEXT` (JSON) when the scenario gives them.
//!
//! Exit 0 when everything succeeded, 1 with the reason on stderr otherwise. Every wait
//! is bounded, the whole run by 25 s (the suite's own limit is 30 s). `RUST_LOG` turns
//! on the pool's and rmcp's logs (stderr).

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use aep_host::JsonObject;
use aep_host::mcp::{ElicitationPolicy, McpPool, PoolOptions};
use aep_host::oauth::{Authorize, OAuthOptions, Secret};
use serde_json::Value;
use url::Url;

/// The command line: the server's URL (the scenario comes from the environment).
///
/// The help texts are what `--help` prints, so they are plain text.
#[derive(clap::Parser)]
#[command(
    name = "aep-mcp-everything-client",
    version,
    about = "The MCP conformance suite's everything client, built on aep-host's MCP client pool.\n\
             Connects to the MCP server at URL, lists its tools, calls each one with arguments \
             built from its input schema and answers elicitations with the schema defaults; \
             signs in with OAuth 2.1 (headless) when the server answers 401.",
    long_about = None,
    after_help = EXAMPLES
)]
struct Args {
    /// The MCP server's URL (its Streamable HTTP endpoint).
    #[arg(value_name = "URL", value_parser = Url::parse)]
    url: Url,
}

/// The end of `--help`.
const EXAMPLES: &str = "\
Environment:
  MCP_CONFORMANCE_SCENARIO  the scenario being run (tools_call, sse-retry, ...)
  MCP_CONFORMANCE_CONTEXT   JSON with a pre-registered client_id and client_secret, if any
  RUST_LOG                  the MCP client's logs, on stderr

Examples:
  MCP_CONFORMANCE_SCENARIO=tools_call aep-mcp-everything-client http://127.0.0.1:3000/mcp
      run the tools_call scenario against that server
  conformance client --command aep-mcp-everything-client --scenario tools_call
      how the official MCP conformance suite runs it: the suite adds the URL and sets the scenario

Exit status: 0 when everything succeeded, 1 with the reason on stderr, 2 on a usage error.";

/// The whole run; the suite kills the client at 30 s.
const RUN_BOUND: Duration = Duration::from_secs(25);

/// The client metadata document URL the suite's authorization servers expect as client
/// id when they support Client ID Metadata Documents (auth/basic-cimd): it need not
/// resolve, they know its content.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// How the client signs in: headless, with the context's pre-registered client if any.
fn oauth_options(context: &Value) -> OAuthOptions {
    let mut options = OAuthOptions::authorization_code(Authorize::headless())
        .with_client_metadata_url(Url::parse(CLIENT_METADATA_URL).expect("a URL"));
    options.request_timeout = Duration::from_secs(5);
    if let Some(id) = context.get("client_id").and_then(Value::as_str) {
        let secret = context
            .get("client_secret")
            .and_then(Value::as_str)
            .map(Secret::new);
        options = options.with_client(id, secret);
    }
    options
}

/// `MCP_CONFORMANCE_CONTEXT`, an object (empty when unset or not JSON).
fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| Value::Object(Default::default()))
}

/// What a scenario the client knows requires beyond the common flow.
struct Expect {
    /// A tool that must be listed (and is called like every other).
    tool: Option<&'static str>,
    /// Whether at least one `elicitation/create` must have been answered.
    elicits: bool,
}

fn expect(scenario: &str) -> Expect {
    match scenario {
        "tools_call" => Expect {
            tool: Some("add_numbers"),
            elicits: false,
        },
        "sse-retry" => Expect {
            tool: Some("test_reconnection"),
            elicits: false,
        },
        "elicitation-sep1034-client-defaults" => Expect {
            tool: Some("test_client_elicitation_defaults"),
            elicits: true,
        },
        _ => Expect {
            tool: None,
            elicits: false,
        },
    }
}

fn main() -> ExitCode {
    use tracing_subscriber::prelude::*;
    let (filter, problem) = aep_sdk::server::log_filter(tracing::level_filters::LevelFilter::WARN);
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(filter);
    let _ = tracing_subscriber::registry().with(logs).try_init();
    if let Some(problem) = problem {
        tracing::warn!("RUST_LOG ignored, logging at warn: {problem}");
    }

    let Args { url } = <Args as clap::Parser>::parse();
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("aep-mcp-everything-client: no runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        match tokio::time::timeout(RUN_BOUND, run(&url, &scenario)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(format!("not done within {RUN_BOUND:?}")),
        }
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(reason) => {
            let name = if scenario.is_empty() {
                "(no scenario)"
            } else {
                &scenario
            };
            eprintln!("aep-mcp-everything-client: {name}: {reason}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &Url, scenario: &str) -> Result<(), String> {
    let pool = McpPool::with_options(PoolOptions {
        connect_timeout: Duration::from_secs(10),
        request_timeout: Duration::from_secs(10),
        call_timeout: Duration::from_secs(20),
        elicitation: Some(ElicitationPolicy::AcceptDefaults),
        ..PoolOptions::default()
    });
    pool.set_oauth(url, oauth_options(&context()));
    let outcome = exercise(&pool, url, &expect(scenario)).await;
    pool.close().await;
    outcome
}

async fn exercise(pool: &McpPool, url: &Url, expect: &Expect) -> Result<(), String> {
    let tools = pool.tools(url).await.map_err(|e| e.to_string())?;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    println!("tools/list: {}", names.join(", "));
    if let Some(tool) = expect.tool
        && !names.contains(&tool)
    {
        return Err(format!("the server lists no tool '{tool}' (it lists: {names:?})"));
    }
    for tool in tools.iter() {
        let arguments = arguments(&tool.input_schema);
        println!("tools/call {} {}", tool.name, Value::Object(arguments.clone()));
        let result = pool
            .call(url, &tool.name, arguments)
            .await
            .map_err(|e| e.to_string())?;
        let text = text_of(&serde_json::to_value(&result).unwrap_or(Value::Null));
        println!("  -> {text}");
        if result.is_error == Some(true) {
            return Err(format!("tool '{}' failed: {text}", tool.name));
        }
    }
    let elicitations = pool.stats(url).elicitations;
    if expect.elicits && elicitations == 0 {
        return Err("the server sent no elicitation/create to answer".to_owned());
    }
    if elicitations > 0 {
        println!("elicitations answered: {elicitations}");
    }
    Ok(())
}

/// The text of a tool result's content blocks (other blocks by their type).
fn text_of(result: &Value) -> String {
    let blocks = result.get("content").and_then(Value::as_array);
    blocks
        .into_iter()
        .flatten()
        .map(|block| match block.get("text").and_then(Value::as_str) {
            Some(text) => text.to_owned(),
            None => format!("[{}]", block.get("type").and_then(Value::as_str).unwrap_or("?")),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Arguments for a tool from its input schema: a value for every required property
/// (none when the schema requires none).
fn arguments(schema: &JsonObject) -> JsonObject {
    let mut next = 1;
    object(schema, &mut next)
}

fn object(schema: &JsonObject, next: &mut i64) -> JsonObject {
    let empty = JsonObject::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required = schema.get("required").and_then(Value::as_array);
    let mut arguments = JsonObject::new();
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let property = properties.get(name).unwrap_or(&Value::Null);
        arguments.insert(name.to_owned(), example(property, next));
    }
    arguments
}

/// A value `schema` accepts: its `default`, `const`, first `enum` member or first
/// example, else one made from its `type` (numbers count up from 1 so that two numeric
/// arguments differ).
fn example(schema: &Value, next: &mut i64) -> Value {
    let Some(schema) = schema.as_object() else {
        return Value::String("example".to_owned());
    };
    for key in ["default", "const"] {
        if let Some(value) = schema.get(key) {
            return value.clone();
        }
    }
    for key in ["enum", "examples"] {
        if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|v| v.first()) {
            return first.clone();
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|v| v.first()) {
            return example(first, next);
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("null"),
        _ => "string",
    };
    match kind {
        "integer" | "number" => {
            let n = *next;
            *next += 1;
            let minimum = schema.get("minimum").and_then(Value::as_i64).unwrap_or(i64::MIN);
            Value::from(n.max(minimum))
        }
        "boolean" => Value::Bool(true),
        "null" => Value::Null,
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            let count = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            Value::Array((0..count).map(|_| example(&items, next)).collect())
        }
        "object" => Value::Object(object(schema, next)),
        _ => Value::String("example".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(value: Value) -> JsonObject {
        let Value::Object(schema) = value else {
            panic!("an object")
        };
        schema
    }

    #[test]
    fn add_numbers_gets_two_different_numbers() {
        let schema = schema(json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        }));
        assert_eq!(Value::Object(arguments(&schema)), json!({"a": 1, "b": 2}));
    }

    #[test]
    fn only_required_properties_are_filled() {
        let schema = schema(json!({
            "type": "object",
            "properties": {"text": {"type": "string"}, "loud": {"type": "boolean"}},
            "required": ["text"],
        }));
        assert_eq!(Value::Object(arguments(&schema)), json!({"text": "example"}));
        assert!(arguments(&JsonObject::new()).is_empty());
    }

    #[test]
    fn defaults_enums_nested_objects_and_arrays() {
        let schema = schema(json!({
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "count": {"type": "integer", "default": 7},
                "limit": {"type": "integer", "minimum": 10},
                "maybe": {"type": ["null", "boolean"]},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                "point": {
                    "type": "object",
                    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                    "required": ["x", "y"],
                },
            },
            "required": ["mode", "count", "limit", "maybe", "tags", "point"],
        }));
        assert_eq!(
            Value::Object(arguments(&schema)),
            json!({
                "mode": "fast",
                "count": 7,
                "limit": 10,
                "maybe": true,
                "tags": ["example", "example"],
                "point": {"x": 2, "y": 3},
            })
        );
    }

    #[test]
    fn the_context_s_client_is_pre_registered() {
        let options = oauth_options(&serde_json::json!({"client_id": "c", "client_secret": "s"}));
        assert_eq!(options.client_id.as_deref(), Some("c"));
        assert_eq!(options.client_secret.as_ref().map(Secret::expose), Some("s"));
        let options = oauth_options(&serde_json::json!({"name": "auth/metadata-default"}));
        assert_eq!(options.client_id, None);
        assert_eq!(
            options.client_metadata_url.as_ref().map(Url::as_str),
            Some(CLIENT_METADATA_URL)
        );
    }

    #[test]
    fn known_scenarios_name_their_tool() {
        assert_eq!(expect("tools_call").tool, Some("add_numbers"));
        assert_eq!(expect("sse-retry").tool, Some("test_reconnection"));
        assert!(expect("elicitation-sep1034-client-defaults").elicits);
        assert_eq!(expect("initialize").tool, None);
    }
}
