//! Hostile input (issue 10, item 2): a table of malformed requests, sent over raw TCP to
//! the echo example and to an extension that co-hosts an MCP server and an option set,
//! both served by the SDK's own serving loop (`serve_listener`) with 2 s header-read and
//! body-read timeouts.
//!
//! Every exchange is bounded by a timeout. Every answer must be a 4xx AEP error
//! (`{"error":{"code","message"}}`) or one of the documented exceptions below; never a
//! 5xx, never a hang; and after every case the server must still serve a valid request.
//! The table is printed (`--nocapture`) with what the server did for each case.
//!
//! Documented exceptions, each a row of the tables with its reason:
//! - **Served**: a request that looks hostile but is valid HTTP and valid AEP (a chunked
//!   body, a `charset` parameter, a large but in-limit document, duplicate keys inside
//!   free-form JSON where the last one wins, a 100 KiB header value, `HEAD`, free-form
//!   members such as `toolCall.arguments` that the provider checks) is answered 200.
//! - **Hyper**: malformed HTTP framing (request line, header syntax, `Content-Length`,
//!   `Transfer-Encoding`), a header section larger than hyper's buffer (431) and a URI
//!   longer than `http::Uri` accepts (414) are refused by hyper while it parses the
//!   request, before any routing: the answer has the right 4xx status but an empty body,
//!   not an AEP document, and hyper closes the connection. No AEP code runs there
//!   without replacing hyper's parser; a host treats these as transport failures.
//! - **Mcp**: the co-hosted MCP endpoint is not an AEP route: rmcp answers with its own
//!   plain-text bodies, and the table pins their 4xx statuses. Failures to read an MCP
//!   body (bad chunking, a stalled client, over the extension's limit) are AEP errors:
//!   the SDK reads the body before rmcp, which would answer them with a 500.
//! - **Slow clients**: a body that stalls gets a 408 AEP error from the body-read
//!   timeout; a header section that stalls or dribbles has its connection closed by the
//!   header-read timeout (hyper writes no answer there). A connection that never sends a
//!   byte is held until the client leaves: hyper's header timer starts with the first
//!   byte and the SDK has no idle timeout (the table accepts that or a close). A declared
//!   `Content-Length` over the limit is not refused up front: the server reads until the
//!   limit (413) or until the body-read timeout (408). Other clients are served while a
//!   client stalls.

#[path = "../examples/echo.rs"]
#[allow(dead_code)]
mod echo;

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use aep_sdk::config::OptionSetDecl;
use aep_sdk::prelude::*;
use aep_sdk::server::{ConnectionLimits, Extension};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedReadHalf;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;

/// Bound on one exchange (large documents are parsed by a debug build).
const CASE_BOUND: Duration = Duration::from_secs(15);
/// The servers' header-read and body-read timeouts (short, so that the test is quick).
const SERVER_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a stalled client waits for the server to give up on it.
const STALL_WAIT: Duration = Duration::from_secs(5);
/// The pause of a slow (but complete) body: within the body-read timeout.
const SLOW_PAUSE: Duration = Duration::from_secs(1);
/// The request-body limit (the SDK's default).
const LIMIT: usize = aep_sdk::server::DEFAULT_BODY_LIMIT;
const MIB: usize = 1024 * 1024;

// ---------------------------------------------------------------------------------------
// The extension with an MCP server: one tool, one provider, one option set.

/// A tiny extension with a tool (so an MCP server at `/mcp`), a provider and an option set.
#[derive(Clone, Default)]
struct Tooly;

#[aep_extension(id = "test.hostile", name = "Hostile", version = "1.0.0")]
impl Tooly {
    /// Reverse a text.
    #[tool(id = "text.reverse", display_name = "Reverse text", read_only)]
    async fn reverse(
        &self,
        /// The text to reverse.
        text: String,
    ) -> Result<String, ToolError> {
        Ok(text.chars().rev().collect())
    }

    /// Echo the last user message back.
    #[model_provider(id = "echo", display_name = "Echo", models = ["echo-1"])]
    async fn echo(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let text = request.last_user_text().unwrap_or_default();
        let updates = [
            Ok(ChatUpdate::text(text)),
            Ok(ChatUpdate::finish(FinishReason::Stop)),
        ];
        Ok(ChatStream::new(futures::stream::iter(updates)))
    }

    #[option_set]
    fn profile(&self) -> OptionSetDecl {
        OptionSetDecl::new(PROFILE, "echo").version(
            "1.0.0",
            json!({
                "type": "object",
                "properties": {
                    "think": {"type": "boolean"},
                    "depth": {"type": "integer", "minimum": 0, "maximum": 3}
                },
                "additionalProperties": false
            }),
        )
    }
}

const PROFILE: &str = "test.hostile/model-profile";

/// An extension served by the SDK's own serving loop (`serve_listener`, with its
/// header-read timeout) on a loopback port; stopped on drop.
struct Server {
    addr: SocketAddr,
    base_url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(extension: Extension) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("bound address");
    let limits = ConnectionLimits {
        header_read_timeout: SERVER_TIMEOUT,
        ..ConnectionLimits::default()
    };
    let task = tokio::spawn(async move {
        let _ = extension
            .serve_listener(listener, std::future::pending(), limits)
            .await;
    });
    Server {
        addr,
        base_url: format!("http://{addr}"),
        task,
    }
}

// ---------------------------------------------------------------------------------------
// Raw HTTP/1.1 over TCP.

/// How the bytes of a request go out.
#[derive(Clone)]
enum Send {
    /// Everything at once.
    Whole(Vec<u8>),
    /// The first part, a pause, then the rest (a slow but complete client).
    Paused(Vec<u8>, Vec<u8>),
    /// The first part, then the write side is shut: the body ends early.
    CutShort(Vec<u8>),
    /// The first part, then silence with the connection held open.
    Stalled(Vec<u8>),
    /// One byte every 300 ms (slow loris), the connection held open afterwards.
    Dribble(Vec<u8>),
}

/// A complete HTTP answer.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the server did with one exchange.
#[derive(Debug)]
enum Outcome {
    Answer(Answer),
    /// The connection ended (EOF or reset) before a complete answer.
    Closed(usize),
    /// Nothing complete within the bound.
    Silent,
}

async fn exchange(addr: SocketAddr, send: Send, bound: Duration) -> Outcome {
    let head_only = match &send {
        Send::Whole(b) | Send::Paused(b, _) | Send::CutShort(b) | Send::Stalled(b) | Send::Dribble(b) => {
            b.starts_with(b"HEAD ")
        }
    };
    let stream = TcpStream::connect(addr)
        .await
        .expect("connect to the test server");
    let (mut reader, mut writer) = stream.into_split();
    // The writer runs beside the reader: a server may answer (and close) before it has
    // read the whole body. The write half is kept open until the exchange is over.
    let write = tokio::spawn(async move {
        match send {
            Send::Whole(bytes) => {
                let _ = writer.write_all(&bytes).await;
            }
            Send::Paused(first, rest) => {
                let _ = writer.write_all(&first).await;
                tokio::time::sleep(SLOW_PAUSE).await;
                let _ = writer.write_all(&rest).await;
            }
            Send::CutShort(bytes) => {
                let _ = writer.write_all(&bytes).await;
                let _ = writer.shutdown().await;
            }
            Send::Stalled(bytes) => {
                let _ = writer.write_all(&bytes).await;
                std::future::pending::<()>().await;
            }
            Send::Dribble(bytes) => {
                for byte in bytes {
                    if writer.write_all(&[byte]).await.is_err() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
                std::future::pending::<()>().await;
            }
        }
        writer
    });
    let outcome = match timeout(bound, read_answer(&mut reader, head_only)).await {
        Ok(Ok(answer)) => Outcome::Answer(answer),
        Ok(Err(received)) => Outcome::Closed(received),
        Err(_) => Outcome::Silent,
    };
    write.abort();
    outcome
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Reads one answer; `Err(bytes received)` when the connection ends first.
async fn read_answer(reader: &mut OwnedReadHalf, head_only: bool) -> Result<Answer, usize> {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut fill = async |buf: &mut Vec<u8>| -> Result<(), usize> {
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => Err(buf.len()),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                Ok(())
            }
        }
    };
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i;
        }
        fill(&mut buf).await?;
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = buf.split_off(head_end + 4);
    let get = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    if head_only {
        body.clear();
    } else if get("transfer-encoding").is_some_and(|te| te.eq_ignore_ascii_case("chunked")) {
        loop {
            if let Some(decoded) = dechunk(&body) {
                body = decoded;
                break;
            }
            fill(&mut body).await?;
        }
    } else if let Some(length) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        while body.len() < length {
            fill(&mut body).await?;
        }
        body.truncate(length);
    } else if status != 204 && status != 304 && !(100..200).contains(&status) {
        // Neither: the body runs to the end of the connection.
        while fill(&mut body).await.is_ok() {}
    }
    Ok(Answer {
        status,
        headers,
        body,
    })
}

/// Decodes a complete chunked body; `None` while incomplete.
fn dechunk(mut raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line = find(raw, b"\r\n")?;
        let size_text = std::str::from_utf8(&raw[..line]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        raw = &raw[line + 2..];
        if size == 0 {
            return find(raw, b"\r\n").map(|_| out);
        }
        if raw.len() < size + 2 {
            return None;
        }
        out.extend_from_slice(&raw[..size]);
        raw = &raw[size + 2..];
    }
}

/// A request: method, target, extra header lines (`Name: value`), body. `Host`,
/// `Connection: close` and (unless `chunked` or `raw_length` is among the headers)
/// `Content-Length` are added.
fn request(method: &str, target: &str, headers: &[&str], body: &[u8]) -> Vec<u8> {
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    let framed = headers.iter().any(|h| {
        let h = h.to_ascii_lowercase();
        h.starts_with("content-length:") || h.starts_with("transfer-encoding:")
    });
    for header in headers {
        head.push_str(header);
        head.push_str("\r\n");
    }
    if !framed && (!body.is_empty() || method == "POST" || method == "PUT" || method == "PATCH") {
        let _ = write!(head, "Content-Length: {}\r\n", body.len());
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

const JSON: &str = "Content-Type: application/json";

fn post_json(target: &str, body: &[u8]) -> Vec<u8> {
    request("POST", target, &[JSON], body)
}

/// `chunks` as a chunked body (with the terminating chunk).
fn chunked(chunks: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        out.extend_from_slice(chunk);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

// ---------------------------------------------------------------------------------------
// Documents.

const VALID: &str =
    r#"{"model":"echo-1","messages":[{"role":"user","contents":[{"kind":"text","text":"hello there"}]}]}"#;
const MSG: &str = r#"{"role":"user","contents":[{"kind":"text","text":"hi"}]}"#;

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

/// The valid request plus `members` (raw JSON members, e.g. `"options":{..}`).
fn with_members(members: &str) -> Vec<u8> {
    format!(r#"{{"model":"echo-1","messages":[{MSG}],{members}}}"#).into_bytes()
}

fn with_options(raw: &str) -> Vec<u8> {
    with_members(&format!(r#""options":{{{raw}}}"#))
}

/// Raw byte pieces joined.
fn bytes(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// A JSON string member value of `len` bytes of `a`.
fn big_string(len: usize) -> String {
    let mut s = String::with_capacity(len + 2);
    s.push('"');
    s.extend(std::iter::repeat_n('a', len));
    s.push('"');
    s
}

// ---------------------------------------------------------------------------------------
// Expectations and the table runner.

#[derive(Clone, Debug)]
enum Expect {
    /// A 4xx AEP error with this status and code (and `target`, when given).
    Aep(u16, &'static str, Option<&'static str>),
    /// Valid after all: served with 200 (see the module docs).
    Served,
    /// Refused by hyper before routing: this 4xx status, an empty body, no AEP document.
    Hyper(u16),
    /// rmcp's own answer on the MCP endpoint: this 4xx status.
    Mcp(u16),
    /// Half a body, then silence: the body-read timeout answers 408 (an AEP error).
    StalledBody,
    /// Half a header section (or nothing), then silence: the header-read timeout closes
    /// the connection (hyper answers nothing, or an empty 408).
    StalledHeaders,
    /// The connection is closed by the server within the bound, with no HTTP/1 answer.
    Closes,
    /// A connection that never sends a byte: the serve loop closes it after the
    /// header-read timeout (hyper's own timer only starts with the first byte). Other
    /// clients are served meanwhile.
    Idle,
    /// The body ends early (the client shut its write side): the server answers a 4xx
    /// AEP error or closes; it cannot be a 5xx.
    CutShort,
}

struct Case {
    name: String,
    send: Send,
    expect: Expect,
}

fn case(name: impl Into<String>, send: Send, expect: Expect) -> Case {
    Case {
        name: name.into(),
        send,
        expect,
    }
}

fn aep(name: impl Into<String>, raw: Vec<u8>, status: u16, code: &'static str) -> Case {
    case(name, Send::Whole(raw), Expect::Aep(status, code, None))
}

fn aep_at(
    name: impl Into<String>,
    raw: Vec<u8>,
    status: u16,
    code: &'static str,
    target: &'static str,
) -> Case {
    case(name, Send::Whole(raw), Expect::Aep(status, code, Some(target)))
}

fn served(name: impl Into<String>, raw: Vec<u8>) -> Case {
    case(name, Send::Whole(raw), Expect::Served)
}

fn hyper(name: impl Into<String>, raw: Vec<u8>, status: u16) -> Case {
    case(name, Send::Whole(raw), Expect::Hyper(status))
}

fn mcp(name: impl Into<String>, raw: Vec<u8>, status: u16) -> Case {
    case(name, Send::Whole(raw), Expect::Mcp(status))
}

/// Checks an AEP error answer; returns a failure description.
fn check_aep(answer: &Answer, status: u16, code: &str, target: Option<&str>) -> Result<(), String> {
    if answer.status != status {
        return Err(format!(
            "status {} (want {status}): {}",
            answer.status,
            preview(&answer.body)
        ));
    }
    if answer.header("content-type") != Some("application/json") {
        return Err(format!("content-type {:?}", answer.header("content-type")));
    }
    let json: Value = serde_json::from_slice(&answer.body)
        .map_err(|e| format!("body is not JSON ({e}): {}", preview(&answer.body)))?;
    let error = &json["error"];
    if error["code"] != code {
        return Err(format!("code {} (want {code}): {json}", error["code"]));
    }
    if error["message"].as_str().is_none_or(str::is_empty) {
        return Err(format!("no message: {json}"));
    }
    if let Some(target) = target
        && error["target"] != target
    {
        return Err(format!("target {} (want {target})", error["target"]));
    }
    Ok(())
}

fn preview(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
    if body.len() > 200 {
        format!("{text}... ({} bytes)", body.len())
    } else {
        text
    }
}

/// One line of the report: what the server did.
fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Answer(a) => {
            let code = serde_json::from_slice::<Value>(&a.body)
                .ok()
                .and_then(|v| v["error"]["code"].as_str().map(str::to_owned));
            match code {
                Some(code) => format!("{} {code}", a.status),
                None if a.body.is_empty() => format!("{} (empty body)", a.status),
                None => format!("{} {:?}", a.status, preview(&a.body)),
            }
        }
        Outcome::Closed(n) => format!("closed after {n} bytes"),
        Outcome::Silent => "no answer within the bound".to_owned(),
    }
}

fn judge(expect: &Expect, outcome: &Outcome) -> Result<(), String> {
    if let Outcome::Answer(a) = outcome
        && a.status >= 500
    {
        return Err(format!("5xx: {}", describe(outcome)));
    }
    match (expect, outcome) {
        (Expect::Aep(status, code, target), Outcome::Answer(a)) => check_aep(a, *status, code, *target),
        (Expect::Served, Outcome::Answer(a)) if a.status == 200 => Ok(()),
        (Expect::Hyper(status), Outcome::Answer(a)) if a.status == *status && a.body.is_empty() => Ok(()),
        (Expect::Mcp(status), Outcome::Answer(a)) if a.status == *status => Ok(()),
        (Expect::StalledBody, Outcome::Answer(a)) => check_aep(a, 408, "invalid_request", None),
        (Expect::StalledHeaders, Outcome::Closed(0)) => Ok(()),
        (Expect::StalledHeaders, Outcome::Answer(a)) if a.status == 408 && a.body.is_empty() => Ok(()),
        (Expect::Closes, Outcome::Closed(_)) => Ok(()),
        (Expect::Idle, Outcome::Silent | Outcome::Closed(0)) => Ok(()),
        (Expect::CutShort, Outcome::Answer(a)) if (400..500).contains(&a.status) => {
            check_aep(a, a.status, a_code(a).as_deref().unwrap_or("?"), None)
        }
        (Expect::CutShort, Outcome::Closed(0)) => Ok(()),
        _ => Err(format!("unexpected: {}", describe(outcome))),
    }
}

fn a_code(answer: &Answer) -> Option<String> {
    serde_json::from_slice::<Value>(&answer.body)
        .ok()?
        .pointer("/error/code")?
        .as_str()
        .map(str::to_owned)
}

/// A valid chat must be answered 200 with the echoed text, within the bound.
async fn still_serving(addr: SocketAddr) -> Result<(), String> {
    let send = Send::Whole(post_json("/aep/model-providers/echo/chat", VALID.as_bytes()));
    match exchange(addr, send, CASE_BOUND).await {
        Outcome::Answer(a) if a.status == 200 => {
            let json: Value = serde_json::from_slice(&a.body).map_err(|e| e.to_string())?;
            if json["messages"][0]["contents"][0]["text"] == "hello there" {
                Ok(())
            } else {
                Err(format!("unexpected answer {json}"))
            }
        }
        other => Err(format!("valid request not served: {}", describe(&other))),
    }
}

/// Runs every case, each followed by a valid request; reports all failures at once.
async fn run_table(server: &Server, label: &str, cases: Vec<Case>) {
    let addr = server.addr;
    let mut report = String::new();
    let mut failures = Vec::new();
    let count = cases.len();
    let started = Instant::now();
    for case in cases {
        let begun = Instant::now();
        let (outcome, concurrent) = match &case.expect {
            Expect::StalledBody | Expect::StalledHeaders | Expect::Idle => {
                // While this client stalls, another one must be served.
                let stalled = exchange(addr, case.send.clone(), STALL_WAIT);
                let (outcome, concurrent) = tokio::join!(stalled, async {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    still_serving(addr).await
                });
                (outcome, concurrent)
            }
            _ => (exchange(addr, case.send.clone(), CASE_BOUND).await, Ok(())),
        };
        let verdict = judge(&case.expect, &outcome)
            .and(concurrent.map_err(|e| format!("while stalled: {e}")))
            .and(still_serving(addr).await.map_err(|e| format!("afterwards: {e}")));
        let _ = writeln!(
            report,
            "{label} | {:<60} | {:<14} | {} | {} ms",
            case.name,
            format!("{:?}", case.expect).split('(').next().unwrap_or(""),
            describe(&outcome),
            begun.elapsed().as_millis()
        );
        if let Err(why) = verdict {
            failures.push(format!("{}: {why}", case.name));
        }
    }
    println!("{report}");
    println!("{label}: {count} cases in {:?}", started.elapsed());
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// The tables.

/// The AEP cases every extension with provider `echo` (model `echo-1`) must pass.
fn aep_cases() -> Vec<Case> {
    let chat = "/aep/model-providers/echo/chat";
    let stream = "/aep/model-providers/echo/chat/stream";
    let valid = VALID.as_bytes();
    let bad = 400;
    let ir = "invalid_request";
    let mut cases = vec![
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
            Send::Whole(post_json(
                chat,
                &with_options(
                    r#""nativeOptions":{"optionSet":"x.y/z","version":"1","schemaDigest":"sha256:00","values":{}}"#,
                ),
            )),
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
        // Provider ids in the path.
        aep_at(
            "id: ..%2F..%2Fetc%2Fpasswd",
            post_json("/aep/model-providers/..%2F..%2Fetc%2Fpasswd/chat", valid),
            404,
            "provider_unavailable",
            "../../etc/passwd",
        ),
        aep_at(
            "id: .. (unnormalized dot segment)",
            request("GET", "/aep/model-providers/../health", &[], b""),
            404,
            "provider_unavailable",
            "..",
        ),
        aep(
            "dot segments above the root",
            request("GET", "/aep/model-providers/../../../../etc/passwd", &[], b""),
            404,
            "not_found",
        ),
        aep_at(
            "id: %00",
            request("GET", "/aep/model-providers/%00/models", &[], b""),
            404,
            "provider_unavailable",
            "\0",
        ),
        aep_at(
            "id: echo%00",
            post_json("/aep/model-providers/echo%00/chat", valid),
            404,
            "provider_unavailable",
            "echo\0",
        ),
        aep_at(
            "id: echo%2Fchat",
            post_json("/aep/model-providers/echo%2Fchat/chat", valid),
            404,
            "provider_unavailable",
            "echo/chat",
        ),
        aep(
            "id: %ZZ (invalid percent-encoding)",
            request("GET", "/aep/model-providers/%ZZ/health", &[], b""),
            404,
            "provider_unavailable",
        ),
        aep(
            "id: %FF (not UTF-8 once decoded)",
            request("GET", "/aep/model-providers/%FF/health", &[], b""),
            bad,
            ir,
        ),
        aep(
            "id: %C0%AE%C0%AE (overlong dots)",
            post_json("/aep/model-providers/%C0%AE%C0%AE/chat", valid),
            bad,
            ir,
        ),
        aep_at(
            "id: empty",
            post_json("/aep/model-providers//chat", valid),
            404,
            "provider_unavailable",
            "",
        ),
        aep(
            "id: 32 KiB long",
            request(
                "GET",
                &format!("/aep/model-providers/{}/models", "x".repeat(32 * 1024)),
                &[],
                b"",
            ),
            404,
            "provider_unavailable",
        ),
        hyper(
            "id: 70 KiB long (URI over 64 KiB)",
            request(
                "GET",
                &format!("/aep/model-providers/{}/models", "x".repeat(70 * 1024)),
                &[],
                b"",
            ),
            414,
        ),
        aep(
            "trailing slash",
            post_json(&format!("{chat}/"), valid),
            404,
            "not_found",
        ),
        aep(
            "%2e%2e in the route",
            request("GET", "/aep/%2e%2e/aep/health", &[], b""),
            404,
            "not_found",
        ),
        // Headers.
        served(
            "100 KiB header value (within hyper's buffer)",
            request(
                "POST",
                chat,
                &[JSON, &format!("X-Big: {}", "v".repeat(100 * 1024))],
                valid,
            ),
        ),
        hyper(
            "1 MiB header value (over hyper's buffer)",
            request(
                "POST",
                chat,
                &[JSON, &format!("X-Big: {}", "v".repeat(MIB))],
                valid,
            ),
            431,
        ),
        hyper(
            "200 headers (over hyper's 100)",
            request(
                "GET",
                "/aep/health",
                &(0..200)
                    .map(|i| format!("X-H{i}: v"))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
                b"",
            ),
            431,
        ),
        hyper(
            "control byte in a header value",
            request("GET", "/aep/health", &["X-Bad: a\u{1}b"], b""),
            400,
        ),
        hyper(
            "header line without a colon",
            request("GET", "/aep/health", &["NoColonHere"], b""),
            400,
        ),
        hyper(
            "space before the colon",
            request("GET", "/aep/health", &["X-Bad : v"], b""),
            400,
        ),
        // Framing.
        hyper("garbage request line", b"HELLO\r\n\r\n".to_vec(), 400),
        // HTTP/2 with prior knowledge is served; garbage frames end the connection.
        case(
            "HTTP/2 preface, then a malformed SETTINGS frame",
            Send::Stalled(bytes(&[
                b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
                // SETTINGS, 5 bytes long (not a multiple of 6): FRAME_SIZE_ERROR.
                b"\x00\x00\x05\x04\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00",
            ])),
            Expect::Closes,
        ),
        hyper(
            "unknown HTTP version",
            b"GET /aep/health HTTP/9.9\r\nHost: x\r\n\r\n".to_vec(),
            400,
        ),
        hyper(
            "Content-Length: not a number",
            request("POST", chat, &[JSON, "Content-Length: ten"], valid),
            400,
        ),
        hyper(
            "two different Content-Lengths",
            request(
                "POST",
                chat,
                &[
                    JSON,
                    &format!("Content-Length: {}", valid.len()),
                    "Content-Length: 3",
                ],
                valid,
            ),
            400,
        ),
        hyper(
            "Transfer-Encoding: gzip (not chunked)",
            request("POST", chat, &[JSON, "Transfer-Encoding: gzip"], valid),
            400,
        ),
        // RFC 9112 section 6.3: chunked wins over Content-Length and the connection is
        // closed after the answer, so nothing can be smuggled behind the body.
        served(
            "Content-Length and Transfer-Encoding together",
            request(
                "POST",
                chat,
                &[JSON, "Content-Length: 5", "Transfer-Encoding: chunked"],
                &chunked(&[valid]),
            ),
        ),
        served(
            "chunked body",
            request(
                "POST",
                chat,
                &[JSON, "Transfer-Encoding: chunked"],
                &chunked(&[&valid[..10], &valid[10..]]),
            ),
        ),
        served(
            "chunked body, one byte per chunk",
            request(
                "POST",
                stream,
                &[JSON, "Transfer-Encoding: chunked"],
                &chunked(&valid.chunks(1).collect::<Vec<_>>()),
            ),
        ),
        aep(
            "chunked body over the limit",
            request(
                "POST",
                chat,
                &[JSON, "Transfer-Encoding: chunked"],
                &chunked(&vec![&[b' '; MIB][..]; 17]),
            ),
            413,
            ir,
        ),
        aep(
            "chunked body with a bad chunk size",
            request(
                "POST",
                chat,
                &[JSON, "Transfer-Encoding: chunked"],
                b"zz\r\n{}\r\n0\r\n\r\n",
            ),
            bad,
            ir,
        ),
        aep(
            "chunked body with an overflowing chunk size",
            request(
                "POST",
                chat,
                &[JSON, "Transfer-Encoding: chunked"],
                b"fffffffffffffffffff\r\n{}\r\n0\r\n\r\n",
            ),
            bad,
            ir,
        ),
        aep(
            "Content-Length shorter than the body",
            request("POST", chat, &[JSON, "Content-Length: 20"], valid),
            bad,
            ir,
        ),
        // A declared length over the limit is refused up front, without waiting for it.
        case(
            "Content-Length: 1 TiB, 100 bytes sent",
            Send::Stalled(request(
                "POST",
                chat,
                &[JSON, "Content-Length: 1099511627776"],
                valid,
            )),
            Expect::Aep(413, "invalid_request", None),
        ),
        case(
            "Content-Length longer than the body, then EOF",
            Send::CutShort(request("POST", chat, &[JSON, "Content-Length: 500"], valid)),
            Expect::CutShort,
        ),
        case(
            "chunked body cut off, then EOF",
            Send::CutShort(request(
                "POST",
                chat,
                &[JSON, "Transfer-Encoding: chunked"],
                b"400\r\n{\"model\"",
            )),
            Expect::CutShort,
        ),
        // Slow clients.
        case(
            "slow body: half, 1 s pause, rest",
            {
                let raw = request("POST", chat, &[JSON], valid);
                let half = raw.len() - valid.len() / 2;
                Send::Paused(raw[..half].to_vec(), raw[half..].to_vec())
            },
            Expect::Served,
        ),
        case(
            "stalled body: half, then silence",
            Send::Stalled({
                let raw = request("POST", chat, &[JSON], valid);
                raw[..raw.len() - valid.len() / 2].to_vec()
            }),
            Expect::StalledBody,
        ),
        case(
            "stalled headers: half a header section, then silence",
            Send::Stalled(
                b"POST /aep/model-providers/echo/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty".to_vec(),
            ),
            Expect::StalledHeaders,
        ),
        case(
            "idle connection: nothing sent",
            Send::Stalled(Vec::new()),
            Expect::Idle,
        ),
        case(
            "headers dribbled one byte per 300 ms",
            Send::Dribble(request(
                "POST",
                "/aep/model-providers/echo/chat",
                &[JSON],
                VALID.as_bytes(),
            )),
            Expect::StalledHeaders,
        ),
        // Methods.
        served("HEAD on a GET route", request("HEAD", "/aep/health", &[], b"")),
        aep(
            "GET on chat",
            request("GET", chat, &[], b""),
            405,
            "method_not_allowed",
        ),
        aep(
            "POST on health",
            post_json("/aep/health", valid),
            405,
            "method_not_allowed",
        ),
        aep(
            "OPTIONS on chat",
            request("OPTIONS", chat, &[], b""),
            405,
            "method_not_allowed",
        ),
        aep(
            "TRACE on chat",
            request("TRACE", chat, &[], b""),
            405,
            "method_not_allowed",
        ),
        aep(
            "CONNECT-like extension method",
            request("BREW", stream, &[], b""),
            405,
            "method_not_allowed",
        ),
    ];
    let routes = [
        "/.well-known/aep",
        "/.well-known/agentstration",
        "/aep/health",
        "/aep/model-providers",
        "/aep/model-providers/echo/health",
        "/aep/model-providers/echo/models",
        chat,
        stream,
    ];
    for route in routes {
        for method in ["PUT", "DELETE", "PATCH"] {
            cases.push(aep(
                format!("{method} {route}"),
                request(method, route, &[JSON], valid),
                405,
                "method_not_allowed",
            ));
        }
    }
    cases
}

/// `{"model":<raw bytes>,"messages":[..]}`.
fn with_model_bytes(raw: &[u8]) -> Vec<u8> {
    bytes(&[br#"{"model":"#, raw, br#","messages":["#, MSG.as_bytes(), b"]}"])
}

/// Cases for the option set and configuration routes of [`Tooly`].
fn option_cases(digest: &str) -> Vec<Case> {
    let chat = "/aep/model-providers/echo/chat";
    let native = |values: &str| {
        with_options(&format!(
            r#""nativeOptions":{{"optionSet":"{PROFILE}","version":"1.0.0","schemaDigest":"{digest}","values":{values}}}"#
        ))
    };
    let migrate = "/aep/configuration/migrate";
    vec![
        served(
            "nativeOptions: valid values",
            post_json(chat, &native(r#"{"think":true}"#)),
        ),
        case(
            "nativeOptions.values: string",
            Send::Whole(post_json(chat, &native(r#""think""#))),
            Expect::Aep(422, "invalid_options", None),
        ),
        case(
            "nativeOptions.values.think: string",
            Send::Whole(post_json(chat, &native(r#"{"think":"yes"}"#))),
            Expect::Aep(422, "invalid_options", None),
        ),
        case(
            "nativeOptions.values.depth: 1e308",
            Send::Whole(post_json(chat, &native(r#"{"depth":1e308}"#))),
            Expect::Aep(422, "invalid_options", None),
        ),
        case(
            "nativeOptions.values: unknown member",
            Send::Whole(post_json(chat, &native(r#"{"other":1}"#))),
            Expect::Aep(422, "invalid_options", None),
        ),
        case(
            "nativeOptions: wrong digest",
            Send::Whole(post_json(
                chat,
                &with_options(&format!(
                    r#""nativeOptions":{{"optionSet":"{PROFILE}","version":"1.0.0","schemaDigest":"sha256:{}","values":{{}}}}"#,
                    "0".repeat(64)
                )),
            )),
            Expect::Aep(422, "option_schema_mismatch", None),
        ),
        case(
            "nativeOptions: unknown version",
            Send::Whole(post_json(
                chat,
                &with_options(&format!(
                    r#""nativeOptions":{{"optionSet":"{PROFILE}","version":"9.9.9","schemaDigest":"{digest}","values":{{}}}}"#
                )),
            )),
            Expect::Aep(422, "option_version_unsupported", None),
        ),
        aep(
            "migrate: truncated JSON",
            post_json(migrate, br#"{"optionSet":"#),
            400,
            "invalid_request",
        ),
        aep(
            "migrate: array body",
            post_json(migrate, b"[]"),
            400,
            "invalid_request",
        ),
        aep(
            "migrate: values missing",
            post_json(migrate, br#"{"optionSet":"a"}"#),
            400,
            "invalid_request",
        ),
        aep(
            "migrate: fromVersion number",
            post_json(
                migrate,
                br#"{"optionSet":"a","fromVersion":1,"fromSchemaDigest":"x","toVersion":"2","values":{}}"#,
            ),
            400,
            "invalid_request",
        ),
        aep(
            "migrate: text/plain",
            request("POST", migrate, &["Content-Type: text/plain"], b"{}"),
            415,
            "invalid_request",
        ),
        aep(
            "GET on migrate",
            request("GET", migrate, &[], b""),
            405,
            "method_not_allowed",
        ),
        aep(
            "PUT on configuration",
            request("PUT", "/aep/configuration", &[JSON], b"{}"),
            405,
            "method_not_allowed",
        ),
        aep(
            "DELETE on configuration",
            request("DELETE", "/aep/configuration", &[], b""),
            405,
            "method_not_allowed",
        ),
    ]
}

const ACCEPT: &str = "Accept: application/json, text/event-stream";
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}"#;

fn mcp_post(body: &[u8]) -> Vec<u8> {
    request("POST", "/mcp", &[JSON, ACCEPT], body)
}

/// Cases for the co-hosted MCP endpoint (rmcp answers; not an AEP route).
fn mcp_cases() -> Vec<Case> {
    vec![
        mcp("MCP: truncated JSON", mcp_post(&INITIALIZE.as_bytes()[..30]), 415),
        mcp("MCP: 100k '['", mcp_post(&vec![b'['; 100_000]), 415),
        mcp(
            "MCP: invalid UTF-8",
            mcp_post(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xFF\"}"),
            415,
        ),
        mcp("MCP: null body", mcp_post(b"null"), 415),
        mcp("MCP: empty body", mcp_post(b""), 415),
        mcp(
            "MCP: JSON-RPC batch",
            mcp_post(format!("[{INITIALIZE}]").as_bytes()),
            415,
        ),
        mcp(
            "MCP: jsonrpc 1.0",
            mcp_post(br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            415,
        ),
        mcp(
            "MCP: id is an object",
            mcp_post(br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#),
            415,
        ),
        mcp(
            "MCP: 5 MiB body (over rmcp's 4 MiB)",
            mcp_post(&vec![b' '; 5 * MIB]),
            413,
        ),
        // Over the extension's own 16 MiB limit: refused before rmcp reads it.
        aep(
            "MCP: 17 MiB body",
            mcp_post(&vec![b' '; 17 * MIB]),
            413,
            "invalid_request",
        ),
        mcp(
            "MCP: text/plain",
            request(
                "POST",
                "/mcp",
                &["Content-Type: text/plain", ACCEPT],
                INITIALIZE.as_bytes(),
            ),
            415,
        ),
        mcp(
            "MCP: no Accept",
            request("POST", "/mcp", &[JSON], INITIALIZE.as_bytes()),
            406,
        ),
        mcp(
            "MCP: unknown session id",
            request(
                "POST",
                "/mcp",
                &[JSON, ACCEPT, "Mcp-Session-Id: nope"],
                br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            ),
            404,
        ),
        mcp(
            "MCP: Host evil.example (DNS rebinding)",
            request("POST", "/mcp", &[JSON, ACCEPT], INITIALIZE.as_bytes())
                .replacen(b"Host: 127.0.0.1", b"Host: evil.example"),
            403,
        ),
        mcp("MCP: PUT", request("PUT", "/mcp", &[JSON], b"{}"), 405),
        mcp("MCP: PATCH", request("PATCH", "/mcp", &[JSON], b"{}"), 405),
        mcp(
            "MCP: GET without a session",
            request("GET", "/mcp", &["Accept: text/event-stream"], b""),
            400,
        ),
        mcp(
            "MCP: DELETE without a session",
            request("DELETE", "/mcp", &[], b""),
            400,
        ),
        // Body read failures are AEP errors: the SDK reads MCP bodies before rmcp, which
        // would answer them with a 500.
        aep(
            "MCP: chunked body with a bad chunk size",
            request(
                "POST",
                "/mcp",
                &[JSON, ACCEPT, "Transfer-Encoding: chunked"],
                b"zz\r\n{}\r\n0\r\n\r\n",
            ),
            400,
            "invalid_request",
        ),
        case(
            "MCP: body cut off, then EOF",
            Send::CutShort(request(
                "POST",
                "/mcp",
                &[JSON, ACCEPT, "Content-Length: 999"],
                INITIALIZE.as_bytes(),
            )),
            Expect::CutShort,
        ),
        case(
            "MCP: stalled body",
            Send::Stalled({
                let raw = mcp_post(INITIALIZE.as_bytes());
                raw[..raw.len() - 20].to_vec()
            }),
            Expect::StalledBody,
        ),
    ]
}

trait ReplaceBytes {
    fn replacen(self, from: &[u8], to: &[u8]) -> Vec<u8>;
}

impl ReplaceBytes for Vec<u8> {
    fn replacen(self, from: &[u8], to: &[u8]) -> Vec<u8> {
        match find(&self, from) {
            Some(i) => bytes(&[&self[..i], to, &self[i + from.len()..]]),
            None => self,
        }
    }
}

// ---------------------------------------------------------------------------------------
// The tests.

#[tokio::test]
async fn echo_example_survives_hostile_requests() {
    let extension = echo::Echo
        .extension_builder()
        .body_read_timeout(SERVER_TIMEOUT)
        .build()
        .expect("valid declaration");
    let server = serve(extension).await;
    let cases = aep_cases();
    assert!(cases.len() >= 40);
    timeout(Duration::from_secs(120), run_table(&server, "echo", cases))
        .await
        .expect("the whole table is bounded");
}

#[tokio::test]
async fn mcp_extension_survives_hostile_requests() {
    let extension = Tooly
        .extension_builder()
        .body_read_timeout(SERVER_TIMEOUT)
        .build()
        .expect("valid declaration");
    let server = serve(extension).await;
    let catalog: Value = reqwest::get(format!("{}/aep/configuration", server.base_url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let digest = catalog["optionSets"][0]["versions"][0]["schemaDigest"]
        .as_str()
        .expect("the option set's digest")
        .to_owned();
    let mut cases = aep_cases();
    cases.extend(option_cases(&digest));
    cases.extend(mcp_cases());
    timeout(Duration::from_secs(120), run_table(&server, "mcp", cases))
        .await
        .expect("the whole table is bounded");

    // The MCP server itself still serves a session client, and bad tool arguments are an
    // MCP error, not a transport failure.
    use rmcp::ServiceExt;
    use rmcp::model::{CallToolRequestParams, ClientConfig};
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", server.base_url)),
    );
    let client = timeout(CASE_BOUND, ClientConfig::default().serve(transport))
        .await
        .expect("bounded")
        .expect("MCP initialize");
    let call = |arguments: Value| {
        let Value::Object(arguments) = arguments else {
            unreachable!()
        };
        client.call_tool(CallToolRequestParams::new("reverse".to_owned()).with_arguments(arguments))
    };
    let ok = timeout(CASE_BOUND, call(json!({"text": "abc"})))
        .await
        .expect("bounded")
        .expect("tools/call");
    assert_eq!(ok.content[0].as_text().map(|t| t.text.as_str()), Some("cba"));
    for bad in [json!({"text": 5}), json!({}), json!({"text": "x".repeat(MIB)})] {
        let result = timeout(CASE_BOUND, call(bad.clone())).await.expect("bounded");
        match result {
            Ok(result) if bad["text"].is_string() => assert_ne!(result.is_error, Some(true)),
            Ok(result) => assert_eq!(result.is_error, Some(true), "{bad}: {result:?}"),
            Err(error) => assert!(!bad["text"].is_string(), "{error}"),
        }
    }
    client.cancel().await.ok();
}
