//! Section 3: `/chat/stream` (status and headers, SSE framing, one JSON update per event,
//! exactly one terminal update, equality with `/chat` for deterministic providers,
//! cancellation), and section 2's enum values over every captured answer.

use std::sync::Arc;
use std::time::Duration;

use aep_sdk::protocol::{ChatUpdate, paths};
use futures::StreamExt;
use reqwest::header::{self, HeaderMap};
use reqwest::{Method, StatusCode};
use serde_json::Value;

use super::{Findings, Verdict, need};
use crate::ctx::{Ctx, StreamCapture, StreamEnd, Target, chat_body};
use crate::http::{Http, essence};
use crate::sse;

/// The targets that declare streaming, with their capture.
async fn captures(
    ctx: &mut Ctx,
    findings: &mut Findings,
) -> Result<Vec<(Target, Arc<Result<StreamCapture, String>>)>, crate::ctx::Missing> {
    let (targets, left_out) = ctx
        .targets()
        .await
        .map_err(|m| crate::ctx::Missing::skip(m.reason))?;
    left_out.into_iter().for_each(|l| findings.skip(l));
    let mut out = Vec::new();
    for target in targets {
        if !target.descriptor.capabilities.streaming {
            findings.skip(format!("provider '{}' declares streaming: false", target.id()));
            continue;
        }
        let capture = ctx.stream(&target).await;
        out.push((target, capture));
    }
    Ok(out)
}

/// The capture when the stream was answered 200, else a skip note.
fn answered<'a>(
    target: &Target,
    capture: &'a Result<StreamCapture, String>,
    findings: &mut Findings,
) -> Option<&'a StreamCapture> {
    match capture {
        Ok(capture) if capture.status == StatusCode::OK => Some(capture),
        _ => {
            findings.skip(format!(
                "the stream of '{}' was not answered 200 (see 3.stream.response)",
                target.id()
            ));
            None
        }
    }
}

fn label(target: &Target) -> String {
    format!("POST {}", Http::provider_path(target.id(), "/chat/stream"))
}

fn header_text(headers: &HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

/// `3.stream.response`.
pub(crate) async fn response(ctx: &mut Ctx) -> Verdict {
    let mut findings = Findings::default();
    for (target, capture) in need!(captures(ctx, &mut findings).await) {
        let label = label(&target);
        let capture = match capture.as_ref() {
            Ok(capture) => capture,
            Err(error) => {
                findings.problem(format!("{label}: {error}"));
                continue;
            }
        };
        let mut problems = Vec::new();
        if capture.status != StatusCode::OK {
            let text = String::from_utf8_lossy(&capture.body);
            problems.push(format!(
                "status {} (body: {})",
                capture.status.as_u16(),
                crate::render::clip(&text, 160)
            ));
        }
        let content_type = essence(&capture.headers);
        if content_type != "text/event-stream" {
            problems.push(format!(
                "content-type '{}', expected text/event-stream",
                header_text(&capture.headers, "content-type")
            ));
        }
        let cache = header_text(&capture.headers, "cache-control");
        if !cache
            .split(',')
            .any(|d| d.trim().eq_ignore_ascii_case("no-cache"))
        {
            problems.push(format!("cache-control '{cache}', expected no-cache"));
        }
        if problems.is_empty() {
            findings.ok(format!("'{}': 200 text/event-stream, no-cache", target.id()));
        } else {
            findings.problem(format!("{label}: {}", problems.join("; ")));
        }
    }
    findings.verdict()
}

/// `3.stream.accel-buffering`.
pub(crate) async fn accel_buffering(ctx: &mut Ctx) -> Verdict {
    let mut findings = Findings::default();
    for (target, capture) in need!(captures(ctx, &mut findings).await) {
        let Some(capture) = answered(&target, &capture, &mut findings) else {
            continue;
        };
        let value = header_text(&capture.headers, "x-accel-buffering");
        if value.eq_ignore_ascii_case("no") {
            findings.ok(format!("'{}': x-accel-buffering: no", target.id()));
        } else {
            findings.problem(format!(
                "{}: x-accel-buffering is '{value}', expected 'no'",
                label(&target)
            ));
        }
    }
    findings.verdict()
}

/// `3.stream.framing`.
pub(crate) async fn framing(ctx: &mut Ctx) -> Verdict {
    let mut findings = Findings::default();
    for (target, capture) in need!(captures(ctx, &mut findings).await) {
        let Some(capture) = answered(&target, &capture, &mut findings) else {
            continue;
        };
        let mut framing = sse::analyze(&capture.body);
        if capture.end != StreamEnd::Closed {
            // A body cut by the time bound ends anywhere; 3.stream.terminal reports it.
            framing.problems.retain(|p| !p.contains("ends inside an event"));
        }
        if framing.problems.is_empty() {
            findings.ok(format!(
                "'{}': {} data event(s), {} comment(s)",
                target.id(),
                framing.data.len(),
                framing.comments
            ));
        } else {
            let label = label(&target);
            framing
                .problems
                .into_iter()
                .for_each(|p| findings.problem(format!("{label}: {p}")));
        }
    }
    findings.verdict()
}

/// `3.stream.json`.
pub(crate) async fn json(ctx: &mut Ctx) -> Verdict {
    let mut findings = Findings::default();
    for (target, capture) in need!(captures(ctx, &mut findings).await) {
        let Some(capture) = answered(&target, &capture, &mut findings) else {
            continue;
        };
        let framing = sse::analyze(&capture.body);
        let mut problems = Vec::new();
        for data in &framing.data {
            match serde_json::from_str::<Value>(&data.payload) {
                Err(e) => problems.push(format!(
                    "line {}: not JSON ({e}): {}",
                    data.line,
                    crate::render::clip(&data.payload, 80)
                )),
                Ok(value) if !value.is_object() => {
                    problems.push(format!("line {}: not a JSON object", data.line))
                }
                Ok(value) => {
                    if let Err(e) = serde_json::from_value::<ChatUpdate>(value) {
                        problems.push(format!("line {}: not a ChatUpdate: {e}", data.line));
                    }
                }
            }
        }
        if problems.is_empty() {
            findings.ok(format!("'{}': {} update(s)", target.id(), framing.data.len()));
        } else {
            let label = label(&target);
            problems
                .into_iter()
                .for_each(|p| findings.problem(format!("{label}: {p}")));
        }
    }
    findings.verdict()
}

/// The JSON objects of a stream's data lines, with their line numbers (others skipped).
fn updates(capture: &StreamCapture) -> Vec<(usize, Value)> {
    sse::analyze(&capture.body)
        .data
        .into_iter()
        .filter_map(|d| {
            serde_json::from_str::<Value>(&d.payload)
                .ok()
                .filter(Value::is_object)
                .map(|v| (d.line, v))
        })
        .collect()
}

fn is_terminal(update: &Value) -> bool {
    update.get("finishReason").is_some_and(|f| !f.is_null())
}

/// `3.stream.terminal`.
pub(crate) async fn terminal(ctx: &mut Ctx) -> Verdict {
    let mut findings = Findings::default();
    for (target, capture) in need!(captures(ctx, &mut findings).await) {
        let Some(capture) = answered(&target, &capture, &mut findings) else {
            continue;
        };
        let label = label(&target);
        let updates = updates(capture);
        let first = updates.iter().position(|(_, u)| is_terminal(u));
        let mut problems = Vec::new();
        match first {
            None => problems.push(format!(
                "no terminal update (finishReason) among {} update(s)",
                updates.len()
            )),
            Some(index) => {
                let after = &updates[index + 1..];
                if let Some((line, _)) = after.first() {
                    problems.push(format!(
                        "{} update(s) after the terminal update at line {} (first at line {line})",
                        after.len(),
                        updates[index].0
                    ));
                }
                let raw_after = sse::analyze(&capture.body)
                    .data
                    .iter()
                    .filter(|d| d.line > updates[index].0)
                    .count();
                if raw_after > after.len() {
                    problems.push(format!(
                        "{} non-JSON data line(s) after the terminal update",
                        raw_after - after.len()
                    ));
                }
            }
        }
        match &capture.end {
            StreamEnd::Closed => {}
            StreamEnd::OpenAfterTerminal => {
                problems.push("the stream stayed open after its terminal update".to_owned())
            }
            StreamEnd::TimedOut => {
                problems.push("the stream neither ended nor sent a terminal update in time".to_owned())
            }
            StreamEnd::Failed(error) => problems.push(format!("the connection failed: {error}")),
            StreamEnd::TooLarge => problems.push("the stream grew past 8 MiB".to_owned()),
        }
        if problems.is_empty() {
            findings.ok(format!("'{}': one terminal update, then the end", target.id()));
        } else {
            problems
                .into_iter()
                .for_each(|p| findings.problem(format!("{label}: {p}")));
        }
    }
    findings.verdict()
}

/// The text deltas of updates, up to and including the first terminal one.
fn streamed_text(capture: &StreamCapture) -> String {
    let mut text = String::new();
    for (_, update) in updates(capture) {
        for content in update
            .get("contents")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if content.get("kind").and_then(Value::as_str) == Some("text")
                && let Some(delta) = content.get("text").and_then(Value::as_str)
            {
                text.push_str(delta);
            }
        }
        if is_terminal(&update) {
            break;
        }
    }
    text
}

/// `3.stream.matches-chat`.
pub(crate) async fn matches_chat(ctx: &mut Ctx) -> Verdict {
    let mut findings = Findings::default();
    for (target, capture) in need!(captures(ctx, &mut findings).await) {
        if !target.deterministic() {
            findings.skip(format!(
                "provider '{}' does not declare metadata deterministic: true",
                target.id()
            ));
            continue;
        }
        if !target.descriptor.capabilities.chat {
            findings.skip(format!("provider '{}' declares chat: false", target.id()));
            continue;
        }
        let Some(capture) = answered(&target, &capture, &mut findings) else {
            continue;
        };
        let chat = ctx.chat(&target).await;
        let Some(response) = chat.as_ref().as_ref().ok().and_then(|c| c.usable().ok()) else {
            findings.skip(format!(
                "no usable /chat answer from '{}' (see 3.provider.chat)",
                target.id()
            ));
            continue;
        };
        let streamed = streamed_text(capture);
        let answered = response.all_text();
        if streamed == answered {
            findings.ok(format!(
                "'{}': same text ({} chars)",
                target.id(),
                streamed.chars().count()
            ));
        } else {
            findings.problem(format!(
                "'{}': streamed {:?}, /chat answered {:?}",
                target.id(),
                crate::render::clip(&streamed, 80),
                crate::render::clip(&answered, 80)
            ));
        }
    }
    findings.verdict()
}

const ROLES: [&str; 4] = ["system", "user", "assistant", "tool"];
const KINDS: [&str; 6] = ["text", "image", "file", "structured", "toolCall", "toolResult"];
const FINISH: [&str; 6] = ["stop", "length", "toolCalls", "contentFilter", "error", "other"];

fn items(list: Option<&Value>) -> impl Iterator<Item = (usize, &Value)> {
    list.and_then(Value::as_array).into_iter().flatten().enumerate()
}

fn enum_problems(where_: &str, value: &Value, out: &mut Vec<String>) {
    let mut members: Vec<(String, Option<&Value>, &[&str])> = vec![
        ("finishReason".to_owned(), value.get("finishReason"), &FINISH),
        ("role".to_owned(), value.get("role"), &ROLES),
    ];
    for (i, content) in items(value.get("contents")) {
        members.push((format!("contents[{i}].kind"), content.get("kind"), &KINDS));
    }
    for (m, message) in value
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        members.push((format!("messages[{m}].role"), message.get("role"), &ROLES));
        for (i, content) in items(message.get("contents")) {
            members.push((
                format!("messages[{m}].contents[{i}].kind"),
                content.get("kind"),
                &KINDS,
            ));
        }
    }
    for (path, found, allowed) in members {
        if let Some(found) = found.filter(|f| !f.is_null())
            && !found.as_str().is_some_and(|s| allowed.contains(&s))
        {
            out.push(format!(
                "{where_}: {path} is {found}, not one of {}",
                allowed.join("|")
            ));
        }
    }
}

/// `2.json.enums`.
pub(crate) async fn enums(ctx: &mut Ctx) -> Verdict {
    let (targets, _) = need!(
        ctx.targets()
            .await
            .map_err(|m| crate::ctx::Missing::skip(m.reason))
    );
    let mut findings = Findings::default();
    for target in targets {
        if target.descriptor.capabilities.chat {
            let chat = ctx.chat(&target).await;
            match chat.as_ref().as_ref().ok().and_then(|c| c.value.as_ref()) {
                Some(value) if chat.as_ref().as_ref().is_ok_and(|c| c.answer.status.is_success()) => {
                    let mut problems = Vec::new();
                    enum_problems(&format!("/chat of '{}'", target.id()), value, &mut problems);
                    if problems.is_empty() {
                        findings.ok(format!("/chat of '{}'", target.id()));
                    }
                    problems.into_iter().for_each(|p| findings.problem(p));
                }
                _ => findings.skip(format!("no JSON /chat answer from '{}'", target.id())),
            }
        }
        if target.descriptor.capabilities.streaming {
            let capture = ctx.stream(&target).await;
            match capture.as_ref() {
                Ok(capture) if capture.status == StatusCode::OK => {
                    let mut problems = Vec::new();
                    for (line, update) in updates(capture) {
                        enum_problems(
                            &format!("stream of '{}', line {line}", target.id()),
                            &update,
                            &mut problems,
                        );
                    }
                    if problems.is_empty() {
                        findings.ok(format!("stream of '{}'", target.id()));
                    }
                    problems.into_iter().for_each(|p| findings.problem(p));
                }
                _ => findings.skip(format!("no stream answer from '{}'", target.id())),
            }
        }
    }
    findings.verdict()
}

/// A prompt with a long answer, so that the stream is still running when it is closed.
const LONG_PROMPT: &str = "Count from 1 to 300, one number per line, then say done. 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30";

/// `3.stream.cancellation`: open a stream, read its first bytes, close the connection;
/// then the extension's health and a new chat must still be answered.
pub(crate) async fn cancellation(ctx: &mut Ctx) -> Verdict {
    let (targets, _) = need!(
        ctx.targets()
            .await
            .map_err(|m| crate::ctx::Missing::skip(m.reason))
    );
    let Some(target) = targets.into_iter().find(|t| t.descriptor.capabilities.streaming) else {
        return Verdict::Skip("no provider declares streaming".to_owned());
    };
    let path = Http::provider_path(target.id(), "/chat/stream");
    let url = ctx.http.url(&path);
    let body = serde_json::to_vec(&chat_body(&target.model, LONG_PROMPT)).unwrap_or_default();
    let request = ctx
        .http
        .request(Method::POST, &url)
        .header(header::CONTENT_TYPE, "application/json")
        .body(body);
    let opened = match tokio::time::timeout(ctx.http.timeout, request.send()).await {
        Ok(Ok(response)) => response,
        Ok(Err(error)) => {
            return Verdict::Skip(format!(
                "could not open the stream: {}",
                crate::http::describe_error(&url, &error)
            ));
        }
        Err(_) => return Verdict::Skip(format!("{url}: no answer headers in time")),
    };
    if opened.status() != StatusCode::OK {
        return Verdict::Skip(format!(
            "the stream was answered {} (see 3.stream.response)",
            opened.status().as_u16()
        ));
    }
    let mut chunks = opened.bytes_stream();
    let first = tokio::time::timeout(Duration::from_secs(10), chunks.next()).await;
    drop(chunks);
    let note = match first {
        Ok(Some(Ok(bytes))) => format!("closed after the first {} byte(s)", bytes.len()),
        _ => "closed before any byte of the body".to_owned(),
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut findings = Findings::default();
    findings.check(match ctx.http.get(paths::HEALTH).await {
        Ok(answer) if answer.status == StatusCode::OK => {
            Ok(format!("{note}; GET /aep/health then answered 200"))
        }
        Ok(answer) => Err(format!(
            "after a closed stream, GET /aep/health answered {}",
            answer.describe()
        )),
        Err(error) => Err(format!("after a closed stream: {error}")),
    });
    let (route, tail) = if target.descriptor.capabilities.chat {
        ("/chat", "/chat")
    } else {
        ("/chat/stream", "/chat/stream")
    };
    let next = Http::provider_path(target.id(), tail);
    findings.check(
        match ctx
            .http
            .post_json(&next, &chat_body(&target.model, crate::ctx::PROMPT))
            .await
        {
            Ok(answer) if answer.status == StatusCode::OK => {
                Ok(format!("the next {route} request answered 200"))
            }
            Ok(answer) => Err(format!(
                "after a closed stream, POST {next} answered {}",
                answer.describe()
            )),
            Err(error) => Err(format!("after a closed stream: {error}")),
        },
    );
    findings.verdict()
}
