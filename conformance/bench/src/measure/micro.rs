//! Instructions per request, counted by callgrind: repeatable on a noisy machine where
//! wall-clock ratios of a few percent drown in the spread.
//!
//! `aep-bench micro` runs this binary's hidden `probe` subcommand under
//! `valgrind --tool=callgrind` for N and 2N requests; (count(2N) - count(N)) / N is the
//! cost of one request, with start-up and warm-up cancelled out. Both variants run with
//! the SDK's default tracing installed (`init_tracing`: a real subscriber, `info`) and the
//! SDK with its metrics on, as an operator runs it.
//!
//! - `chat`: an in-process `POST /aep/model-providers/echo/chat` (a provider that streams
//!   one text update, folded into one answer) through the extension's router, against
//!   the minimal hand-written axum handler. No sockets: router and handler only.
//! - `mcp`: one MCP `tools/call` over loopback HTTP, client included, against a bare
//!   rmcp server with the same tool, both served by `axum::serve` with one route table
//!   for every connection (`into_make_service`).

use std::path::Path;
use std::process::Command;

use aep_sdk::server::AepExtension;
use axum::body::Body;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use tower::ServiceExt as _;

use crate::report::Row;
use crate::servers;

/// What a probe measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Probe {
    /// `/chat` of a one-update provider, in process.
    Chat,
    /// `/chat` with a cached OAuth access token (sdk) or the static bearer token
    /// (baseline), in process.
    ChatOauth,
    /// MCP `tools/call` over loopback, client included.
    Mcp,
}

/// Runs `n` requests of `probe` against the SDK (`sdk`) or the baseline, on a
/// current-thread runtime (one thread: what callgrind counts is this work alone).
pub fn probe(probe: Probe, sdk: bool, n: usize) {
    aep_sdk::server::init_tracing();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        match probe {
            Probe::Chat => chat(sdk, n).await,
            Probe::ChatOauth => chat_oauth(sdk, n).await,
            Probe::Mcp => mcp(sdk, n).await,
        }
    });
}

fn sdk_extension() -> aep_sdk::server::Extension {
    sdk_builder().build().expect("valid declaration")
}

fn sdk_builder() -> aep_sdk::server::ExtensionBuilder {
    servers::SdkBench.extension_builder().metrics()
}

async fn chat(sdk: bool, n: usize) {
    let body = serde_json::to_vec(&super::request(1)).expect("request");
    let router = if sdk {
        sdk_extension().router()
    } else {
        servers::baseline_router()
    };
    for _ in 0..n {
        let request = http::Request::post("/aep/model-providers/echo/chat")
            .header("content-type", "application/json")
            .body(Body::from(body.clone()))
            .expect("request");
        let response = router.clone().oneshot(request).await.expect("infallible");
        assert_eq!(response.status(), http::StatusCode::OK);
        axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("body");
    }
}

/// The resource the OAuth probe's extension is named after.
const PUBLIC_URL: &str = "http://bench.example";
const STATIC_TOKEN: &str = "bench-static-token-5b0c2f8e9d41a7c3";

/// An access token as authorization servers issue them (an RFC 9068 JWT with the usual
/// claims; ES256, so ~250 bytes shorter than an RS256 one).
fn access_token(issuer: &aep_sdk::testing::TestIssuer) -> String {
    let mut claims = issuer.claims(PUBLIC_URL, &["openid", "chat", "files:read", "files:write"]);
    claims["jti"] = "b7e1c9a2-4f5d-4e8b-9a3c-1d2e3f4a5b6c".into();
    claims["auth_time"] = claims["iat"].clone();
    claims["client_id"] = "https://agents.example.com/oauth/client-metadata.json".into();
    issuer.token(&claims)
}

async fn chat_oauth(sdk: bool, n: usize) {
    let issuer = aep_sdk::testing::TestIssuer::start().await;
    let builder = sdk_builder();
    let (router, token) = if sdk {
        let oauth = aep_sdk::server::OAuth::issuer(issuer.issuer()).public_url(PUBLIC_URL);
        let extension = builder.oauth(oauth).build().expect("OAuth settings");
        (extension.router(), access_token(&issuer))
    } else {
        let bearer = aep_sdk::server::BearerAuth::new(STATIC_TOKEN);
        let extension = builder.bearer_auth(bearer).build().expect("valid declaration");
        (extension.router(), STATIC_TOKEN.to_owned())
    };
    let authorization = format!("Bearer {token}");
    // Polled through a `dyn Future`, so its poll stays a function of its own that
    // callgrind can be told to count (`--toggle-collect`), not inlined into this one.
    let requests: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + '_>> =
        Box::pin(send_chats(&router, Some(&authorization), n));
    requests.await;
}

/// `n` in-process `/chat` requests (with `authorization`). The OAuth probe counts only
/// this function's work: the test issuer's key generation seeds aws-lc's random
/// generator from CPU jitter, a cost that differs from process to process.
async fn send_chats(router: &axum::Router, authorization: Option<&str>, n: usize) {
    let body = serde_json::to_vec(&super::request(1)).expect("request");
    for _ in 0..n {
        let mut request =
            http::Request::post("/aep/model-providers/echo/chat").header("content-type", "application/json");
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        let request = request.body(Body::from(body.clone())).expect("request");
        let response = router.clone().oneshot(request).await.expect("infallible");
        assert_eq!(response.status(), http::StatusCode::OK);
        axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("body");
    }
}

async fn mcp(sdk: bool, n: usize) {
    // Both served by `axum::serve` with one route table for every connection.
    let server = if sdk {
        servers::serve(sdk_extension().router()).await
    } else {
        servers::baseline().await
    };
    let base_url = &server.base_url;
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{base_url}/mcp"));
    let client = ClientConfig::default()
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("MCP session");
    for i in 0..n {
        let arguments = serde_json::json!({"a": i, "b": 1})
            .as_object()
            .cloned()
            .expect("object");
        let result = client
            .call_tool(CallToolRequestParams::new("add").with_arguments(arguments))
            .await
            .expect("tools/call");
        assert_ne!(result.is_error, Some(true));
    }
    let _ = client.cancel().await;
}

/// Instructions callgrind counts for one run of `exe probe <probe> <variant> <n>`.
fn count(exe: &Path, probe: Probe, sdk: bool, n: usize) -> Result<u64, String> {
    let dir = std::env::temp_dir().join(format!("aep-bench-micro-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let out = dir.join("callgrind.out");
    let variant = if sdk { "sdk" } else { "baseline" };
    let probe_name = match probe {
        Probe::Chat => "chat",
        Probe::ChatOauth => "chat-oauth",
        Probe::Mcp => "mcp",
    };
    let mut valgrind = Command::new("valgrind");
    valgrind.arg("--tool=callgrind");
    if probe == Probe::ChatOauth {
        valgrind.arg("--toggle-collect=*micro::send_chats*");
    }
    let status = valgrind
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .args(["probe", probe_name, variant, &n.to_string()])
        .env("RUST_LOG", "info")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("valgrind: {e} (is valgrind installed?)"))?;
    if !status.success() {
        return Err(format!("valgrind {probe_name} {variant} {n}: {status}"));
    }
    let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    text.lines()
        .find_map(|line| {
            line.strip_prefix("summary:")
                .or_else(|| line.strip_prefix("totals:"))
        })
        .and_then(|n| n.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| "no instruction total in callgrind's output".to_owned())
}

/// Instructions per request: the difference between 2N and N requests, over N.
fn per_request(exe: &Path, probe: Probe, sdk: bool, n: usize) -> Result<f64, String> {
    let once = count(exe, probe, sdk, n)?;
    let twice = count(exe, probe, sdk, 2 * n)?;
    Ok(twice.saturating_sub(once) as f64 / n as f64)
}

/// The rows of `aep-bench micro`: each probe for the SDK and its baseline.
pub fn rows(chat_requests: usize, mcp_calls: usize) -> Vec<Row> {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(error) => {
            eprintln!("micro: cannot find this binary: {error}");
            return Vec::new();
        }
    };
    let mut rows = Vec::new();
    // The MCP probe runs three times: its count depends a little on where glibc's
    // allocator finds room (whether hyper's read buffer grows in place), which differs
    // from process to process; the median of three is what the row shows, the spread
    // says how much it moved. The `/chat` probe counts the same every run.
    for (probe, n, runs, name, goal, note) in [
        (
            Probe::Chat,
            chat_requests,
            1,
            "9. /chat, one update, in process (callgrind)",
            1.15,
            "router + handler; baseline: minimal axum handler",
        ),
        (
            Probe::ChatOauth,
            chat_requests,
            1,
            "9. /chat with a cached OAuth token (callgrind)",
            1.10,
            "router + handler; baseline: the same with the static bearer token",
        ),
        (
            Probe::Mcp,
            mcp_calls,
            3,
            "9. MCP tools/call over loopback (callgrind)",
            1.05,
            "client + server; baseline: bare rmcp server",
        ),
    ] {
        let measured = (0..runs)
            .map(|_| {
                Ok((
                    per_request(&exe, probe, true, n)?,
                    per_request(&exe, probe, false, n)?,
                ))
            })
            .collect::<Result<Vec<(f64, f64)>, String>>();
        match measured {
            Ok(pairs) => {
                let (sdk, base): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
                let runs = if runs > 1 {
                    format!(", median of {runs} runs")
                } else {
                    String::new()
                };
                rows.push(
                    Row::compare(name, "instr/req", &sdk, &base)
                        .ratio_at_most(goal)
                        .note(format!("{note}; N={n} vs 2N{runs}")),
                )
            }
            Err(error) => eprintln!("micro: {error}"),
        }
    }
    rows
}
