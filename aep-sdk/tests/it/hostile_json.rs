//! Hostile chat bodies (issue 10, item 2): malformed JSON documents and content types
//! sent over raw TCP to the chat routes of the echo example and of
//! [`Tooly`](common::hostile::Tooly). The rules every case follows (a 4xx AEP error or a
//! documented exception, never a 5xx or a hang, still serving afterwards) and the table
//! runner are in `common/hostile.rs`.
//!
//! Documented exceptions, each a row of the table with its reason:
//! - **Served**: a request that looks hostile but is valid HTTP and valid AEP (a
//!   `charset` parameter, a large but in-limit document, serde's sequence form of a
//!   request, duplicate keys inside free-form JSON where the last one wins, free-form
//!   members such as `toolCall.arguments` that the provider checks) is answered 200.

use crate::common;

use common::hostile::*;

/// Malformed bodies and content types for the chat routes of provider `echo` (model
/// `echo-1`).
fn body_cases() -> Vec<Case> {
    let chat = "/aep/model-providers/echo/chat";
    let stream = "/aep/model-providers/echo/chat/stream";
    let valid = VALID.as_bytes();
    let bad = 400;
    let ir = "invalid_request";
    vec![
        // Truncation and non-objects.
        aep("truncated JSON", post_json(chat, &valid[..40]), bad, ir),
        aep(
            "valid JSON minus its last byte",
            post_json(stream, &valid[..valid.len() - 1]),
            bad,
            ir,
        ),
        aep("empty body", post_json(chat, b""), bad, ir),
        aep("whitespace body", post_json(chat, b" \r\n\t "), bad, ir),
        aep("null body", post_json(chat, b"null"), bad, ir),
        aep("empty JSON array body", post_json(stream, b"[]"), bad, ir),
        aep(
            "the request inside an array",
            post_json(chat, &bytes(&[b"[", valid, b"]"])),
            bad,
            ir,
        ),
        // serde's sequence form of a struct: the members in declaration order. The values
        // are typed and checked exactly as in the object form, so this leniency is
        // harmless; rejecting it would need a hand-written deserializer for every type.
        served(
            "JSON array with the members in order (serde's sequence form)",
            post_json(chat, format!(r#"["echo-1",[{MSG}]]"#).as_bytes()),
        ),
        aep("string body", post_json(chat, br#""echo-1""#), bad, ir),
        aep("number body", post_json(chat, b"42"), bad, ir),
        aep(
            "UTF-8 BOM before the document",
            post_json(chat, &bytes(&[b"\xEF\xBB\xBF", valid])),
            bad,
            ir,
        ),
        aep(
            "trailing garbage",
            post_json(chat, &bytes(&[valid, b"}"])),
            bad,
            ir,
        ),
        aep("two documents", post_json(chat, &bytes(&[valid, valid])), bad, ir),
        // Deep nesting.
        aep(
            "100k '[' as the body",
            post_json(chat, &vec![b'['; 100_000]),
            bad,
            ir,
        ),
        aep(
            "100k '{\"a\":' in metadata",
            post_json(
                stream,
                &with_members(&format!(r#""metadata":{}"#, "{\"a\":".repeat(100_000))),
            ),
            bad,
            ir,
        ),
        aep(
            "100k '[' in toolCall.arguments",
            post_json(
                chat,
                &with_content(&format!(
                    r#"{{"kind":"toolCall","toolCall":{{"id":"c","name":"f","arguments":{}}}}}"#,
                    "[".repeat(100_000)
                )),
            ),
            bad,
            ir,
        ),
        aep(
            "200 nested arrays in structured data (closed)",
            post_json(
                chat,
                &with_content(&format!(
                    r#"{{"kind":"structured","data":{}{}}}"#,
                    "[".repeat(200),
                    "]".repeat(200)
                )),
            ),
            bad,
            ir,
        ),
        // Huge strings.
        aep(
            "8 MiB role string",
            post_json(
                chat,
                &with_message(&format!(r#"{{"role":{},"contents":[]}}"#, big_string(8 * MIB))),
            ),
            bad,
            ir,
        ),
        served(
            "12 MiB metadata string (in limit)",
            post_json(
                chat,
                &with_members(&format!(r#""metadata":{{"x":{}}}"#, big_string(12 * MIB))),
            ),
        ),
        aep(
            "17 MiB text (over the 16 MiB limit)",
            post_json(
                chat,
                &with_content(&format!(r#"{{"kind":"text","text":{}}}"#, big_string(17 * MIB))),
            ),
            413,
            ir,
        ),
        aep(
            "limit + 1 bytes of whitespace",
            post_json(stream, &vec![b' '; LIMIT + 1]),
            413,
            ir,
        ),
        // Invalid UTF-8 and bad escapes.
        aep(
            "invalid UTF-8 byte in a string",
            post_json(
                chat,
                &bytes(&[br#"{"model":"echo-1"#, b"\xFF", br#"","messages":[]}"#]),
            ),
            bad,
            ir,
        ),
        aep(
            "overlong UTF-8 in a string",
            post_json(chat, &with_model_bytes(b"\"\xC0\xAF\"")),
            bad,
            ir,
        ),
        aep(
            "UTF-16 surrogate bytes (CESU) in a string",
            post_json(chat, &with_model_bytes(b"\"\xED\xA0\x80\"")),
            bad,
            ir,
        ),
        aep(
            "lone surrogate escape",
            post_json(chat, &with_model(r#""\ud800""#)),
            bad,
            ir,
        ),
        aep(
            "raw control character in a string",
            post_json(chat, &with_model("\"a\u{1}b\"")),
            bad,
            ir,
        ),
        aep("invalid escape", post_json(chat, &with_model(r#""\q""#)), bad, ir),
        aep(
            "stray byte outside strings",
            post_json(chat, &bytes(&[b"{\xC3", valid])),
            bad,
            ir,
        ),
        // Wrong types at every level.
        aep_at(
            "model: number",
            post_json(chat, &with_model("1")),
            bad,
            ir,
            "model",
        ),
        aep_at(
            "model: null",
            post_json(chat, &with_model("null")),
            bad,
            ir,
            "model",
        ),
        aep_at(
            "model: object",
            post_json(stream, &with_model("{}")),
            bad,
            ir,
            "model",
        ),
        aep_at(
            "model: empty",
            post_json(chat, &with_model(r#""""#)),
            bad,
            ir,
            "model",
        ),
        aep_at(
            "model: blank",
            post_json(chat, &with_model(r#"" \t""#)),
            bad,
            ir,
            "model",
        ),
        aep(
            "model: missing",
            post_json(chat, format!(r#"{{"messages":[{MSG}]}}"#).as_bytes()),
            bad,
            ir,
        ),
        aep_at(
            "messages: string",
            post_json(chat, &with_messages(r#""hi""#)),
            bad,
            ir,
            "messages",
        ),
        aep_at(
            "messages: object",
            post_json(chat, &with_messages("{}")),
            bad,
            ir,
            "messages",
        ),
        aep_at(
            "messages: null",
            post_json(chat, &with_messages("null")),
            bad,
            ir,
            "messages",
        ),
        aep_at(
            "messages: empty",
            post_json(stream, &with_messages("[]")),
            bad,
            ir,
            "messages",
        ),
        aep_at(
            "messages[0]: number",
            post_json(chat, &with_messages("[1]")),
            bad,
            ir,
            "messages[0]",
        ),
        aep_at(
            "role: number",
            post_json(chat, &with_message(r#"{"role":1,"contents":[]}"#)),
            bad,
            ir,
            "messages[0].role",
        ),
        aep_at(
            "role: unknown enum value",
            post_json(chat, &with_message(r#"{"role":"robot","contents":[]}"#)),
            bad,
            ir,
            "messages[0].role",
        ),
        aep_at(
            "role: wrong case",
            post_json(chat, &with_message(r#"{"role":"User","contents":[]}"#)),
            bad,
            ir,
            "messages[0].role",
        ),
        aep_at(
            "contents: string",
            post_json(chat, &with_message(r#"{"role":"user","contents":"hi"}"#)),
            bad,
            ir,
            "messages[0].contents",
        ),
        aep_at(
            "contents[0]: array",
            post_json(chat, &with_message(r#"{"role":"user","contents":[[]]}"#)),
            bad,
            ir,
            "messages[0].contents[0]",
        ),
        aep_at(
            "kind: unknown",
            post_json(chat, &with_content(r#"{"kind":"video"}"#)),
            bad,
            ir,
            "messages[0].contents[0].kind",
        ),
        aep_at(
            "kind: number",
            post_json(chat, &with_content(r#"{"kind":7}"#)),
            bad,
            ir,
            "messages[0].contents[0].kind",
        ),
        aep(
            "kind: missing",
            post_json(chat, &with_content(r#"{"text":"hi"}"#)),
            bad,
            ir,
        ),
        aep_at(
            "text: number",
            post_json(chat, &with_content(r#"{"kind":"text","text":5}"#)),
            bad,
            ir,
            "messages[0].contents[0].text",
        ),
        aep_at(
            "toolCall: string",
            post_json(chat, &with_content(r#"{"kind":"toolCall","toolCall":"f()"}"#)),
            bad,
            ir,
            "messages[0].contents[0].toolCall",
        ),
        aep_at(
            "toolCall.id: number",
            post_json(
                chat,
                &with_content(r#"{"kind":"toolCall","toolCall":{"id":1,"name":"f"}}"#),
            ),
            bad,
            ir,
            "messages[0].contents[0].toolCall.id",
        ),
        // `toolCall.arguments`, `tools[].parameters` and `data` are free-form JSON at the
        // SDK layer: each provider checks what its upstream needs (the Ollama extension
        // accepts an object or a JSON-encoded object string and refuses the rest with a
        // 400). The echo provider ignores them, so these are served.
        served(
            "toolCall.arguments: string (provider decides)",
            post_json(
                chat,
                &with_content(r#"{"kind":"toolCall","toolCall":{"id":"c","name":"f","arguments":"{}"}}"#),
            ),
        ),
        served(
            "toolCall.arguments: array (provider decides)",
            post_json(
                chat,
                &with_content(r#"{"kind":"toolCall","toolCall":{"id":"c","name":"f","arguments":[1]}}"#),
            ),
        ),
        aep_at(
            "toolResult.isError: string",
            post_json(
                chat,
                &with_content(
                    r#"{"kind":"toolResult","toolResult":{"callId":"c","result":1,"isError":"no"}}"#,
                ),
            ),
            bad,
            ir,
            "messages[0].contents[0].toolResult.isError",
        ),
        aep_at(
            "options: string",
            post_json(chat, &with_members(r#""options":"fast""#)),
            bad,
            ir,
            "options",
        ),
        aep_at(
            "options.temperature: string",
            post_json(chat, &with_options(r#""temperature":"hot""#)),
            bad,
            ir,
            "options.temperature",
        ),
        aep(
            "options.temperature: NaN",
            post_json(chat, &with_options(r#""temperature":NaN"#)),
            bad,
            ir,
        ),
        aep(
            "options.temperature: Infinity",
            post_json(chat, &with_options(r#""temperature":Infinity"#)),
            bad,
            ir,
        ),
        aep(
            "options.temperature: -Infinity",
            post_json(chat, &with_options(r#""temperature":-Infinity"#)),
            bad,
            ir,
        ),
        aep(
            "options.temperature: 1e999",
            post_json(stream, &with_options(r#""temperature":1e999"#)),
            bad,
            ir,
        ),
        aep(
            "options.temperature: 01 (leading zero)",
            post_json(chat, &with_options(r#""temperature":01"#)),
            bad,
            ir,
        ),
        aep(
            "options.temperature: .5",
            post_json(chat, &with_options(r#""temperature":.5"#)),
            bad,
            ir,
        ),
        aep(
            "metadata value: 1e999",
            post_json(chat, &with_members(r#""metadata":{"x":-1e999}"#)),
            bad,
            ir,
        ),
        aep_at(
            "options.maxOutputTokens: negative",
            post_json(chat, &with_options(r#""maxOutputTokens":-1"#)),
            bad,
            ir,
            "options.maxOutputTokens",
        ),
        aep_at(
            "options.maxOutputTokens: 2^32",
            post_json(chat, &with_options(r#""maxOutputTokens":4294967296"#)),
            bad,
            ir,
            "options.maxOutputTokens",
        ),
        aep_at(
            "options.maxOutputTokens: 1.5",
            post_json(chat, &with_options(r#""maxOutputTokens":1.5"#)),
            bad,
            ir,
            "options.maxOutputTokens",
        ),
        aep_at(
            "options.seed: 2^63",
            post_json(chat, &with_options(r#""seed":9223372036854775808"#)),
            bad,
            ir,
            "options.seed",
        ),
        aep_at(
            "options.stopSequences: string",
            post_json(chat, &with_options(r#""stopSequences":"STOP""#)),
            bad,
            ir,
            "options.stopSequences",
        ),
        aep_at(
            "options.stopSequences[1]: number",
            post_json(chat, &with_options(r#""stopSequences":["a",1]"#)),
            bad,
            ir,
            "options.stopSequences[1]",
        ),
        aep(
            "options.responseFormat.type: unknown",
            post_json(chat, &with_options(r#""responseFormat":{"type":"yaml"}"#)),
            bad,
            ir,
        ),
        aep(
            "options.responseFormat.type: number",
            post_json(chat, &with_options(r#""responseFormat":{"type":1}"#)),
            bad,
            ir,
        ),
        aep(
            "options.responseFormat: json_schema without json_schema",
            post_json(chat, &with_options(r#""responseFormat":{"type":"json_schema"}"#)),
            bad,
            ir,
        ),
        aep_at(
            "options.responseFormat: string",
            post_json(chat, &with_options(r#""responseFormat":"text""#)),
            bad,
            ir,
            "options.responseFormat",
        ),
        aep_at(
            "options.nativeOptions: string",
            post_json(chat, &with_options(r#""nativeOptions":"think""#)),
            bad,
            ir,
            "options.nativeOptions",
        ),
        aep_at(
            "options.nativeOptions.optionSet: number",
            post_json(
                chat,
                &with_options(
                    r#""nativeOptions":{"optionSet":1,"version":"1","schemaDigest":"x","values":{}}"#,
                ),
            ),
            bad,
            ir,
            "options.nativeOptions.optionSet",
        ),
        aep(
            "options.nativeOptions: members missing",
            post_json(chat, &with_options(r#""nativeOptions":{"optionSet":"a"}"#)),
            bad,
            ir,
        ),
        case(
            "options.nativeOptions: unknown option set",
            post_json(
                chat,
                &with_options(
                    r#""nativeOptions":{"optionSet":"x.y/z","version":"1","schemaDigest":"sha256:00","values":{}}"#,
                ),
            ),
            Expect::Aep(
                422,
                "option_set_unsupported",
                Some("options.nativeOptions.optionSet"),
            ),
        ),
        aep_at(
            "options.additionalOptions: array",
            post_json(chat, &with_options(r#""additionalOptions":[]"#)),
            bad,
            ir,
            "options.additionalOptions",
        ),
        aep_at(
            "tools: object",
            post_json(chat, &with_members(r#""tools":{}"#)),
            bad,
            ir,
            "tools",
        ),
        aep_at(
            "tools[0].name: number",
            post_json(chat, &with_members(r#""tools":[{"name":1,"parameters":{}}]"#)),
            bad,
            ir,
            "tools[0].name",
        ),
        served(
            "tools[0].parameters: string (provider decides)",
            post_json(
                chat,
                &with_members(r#""tools":[{"name":"f","parameters":"object"}]"#),
            ),
        ),
        aep_at(
            "tools[0].description: number",
            post_json(chat, &with_members(r#""tools":[{"name":"f","description":3}]"#)),
            bad,
            ir,
            "tools[0].description",
        ),
        aep_at(
            "metadata: array",
            post_json(chat, &with_members(r#""metadata":[]"#)),
            bad,
            ir,
            "metadata",
        ),
        // Duplicate keys.
        aep(
            "duplicate key: model",
            post_json(
                chat,
                format!(r#"{{"model":"echo-1","model":"x","messages":[{MSG}]}}"#).as_bytes(),
            ),
            bad,
            ir,
        ),
        aep(
            "duplicate key: messages[0].role",
            post_json(
                chat,
                &with_message(r#"{"role":"user","role":"system","contents":[]}"#),
            ),
            bad,
            ir,
        ),
        aep(
            "duplicate key: options.temperature",
            post_json(chat, &with_options(r#""temperature":0.1,"temperature":0.2"#)),
            bad,
            ir,
        ),
        served(
            "duplicate key inside free-form metadata (last wins)",
            post_json(chat, &with_members(r#""metadata":{"a":1,"a":2}"#)),
        ),
        // Content types.
        served(
            "Content-Type: application/json; charset=latin1 (JSON is UTF-8)",
            request(
                "POST",
                chat,
                &["Content-Type: application/json; charset=latin1"],
                valid,
            ),
        ),
        aep(
            "charset=latin1 with a Latin-1 byte",
            request(
                "POST",
                chat,
                &["Content-Type: application/json; charset=latin1"],
                &with_model_bytes(b"\"caf\xE9\""),
            ),
            bad,
            ir,
        ),
        served(
            "Content-Type: APPLICATION/JSON",
            request("POST", chat, &["Content-Type: APPLICATION/JSON"], valid),
        ),
        served(
            "Content-Type: application/vnd.acme+json",
            request("POST", chat, &["Content-Type: application/vnd.acme+json"], valid),
        ),
        aep(
            "Content-Type: text/plain",
            request("POST", chat, &["Content-Type: text/plain"], valid),
            415,
            ir,
        ),
        aep(
            "Content-Type: application/jsonx",
            request("POST", chat, &["Content-Type: application/jsonx"], valid),
            415,
            ir,
        ),
        aep(
            "Content-Type: application/x-www-form-urlencoded",
            request(
                "POST",
                chat,
                &["Content-Type: application/x-www-form-urlencoded"],
                b"model=echo-1",
            ),
            415,
            ir,
        ),
        aep("no Content-Type", request("POST", stream, &[], valid), 415, ir),
        aep(
            "Content-Type with an obs-text byte",
            request("POST", chat, &["Content-Type: application/json\u{e9}"], valid),
            415,
            ir,
        ),
    ]
}

// ---------------------------------------------------------------------------------------
// Documents.

/// The valid request with `raw` as the (raw JSON) value of `model`.
fn with_model(raw: &str) -> Vec<u8> {
    format!(r#"{{"model":{raw},"messages":[{MSG}]}}"#).into_bytes()
}

fn with_messages(raw: &str) -> Vec<u8> {
    format!(r#"{{"model":"echo-1","messages":{raw}}}"#).into_bytes()
}

fn with_message(raw: &str) -> Vec<u8> {
    with_messages(&format!("[{raw}]"))
}

fn with_content(raw: &str) -> Vec<u8> {
    with_message(&format!(r#"{{"role":"user","contents":[{raw}]}}"#))
}

/// A JSON string member value of `len` bytes of `a`.
fn big_string(len: usize) -> String {
    let mut s = String::with_capacity(len + 2);
    s.push('"');
    s.extend(std::iter::repeat_n('a', len));
    s.push('"');
    s
}

/// `{"model":<raw bytes>,"messages":[..]}`.
fn with_model_bytes(raw: &[u8]) -> Vec<u8> {
    bytes(&[br#"{"model":"#, raw, br#","messages":["#, MSG.as_bytes(), b"]}"])
}

#[tokio::test]
async fn echo_example_survives_malformed_bodies() {
    let server = echo_server();
    let cases = body_cases();
    assert!(cases.len() >= 40);
    survives(&server, "echo", cases).await;
}

#[tokio::test]
async fn mcp_extension_survives_malformed_bodies() {
    let server = tooly_server();
    survives(&server, "mcp", body_cases()).await;
}
