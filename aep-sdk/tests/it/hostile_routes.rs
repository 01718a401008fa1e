//! Hostile paths and methods (issue 10, item 2): provider ids that try to escape their
//! route, odd encodings, overlong URIs and every route with the wrong methods, sent over
//! raw TCP to the echo example and to [`Tooly`](common::hostile::Tooly). The rules every
//! case follows (a 4xx AEP error or a documented exception, never a 5xx or a hang, still
//! serving afterwards) and the table runner are in `common/hostile.rs`.
//!
//! Documented exceptions, each a row of the table with its reason:
//! - **Served**: `HEAD` on a `GET` route is answered 200.
//! - **Hyper**: a URI longer than `http::Uri` accepts is refused by hyper with a 414 while
//!   it parses the request, before any routing: an empty body, not an AEP document.

use crate::common;

use common::hostile::*;

/// Paths and methods of provider `echo` and the other AEP routes.
fn route_cases() -> Vec<Case> {
    let chat = "/aep/model-providers/echo/chat";
    let stream = "/aep/model-providers/echo/chat/stream";
    let valid = VALID.as_bytes();
    let bad = 400;
    let ir = "invalid_request";
    let mut cases = vec![
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

#[tokio::test]
async fn echo_example_survives_hostile_paths_and_methods() {
    let server = echo_server();
    let cases = route_cases();
    assert!(cases.len() >= 40);
    survives(&server, "echo", cases).await;
}

#[tokio::test]
async fn mcp_extension_survives_hostile_paths_and_methods() {
    let server = tooly_server();
    survives(&server, "mcp", route_cases()).await;
}
