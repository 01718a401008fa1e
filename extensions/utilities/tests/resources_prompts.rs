//! The utilities extension's resources, resource template and prompt over MCP, with
//! rmcp's client: listed, read and got, errors with MCP's codes.

mod common;

use common::{connect, start};
use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::json;

fn text(contents: &[ResourceContents]) -> (&str, &str) {
    match contents {
        [ResourceContents::TextResourceContents { uri, text, .. }] => (uri, text),
        other => panic!("one text contents expected, got {other:?}"),
    }
}

#[tokio::test]
async fn readme_and_hash_template_list_and_read() {
    let server = start().await;
    let client = connect(&format!("{}/mcp", server.base_url)).await;
    let capabilities = &client.peer_info().unwrap().capabilities;
    assert!(capabilities.resources.is_some() && capabilities.prompts.is_some());

    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources.len(), 1);
    assert_eq!(resources[0].uri, "docs://utilities/readme");
    assert_eq!(resources[0].mime_type.as_deref(), Some("text/markdown"));
    let readme = client
        .read_resource(ReadResourceRequestParams::new("docs://utilities/readme"))
        .await
        .unwrap();
    assert_eq!(
        text(&readme.contents),
        ("docs://utilities/readme", aep_utilities::README)
    );
    assert!(aep_utilities::README.contains("hash://sha256/{text}"));

    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates.len(), 1);
    assert_eq!(templates[0].uri_template, "hash://sha256/{text}");
    let hash = client
        .read_resource(ReadResourceRequestParams::new("hash://sha256/hello%20world"))
        .await
        .unwrap();
    assert_eq!(
        text(&hash.contents),
        (
            "hash://sha256/hello%20world",
            aep_utilities::sha256_hex("hello world").as_str()
        )
    );

    let missing = client
        .read_resource(ReadResourceRequestParams::new("docs://utilities/nothing"))
        .await
        .unwrap_err();
    assert!(format!("{missing:?}").contains("-32002"), "{missing:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn summarize_prompt_lists_and_gets() {
    let server = start().await;
    let client = connect(&format!("{}/mcp", server.base_url)).await;
    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts.len(), 1);
    let summarize = &prompts[0];
    assert_eq!(summarize.name, "summarize");
    let arguments: Vec<_> = summarize
        .arguments
        .iter()
        .flatten()
        .map(|a| (a.name.as_str(), a.required))
        .collect();
    assert_eq!(arguments, [("text", Some(true)), ("style", Some(false))]);

    let get = |arguments: serde_json::Value| {
        GetPromptRequestParams::new("summarize").with_arguments(arguments.as_object().unwrap().clone())
    };
    let got = client.get_prompt(get(json!({"text": "A B C"}))).await.unwrap();
    let message = got.messages[0].content.as_text().unwrap().text.clone();
    assert!(
        message.contains("one or two sentences") && message.ends_with("A B C"),
        "{message}"
    );
    let got = client
        .get_prompt(get(json!({"text": "A", "style": "bullets"})))
        .await
        .unwrap();
    assert!(
        got.messages[0]
            .content
            .as_text()
            .unwrap()
            .text
            .contains("bulleted list")
    );

    for (arguments, says) in [
        (json!({}), "missing required argument 'text'"),
        (
            json!({"text": "A", "style": "haiku"}),
            "style is short, bullets or detailed",
        ),
    ] {
        let error = client.get_prompt(get(arguments)).await.unwrap_err();
        let rmcp::ServiceError::McpError(error) = error else {
            panic!("a JSON-RPC error expected: {error:?}");
        };
        assert_eq!(error.code.0, -32602);
        assert!(error.message.contains(says), "{}", error.message);
    }
    client.cancel().await.unwrap();
}
