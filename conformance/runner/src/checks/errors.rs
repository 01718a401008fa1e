//! Section 4: request errors are 4xx AEP error JSON documents, never a 5xx, an HTML page
//! or a panic; an unknown provider is 404 `provider_unavailable`.

use std::time::Duration;

use bytes::Bytes;
use reqwest::Method;
use reqwest::header;
use serde_json::json;

use super::{Findings, Verdict, need};
use crate::ctx::{Ctx, PROMPT, Target, chat_body};
use crate::http::Http;
use crate::rawhttp;

/// Size of the oversized body: past the 16 MiB limit of the reference.
pub(crate) const OVERSIZED_BYTES: usize = 16 * 1024 * 1024 + 256 * 1024;

/// `4.errors.unknown-provider`.
pub(crate) async fn unknown_provider(ctx: &mut Ctx) -> Verdict {
    let providers = need!(ctx.providers().await);
    let mut id = "aep-conformance-unknown-provider".to_owned();
    while providers.iter().any(|p| p.id.eq_ignore_ascii_case(&id)) {
        id.push('x');
    }
    let model = match ctx.first_target().await {
        Ok(target) => target.model,
        Err(_) => "aep-conformance-model".to_owned(),
    };
    let body = chat_body(&model, PROMPT);
    let mut findings = Findings::default();
    for (method, tail) in [
        ("GET", "/health"),
        ("GET", "/models"),
        ("POST", "/chat"),
        ("POST", "/chat/stream"),
    ] {
        let path = Http::provider_path(&id, tail);
        let answer = if method == "GET" {
            ctx.http.get(&path).await
        } else {
            ctx.http.post_json(&path, &body).await
        };
        findings.check(match answer {
            Err(error) => Err(error),
            Ok(answer) => answer
                .exact_error(404, "provider_unavailable")
                .map(|()| format!("{method} {path}: 404 provider_unavailable"))
                .map_err(|e| format!("{method} {path}: {e}")),
        });
    }
    findings.verdict()
}

/// The malformed requests of section 4.
#[derive(Debug, Clone, Copy)]
pub(crate) enum BadBody {
    /// Not JSON at all (cut off).
    Malformed,
    /// JSON with members of the wrong type.
    WrongTypes,
    /// `messages: []`.
    EmptyMessages,
    /// A valid body sent as `text/plain`.
    ContentType,
}

impl BadBody {
    fn request(self, model: &str) -> (&'static str, Vec<u8>) {
        let valid = || serde_json::to_vec(&chat_body(model, PROMPT)).unwrap_or_default();
        match self {
            BadBody::Malformed => (
                "application/json",
                format!(
                    "{{\"model\": {}, \"messages\": [{{\"role\": \"user\", \"contents\": [",
                    json!(model)
                )
                .into_bytes(),
            ),
            BadBody::WrongTypes => (
                "application/json",
                serde_json::to_vec(&json!({"model": 42, "messages": {"role": "user", "contents": "hello"}}))
                    .unwrap_or_default(),
            ),
            BadBody::EmptyMessages => (
                "application/json",
                serde_json::to_vec(&json!({"model": model, "messages": []})).unwrap_or_default(),
            ),
            BadBody::ContentType => ("text/plain", valid()),
        }
    }
}

/// The routes a request check goes to: `/chat` and `/chat/stream`, as declared.
fn chat_routes(target: &Target) -> Vec<&'static str> {
    let mut routes = Vec::new();
    if target.descriptor.capabilities.chat {
        routes.push("/chat");
    }
    if target.descriptor.capabilities.streaming {
        routes.push("/chat/stream");
    }
    routes
}

/// `4.errors.malformed-json`, `.wrong-types`, `.empty-messages`, `.content-type`.
pub(crate) async fn bad_body(ctx: &mut Ctx, kind: BadBody) -> Verdict {
    let target = need!(ctx.first_target().await);
    let (content_type, body) = kind.request(&target.model);
    let mut findings = Findings::default();
    for tail in chat_routes(&target) {
        let path = Http::provider_path(target.id(), tail);
        findings.check(match ctx.http.post_raw(&path, content_type, body.clone()).await {
            Err(error) => Err(error),
            Ok(answer) => answer
                .client_error()
                .map(|code| format!("POST {path}: {} {code}", answer.status.as_u16()))
                .map_err(|e| format!("POST {path}: {e}")),
        });
    }
    findings.verdict()
}

/// `4.errors.oversized`: a valid-looking request whose body is streamed past 16 MiB (the
/// reference's and this SDK's limit), answered by a 4xx AEP error or served,
/// once with a declared `Content-Length` and once chunked (the server has to count).
/// Over plain `http` the exchange uses a raw socket, so that an answer sent before the
/// body was read is still seen; over `https` it goes through reqwest.
pub(crate) async fn oversized(ctx: &mut Ctx) -> Verdict {
    let target = need!(ctx.first_target().await);
    let Some(tail) = chat_routes(&target).first().copied() else {
        return Verdict::Skip("the provider declares neither chat nor streaming".to_owned());
    };
    let path = Http::provider_path(target.id(), tail);
    let url = match url::Url::parse(&ctx.http.url(&path)) {
        Ok(url) => url,
        Err(error) => return Verdict::fail(format!("{path}: {error}")),
    };
    let head = Bytes::from(format!(
        "{{\"model\":{},\"messages\":[{{\"role\":\"user\",\"contents\":[{{\"kind\":\"text\",\"text\":\"hi\"}}]}}],\"metadata\":{{\"padding\":\"",
        json!(target.model)
    ));
    const CHUNK: usize = 64 * 1024;
    let fill = Bytes::from(vec![b'a'; CHUNK]);
    let count = OVERSIZED_BYTES / CHUNK + 1;
    let tail = Bytes::from_static(b"\"}}");
    let bound = ctx.http.timeout.max(Duration::from_secs(30));
    let mut findings = Findings::default();
    for framing in [rawhttp::Framing::Length, rawhttp::Framing::Chunked] {
        let parts = (head.clone(), fill.clone(), count, tail.clone());
        let label = match framing {
            rawhttp::Framing::Length => "with Content-Length",
            rawhttp::Framing::Chunked => "chunked",
        };
        if url.scheme() != "http" && framing == rawhttp::Framing::Length {
            continue;
        }
        // A connection reset can destroy an answer before it is read; such an attempt
        // says nothing about the answer, so it is repeated (up to three attempts).
        let mut answer = Err(String::new());
        for _ in 0..3 {
            answer = if url.scheme() == "http" {
                rawhttp::post_streamed(&url, ctx.http.token.as_deref(), framing, parts.clone(), bound).await
            } else {
                through_reqwest(ctx, &url, parts.clone(), bound).await
            };
            if answer.is_ok() {
                break;
            }
        }
        findings.check(match answer {
            Err(error) => Err(format!(
                "POST {path} ({label}, {OVERSIZED_BYTES} bytes): no answer: {error}"
            )),
            // The protocol fixes no limit: an extension that takes such bodies is within
            // its rights; one that refuses them must say so as a 4xx AEP error.
            Ok(answer) if answer.status.is_success() => Ok(format!(
                "POST {path} ({label}): {} (its body limit is above {OVERSIZED_BYTES} bytes)",
                answer.status.as_u16()
            )),
            Ok(answer) => answer
                .client_error()
                .map(|code| format!("POST {path} ({label}): {} {code}", answer.status.as_u16()))
                .map_err(|e| format!("POST {path} ({label}, {OVERSIZED_BYTES} bytes): {e}")),
        });
    }
    findings.verdict()
}

async fn through_reqwest(
    ctx: &Ctx,
    url: &url::Url,
    (head, fill, count, tail): (Bytes, Bytes, usize, Bytes),
    bound: Duration,
) -> Result<crate::http::Answer, String> {
    let chunks = std::iter::once(head)
        .chain(std::iter::repeat_n(fill, count))
        .chain(std::iter::once(tail))
        .map(Ok::<Bytes, std::io::Error>);
    let request = ctx
        .http
        .request(Method::POST, url.as_str())
        .header(header::CONTENT_TYPE, "application/json")
        .body(reqwest::Body::wrap_stream(futures::stream::iter(chunks)));
    tokio::time::timeout(bound, async {
        let response = request
            .send()
            .await
            .map_err(|e| crate::http::describe_error(url.as_str(), &e))?;
        crate::http::read_answer(response, url.as_str()).await
    })
    .await
    .map_err(|_| format!("no answer within {bound:?}"))?
}
