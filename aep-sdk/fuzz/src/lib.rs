//! The properties the fuzz targets check, shared with the proptest suite
//! (`aep-sdk/tests/it/properties.rs` includes this file) so that both test the same
//! invariants. Every function panics when its property is broken.

use aep_sdk::client::SseDecoder;
use aep_sdk::protocol::{ChatRequest, ChatUpdate, Manifest};
use aep_sdk::server::AepJson;
use aep_sdk::validate;
use axum::body::Body;
use axum::extract::FromRequest;
use serde_json::Value;
use url::Url;

/// Decodes `body` the way the chat routes do: through [`AepJson`], the extractor that
/// turns every failure into an AEP error.
fn extract(body: Vec<u8>) -> Result<ChatRequest, aep_sdk::AepError> {
    let request = http::Request::builder()
        .method("POST")
        .uri("/aep/model-providers/p/chat")
        .header("content-type", "application/json")
        .body(Body::from(body))
        .expect("a valid request");
    // The body is in memory: the future completes without a runtime.
    futures::executor::block_on(AepJson::<ChatRequest>::from_request(request, &())).map(|AepJson(r)| r)
}

/// Whether `value` holds a floating-point number anywhere (serde_json's default float
/// parsing is not exactly round-trip, so such documents are compared by shape only).
fn has_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64(),
        Value::Array(items) => items.iter().any(has_float),
        Value::Object(members) => members.values().any(has_float),
        _ => false,
    }
}

/// Request decoding: never panics; the extractor accepts exactly what `serde_json`
/// accepts as a [`ChatRequest`], and refuses the rest with a 400 `invalid_request` that
/// says what is wrong; an accepted request, written back by the SDK's own types, is
/// accepted again as the same request.
pub fn request_decoding(body: &[u8]) {
    let direct = serde_json::from_slice::<ChatRequest>(body);
    let extracted = extract(body.to_vec());
    match (&direct, &extracted) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "the extractor decodes differently from serde_json"),
        (Err(_), Err(error)) => {
            assert_eq!(error.status().as_u16(), 400, "{error:?}");
            assert_eq!(error.code(), "invalid_request");
            assert!(!error.message().is_empty());
        }
        (Ok(_), Err(error)) => panic!("serde_json accepts what the extractor refuses: {error:?}"),
        (Err(error), Ok(_)) => panic!("the extractor accepts what serde_json refuses: {error}"),
    }
    let Ok(request) = extracted else { return };
    let written = serde_json::to_vec(&request).expect("a decoded request serializes");
    let again = extract(written.clone()).expect("a written request decodes");
    let value: Value = serde_json::from_slice(&written).expect("written JSON parses");
    if !has_float(&value) {
        assert_eq!(again, request, "the request changed through a write and a read");
    }
}

/// An independent reading of a whole SSE stream (the HTML standard's algorithm,
/// restricted to `data`): lines end at CRLF, LF or CR; a blank line dispatches the
/// event if a `data` line was seen; `:` starts a comment; a field without `:` has an
/// empty value; one space after the colon is dropped; data lines are joined by LF. An
/// unfinished last line is not a line yet.
pub fn reference_sse(input: &[u8]) -> Vec<String> {
    let mut events = Vec::new();
    let mut data: Option<String> = None;
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < input.len() {
        match input[i] {
            b'\n' => {
                lines.push(&input[start..i]);
                start = i + 1;
            }
            b'\r' => {
                lines.push(&input[start..i]);
                if input.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    for line in lines {
        if line.is_empty() {
            if let Some(event) = data.take() {
                events.push(event);
            }
            continue;
        }
        if line[0] == b':' {
            continue;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        if field == b"data" {
            let value = String::from_utf8_lossy(value);
            match &mut data {
                Some(buffer) => {
                    buffer.push('\n');
                    buffer.push_str(&value);
                }
                None => data = Some(value.into_owned()),
            }
        }
    }
    events
}

/// Feeds `input` to a fresh decoder in pieces cut at `cuts` (positions, taken modulo
/// the input's length + 1, in any order).
fn decode_in_pieces(input: &[u8], cuts: &[usize]) -> (Vec<String>, SseDecoder) {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    cuts.sort_unstable();
    let mut decoder = SseDecoder::default();
    let mut events = Vec::new();
    let mut start = 0;
    for cut in cuts {
        events.extend(decoder.push(&input[start..cut]));
        start = cut;
    }
    events.extend(decoder.push(&input[start..]));
    (events, decoder)
}

/// The client's SSE reader: never panics, and its events do not depend on how the bytes
/// are cut into chunks: they are the reference reading of the whole input.
pub fn sse_decoding(input: &[u8], cuts: &[usize]) {
    let expected = reference_sse(input);
    let (events, _) = decode_in_pieces(input, &[]);
    assert_eq!(events, expected, "whole input");
    let (events, decoder) = decode_in_pieces(input, cuts);
    assert_eq!(events, expected, "input cut at {cuts:?}");
    // Whatever came after the last complete event is still held as a partial one.
    let tail_is_blank = input.ends_with(b"\n\n") || input.ends_with(b"\r\r") || input.ends_with(b"\r\n\r\n");
    if tail_is_blank {
        assert!(!decoder.has_partial(), "a blank line ends every event");
    }
}

/// The server's SSE writer and the client's reader agree: an update written as an event
/// and read back in arbitrary chunks is the same update.
pub fn sse_round_trip(text: &str, cuts: &[usize]) {
    let update = ChatUpdate::text(text);
    let event = aep_sdk::server::sse::encode_event(&update);
    let (events, decoder) = decode_in_pieces(&event, cuts);
    assert_eq!(events.len(), 1, "one update, one event");
    assert!(!decoder.has_partial());
    let back: ChatUpdate = serde_json::from_str(&events[0]).expect("the event is an update");
    assert_eq!(back, update);
}

fn check_problems(problems: &[validate::Problem]) {
    for problem in problems {
        assert!(problem.path.starts_with('$'), "{problem}");
        assert!(!problem.message.is_empty(), "{problem}");
    }
}

/// Manifest validation on any JSON document: the raw rules never panic and name a JSON
/// path; a document that passes them and parses is checked by the typed rules; a
/// manifest that passes both, written back by the SDK's types, passes both again.
pub fn manifest_validation(document: &[u8]) {
    if let Ok(value) = serde_json::from_slice::<Value>(document) {
        manifest_value(&value);
    }
}

/// [`manifest_validation`] on a parsed document.
pub fn manifest_value(value: &Value) {
    let raw = validate::validate_manifest_json(value);
    check_problems(&raw);
    if !value.is_object() {
        assert_eq!(raw.len(), 1, "a non-object is one problem: {raw:?}");
    }
    let Ok(manifest) = serde_json::from_value::<Manifest>(value.clone()) else {
        return;
    };
    let typed = validate::validate_manifest(&manifest);
    check_problems(&typed);
    if raw.is_empty() && typed.is_empty() {
        let written = serde_json::to_value(&manifest).expect("a manifest serializes");
        assert_eq!(validate::validate_manifest_json(&written), vec![], "{written}");
        let back: Manifest = serde_json::from_value(written).expect("a written manifest parses");
        assert_eq!(validate::validate_manifest(&back), vec![]);
        for server in back.mcp_servers() {
            assert!(validate::check_endpoint(&server.endpoint).is_ok());
        }
    }
}

/// Whether the URL parser reads `endpoint` as relative.
fn is_relative(endpoint: &str) -> bool {
    matches!(Url::parse(endpoint), Err(url::ParseError::RelativeUrlWithoutBase))
}

/// MCP endpoint resolution: never panics; a base URL that is accepted is HTTP(S) without
/// credentials; an endpoint that resolves passed `check_endpoint` and resolves to an
/// HTTP(S) URL without credentials; a relative endpoint stays under the base URL (it
/// cannot climb out of the base path with dot segments).
pub fn endpoint_resolution(base: &str, endpoint: &str) {
    let checked = validate::check_endpoint(endpoint);
    if is_relative(endpoint) && !endpoint.trim().is_empty() {
        assert_eq!(checked, Ok(()), "a relative endpoint is valid: {endpoint:?}");
    }
    let Ok(base_url) = validate::parse_base_url(base) else {
        return;
    };
    assert!(matches!(base_url.scheme(), "http" | "https"), "{base_url}");
    assert!(
        base_url.username().is_empty() && base_url.password().is_none(),
        "{base_url}"
    );
    let Ok(resolved) = validate::resolve_mcp_endpoint(&base_url, endpoint) else {
        return;
    };
    assert_eq!(
        checked,
        Ok(()),
        "{endpoint:?} resolved but is not a valid endpoint"
    );
    assert!(matches!(resolved.scheme(), "http" | "https"), "{resolved}");
    assert!(
        resolved.username().is_empty() && resolved.password().is_none(),
        "{resolved} carries credentials"
    );
    if is_relative(endpoint) {
        let under = format!("{}/", base_url.as_str().trim_end_matches('/'));
        assert!(
            resolved.as_str().starts_with(&under),
            "{endpoint:?} against {base_url} resolved to {resolved}, outside the base"
        );
    }
}
