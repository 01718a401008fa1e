//! Property tests (issue 10, item 3): the CI-friendly equivalent of the fuzz targets in
//! `aep-sdk/fuzz/`, which need a nightly toolchain. The properties themselves live in
//! `aep-sdk/fuzz/src/lib.rs`, shared with the fuzz targets, so both check the same
//! invariants: request decoding, the client's SSE reader (and its agreement with the
//! server's writer), manifest validation, and MCP endpoint resolution.
//!
//! Each property runs a bounded number of cases from a fixed seed (a few seconds in
//! all); set `PROPTEST_RNG_SEED` to explore other cases, `PROPTEST_CASES` for more.

#[path = "../../fuzz/src/lib.rs"]
mod checks;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use serde_json::{Map, Value, json};

/// `cases` cases from a fixed seed, unless the environment asks for another seed.
fn config(cases: u32) -> Config {
    let mut config = Config::with_cases(cases);
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        config.rng_seed = RngSeed::Fixed(0x0AE9_5D4B);
    }
    if let Some(cases) = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()) {
        config.cases = cases;
    }
    config.failure_persistence = None;
    config
}

// ---------------------------------------------------------------------------------------
// Strategies.

/// Any JSON value, a few levels deep, with the awkward scalars (big and negative
/// numbers, floats, escapes, non-ASCII).
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z]{0,6}".prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        prop_oneof![
            Just("user"),
            Just("assistant"),
            Just("text"),
            Just("toolCall"),
            Just("json_schema"),
            Just("echo-1"),
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-zA-Z]{0,8}", inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// `good` most of the time, any JSON value otherwise (a wrong type at this member).
fn or_wrong(good: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
    prop_oneof![4 => good, 1 => any_json()].boxed()
}

/// An object with each member present or not.
fn object(members: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
    let names: Vec<&'static str> = members.iter().map(|(n, _)| *n).collect();
    let values: Vec<BoxedStrategy<Option<Value>>> = members
        .into_iter()
        .map(|(_, s)| prop::option::weighted(0.8, s).boxed())
        .collect();
    values
        .prop_map(move |values| {
            let mut object = Map::new();
            for (name, value) in names.iter().zip(values) {
                if let Some(value) = value {
                    object.insert((*name).to_owned(), value);
                }
            }
            Value::Object(object)
        })
        .boxed()
}

fn text() -> BoxedStrategy<Value> {
    prop_oneof![Just(json!("hello")), any::<String>().prop_map(Value::from)].boxed()
}

/// A chat request shaped document in which any member may be missing or of the wrong
/// type, at every level.
fn chat_request_like() -> BoxedStrategy<Value> {
    let role = or_wrong(
        prop_oneof![Just("user"), Just("assistant"), Just("system"), Just("tool")].prop_map(Value::from),
    );
    let kind = or_wrong(
        prop_oneof![
            Just("text"),
            Just("image"),
            Just("file"),
            Just("structured"),
            Just("toolCall"),
            Just("toolResult")
        ]
        .prop_map(Value::from),
    );
    let tool_call = or_wrong(object(vec![
        ("id", or_wrong(text())),
        ("name", or_wrong(text())),
        ("arguments", any_json().boxed()),
    ]));
    let tool_result = or_wrong(object(vec![
        ("callId", or_wrong(text())),
        ("result", any_json().boxed()),
        ("isError", or_wrong(any::<bool>().prop_map(Value::from))),
    ]));
    let content = or_wrong(object(vec![
        ("kind", kind),
        ("text", or_wrong(text())),
        ("mediaType", or_wrong(text())),
        ("data", any_json().boxed()),
        ("toolCall", tool_call),
        ("toolResult", tool_result),
    ]));
    let message = or_wrong(object(vec![
        ("role", role),
        (
            "contents",
            or_wrong(prop::collection::vec(content, 0..3).prop_map(Value::Array)),
        ),
        ("authorName", or_wrong(text())),
    ]));
    let response_format = or_wrong(prop_oneof![
        Just(json!({"type": "text"})),
        Just(json!({"type": "json_object"})),
        any_json().prop_map(
            |schema| json!({"type": "json_schema", "json_schema": {"name": "n", "schema": schema}})
        ),
        any_json().prop_map(|t| json!({"type": t})),
    ]);
    let native = or_wrong(object(vec![
        ("optionSet", or_wrong(text())),
        ("version", or_wrong(text())),
        ("schemaDigest", or_wrong(text())),
        ("values", any_json().boxed()),
    ]));
    let options = or_wrong(object(vec![
        ("temperature", or_wrong((0.0f64..2.0).prop_map(Value::from))),
        ("maxOutputTokens", or_wrong((0u32..100_000).prop_map(Value::from))),
        ("topP", or_wrong((0.0f64..1.0).prop_map(Value::from))),
        ("topK", or_wrong((0u32..100).prop_map(Value::from))),
        ("seed", or_wrong(any::<i64>().prop_map(Value::from))),
        (
            "stopSequences",
            or_wrong(prop::collection::vec(text(), 0..3).prop_map(Value::Array)),
        ),
        ("responseFormat", response_format),
        ("nativeOptions", native),
        ("additionalOptions", any_json().boxed()),
    ]));
    let tool = or_wrong(object(vec![
        ("name", or_wrong(text())),
        ("description", or_wrong(text())),
        ("parameters", any_json().boxed()),
    ]));
    object(vec![
        ("model", or_wrong(prop_oneof![Just(json!("echo-1")), text()])),
        (
            "messages",
            or_wrong(prop::collection::vec(message, 0..3).prop_map(Value::Array)),
        ),
        ("options", options),
        (
            "tools",
            or_wrong(prop::collection::vec(tool, 0..2).prop_map(Value::Array)),
        ),
        ("metadata", any_json().boxed()),
    ])
}

const SEED_REQUEST: &str = r#"{"model":"echo-1","messages":[{"role":"system","contents":[{"kind":"text","text":"Be brief."}]},{"role":"user","contents":[{"kind":"text","text":"hello"},{"kind":"image","mediaType":"image/png","data":"iVBORw0KGgo="}]},{"role":"assistant","contents":[{"kind":"toolCall","toolCall":{"id":"c1","name":"f","arguments":{"x":1}}}]},{"role":"tool","contents":[{"kind":"toolResult","toolResult":{"callId":"c1","result":{"ok":true},"isError":false}}]}],"options":{"temperature":0.5,"maxOutputTokens":64,"stopSequences":["END"],"responseFormat":{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"object"}}}},"tools":[{"name":"f","parameters":{"type":"object"}}],"metadata":{"k":"v"}}"#;

/// Fragments a mutation may splice into a document.
fn json_token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop_oneof![
            Just("{"),
            Just("}"),
            Just("["),
            Just("]"),
            Just(","),
            Just(":"),
            Just("\""),
            Just("null"),
            Just("NaN"),
            Just("1e999"),
            Just("-0"),
            Just("\\u0000"),
            Just("\\ud800"),
            Just("\"model\":"),
            Just("\"role\":\"robot\""),
        ]
        .prop_map(|t| t.as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..4),
    ]
}

/// The seed request with a byte range replaced by a fragment.
fn mutated_request() -> impl Strategy<Value = Vec<u8>> {
    let len = SEED_REQUEST.len();
    (0..=len, 0usize..8, json_token()).prop_map(move |(at, cut, token)| {
        let end = (at + cut).min(len);
        let mut bytes = SEED_REQUEST.as_bytes()[..at].to_vec();
        bytes.extend_from_slice(&token);
        bytes.extend_from_slice(&SEED_REQUEST.as_bytes()[end..]);
        bytes
    })
}

/// SSE streams built from the pieces that matter: fields, colons, every line ending,
/// comments, non-UTF-8 bytes.
fn sse_stream() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(&b"data:"[..]),
        Just(&b"data: "[..]),
        Just(&b"data"[..]),
        Just(&b": keep-alive"[..]),
        Just(&b":"[..]),
        Just(&b"event: update"[..]),
        Just(&b"id: 7"[..]),
        Just(&b"retry: 10"[..]),
        Just(&b"\n"[..]),
        Just(&b"\r"[..]),
        Just(&b"\r\n"[..]),
        Just(&b"\n\n"[..]),
        Just(&b" "[..]),
        Just(&b"{\"contents\":[]}"[..]),
        Just(&b"x"[..]),
        Just(&b"\xFF\xC3"[..]),
        Just("é".as_bytes()),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

/// URL-ish strings: schemes, credentials, hosts, dot segments (plain and
/// percent-encoded), slashes and backslashes, queries, fragments, spaces and controls.
fn url_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        prop_oneof![
            Just("http://"),
            Just("https://"),
            Just("ftp://"),
            Just("file:"),
            Just("javascript:"),
            Just("user:pw@"),
            Just("@"),
            Just("h:1"),
            Just("127.0.0.1:8710"),
            Just("[::1]"),
            Just("evil.example"),
            Just("/"),
            Just("//"),
            Just("\\"),
            Just("."),
            Just(".."),
            Just("%2e"),
            Just("%2E%2e"),
            Just(".%2e"),
            Just("%2f"),
            Just("mcp"),
            Just("base"),
            Just("?"),
            Just("#"),
            Just(":"),
            Just(" "),
            Just("\t"),
            Just("%00"),
            Just("%"),
        ]
        .prop_map(str::to_owned),
        "[a-z0-9]{1,4}",
    ]
}

fn url_like() -> impl Strategy<Value = String> {
    prop::collection::vec(url_piece(), 0..8).prop_map(|pieces| pieces.concat())
}

fn base_url_like() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            Just("http://h:1"),
            Just("https://h"),
            Just("http://127.0.0.1:8710"),
            Just("http://u:p@h"),
            Just("ftp://h"),
            Just(""),
        ],
        prop_oneof![Just(""), Just("/"), Just("/base"), Just("/a/b/")],
        url_like(),
    )
        .prop_map(|(origin, path, rest)| format!("{origin}{path}{rest}"))
}

fn manifest_like() -> impl Strategy<Value = Value> {
    let id = prop_oneof![Just("a"), Just("b"), Just(""), Just(" "), Just("A")].prop_map(Value::from);
    let server = (id.clone(), url_like()).prop_map(|(id, endpoint)| json!({"id": id, "endpoint": endpoint}));
    let tool = (id.clone(), id.clone(), id.clone(), any::<bool>()).prop_map(|(tid, server, name, schema)| {
        let mut tool = json!({"id": tid, "displayName": name, "mcp": {"server": server, "tool": name}});
        if schema {
            tool["inputSchema"] = json!({"type": "object"});
        }
        tool
    });
    let provider = (id.clone(), id.clone()).prop_map(|(pid, name)| {
        json!({"id": pid, "displayName": name, "capabilities": {"chat": true, "streaming": true}})
    });
    let capability = prop_oneof![
        Just("aep.health"),
        Just("aep.model-provider"),
        Just("aep.tools"),
        Just("aep.configuration"),
        Just("x.custom")
    ];
    (
        prop_oneof![Just(json!("1.0")), Just(json!("2026-08-01")), any_json()],
        (id.clone(), id.clone(), id),
        prop::collection::vec(capability, 0..5),
        prop::collection::vec(provider, 0..3),
        prop::collection::vec(tool, 0..3),
        prop::option::of(prop::collection::vec(server, 0..3)),
    )
        .prop_map(
            |(version, (xid, name, xversion), caps, providers, tools, servers)| {
                let capabilities: Map<String, Value> = caps
                    .into_iter()
                    .map(|c| (c.to_owned(), json!({"version": "1.0"})))
                    .collect();
                let mut manifest = json!({
                    "protocolVersion": version,
                    "extension": {"id": xid, "name": name, "version": xversion},
                    "capabilities": capabilities,
                    "contributions": {"modelProviders": providers, "tools": tools},
                });
                if let Some(servers) = servers {
                    manifest["mcp"] = json!({ "servers": servers });
                }
                manifest
            },
        )
}

// ---------------------------------------------------------------------------------------
// The properties.

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn request_decoding_of_any_bytes(body in prop::collection::vec(any::<u8>(), 0..256)) {
        checks::request_decoding(&body);
    }

    #[test]
    fn request_decoding_of_any_json(value in any_json()) {
        checks::request_decoding(&serde_json::to_vec(&value).unwrap());
    }

    #[test]
    fn request_decoding_of_request_shaped_documents(value in chat_request_like()) {
        checks::request_decoding(&serde_json::to_vec(&value).unwrap());
    }

    #[test]
    fn request_decoding_of_mutated_requests(body in mutated_request()) {
        checks::request_decoding(&body);
    }

    #[test]
    fn sse_reader_of_any_bytes(input in prop::collection::vec(any::<u8>(), 0..256), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        checks::sse_decoding(&input, &cuts);
    }

    #[test]
    fn sse_reader_of_sse_like_streams(input in sse_stream(), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        checks::sse_decoding(&input, &cuts);
    }

    #[test]
    fn sse_writer_and_reader_agree(text in any::<String>(), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        checks::sse_round_trip(&text, &cuts);
    }

    #[test]
    fn manifest_validation_of_any_json(value in any_json()) {
        checks::manifest_value(&value);
    }

    #[test]
    fn manifest_validation_of_manifest_shaped_documents(value in manifest_like()) {
        checks::manifest_value(&value);
    }

    #[test]
    fn manifest_validation_of_any_bytes(body in prop::collection::vec(any::<u8>(), 0..128)) {
        checks::manifest_validation(&body);
    }

    #[test]
    fn endpoint_resolution_of_url_like_strings(base in base_url_like(), endpoint in url_like()) {
        checks::endpoint_resolution(&base, &endpoint);
    }

    #[test]
    fn endpoint_resolution_of_any_strings(base in any::<String>(), endpoint in any::<String>()) {
        checks::endpoint_resolution(&base, &endpoint);
        checks::endpoint_resolution("http://h:1/base", &endpoint);
    }
}

/// The seed documents kept in the fuzz corpus pass their properties (and the decoder
/// accepts the valid ones), so the corpus stays meaningful.
#[test]
fn seed_corpus_holds() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut seen = 0;
    for (target, check) in [
        ("request_decoding", checks::request_decoding as fn(&[u8])),
        ("manifest_validation", checks::manifest_validation),
        ("sse_decoder", |bytes: &[u8]| {
            checks::sse_decoding(bytes, &[1, 7, 64])
        }),
    ] {
        for entry in std::fs::read_dir(corpus.join(target)).expect("the seed corpus exists") {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            check(&bytes);
            seen += 1;
        }
    }
    for entry in std::fs::read_dir(corpus.join("mcp_endpoint")).expect("the seed corpus exists") {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let (base, endpoint) = text.split_once('\n').unwrap_or((text.as_str(), ""));
        checks::endpoint_resolution(base, endpoint.trim_end_matches('\n'));
        seen += 1;
    }
    assert!(seen >= 16, "{seen} seeds");
}

/// Cases the properties found or that pin the edges of endpoint resolution.
#[test]
fn endpoint_resolution_edges() {
    for (base, endpoint) in [
        ("http://h:1/base", "mcp"),
        ("http://h:1/base/", "/mcp"),
        ("http://h:1", "//evil.example/mcp"),
        ("http://h:1/base", "../mcp"),
        ("http://h:1/base", "%2e%2e/mcp"),
        ("http://h:1/base", "a/../../mcp"),
        ("http://h:1/base", "./mcp"),
        ("http://h:1/base", "\\..\\mcp"),
        ("http://h:1/base?q=1", "mcp"),
        ("https://h", "http://other:2/mcp"),
        ("https://h", "http://u:p@other/mcp"),
    ] {
        checks::endpoint_resolution(base, endpoint);
    }
}
