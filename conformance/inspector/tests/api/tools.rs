//! The tool explorer: tools resolved AEP -> MCP and called (nested objects and arrays
//! too, and an MCP server's tools as they are when the manifest fails validation), and
//! each MCP server's resources and prompts.

use serde_json::json;

use crate::common::{self, Inspector, api, fixtures, id_of};
use crate::{ids, with_id};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_resolve_through_mcp_and_calls_show_their_results() {
    let utilities = common::utilities().await;
    let (inspector, id) = Inspector::connected(&utilities.base_url).await;
    let listed = inspector.get_ok(&api(&id, "tools")).await;
    assert_eq!(listed["failures"], json!([]));
    let stats = with_id(&listed["tools"], "text.stats");
    assert_eq!(stats["displayName"], "Text statistics");
    assert_eq!(stats["metadata"]["category"], "text");
    assert_eq!(stats["origin"]["mcpTool"], "text_stats");
    assert_eq!(stats["hints"]["readOnly"], true);
    assert_eq!(stats["inputSchema"]["properties"]["text"]["type"], "string");
    assert!(stats["outputSchema"].is_object(), "{stats}");

    let call = api(&id, "tools/call");
    let result = inspector
        .post_ok(&call, json!({"tool": "text.stats", "arguments": {"text": "two words\nand more", "skip_blank_lines": true}}))
        .await;
    assert_eq!(
        result["output"]["structured"],
        json!({"characters": 18, "words": 4, "lines": 2})
    );
    assert_eq!(result["output"]["isError"], false);
    assert_eq!(result["outputCheck"], json!({"valid": true, "issues": []}));
    assert!(result["durationMs"].as_f64().unwrap() > 0.0);

    let (_, failed) = inspector
        .post(
            &call,
            json!({"tool": "json.compact", "arguments": {"json": "{nope"}}),
        )
        .await;
    assert_eq!(failed["output"]["isError"], true, "{failed}");
    assert!(
        failed["output"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );

    let invalid = inspector
        .post_refused(
            &call,
            json!({"tool": "text.case", "arguments": {"text": "x", "case": "sideways"}}),
            422,
            "invalid_arguments",
        )
        .await;
    assert!(
        invalid["error"]["message"].as_str().unwrap().contains("case"),
        "{invalid}"
    );

    inspector
        .post_refused(&call, json!({"tool": "nope"}), 404, "tool_not_found")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_and_prompts_are_listed_read_and_got() {
    let utilities = common::utilities().await;
    let echo = common::echo().await;
    let (inspector, id) = Inspector::connected(&utilities.base_url).await;
    let listed = inspector.get_ok(&api(&id, "mcp")).await;
    let server = &listed["servers"][0];
    assert_eq!(server["id"], "utilities");
    assert_eq!(server["url"], format!("{}/mcp", utilities.base_url));
    assert_eq!(
        server["resources"]["resources"][0]["uri"], "docs://utilities/readme",
        "{server}"
    );
    assert_eq!(server["resources"]["resources"][0]["mimeType"], "text/markdown");
    assert_eq!(
        server["resources"]["templates"][0]["uriTemplate"],
        "hash://sha256/{text}"
    );
    let summarize = &server["prompts"][0];
    assert_eq!(summarize["name"], "summarize", "{server}");
    assert_eq!(summarize["arguments"][0]["name"], "text");
    assert_eq!(summarize["arguments"][0]["required"], true);

    let read = api(&id, "mcp/resources/read");
    let readme = inspector
        .post_ok(
            &read,
            json!({"server": "utilities", "uri": "docs://utilities/readme"}),
        )
        .await;
    assert!(
        readme["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("utilities"),
        "{readme}"
    );
    assert!(readme["durationMs"].as_f64().unwrap() > 0.0);
    let (_, hash) = inspector
        .post(&read, json!({"server": "utilities", "uri": "hash://sha256/abc"}))
        .await;
    assert_eq!(
        hash["result"]["contents"][0]["text"],
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "{hash}"
    );
    for (server, uri, status, code) in [
        ("utilities", "docs://nothing", 502, "mcp_request_failed"),
        ("elsewhere", "docs://x", 404, "mcp_server_not_found"),
    ] {
        inspector
            .post_refused(&read, json!({"server": server, "uri": uri}), status, code)
            .await;
    }

    let get = api(&id, "mcp/prompts/get");
    let prompt = inspector
        .post_ok(
            &get,
            json!({"server": "utilities", "name": "summarize", "arguments": {"text": "A long story.", "style": "bullets"}}),
        )
        .await;
    let text = prompt["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(
        text.contains("bulleted list") && text.contains("A long story."),
        "{prompt}"
    );
    inspector
        .post_refused(
            &get,
            json!({"server": "utilities", "name": "summarize", "arguments": {}}),
            502,
            "mcp_request_failed",
        )
        .await;

    let plain = inspector.connect_id(&echo.base_url).await;
    let none = inspector.get_ok(&api(&plain, "mcp")).await;
    assert_eq!(none, json!({"servers": []}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_with_nested_objects_and_arrays_is_described_and_called() {
    let orders = fixtures::orders().await;
    let (inspector, id) = Inspector::connected(&orders.base_url).await;
    let (_, listed) = inspector.get(&api(&id, "tools")).await;
    let tool = &listed["tools"][0];
    assert_eq!(tool["id"], "order.place", "{listed}");
    println!("{}", tool["inputSchema"]);
    let result = inspector
        .post_ok(
            &api(&id, "tools/call"),
            json!({"tool": "order.place", "arguments": {
                "customer": {"name": "Ada"},
                "items": [{"sku": "a-1", "quantity": 2}, {"sku": "b-2", "quantity": 3}],
                "tags": ["gift"],
                "note": "",
                "weights": [1.5, 2.25]
            }}),
        )
        .await;
    assert_eq!(
        result["output"]["structured"],
        json!({"customer": {"name": "Ada", "email": null}, "lines": 2, "quantity": 5, "tags": ["gift"], "note": "", "weight": 3.75}),
        "{result}"
    );
    assert_eq!(result["outputCheck"]["valid"], true, "{result}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connected_anyway_the_mcp_servers_tools_are_listed_and_called_as_they_are() {
    let half = fixtures::utilities_with_invalid_manifest().await;
    let inspector = Inspector::start(vec![]).await;
    let summary = inspector
        .connect_with(json!({"url": half.base_url, "anyway": true}))
        .await;
    assert!(summary["invalid"].to_string().contains("stats"), "{summary}");
    let id = id_of(&summary);
    let listed = inspector.get_ok(&api(&id, "tools")).await;
    assert_eq!(
        listed["failures"][0]["code"], "aep_descriptor_invalid",
        "{listed}"
    );
    assert_eq!(listed["failures"].as_array().unwrap().len(), 1, "{listed}");
    let ids = ids(&listed["tools"]);
    assert!(ids.contains(&"utilities/text_stats"), "{ids:?}");
    let stats = with_id(&listed["tools"], "utilities/text_stats");
    assert_eq!(
        stats["origin"]["mcpUrl"],
        format!("{}/mcp", half.base_url),
        "{stats}"
    );
    let result = inspector
        .post_ok(
            &api(&id, "tools/call"),
            json!({"tool": "utilities/text_stats", "arguments": {"text": "still usable"}}),
        )
        .await;
    assert_eq!(result["output"]["structured"]["words"], 2, "{result}");
    // Listing again adds nothing twice.
    let (_, again) = inspector.get(&api(&id, "tools")).await;
    assert_eq!(again["tools"].as_array().unwrap().len(), ids.len());
}
