//! The utilities extension's resources, resource template and prompt, seen by peers nobody
//! here wrote: the official Python MCP SDK clients (1.x, and 2.x in its legacy, auto and
//! 2026-07-28 modes) and the MCP Inspector CLI. Each lists the resources and reads every
//! one (the README, `docs://utilities/readme`), lists the templates and reads
//! `hash://sha256/hello%20world` (checked against a SHA-256 computed here by coreutils,
//! not by the extension's code), lists the prompts and gets `summarize` with and without
//! `style`; a `summarize` without `text` is a JSON-RPC error -32602.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use aep_peers::{Peers, PythonSdk};
use aep_sdk::server::AepExtension;
use serde_json::{Value, json};

const README: &str = "docs://utilities/readme";
const HELLO: &str = "hash://sha256/hello%20world";
const TEXT: &str = "The cat sat on the mat. Then it slept, all afternoon.";

/// The lowercase hex SHA-256 of `text`, by coreutils' `sha256sum`.
fn sha256_hex(text: &str) -> String {
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sha256sum (coreutils)");
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    let hex = String::from_utf8(output.stdout).unwrap();
    let hex = hex.split_whitespace().next().unwrap_or_default().to_owned();
    assert!(
        hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()),
        "sha256sum: {hex}"
    );
    hex
}

async fn utilities() -> String {
    let base = common::serve(aep_utilities::Utilities.into_extension().unwrap()).await;
    format!("{base}/mcp")
}

fn assert_resources_listed(resources: &Value, who: &str) {
    let resources = resources
        .as_array()
        .unwrap_or_else(|| panic!("{who}: {resources}"));
    assert_eq!(resources.len(), 1, "{who}: {resources:?}");
    let readme = &resources[0];
    assert_eq!(readme["uri"], README, "{who}: {readme}");
    assert_eq!(readme["name"], "readme", "{who}: {readme}");
    assert_eq!(readme["mimeType"], "text/markdown", "{who}: {readme}");
    assert!(readme["description"].is_string(), "{who}: {readme}");
}

fn assert_templates_listed(templates: &Value, who: &str) {
    let templates = templates
        .as_array()
        .unwrap_or_else(|| panic!("{who}: {templates}"));
    assert_eq!(templates.len(), 1, "{who}: {templates:?}");
    assert_eq!(
        templates[0]["uriTemplate"], "hash://sha256/{text}",
        "{who}: {templates:?}"
    );
    assert_eq!(templates[0]["name"], "sha256", "{who}: {templates:?}");
    assert_eq!(templates[0]["mimeType"], "text/plain", "{who}: {templates:?}");
}

/// One text content for `uri`, of `mime`: its text.
fn text_content<'a>(result: &'a Value, uri: &str, mime: &str, who: &str) -> &'a str {
    let contents = result["contents"]
        .as_array()
        .unwrap_or_else(|| panic!("{who}: {result}"));
    assert_eq!(contents.len(), 1, "{who}: {result}");
    assert_eq!(contents[0]["uri"], uri, "{who}: {result}");
    assert_eq!(contents[0]["mimeType"], mime, "{who}: {result}");
    contents[0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{who}: {result}"))
}

fn assert_prompts_listed(prompts: &Value, who: &str) {
    let prompts = prompts.as_array().unwrap_or_else(|| panic!("{who}: {prompts}"));
    assert_eq!(prompts.len(), 1, "{who}: {prompts:?}");
    let summarize = &prompts[0];
    assert_eq!(summarize["name"], "summarize", "{who}: {summarize}");
    assert!(summarize["description"].is_string(), "{who}: {summarize}");
    let arguments = summarize["arguments"]
        .as_array()
        .unwrap_or_else(|| panic!("{who}: {summarize}"));
    let required: Vec<(&str, bool)> = arguments
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap_or_default(),
                a["required"] == json!(true),
            )
        })
        .collect();
    assert_eq!(required, [("text", true), ("style", false)], "{who}: {summarize}");
}

/// The single user text message of a prompts/get result.
fn prompt_text<'a>(result: &'a Value, who: &str) -> &'a str {
    let messages = result["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("{who}: {result}"));
    assert_eq!(messages.len(), 1, "{who}: {result}");
    assert_eq!(messages[0]["role"], "user", "{who}: {result}");
    assert_eq!(messages[0]["content"]["type"], "text", "{who}: {result}");
    let text = messages[0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{who}: {result}"));
    assert!(
        text.contains(TEXT),
        "{who}: the prompt does not carry the text: {text}"
    );
    text
}

/// Default, `short` (the default, so the same) and `bullets` (another text): the style is
/// parsed and used.
fn assert_styles(default: &str, short: &str, bullets: &str, who: &str) {
    assert_eq!(default, short, "{who}: short is the default style");
    assert_ne!(default, bullets, "{who}: style=bullets changed nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn official_python_clients_read_every_resource_the_template_and_get_the_prompt() {
    let Some(peers) = Peers::require() else { return };
    let url = utilities().await;
    let hello = sha256_hex("hello world");
    let with = |style: Option<&str>| match style {
        Some(style) => json!({"text": TEXT, "style": style}).to_string(),
        None => json!({"text": TEXT}).to_string(),
    };
    let (default, short, bullets) = (with(None), with(Some("short")), with(Some("bullets")));
    #[rustfmt::skip]
    let args = [
        "--resources", "--read", HELLO, "--prompts",
        "--prompt", "summarize", &default,
        "--prompt", "summarize", &short,
        "--prompt", "summarize", &bullets,
        "--prompt", "summarize", "{}",
    ];
    for sdk in PythonSdk::ALL {
        let who = format!("{sdk:?}");
        let lines = peers
            .python_surface(sdk, &url, &args)
            .await
            .unwrap_or_else(|e| panic!("{who}: {e}"));
        let [
            listed,
            read_readme,
            templates,
            read_hello,
            prompts,
            got_default,
            got_short,
            got_bullets,
            missing,
        ] = lines.as_slice()
        else {
            panic!("{who}: expected 9 lines: {lines:#?}");
        };
        assert_resources_listed(&listed["resources"], &who);
        // Every listed resource was read (there is one).
        assert_eq!(read_readme["read"], README, "{who}");
        let text = text_content(&read_readme["result"], README, "text/markdown", &who);
        assert_eq!(text, aep_utilities::README, "{who}: the README as served");
        assert_templates_listed(&templates["templates"], &who);
        assert_eq!(read_hello["read"], HELLO, "{who}");
        assert_eq!(
            text_content(&read_hello["result"], HELLO, "text/plain", &who),
            hello,
            "{who}: sha256 of \"hello world\""
        );
        assert_prompts_listed(&prompts["prompts"], &who);
        assert_styles(
            prompt_text(&got_default["result"], &who),
            prompt_text(&got_short["result"], &who),
            prompt_text(&got_bullets["result"], &who),
            &who,
        );
        assert_eq!(missing["arguments"], json!({}), "{who}");
        assert_eq!(
            missing["error"]["code"], -32602,
            "{who}: summarize without text: {missing}"
        );
        assert!(missing.get("result").is_none(), "{who}: {missing}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn mcp_inspector_cli_lists_and_reads_resources_gets_the_prompt_and_sets_the_log_level() {
    let Some(peers) = Peers::require() else { return };
    let url = utilities().await;
    let json = |args: &'static [&'static str]| {
        let (peers, url) = (&peers, &url);
        async move {
            peers
                .inspector_json(url, args)
                .await
                .unwrap_or_else(|e| panic!("{e}"))
        }
    };
    let who = "inspector";
    assert_resources_listed(&json(&["--method", "resources/list"]).await["resources"], who);
    let templates = json(&["--method", "resources/templates/list"]).await;
    assert_templates_listed(&templates["resourceTemplates"], who);
    let readme = json(&["--method", "resources/read", "--uri", README]).await;
    assert_eq!(
        text_content(&readme, README, "text/markdown", who),
        aep_utilities::README
    );
    let hello = json(&["--method", "resources/read", "--uri", HELLO]).await;
    assert_eq!(
        text_content(&hello, HELLO, "text/plain", who),
        sha256_hex("hello world")
    );
    assert_prompts_listed(&json(&["--method", "prompts/list"]).await["prompts"], who);

    let text = format!("text={TEXT}");
    let get = |style: Option<&'static str>| {
        let mut args = vec![
            "--method",
            "prompts/get",
            "--prompt-name",
            "summarize",
            "--prompt-args",
        ];
        args.push(&text);
        args.extend(style);
        let (peers, url) = (&peers, &url);
        async move {
            peers
                .inspector_json(url, &args)
                .await
                .unwrap_or_else(|e| panic!("{e}"))
        }
    };
    let (default, short, bullets) = (
        get(None).await,
        get(Some("style=short")).await,
        get(Some("style=bullets")).await,
    );
    assert_styles(
        prompt_text(&default, who),
        prompt_text(&short, who),
        prompt_text(&bullets, who),
        who,
    );
    // Without `text`: the CLI exits 1 and prints the server's message (not its code) as
    // {"error":{"code":"error","message":...}} on stderr.
    let missing = peers
        .inspector(&url, &["--method", "prompts/get", "--prompt-name", "summarize"])
        .await;
    assert_eq!(missing.code, Some(1), "{}", missing.describe());
    let error: Value =
        serde_json::from_str(missing.stderr.trim()).unwrap_or_else(|e| panic!("{e}: {}", missing.describe()));
    let message = error["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("'text'"), "{}", missing.describe());
    assert!(missing.stdout.trim().is_empty(), "{}", missing.describe());

    // logging/setLevel answers {} (the Inspector prints the empty result).
    for level in ["debug", "warning"] {
        let set = peers
            .inspector_json(&url, &["--method", "logging/setLevel", "--log-level", level])
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(set, json!({}), "logging/setLevel {level}");
    }
}
