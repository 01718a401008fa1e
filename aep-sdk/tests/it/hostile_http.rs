//! Hostile HTTP (issue 10, item 2): header sections, message framing and slow clients,
//! sent over raw TCP to the echo example and to [`Tooly`](common::hostile::Tooly), both
//! served by the SDK's own serving loop with 2 s header-read and body-read timeouts. The
//! rules every case follows (a 4xx AEP error or a documented exception, never a 5xx or a
//! hang, still serving afterwards) and the table runner are in `common/hostile.rs`.
//!
//! Documented exceptions, each a row of the table with its reason:
//! - **Served**: valid HTTP that looks hostile (a chunked body, `Content-Length` beside
//!   `Transfer-Encoding: chunked`, a 100 KiB header value, a slow but complete body) is
//!   answered 200.
//! - **Hyper**: malformed HTTP framing (request line, header syntax, `Content-Length`,
//!   `Transfer-Encoding`) and a header section larger than hyper's buffer (431) are
//!   refused by hyper while it parses the request, before any routing: the answer has the
//!   right 4xx status but an empty body, not an AEP document, and hyper closes the
//!   connection. No AEP code runs there without replacing hyper's parser; a host treats
//!   these as transport failures. Without the `http2` feature an HTTP/2 preface gets
//!   hyper's 505 (HTTP version not supported), the one 5xx, from the same parser.
//! - **Slow clients**: a body that stalls gets a 408 AEP error from the body-read
//!   timeout; a header section that stalls or dribbles has its connection closed by the
//!   header-read timeout (hyper writes no answer there). A connection that never sends a
//!   byte is closed by the serve loop after the header-read timeout as well (hyper's own
//!   timer only starts with the first byte). A declared `Content-Length` over the limit
//!   is refused with a 413 without waiting for the body (what has come is drained for at
//!   most 2 s first, so that the client reads the answer). Other clients are served while
//!   a client stalls.

use crate::common;

use aep_sdk::testing::raw::{Delivery, chunked};
use common::hostile::*;

/// With the `http2` feature HTTP/2 with prior knowledge is served, and garbage frames end
/// the connection; without it hyper answers the preface 505 (HTTP version not supported).
fn http2_preface() -> Case {
    let preface: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    if cfg!(feature = "http2") {
        case(
            "HTTP/2 preface, then a malformed SETTINGS frame",
            Delivery::Stalled(bytes(&[
                preface,
                // SETTINGS, 5 bytes long (not a multiple of 6): FRAME_SIZE_ERROR.
                b"\x00\x00\x05\x04\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00",
            ])),
            Expect::Closes,
        )
    } else {
        hyper("HTTP/2 preface without the http2 feature", preface.to_vec(), 505)
    }
}

/// Headers, framing and slow clients on the chat routes of provider `echo`.
fn http_cases() -> Vec<Case> {
    let chat = "/aep/model-providers/echo/chat";
    let stream = "/aep/model-providers/echo/chat/stream";
    let valid = VALID.as_bytes();
    let bad = 400;
    let ir = "invalid_request";
    vec![
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
        http2_preface(),
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
            Delivery::Stalled(request(
                "POST",
                chat,
                &[JSON, "Content-Length: 1099511627776"],
                valid,
            )),
            Expect::Aep(413, "invalid_request", None),
        ),
        case(
            "Content-Length longer than the body, then EOF",
            Delivery::CutShort(request("POST", chat, &[JSON, "Content-Length: 500"], valid)),
            Expect::CutShort,
        ),
        case(
            "chunked body cut off, then EOF",
            Delivery::CutShort(request(
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
                Delivery::Paused {
                    first: raw[..half].to_vec(),
                    pause: SLOW_PAUSE,
                    rest: raw[half..].to_vec(),
                }
            },
            Expect::Served,
        ),
        case(
            "stalled body: half, then silence",
            Delivery::Stalled({
                let raw = request("POST", chat, &[JSON], valid);
                raw[..raw.len() - valid.len() / 2].to_vec()
            }),
            Expect::StalledBody,
        ),
        case(
            "stalled headers: half a header section, then silence",
            Delivery::Stalled(
                b"POST /aep/model-providers/echo/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty".to_vec(),
            ),
            Expect::StalledHeaders,
        ),
        case(
            "idle connection: nothing sent",
            Delivery::Stalled(Vec::new()),
            Expect::Idle,
        ),
        case(
            "headers dribbled one byte per 300 ms",
            Delivery::Dribble {
                bytes: request(
                    "POST",
                    "/aep/model-providers/echo/chat",
                    &[JSON],
                    VALID.as_bytes(),
                ),
                every: DRIBBLE_EVERY,
            },
            Expect::StalledHeaders,
        ),
    ]
}

#[tokio::test]
async fn echo_example_survives_hostile_http() {
    let server = echo_server();
    let cases = http_cases();
    assert!(cases.len() >= 20);
    survives(&server, "echo", cases).await;
}

#[tokio::test]
async fn mcp_extension_survives_hostile_http() {
    let server = tooly_server();
    survives(&server, "mcp", http_cases()).await;
}
