//! The machinery of the hostile-input tables (issue 10, item 2): malformed requests sent
//! over raw TCP ([`aep_sdk::testing::raw`]) to the echo example and to [`Tooly`] (an
//! extension that co-hosts an MCP server and an option set), both served by the SDK's own
//! serving loop ([`aep_sdk::testing::serve`]) with 2 s header-read and body-read
//! timeouts.
//!
//! Every exchange is bounded by a timeout. Every answer must be a 4xx AEP error
//! (`{"error":{"code","message"}}`) or one of the documented exceptions of its table;
//! never a 5xx, never a hang; and after every case the server must still serve a valid
//! request. Each table is printed (`--nocapture`) with what the server did for each case.
//! The tables, each with its documented exceptions, are the `hostile_*.rs` tests:
//! `hostile_json` (chat bodies and content types), `hostile_http` (headers, framing, slow
//! clients), `hostile_routes` (paths and methods), `hostile_options` (option sets and the
//! configuration routes) and `hostile_mcp` (the MCP endpoint).

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use aep_sdk::config::OptionSetDecl;
use aep_sdk::prelude::*;
use aep_sdk::server::Extension;
pub use aep_sdk::testing::raw::request;
use aep_sdk::testing::raw::{Answer, Delivery, Outcome, exchange};
use aep_sdk::testing::{ExtensionServer, ServeOptions};
use serde_json::{Value, json};
use tokio::time::timeout;

/// Bound on one exchange (large documents are parsed by a debug build).
pub const CASE_BOUND: Duration = Duration::from_secs(15);
/// The servers' header-read and body-read timeouts (short, so that the test is quick).
pub const SERVER_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a stalled client waits for the server to give up on it.
pub const STALL_WAIT: Duration = Duration::from_secs(5);
/// The pause of a slow (but complete) body: within the body-read timeout.
pub const SLOW_PAUSE: Duration = Duration::from_secs(1);
/// The pace of a slow-loris client: one byte per this.
pub const DRIBBLE_EVERY: Duration = Duration::from_millis(300);
/// Bound on a whole table.
pub const TABLE_BOUND: Duration = Duration::from_secs(120);
/// The request-body limit (the SDK's default).
pub const LIMIT: usize = aep_sdk::server::DEFAULT_BODY_LIMIT;
pub const MIB: usize = 1024 * 1024;

// ---------------------------------------------------------------------------------------
// The extension with an MCP server: one tool, one provider, one option set.

/// A tiny extension with a tool (so an MCP server at `/mcp`), a provider and an option set.
#[derive(Clone, Default)]
pub struct Tooly;

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

pub const PROFILE: &str = "test.hostile/model-profile";

// ---------------------------------------------------------------------------------------
// The servers.

/// `extension` served by the SDK's own serving loop on a loopback port, with
/// [`SERVER_TIMEOUT`] as its header-read timeout; stopped on drop.
fn serve(extension: Extension) -> ExtensionServer {
    aep_sdk::testing::serve(extension, ServeOptions::new().header_read_timeout(SERVER_TIMEOUT))
}

/// The echo example, with [`SERVER_TIMEOUT`] as its body-read timeout.
pub fn echo_server() -> ExtensionServer {
    serve(
        super::echo::Echo
            .extension_builder()
            .body_read_timeout(SERVER_TIMEOUT)
            .build()
            .expect("valid declaration"),
    )
}

/// [`Tooly`], with [`SERVER_TIMEOUT`] as its body-read timeout.
pub fn tooly_server() -> ExtensionServer {
    serve(
        Tooly
            .extension_builder()
            .body_read_timeout(SERVER_TIMEOUT)
            .build()
            .expect("valid declaration"),
    )
}

// ---------------------------------------------------------------------------------------
// Requests and documents.

pub const JSON: &str = "Content-Type: application/json";

pub fn post_json(target: &str, body: &[u8]) -> Vec<u8> {
    request("POST", target, &[JSON], body)
}

pub const VALID: &str =
    r#"{"model":"echo-1","messages":[{"role":"user","contents":[{"kind":"text","text":"hello there"}]}]}"#;
pub const MSG: &str = r#"{"role":"user","contents":[{"kind":"text","text":"hi"}]}"#;

/// The valid request plus `members` (raw JSON members, e.g. `"options":{..}`).
pub fn with_members(members: &str) -> Vec<u8> {
    format!(r#"{{"model":"echo-1","messages":[{MSG}],{members}}}"#).into_bytes()
}

pub fn with_options(raw: &str) -> Vec<u8> {
    with_members(&format!(r#""options":{{{raw}}}"#))
}

/// Raw byte pieces joined.
pub fn bytes(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

// ---------------------------------------------------------------------------------------
// Expectations and the table runner.

#[derive(Clone, Debug)]
pub enum Expect {
    /// A 4xx AEP error with this status and code (and `target`, when given).
    Aep(u16, &'static str, Option<&'static str>),
    /// Valid after all: served with 200 (see the documented exceptions of each table).
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

pub struct Case {
    pub name: String,
    pub send: Delivery,
    pub expect: Expect,
}

pub fn case(name: impl Into<String>, send: impl Into<Delivery>, expect: Expect) -> Case {
    Case {
        name: name.into(),
        send: send.into(),
        expect,
    }
}

pub fn aep(name: impl Into<String>, raw: Vec<u8>, status: u16, code: &'static str) -> Case {
    case(name, raw, Expect::Aep(status, code, None))
}

pub fn aep_at(
    name: impl Into<String>,
    raw: Vec<u8>,
    status: u16,
    code: &'static str,
    target: &'static str,
) -> Case {
    case(name, raw, Expect::Aep(status, code, Some(target)))
}

pub fn served(name: impl Into<String>, raw: Vec<u8>) -> Case {
    case(name, raw, Expect::Served)
}

pub fn hyper(name: impl Into<String>, raw: Vec<u8>, status: u16) -> Case {
    case(name, raw, Expect::Hyper(status))
}

pub fn mcp(name: impl Into<String>, raw: Vec<u8>, status: u16) -> Case {
    case(name, raw, Expect::Mcp(status))
}

/// Checks an AEP error answer; returns a failure description.
pub fn check_aep(answer: &Answer, status: u16, code: &str, target: Option<&str>) -> Result<(), String> {
    if answer.status != status {
        return Err(format!(
            "status {} (want {status}): {}",
            answer.status,
            answer.preview()
        ));
    }
    if answer.header("content-type") != Some("application/json") {
        return Err(format!("content-type {:?}", answer.header("content-type")));
    }
    let json: Value = serde_json::from_slice(&answer.body)
        .map_err(|e| format!("body is not JSON ({e}): {}", answer.preview()))?;
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

/// One line of the report: what the server did.
pub fn describe(outcome: &Outcome) -> String {
    outcome.to_string()
}

pub fn judge(expect: &Expect, outcome: &Outcome) -> Result<(), String> {
    // 505 is hyper's answer to an HTTP version it does not serve (HTTP/2 without the
    // `http2` feature): the right status, expected only where a case says so.
    let expected_505 = matches!(expect, Expect::Hyper(505));
    if let Outcome::Answer(a) = outcome
        && a.status >= 500
        && !(expected_505 && a.status == 505)
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
            check_aep(a, a.status, a.error_code().as_deref().unwrap_or("?"), None)
        }
        (Expect::CutShort, Outcome::Closed(0)) => Ok(()),
        _ => Err(format!("unexpected: {}", describe(outcome))),
    }
}

/// A valid chat must be answered 200 with the echoed text, within the bound.
pub async fn still_serving(addr: SocketAddr) -> Result<(), String> {
    let send = post_json("/aep/model-providers/echo/chat", VALID.as_bytes());
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
pub async fn run_table(server: &ExtensionServer, label: &str, cases: Vec<Case>) {
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

/// Runs the table within [`TABLE_BOUND`].
pub async fn survives(server: &ExtensionServer, label: &str, cases: Vec<Case>) {
    timeout(TABLE_BOUND, run_table(server, label, cases))
        .await
        .expect("the whole table is bounded");
}
