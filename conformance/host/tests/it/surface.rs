//! `aep-host resources` and `aep-host prompts` (the real binary) against the utilities
//! extension on a loopback port: listing and reading the README and a hash template
//! URI, listing and getting `summarize` with and without `style`, picking among several
//! MCP servers, and every error a clear message with exit status 1. And the pool's
//! resource and prompt requests as a library, over one connection.

use crate::common;

use aep_host::ErrorCode;
use aep_host::mcp::McpPool;
use aep_sdk::testing::spawn;
use axum::Router;
use common::dynamic::Dynamic;
use common::run::aep_host;
use common::{dead_url, manifest_router, manifest_with_tools, sha256, utilities, utilities_router};
use serde_json::{Value, json};

/// Runs `aep-host args...` expecting success; its stdout.
async fn ok(args: &[&str]) -> String {
    let run = aep_host(args).await;
    assert_eq!(run.code, 0, "aep-host {args:?}:\n{}\n{}", run.stdout, run.stderr);
    run.stdout
}

/// Runs `aep-host args...` expecting exit status 1 and one `error:` line naming `needles`.
async fn fails(args: &[&str], needles: &[&str]) -> String {
    let run = aep_host(args).await;
    assert_eq!(run.code, 1, "aep-host {args:?}:\n{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.starts_with("error: "), "{args:?}: {}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
    for needle in needles {
        assert!(
            run.stderr.contains(needle),
            "{args:?}: {needle} not in {}",
            run.stderr
        );
    }
    run.stderr
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_lists_templates_and_reads() {
    let (server, counts) = utilities().await;
    let url = server.base_url.as_str();

    let out = ok(&["resources", url, "list"]).await;
    assert!(out.starts_with("MCP server utilities ("), "{out}");
    assert!(
        out.contains(r#"docs://utilities/readme readme "Utilities README" (text/markdown)"#),
        "{out}"
    );
    let listed = json_of(&ok(&["resources", url, "list", "--json"]).await);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed[0]["uri"], "docs://utilities/readme");
    assert_eq!(listed[0]["mimeType"], "text/markdown");

    let out = ok(&["resources", url, "templates"]).await;
    assert!(
        out.contains(r#"hash://sha256/{text} sha256 "SHA-256 of a text" (text/plain)"#),
        "{out}"
    );
    let templates = json_of(&ok(&["resources", url, "--json", "templates"]).await);
    assert_eq!(templates[0]["uriTemplate"], "hash://sha256/{text}");

    let out = ok(&["resources", url, "read", "docs://utilities/readme"]).await;
    assert!(
        out.starts_with("docs://utilities/readme (text/markdown)\n"),
        "{out}"
    );
    assert!(out.contains(aep_utilities::README), "the README as served");

    let out = ok(&["resources", url, "read", "hash://sha256/abc"]).await;
    assert_eq!(
        out,
        format!("hash://sha256/abc (text/plain)\n{}\n", sha256("abc"))
    );
    let read = json_of(&ok(&["resources", url, "read", "hash://sha256/hello%20world", "--json"]).await);
    assert_eq!(read["contents"][0]["uri"], "hash://sha256/hello%20world");
    assert_eq!(read["contents"][0]["text"], sha256("hello world"));
    assert_eq!(read["contents"][0]["mimeType"], "text/plain");
    assert_eq!(counts.get("mcp:resources/read"), 3);

    // A registered extension by its id: discovered with the identity check.
    let flag = format!("aep.utilities={url}");
    let out = ok(&[
        "-e",
        &flag,
        "resources",
        "aep.utilities",
        "--server",
        "utilities",
        "read",
        "hash://sha256/abc",
    ])
    .await;
    assert!(out.contains(&sha256("abc")), "{out}");
    let wrong = format!("acme.other={url}");
    fails(
        &["-e", &wrong, "resources", "acme.other", "list"],
        &["extension_identity_mismatch"],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_lists_and_gets_summarize() {
    let (server, _) = utilities().await;
    let url = server.base_url.as_str();

    let out = ok(&["prompts", url, "list"]).await;
    assert!(out.contains(r#"  summarize "Summarize a text""#), "{out}");
    assert!(
        out.contains("      --arg text=... (required): The text to summarize."),
        "{out}"
    );
    assert!(
        out.contains("      --arg style=...: How: short (default), bullets or detailed."),
        "{out}"
    );
    let listed = json_of(&ok(&["prompts", url, "list", "--json"]).await);
    let arguments = &listed[0]["arguments"];
    assert_eq!(
        arguments[0],
        json!({"name": "text", "description": "The text to summarize.", "required": true})
    );
    assert_eq!(arguments[1]["name"], "style");
    assert_ne!(arguments[1]["required"], true);

    let out = ok(&[
        "prompts",
        url,
        "get",
        "summarize",
        "--arg",
        "text=The sky is blue.",
    ])
    .await;
    assert_eq!(
        out,
        "[user]\nSummarize the following text in one or two sentences.\n\nThe sky is blue.\n"
    );
    let out = ok(&[
        "prompts",
        url,
        "get",
        "summarize",
        "--arg",
        "text=a=b",
        "--arg",
        "style=bullets",
    ])
    .await;
    assert!(
        out.contains("as a bulleted list of its main points.\n\na=b\n"),
        "the value keeps its own '=': {out}"
    );
    let got = json_of(
        &ok(&[
            "prompts",
            url,
            "get",
            "summarize",
            "--arg",
            "text=x",
            "--arg",
            "style=detailed",
            "--json",
        ])
        .await,
    );
    assert_eq!(got["messages"][0]["role"], "user");
    let text = got["messages"][0]["content"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("in a paragraph per main point"), "{got}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_are_one_clear_line_and_exit_1() {
    let (server, _) = utilities().await;
    let url = server.base_url.as_str();

    let stderr = fails(
        &["resources", url, "read", "docs://utilities/nothing"],
        &[
            "mcp_request_failed",
            "-32002 (resource not found)",
            "docs://utilities/nothing",
        ],
    )
    .await;
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    fails(
        &["prompts", url, "get", "summarize"],
        &["mcp_request_failed", "-32602 (invalid params)", "text"],
    )
    .await;
    fails(
        &[
            "prompts",
            url,
            "get",
            "summarize",
            "--arg",
            "text=x",
            "--arg",
            "style=poetic",
        ],
        &["-32602", "poetic"],
    )
    .await;
    fails(
        &["prompts", url, "get", "haiku"],
        &["-32602", "prompt 'haiku' not found"],
    )
    .await;
    fails(
        &["prompts", url, "get", "summarize", "--arg", "text"],
        &["invalid_arguments", "--arg expects KEY=VALUE, got 'text'"],
    )
    .await;
    fails(
        &[
            "prompts",
            url,
            "get",
            "summarize",
            "--arg",
            "text=a",
            "--arg",
            "text=b",
        ],
        &["invalid_arguments", "--arg text is given twice"],
    )
    .await;
    fails(
        &["resources", url, "--server", "files", "list"],
        &[
            "aep_mcp_server_not_found",
            "no MCP server 'files' (it declares: utilities)",
        ],
    )
    .await;

    // An extension without any MCP server (a model provider only).
    let model = spawn(
        aep_host::demo::scripted_extension("hash.compute")
            .unwrap()
            .router(),
    )
    .await;
    fails(
        &["prompts", &model.base_url, "list"],
        &["aep_mcp_server_not_found", "declares no MCP server"],
    )
    .await;

    // Nothing listens there.
    let dead = dead_url().await;
    fails(&["resources", &dead, "list"], &["extension_unreachable"]).await;
    fails(&["resources", "ftp://h", "list"], &["endpoint_invalid"]).await;
}

/// An extension with two MCP servers: `tools` (tools only, at `/dyn/mcp`) and
/// `utilities` (tools, resources and prompts, at `/mcp`).
fn two_servers() -> Router {
    let mut manifest = manifest_with_tools(
        "acme.two",
        "2026-08-01",
        json!([{"id": "hash", "displayName": "Hash", "mcp": {"server": "utilities", "tool": "hash_compute"}}]),
    );
    manifest["mcp"]["servers"]
        .as_array_mut()
        .unwrap()
        .insert(0, json!({"id": "tools", "endpoint": "/dyn/mcp"}));
    let dynamic = Dynamic::new(&["a"]);
    let rest = utilities_router().nest("/dyn", dynamic.router());
    manifest_router(manifest, Some(rest))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_is_picked_by_capability_or_by_flag() {
    let server = spawn(two_servers()).await;
    let url = server.base_url.as_str();

    // Without --server: the only one of the two that advertises the capability.
    let out = ok(&["prompts", url, "list"]).await;
    assert!(out.starts_with("MCP server utilities ("), "{out}");
    assert!(out.contains("summarize"), "{out}");
    let out = ok(&["resources", url, "read", "hash://sha256/abc"]).await;
    assert!(out.contains(&sha256("abc")), "{out}");

    // The tools-only server has neither.
    fails(
        &["prompts", url, "--server", "tools", "list"],
        &["mcp_capability_missing", "/dyn/mcp", "'prompts' capability"],
    )
    .await;
    fails(
        &[
            "resources",
            url,
            "--server",
            "tools",
            "read",
            "docs://utilities/readme",
        ],
        &["mcp_capability_missing", "'resources' capability"],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_server_without_the_capability_is_refused_before_any_request() {
    let dynamic = Dynamic::new(&["a"]);
    let manifest = manifest_with_tools(
        "acme.tools",
        "2026-08-01",
        json!([{"id": "a", "displayName": "A", "mcp": {"server": "utilities", "tool": "a"}}]),
    );
    let counts = std::sync::Arc::new(common::Counts::default());
    let router = common::counting(manifest_router(manifest, Some(dynamic.router())), counts.clone());
    let server = spawn(router).await;
    let url = server.base_url.as_str();
    fails(
        &["resources", url, "templates"],
        &["mcp_capability_missing", "'resources' capability"],
    )
    .await;
    fails(
        &["prompts", url, "get", "summarize", "--arg", "text=x"],
        &["mcp_capability_missing", "'prompts' capability"],
    )
    .await;
    assert_eq!(counts.get("mcp:initialize"), 2);
    assert_eq!(counts.get("mcp:resources/templates/list"), 0);
    assert_eq!(counts.get("mcp:prompts/get"), 0);
}

#[tokio::test]
async fn the_pool_serves_resources_and_prompts_over_one_connection() {
    let (server, counts) = utilities().await;
    let url = url::Url::parse(&format!("{}/mcp", server.base_url)).unwrap();
    let pool = McpPool::new();

    let capabilities = pool.capabilities(&url).await.unwrap();
    assert!(capabilities.resources.is_some() && capabilities.prompts.is_some());
    let resources = pool.resources(&url).await.unwrap();
    assert_eq!(resources[0].uri, "docs://utilities/readme");
    let templates = pool.resource_templates(&url).await.unwrap();
    assert_eq!(templates[0].uri_template, "hash://sha256/{text}");
    let read = pool.read_resource(&url, "hash://sha256/abc").await.unwrap();
    let text = serde_json::to_value(&read.contents[0]).unwrap()["text"].clone();
    assert_eq!(text, sha256("abc"));
    let prompts = pool.prompts(&url).await.unwrap();
    assert_eq!(prompts[0].name, "summarize");
    let mut arguments = aep_host::JsonObject::new();
    arguments.insert("text".into(), json!("abc"));
    let got = pool
        .get_prompt(&url, "summarize", arguments.clone())
        .await
        .unwrap();
    assert_eq!(got.messages.len(), 1);
    arguments.insert("style".into(), json!("short"));
    assert_eq!(
        pool.get_prompt(&url, "summarize", arguments).await.unwrap(),
        got,
        "short is the default style"
    );

    let error = pool.read_resource(&url, "docs://nothing").await.unwrap_err();
    assert_eq!(error.code, ErrorCode::McpRequestFailed, "{error}");
    assert!(error.message.contains("-32002"), "{error}");
    let error = pool
        .get_prompt(&url, "summarize", aep_host::JsonObject::new())
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::McpRequestFailed, "{error}");
    assert!(error.message.contains("-32602"), "{error}");

    // Failures are answers: the connection stays.
    assert_eq!(counts.get("mcp:initialize"), 1);
    assert_eq!(pool.stats(&url).connects, 1);
    pool.close().await;
}
