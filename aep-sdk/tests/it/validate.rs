//! Manifest rules of spec section 1 and MCP endpoint resolution.
//!
//! Every rule is shown failing on an otherwise valid manifest, with the exact JSON path
//! the validator reports (and nothing else reported).

use aep_sdk::protocol::Manifest;
use aep_sdk::validate::{
    EndpointError, Problem, check_endpoint, parse_base_url, resolve_mcp_endpoint, validate_manifest,
    validate_manifest_json,
};
use serde_json::{Value, json};
use url::Url;

/// A valid manifest: one model provider, two MCP servers, two tool contributions.
fn valid() -> Value {
    json!({
        "protocolVersion": "2026-08-01",
        "extension": {"id": "acme.weather", "name": "Weather", "version": "1.2.0", "description": "optional"},
        "capabilities": {
            "aep.health": {"version": "1.0", "endpoint": "/aep/health"},
            "aep.model-provider": {"version": "1.0", "endpoint": "/aep/model-providers"},
            "aep.tools": {"version": "1.0"},
            "aep.configuration": {"version": "1.0", "endpoint": "/aep/configuration"},
            "x.acme.custom": {"version": "7"}
        },
        "contributions": {
            "modelProviders": [
                {"id": "ollama", "displayName": "Ollama", "capabilities": {"chat": true, "streaming": true}}
            ],
            "tools": [
                {"id": "weather.current", "displayName": "Current weather",
                 "description": "optional", "metadata": {"any": "json"},
                 "mcp": {"server": "weather", "tool": "current_weather"}},
                {"id": "weather.forecast", "displayName": "Forecast",
                 "mcp": {"server": "remote", "tool": "forecast"}}
            ]
        },
        "mcp": {"servers": [
            {"id": "weather", "endpoint": "/mcp"},
            {"id": "remote", "endpoint": "https://tools.example.com:8443/mcp"}
        ]}
    })
}

/// A manifest with no model provider, no tool and no MCP server.
fn bare() -> Value {
    json!({
        "protocolVersion": "1.0",
        "extension": {"id": "acme.hello", "name": "Hello", "version": "0.1.0"},
        "capabilities": {"aep.health": {"version": "1.0", "endpoint": "/aep/health"}},
        "contributions": {"modelProviders": []}
    })
}

/// Runs both validators; returns the paths of every problem, JSON rules first.
fn problem_paths(document: &Value) -> Vec<String> {
    let mut problems = validate_manifest_json(document);
    let manifest: Manifest = serde_json::from_value(document.clone())
        .unwrap_or_else(|e| panic!("test manifest must parse: {e}\n{document:#}"));
    problems.extend(validate_manifest(&manifest));
    for problem in &problems {
        assert!(
            !problem.message.trim().is_empty(),
            "{} has no message",
            problem.path
        );
        assert_eq!(
            problem.to_string(),
            format!("{}: {}", problem.path, problem.message)
        );
    }
    problems.into_iter().map(|p| p.path).collect()
}

fn typed_problems(document: &Value) -> Vec<Problem> {
    let manifest: Manifest = serde_json::from_value(document.clone()).expect("test manifest must parse");
    validate_manifest(&manifest)
}

/// `valid()` changed by `edit`.
fn valid_with(edit: impl FnOnce(&mut Value)) -> Value {
    let mut document = valid();
    edit(&mut document);
    document
}

fn bare_with(edit: impl FnOnce(&mut Value)) -> Value {
    let mut document = bare();
    edit(&mut document);
    document
}

fn remove(document: &mut Value, pointer: &str) {
    let (parent, key) = pointer.rsplit_once('/').expect("pointer");
    let object = document
        .pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .expect("parent object");
    assert!(object.shift_remove(key).is_some(), "{pointer} was not present");
}

fn set(document: &mut Value, pointer: &str, value: Value) {
    *document
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("{pointer} not present")) = value;
}

fn push(document: &mut Value, pointer: &str, value: Value) {
    document
        .pointer_mut(pointer)
        .and_then(Value::as_array_mut)
        .expect("array")
        .push(value);
}

// ---------------------------------------------------------------------------------------
// Baselines
// ---------------------------------------------------------------------------------------

#[test]
fn the_baseline_manifests_are_valid() {
    assert_eq!(problem_paths(&valid()), Vec::<String>::new());
    assert_eq!(problem_paths(&bare()), Vec::<String>::new());
}

// ---------------------------------------------------------------------------------------
// extension
// ---------------------------------------------------------------------------------------

#[test]
fn extension_id_name_and_version_must_not_be_empty() {
    for member in ["id", "name", "version"] {
        for empty in ["", "   "] {
            let document = valid_with(|d| set(d, &format!("/extension/{member}"), json!(empty)));
            assert_eq!(
                problem_paths(&document),
                [format!("$.extension.{member}")],
                "{member} = {empty:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// capabilities
// ---------------------------------------------------------------------------------------

#[test]
fn aep_health_must_be_present() {
    let document = valid_with(|d| remove(d, "/capabilities/aep.health"));
    assert_eq!(problem_paths(&document), ["$.capabilities"]);
    let problems = typed_problems(&document);
    assert!(problems[0].message.contains("aep.health"), "{}", problems[0]);
}

#[test]
fn model_provider_capability_iff_there_are_providers() {
    // Present without providers.
    let document = bare_with(|d| {
        d["capabilities"]["aep.model-provider"] =
            json!({"version": "1.0", "endpoint": "/aep/model-providers"});
    });
    assert_eq!(problem_paths(&document), ["$.capabilities['aep.model-provider']"]);

    // Absent with providers.
    let document = valid_with(|d| remove(d, "/capabilities/aep.model-provider"));
    assert_eq!(problem_paths(&document), ["$.capabilities"]);
    assert!(
        typed_problems(&document)[0]
            .message
            .contains("aep.model-provider")
    );
}

#[test]
fn tools_capability_iff_there_are_tool_contributions() {
    // Present without tools (the MCP servers alone do not need it).
    let document = valid_with(|d| remove(d, "/contributions/tools"));
    assert_eq!(problem_paths(&document), ["$.capabilities['aep.tools']"]);
    let document = valid_with(|d| set(d, "/contributions/tools", json!([])));
    assert_eq!(problem_paths(&document), ["$.capabilities['aep.tools']"]);

    // Absent with tools.
    let document = valid_with(|d| remove(d, "/capabilities/aep.tools"));
    assert_eq!(problem_paths(&document), ["$.capabilities"]);
    assert!(typed_problems(&document)[0].message.contains("aep.tools"));
}

#[test]
fn unknown_capabilities_are_allowed() {
    let document = bare_with(|d| {
        set(
            d,
            "/capabilities",
            json!({
                "aep.health": {"version": "1.0", "endpoint": "/aep/health"},
                "acme.telemetry": {"version": "3.1", "endpoint": "/telemetry", "metadata": {"x": 1}}
            }),
        )
    });
    assert_eq!(problem_paths(&document), Vec::<String>::new());
}

// ---------------------------------------------------------------------------------------
// mcp
// ---------------------------------------------------------------------------------------

#[test]
fn empty_mcp_servers_must_be_omitted() {
    let document = bare_with(|d| d["mcp"] = json!({"servers": []}));
    assert_eq!(problem_paths(&document), ["$.mcp"]);
}

#[test]
fn mcp_server_id_must_not_be_empty() {
    for empty in ["", "  "] {
        let document = valid_with(|d| push(d, "/mcp/servers", json!({"id": empty, "endpoint": "/mcp2"})));
        assert_eq!(problem_paths(&document), ["$.mcp.servers[2].id"]);
    }
}

#[test]
fn mcp_server_ids_must_be_unique() {
    let document = valid_with(|d| push(d, "/mcp/servers", json!({"id": "weather", "endpoint": "/other"})));
    assert_eq!(problem_paths(&document), ["$.mcp.servers[2].id"]);
    assert!(typed_problems(&document)[0].message.contains("weather"));
}

#[test]
fn mcp_server_endpoint_must_be_relative_or_http() {
    let refused = [
        (
            "ftp://tools.example.com/mcp",
            EndpointError::Scheme("ftp://tools.example.com/mcp".into()),
        ),
        (
            "file:///var/run/mcp.sock",
            EndpointError::Scheme("file:///var/run/mcp.sock".into()),
        ),
        (
            "mailto:ops@example.com",
            EndpointError::Scheme("mailto:ops@example.com".into()),
        ),
        (
            "ws://tools.example.com/mcp",
            EndpointError::Scheme("ws://tools.example.com/mcp".into()),
        ),
        ("http://u:p@h/mcp", EndpointError::Credentials),
        ("https://token@tools.example.com/mcp", EndpointError::Credentials),
        ("", EndpointError::Empty),
        ("   ", EndpointError::Empty),
    ];
    for (endpoint, error) in refused {
        let document = valid_with(|d| set(d, "/mcp/servers/1/endpoint", json!(endpoint)));
        assert_eq!(
            problem_paths(&document),
            ["$.mcp.servers[1].endpoint"],
            "endpoint {endpoint:?}"
        );
        assert_eq!(
            typed_problems(&document)[0].message,
            error.to_string(),
            "endpoint {endpoint:?}"
        );
    }
    for endpoint in [
        "/mcp",
        "mcp",
        "tools/mcp",
        "http://127.0.0.1:9000/mcp",
        "https://tools.example.com/mcp",
    ] {
        let document = valid_with(|d| set(d, "/mcp/servers/1/endpoint", json!(endpoint)));
        assert_eq!(
            problem_paths(&document),
            Vec::<String>::new(),
            "endpoint {endpoint:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// contributions.tools
// ---------------------------------------------------------------------------------------

#[test]
fn tool_contribution_id_must_not_be_empty() {
    let document = valid_with(|d| set(d, "/contributions/tools/1/id", json!("")));
    assert_eq!(problem_paths(&document), ["$.contributions.tools[1].id"]);
}

#[test]
fn tool_contribution_ids_must_be_unique() {
    let document = valid_with(|d| set(d, "/contributions/tools/1/id", json!("weather.current")));
    assert_eq!(problem_paths(&document), ["$.contributions.tools[1].id"]);
    assert!(typed_problems(&document)[0].message.contains("weather.current"));
}

#[test]
fn tool_contribution_display_name_must_not_be_empty() {
    let document = valid_with(|d| set(d, "/contributions/tools/0/displayName", json!(" ")));
    assert_eq!(problem_paths(&document), ["$.contributions.tools[0].displayName"]);
}

#[test]
fn tool_contribution_mcp_tool_must_not_be_empty() {
    let document = valid_with(|d| set(d, "/contributions/tools/0/mcp/tool", json!("")));
    assert_eq!(problem_paths(&document), ["$.contributions.tools[0].mcp.tool"]);
}

#[test]
fn tool_contribution_mcp_server_must_be_declared() {
    for server in ["nowhere", "", "Weather"] {
        let document = valid_with(|d| set(d, "/contributions/tools/1/mcp/server", json!(server)));
        assert_eq!(
            problem_paths(&document),
            ["$.contributions.tools[1].mcp.server"],
            "server {server:?}"
        );
    }
    // No `mcp` member at all: every tool names an undeclared server.
    let document = valid_with(|d| remove(d, "/mcp"));
    assert_eq!(
        problem_paths(&document),
        [
            "$.contributions.tools[0].mcp.server",
            "$.contributions.tools[1].mcp.server"
        ]
    );
}

#[test]
fn tool_contribution_never_holds_a_schema() {
    for member in [
        "inputSchema",
        "outputSchema",
        "parameters",
        "schema",
        "annotations",
    ] {
        let document = valid_with(|d| {
            d["contributions"]["tools"][1][member] = json!({"type": "object", "properties": {}});
        });
        // The typed manifest ignores the unknown member; only the JSON rules see it.
        assert_eq!(typed_problems(&document), Vec::<Problem>::new());
        let problems = validate_manifest_json(&document);
        let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            [format!("$.contributions.tools[1].{member}")],
            "member {member}"
        );
        assert!(problems[0].message.contains(member));
    }
    // Schema members of a model provider or elsewhere are not tool contributions.
    let document = valid_with(|d| d["contributions"]["modelProviders"][0]["parameters"] = json!({}));
    assert_eq!(validate_manifest_json(&document), Vec::<Problem>::new());
}

// ---------------------------------------------------------------------------------------
// contributions.modelProviders
// ---------------------------------------------------------------------------------------

#[test]
fn model_provider_ids_are_unique_case_insensitively() {
    let duplicate = json!({"id": "OLLAMA", "displayName": "Ollama again", "capabilities": {}});
    let document = valid_with(|d| push(d, "/contributions/modelProviders", duplicate));
    assert_eq!(problem_paths(&document), ["$.contributions.modelProviders[1].id"]);

    let distinct = json!({"id": "ollama-remote", "displayName": "Ollama (remote)", "capabilities": {}});
    let document = valid_with(|d| push(d, "/contributions/modelProviders", distinct));
    assert_eq!(problem_paths(&document), Vec::<String>::new());
}

#[test]
fn model_provider_id_and_display_name_must_not_be_empty() {
    let document = valid_with(|d| set(d, "/contributions/modelProviders/0/id", json!("")));
    assert_eq!(problem_paths(&document), ["$.contributions.modelProviders[0].id"]);
    let document = valid_with(|d| set(d, "/contributions/modelProviders/0/displayName", json!("")));
    assert_eq!(
        problem_paths(&document),
        ["$.contributions.modelProviders[0].displayName"]
    );
}

// ---------------------------------------------------------------------------------------
// Required members (raw JSON)
// ---------------------------------------------------------------------------------------

#[test]
fn required_members_missing_or_null() {
    for member in ["protocolVersion", "extension", "capabilities", "contributions"] {
        let mut document = valid();
        remove(&mut document, &format!("/{member}"));
        let paths: Vec<String> = validate_manifest_json(&document)
            .into_iter()
            .map(|p| p.path)
            .collect();
        assert_eq!(paths, [format!("$.{member}")], "missing {member}");
        assert!(
            serde_json::from_value::<Manifest>(document).is_err(),
            "missing {member} still parses"
        );

        let document = valid_with(|d| d[member] = Value::Null);
        let paths: Vec<String> = validate_manifest_json(&document)
            .into_iter()
            .map(|p| p.path)
            .collect();
        assert_eq!(paths, [format!("$.{member}")], "null {member}");
    }
}

#[test]
fn contributions_model_providers_is_required() {
    let document = valid_with(|d| remove(d, "/contributions/modelProviders"));
    let paths: Vec<String> = validate_manifest_json(&document)
        .into_iter()
        .map(|p| p.path)
        .collect();
    assert_eq!(paths, ["$.contributions.modelProviders"]);

    let document = bare_with(|d| d["contributions"]["modelProviders"] = Value::Null);
    let paths: Vec<String> = validate_manifest_json(&document)
        .into_iter()
        .map(|p| p.path)
        .collect();
    assert_eq!(paths, ["$.contributions.modelProviders"]);
}

#[test]
fn all_required_members_missing_are_all_reported() {
    let paths: Vec<String> = validate_manifest_json(&json!({}))
        .into_iter()
        .map(|p| p.path)
        .collect();
    assert_eq!(
        paths,
        [
            "$.protocolVersion",
            "$.extension",
            "$.capabilities",
            "$.contributions"
        ]
    );
    let paths: Vec<String> = validate_manifest_json(&json!({"contributions": {}}))
        .into_iter()
        .map(|p| p.path)
        .collect();
    assert_eq!(
        paths,
        [
            "$.protocolVersion",
            "$.extension",
            "$.capabilities",
            "$.contributions.modelProviders"
        ]
    );
    let paths: Vec<String> = validate_manifest_json(&json!([]))
        .into_iter()
        .map(|p| p.path)
        .collect();
    assert_eq!(paths, ["$"]);
}

// ---------------------------------------------------------------------------------------
// Several problems at once
// ---------------------------------------------------------------------------------------

#[test]
fn every_problem_is_reported() {
    let document = valid_with(|d| {
        set(d, "/extension/name", json!(""));
        set(d, "/extension/version", json!(""));
        remove(d, "/capabilities/aep.health");
        push(
            d,
            "/contributions/modelProviders",
            json!({"id": "Ollama", "displayName": "", "capabilities": {}}),
        );
        push(
            d,
            "/mcp/servers",
            json!({"id": "weather", "endpoint": "ftp://h/mcp"}),
        );
        push(
            d,
            "/mcp/servers",
            json!({"id": "", "endpoint": "http://u:p@h/mcp"}),
        );
        set(d, "/contributions/tools/1/id", json!("weather.current"));
        set(d, "/contributions/tools/1/displayName", json!(""));
        set(d, "/contributions/tools/1/mcp/server", json!("missing"));
        push(
            d,
            "/contributions/tools",
            json!({"id": "", "displayName": "X", "inputSchema": {}, "mcp": {"server": "remote", "tool": ""}}),
        );
    });
    assert_eq!(
        problem_paths(&document),
        [
            "$.contributions.tools[2].inputSchema",
            "$.extension.name",
            "$.extension.version",
            "$.capabilities",
            "$.contributions.modelProviders[1].id",
            "$.contributions.modelProviders[1].displayName",
            "$.mcp.servers[2].id",
            "$.mcp.servers[2].endpoint",
            "$.mcp.servers[3].id",
            "$.mcp.servers[3].endpoint",
            "$.contributions.tools[1].id",
            "$.contributions.tools[1].displayName",
            "$.contributions.tools[1].mcp.server",
            "$.contributions.tools[2].id",
            "$.contributions.tools[2].mcp.tool",
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Endpoints
// ---------------------------------------------------------------------------------------

fn base(url: &str) -> Url {
    parse_base_url(url).unwrap_or_else(|e| panic!("{url}: {e}"))
}

fn resolved(base_url: &str, endpoint: &str) -> String {
    resolve_mcp_endpoint(&base(base_url), endpoint)
        .unwrap_or_else(|e| panic!("{base_url} + {endpoint}: {e}"))
        .to_string()
}

#[test]
fn relative_endpoints_join_with_exactly_one_slash() {
    for base_url in ["http://h:1/base", "http://h:1/base/"] {
        for endpoint in ["mcp", "/mcp"] {
            assert_eq!(
                resolved(base_url, endpoint),
                "http://h:1/base/mcp",
                "{base_url} + {endpoint}"
            );
        }
        assert_eq!(resolved(base_url, "tools/mcp"), "http://h:1/base/tools/mcp");
    }
    for base_url in ["http://h:1", "http://h:1/"] {
        for endpoint in ["mcp", "/mcp"] {
            assert_eq!(
                resolved(base_url, endpoint),
                "http://h:1/mcp",
                "{base_url} + {endpoint}"
            );
        }
    }
    assert_eq!(
        resolved("https://ext.example.com/a/b", "/mcp/"),
        "https://ext.example.com/a/b/mcp/"
    );
}

#[test]
fn absolute_http_endpoints_are_kept() {
    for endpoint in [
        "http://other:9/x/mcp",
        "https://tools.example.com/mcp",
        "https://tools.example.com:8443/a/mcp?tenant=1",
    ] {
        assert_eq!(resolved("http://h:1/base", endpoint), endpoint);
    }
}

#[test]
fn non_http_endpoints_are_rejected() {
    let b = base("http://h:1/base");
    for endpoint in [
        "ftp://h/mcp",
        "file:///tmp/mcp",
        "mailto:a@b.c",
        "ws://h/mcp",
        "javascript:alert(1)",
    ] {
        assert_eq!(
            check_endpoint(endpoint),
            Err(EndpointError::Scheme(endpoint.into())),
            "{endpoint}"
        );
        assert_eq!(
            resolve_mcp_endpoint(&b, endpoint),
            Err(EndpointError::Scheme(endpoint.into())),
            "{endpoint}"
        );
    }
}

#[test]
fn endpoints_with_credentials_are_rejected() {
    let b = base("http://h:1/base");
    for endpoint in ["http://u:p@h/mcp", "http://u@h/mcp", "https://:secret@h/mcp"] {
        assert_eq!(
            check_endpoint(endpoint),
            Err(EndpointError::Credentials),
            "{endpoint}"
        );
        assert_eq!(
            resolve_mcp_endpoint(&b, endpoint),
            Err(EndpointError::Credentials),
            "{endpoint}"
        );
    }
}

#[test]
fn empty_endpoints_are_rejected() {
    let b = base("http://h:1/base");
    for endpoint in ["", " "] {
        assert_eq!(check_endpoint(endpoint), Err(EndpointError::Empty));
        assert_eq!(resolve_mcp_endpoint(&b, endpoint), Err(EndpointError::Empty));
    }
}

#[test]
fn malformed_absolute_endpoints_are_rejected() {
    let b = base("http://h:1/base");
    for endpoint in [
        "http://[::1/mcp",
        "http://exa mple.com/mcp",
        "https://h:99999/mcp",
    ] {
        assert_eq!(
            check_endpoint(endpoint),
            Err(EndpointError::Invalid(endpoint.into())),
            "{endpoint}"
        );
        assert_eq!(
            resolve_mcp_endpoint(&b, endpoint),
            Err(EndpointError::Invalid(endpoint.into())),
            "{endpoint}"
        );
        let document = valid_with(|d| set(d, "/mcp/servers/0/endpoint", json!(endpoint)));
        assert_eq!(
            problem_paths(&document),
            ["$.mcp.servers[0].endpoint"],
            "{endpoint}"
        );
    }
}

#[test]
fn check_endpoint_accepts_relative_and_http() {
    for endpoint in [
        "/mcp",
        "mcp",
        "../mcp",
        "http://h/mcp",
        "https://h:8443/mcp",
        "HTTPS://H/mcp",
    ] {
        assert_eq!(check_endpoint(endpoint), Ok(()), "{endpoint}");
    }
}

#[test]
fn base_url_must_be_absolute_http_without_credentials() {
    assert_eq!(base("http://h:1/base").as_str(), "http://h:1/base");
    assert_eq!(
        base("https://ext.example.com").as_str(),
        "https://ext.example.com/"
    );
    for scheme_url in ["ftp://h/base", "file:///srv/ext", "mailto:ops@example.com"] {
        assert_eq!(
            parse_base_url(scheme_url),
            Err(EndpointError::Scheme(scheme_url.into())),
            "{scheme_url}"
        );
    }
    for with_credentials in ["http://u:p@h:1/base", "https://user@h/"] {
        assert_eq!(
            parse_base_url(with_credentials),
            Err(EndpointError::Credentials),
            "{with_credentials}"
        );
    }
    for invalid in ["", "/base", "base", "h:1/base"] {
        assert!(
            parse_base_url(invalid).is_err(),
            "{invalid:?} accepted as a base URL"
        );
    }
}

#[test]
fn resolve_rejects_a_bad_base_even_with_a_good_endpoint() {
    // `resolve_mcp_endpoint` takes any `Url`; it checks the base itself too.
    let with_credentials = Url::parse("http://u:p@h:1/base").expect("url");
    assert_eq!(
        resolve_mcp_endpoint(&with_credentials, "/mcp"),
        Err(EndpointError::Credentials)
    );
    let ftp = Url::parse("ftp://h/base").expect("url");
    assert_eq!(
        resolve_mcp_endpoint(&ftp, "mcp"),
        Err(EndpointError::Scheme("ftp://h/base".into()))
    );
    let file = Url::parse("file:///srv/ext").expect("url");
    assert!(matches!(
        resolve_mcp_endpoint(&file, "mcp"),
        Err(EndpointError::Scheme(_))
    ));
}
