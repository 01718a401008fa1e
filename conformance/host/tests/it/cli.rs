//! The `aep-host` binary: `demo`, and `discover`, `tools`, `call`, `chat` against
//! extensions served by the test.

use crate::common;

use std::time::Duration;

use aep_host::demo::{DEMO_TEXT, scripted_extension};
use aep_sdk::testing::spawn;
use common::run::aep_host;
use common::{sha256, utilities};

#[tokio::test]
async fn demo_walks_through_every_step_in_seconds() {
    let run = aep_host(&["demo"]).await;
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    for step in ["[1/5]", "[2/5]", "[3/5]", "[4/5]", "[5/5]", "Done in"] {
        assert!(run.stdout.contains(step), "{step} missing:\n{}", run.stdout);
    }
    let digest = sha256(DEMO_TEXT);
    let answer = format!("hash.compute returned: {digest}");
    assert!(run.stdout.contains(&answer), "{}", run.stdout);
    assert!(run.stdout.contains("-> tool call hash.compute"), "{}", run.stdout);
    assert!(
        run.stdout.contains("1 connection(s), 1 tools/list"),
        "{}",
        run.stdout
    );
    assert!(run.stderr.is_empty(), "no warnings or errors: {}", run.stderr);
    assert!(run.took < Duration::from_secs(10), "took {:?}", run.took);
}

#[tokio::test]
async fn discover_tools_and_call_against_a_running_extension() {
    let (server, _) = utilities().await;
    let flag = format!("aep.utilities={}", server.base_url);

    let run = aep_host(&["discover", &server.base_url, "--id", "aep.utilities"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("tool contribution hash.compute"),
        "{}",
        run.stdout
    );
    let run = aep_host(&["discover", &server.base_url, "--id", "acme.weather"]).await;
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("extension_identity_mismatch"),
        "{}",
        run.stderr
    );
    let run = aep_host(&["--revision", "1.0", "discover", &server.base_url, "--json"]).await;
    let manifest: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(manifest["protocolVersion"], "1.0");

    let run = aep_host(&["-e", &flag, "tools"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("hash.compute \"Compute SHA-256\""),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(r#"input:  {"#),
        "schemas are listed: {}",
        run.stdout
    );
    let run = aep_host(&["-e", &flag, "tools", "--json"]).await;
    let tools: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(tools.as_array().unwrap().len(), 5);

    let run = aep_host(&["-e", &flag, "call", "hash.compute", r#"{"text":"abc"}"#]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(&sha256("abc")), "{}", run.stdout);
    let run = aep_host(&["-e", &flag, "call", "json.compact", r#"{"json":"{oops"}"#]).await;
    assert_eq!(run.code, 2, "a tool error: {}", run.stdout);
    assert!(
        run.stdout.contains("tool error: not valid JSON"),
        "{}",
        run.stdout
    );
    let run = aep_host(&["-e", &flag, "call", "hash.compute", r#"{"text":1}"#]).await;
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("invalid_arguments") && run.stderr.contains("arguments.text"),
        "{}",
        run.stderr
    );
    let run = aep_host(&["-e", "aep.utilities=ftp://h", "tools"]).await;
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("endpoint_invalid"), "{}", run.stderr);
}

#[tokio::test]
async fn chat_streams_a_tool_round_trip() {
    let (tools, counts) = utilities().await;
    let model = spawn(scripted_extension("hash.compute").unwrap().router()).await;
    let config = std::env::temp_dir().join(format!("aep-host-cli-{}.toml", std::process::id()));
    std::fs::write(
        &config,
        format!(
            "[extensions.\"aep.utilities\"]\nurl = \"{}\"\n\n[extensions.\"aep.demo.scripted\"]\nurl = \"{}\"\n\n\
             [models.default]\nextension = \"aep.demo.scripted\"\nprovider = \"scripted\"\nmodel = \"scripted-1\"\n",
            tools.base_url, model.base_url
        ),
    )
    .unwrap();
    let config_arg = config.to_string_lossy().into_owned();
    let run = aep_host(&[
        "--config",
        &config_arg,
        "chat",
        "--tools",
        "hash.compute",
        "--",
        r#"hash "abc" please"#,
    ])
    .await;
    let _ = std::fs::remove_file(&config);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("-> tool call hash.compute {\"text\":\"abc\"}"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("hash.compute returned: {}", sha256("abc"))),
        "{}",
        run.stdout
    );
    assert_eq!(counts.get("mcp:tools/call"), 1);

    let run = aep_host(&["chat", "hello"]).await;
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("no model"), "{}", run.stderr);
}
