//! Section 4: request errors are 4xx AEP error JSON documents, never a 5xx, an HTML page
//! or a panic; an unknown provider is 404 `provider_unavailable`.

use std::time::Duration;

use bytes::Bytes;
use reqwest::header;
use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{Findings, Verdict, need};
use crate::ctx::{Ctx, PROMPT, Target, chat_body};
use crate::http::Http;

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

/// `4.errors.oversized`: a valid-looking request whose body is streamed past 16 MiB.
pub(crate) async fn oversized(ctx: &mut Ctx) -> Verdict {
    let target = need!(ctx.first_target().await);
    let Some(tail) = chat_routes(&target).first().copied() else {
        return Verdict::Skip("the provider declares neither chat nor streaming".to_owned());
    };
    let path = Http::provider_path(target.id(), tail);
    let url = ctx.http.url(&path);
    let head = format!(
        "{{\"model\":{},\"messages\":[{{\"role\":\"user\",\"contents\":[{{\"kind\":\"text\",\"text\":\"hi\"}}]}}],\"metadata\":{{\"padding\":\"",
        json!(target.model)
    );
    const CHUNK: usize = 64 * 1024;
    let filler = Bytes::from(vec![b'a'; CHUNK]);
    let count = OVERSIZED_BYTES / CHUNK + 1;
    let chunks = std::iter::once(Bytes::from(head.into_bytes()))
        .chain(std::iter::repeat_n(filler, count))
        .chain(std::iter::once(Bytes::from_static(b"\"}}")))
        .map(Ok::<Bytes, std::io::Error>);
    let body = reqwest::Body::wrap_stream(futures::stream::iter(chunks));
    let request = ctx
        .http
        .request(Method::POST, &url)
        .header(header::CONTENT_TYPE, "application/json")
        .body(body);
    let bound = ctx.http.timeout.max(Duration::from_secs(30));
    let answer = match tokio::time::timeout(bound, async {
        let response = request
            .send()
            .await
            .map_err(|e| crate::http::describe_error(&url, &e))?;
        crate::http::read_answer(response, &url).await
    })
    .await
    {
        Ok(Ok(answer)) => answer,
        Ok(Err(error)) => {
            return Verdict::fail(format!(
                "POST {path} with a {} MiB body: no answer ({error})",
                OVERSIZED_BYTES / (1024 * 1024)
            ));
        }
        Err(_) => {
            return Verdict::fail(format!(
                "POST {path} with an oversized body: no answer within {bound:?}"
            ));
        }
    };
    match answer.client_error() {
        Ok(code) if answer.status == StatusCode::PAYLOAD_TOO_LARGE => {
            Verdict::Pass(vec![format!("POST {path}: 413 {code}")])
        }
        Ok(code) => Verdict::Pass(vec![format!(
            "POST {path}: {} {code} (413 is the usual status)",
            answer.status.as_u16()
        )]),
        Err(error) => Verdict::fail(format!(
            "POST {path} with a {}-byte body: {error}",
            OVERSIZED_BYTES
        )),
    }
}
