//! Raw discovery: the manifest documents as the extension serves them on both revision
//! routes (status, content type, timing, body), and the diagnosis of an answer that is
//! not an AEP manifest at all, said in words a person debugging a URL can act on.

use std::time::Instant;

use aep_host::oauth::challenge::Challenge;
use aep_sdk::protocol::ProtocolVersion;
use axum::http::StatusCode;
use serde::Serialize;
use serde_json::Value;
use url::Url;

use crate::error::{ApiError, codes};
use crate::limits::{REQUEST_TIMEOUT, SNIPPET_CHARS};
use crate::trace::Trace;

/// One discovery route's answer.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RawDocument {
    /// The revision whose route this is (`"1.0"`, `"2026-08-01"`).
    pub revision: &'static str,
    /// The URL fetched.
    pub url: String,
    /// HTTP status, when there was an answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The answer's `content-type`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Time from sending to the whole body.
    pub elapsed_ms: u64,
    /// The body, when it is JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json: Option<Value>,
    /// The start of the body, when it is not JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Why there is no answer (connection refused, timed out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Whether the failure was the time bound.
    #[serde(skip)]
    pub timed_out: bool,
    /// The answer's `WWW-Authenticate` (a 401's challenge).
    #[serde(skip)]
    pub www_authenticate: Option<String>,
}

/// `base` joined with an absolute `path`, with exactly one `/` between them.
pub fn join(base: &Url, path: &str) -> String {
    format!("{}{}", base.as_str().trim_end_matches('/'), path)
}

/// Fetches `path` under `base` with `GET`, bounded by [`REQUEST_TIMEOUT`].
pub async fn fetch(
    http: &reqwest::Client,
    base: &Url,
    revision: ProtocolVersion,
    token: Option<&str>,
    trace: &Trace,
) -> RawDocument {
    let url = join(base, revision.discovery_path());
    let mut document = RawDocument {
        revision: revision.as_str(),
        url: url.clone(),
        status: None,
        content_type: None,
        elapsed_ms: 0,
        json: None,
        text: None,
        failure: None,
        timed_out: false,
        www_authenticate: None,
    };
    let started = Instant::now();
    let mut request = http.get(&url).timeout(REQUEST_TIMEOUT);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let answer = async {
        let request = request.build()?;
        let mut pending = trace.start(&request);
        let response = match http.execute(request).await {
            Ok(response) => response,
            Err(e) => {
                pending.fail(aep_sdk::client::error_chain(&e));
                return Err(e);
            }
        };
        pending.answered(&response);
        let status = response.status().as_u16();
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
                .map(str::to_owned)
        };
        let content_type = header(reqwest::header::CONTENT_TYPE);
        let challenge = header(reqwest::header::WWW_AUTHENTICATE);
        let body = match response.bytes().await {
            Ok(body) => body,
            Err(e) => {
                pending.fail(aep_sdk::client::error_chain(&e));
                return Err(e);
            }
        };
        pending.finish(&body);
        Ok::<_, reqwest::Error>((status, content_type, challenge, body))
    }
    .await;
    document.elapsed_ms = started.elapsed().as_millis() as u64;
    match answer {
        Ok((status, content_type, challenge, body)) => {
            document.status = Some(status);
            document.content_type = content_type;
            document.www_authenticate = challenge;
            match serde_json::from_slice::<Value>(&body) {
                Ok(json) => document.json = Some(json),
                Err(_) => document.text = Some(snippet(&String::from_utf8_lossy(&body))),
            }
        }
        Err(error) => {
            document.timed_out = error.is_timeout();
            document.failure = Some(aep_sdk::client::error_chain(&error));
        }
    }
    document
}

fn snippet(text: &str) -> String {
    let mut cut: String = text.chars().take(SNIPPET_CHARS).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    cut
}

/// The `<title>` of an HTML page, or its first line of text.
fn page_summary(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    if let (Some(start), Some(end)) = (lower.find("<title>"), lower.find("</title>"))
        && start + 7 <= end
    {
        return text[start + 7..end].trim().to_owned();
    }
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .chars()
        .take(120)
        .collect()
}

fn is_html(document: &RawDocument) -> bool {
    let by_type = document
        .content_type
        .as_deref()
        .is_some_and(|t| t.starts_with("text/html"));
    let by_body = document.text.as_deref().is_some_and(|t| {
        let start = t.trim_start().to_ascii_lowercase();
        start.starts_with("<!doctype html") || start.starts_with("<html")
    });
    by_type || by_body
}

/// A 401 whose Bearer challenge names protected resource metadata (RFC 9728): the
/// extension is an OAuth 2.1 resource server, and the page offers to sign in.
fn sign_in_required(document: &RawDocument) -> Option<ApiError> {
    if document.status != Some(StatusCode::UNAUTHORIZED.as_u16()) {
        return None;
    }
    let challenge = Challenge::parse(document.www_authenticate.as_deref()?)?;
    let metadata = challenge.resource_metadata()?;
    let refused = match (challenge.error(), challenge.get("error_description")) {
        (Some(error), Some(why)) => format!(", refusing the token sent ({error}: {why})"),
        (Some(error), None) => format!(", refusing the token sent ({error})"),
        _ => String::new(),
    };
    Some(
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            codes::SIGN_IN_REQUIRED,
            format!(
                "{} answered HTTP 401{refused}: the extension is an OAuth 2.1 protected resource; sign in to connect",
                document.url
            ),
        )
        .with_details(vec![format!("protected resource metadata: {metadata}")]),
    )
}

/// `Ok` when `document` looks like an AEP manifest (whether it is a valid one is the
/// SDK client's judgement, made next); otherwise what it is instead.
pub fn diagnose(document: &RawDocument) -> Result<(), ApiError> {
    let url = &document.url;
    let Some(status) = document.status else {
        let why = document.failure.clone().unwrap_or_default();
        return Err(if document.timed_out {
            ApiError::upstream(
                codes::TIMED_OUT,
                format!("{url} did not answer within {} s", REQUEST_TIMEOUT.as_secs()),
            )
            .with_details(vec![why])
        } else {
            ApiError::upstream(
                aep_sdk::client::codes::EXTENSION_UNREACHABLE,
                format!("could not reach {url}: {why}"),
            )
        });
    };
    let content_type = document.content_type.as_deref().unwrap_or("no content type");
    if let Some(error) = sign_in_required(document) {
        return Err(error);
    }
    if is_html(document) {
        let title = page_summary(document.text.as_deref().unwrap_or(""));
        return Err(ApiError::upstream(
            codes::NOT_AEP,
            format!(
                "{url} answered HTTP {status} with an HTML page (\"{title}\"), not an AEP manifest: is this the extension's base URL?"
            ),
        )
        .with_details(document.text.iter().cloned().collect()));
    }
    if !(200..300).contains(&status) {
        let remote = document
            .json
            .as_ref()
            .and_then(|j| j.pointer("/error/message"))
            .and_then(Value::as_str)
            .map(|m| format!(" (it says: {m})"))
            .unwrap_or_default();
        let hint = if status == StatusCode::NOT_FOUND.as_u16() {
            ": nothing is served there, so this is not an AEP extension, or not its base URL"
        } else {
            ""
        };
        return Err(ApiError::upstream(
            codes::NOT_AEP,
            format!("{url} answered HTTP {status} ({content_type}){remote}{hint}"),
        ));
    }
    let Some(json) = &document.json else {
        return Err(ApiError::upstream(
            codes::NOT_AEP,
            format!("{url} answered HTTP {status} with {content_type} that is not JSON, not an AEP manifest"),
        )
        .with_details(document.text.iter().cloned().collect()));
    };
    if json.get("protocolVersion").is_none() || json.get("extension").is_none() {
        return Err(ApiError::upstream(
            codes::NOT_AEP,
            format!("{url} answered JSON without protocolVersion and extension: not an AEP manifest"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answered(status: u16, content_type: &str, json: Option<Value>, text: Option<&str>) -> RawDocument {
        RawDocument {
            revision: "2026-08-01",
            url: "http://h/.well-known/aep".into(),
            status: Some(status),
            content_type: Some(content_type.into()),
            elapsed_ms: 1,
            json,
            text: text.map(str::to_owned),
            failure: None,
            timed_out: false,
            www_authenticate: None,
        }
    }

    #[test]
    fn an_html_error_page_is_named_by_its_title() {
        let page = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>";
        let error = diagnose(&answered(502, "text/html", None, Some(page))).unwrap_err();
        assert_eq!(error.code, codes::NOT_AEP);
        assert!(
            error
                .message
                .contains("HTTP 502 with an HTML page (\"502 Bad Gateway\")"),
            "{error}"
        );
    }

    #[test]
    fn json_that_is_not_a_manifest_is_not_aep() {
        let error = diagnose(&answered(
            200,
            "application/json",
            Some(json!({"ok": true})),
            None,
        ))
        .unwrap_err();
        assert!(error.message.contains("not an AEP manifest"), "{error}");
        let missing = diagnose(&answered(404, "text/plain", None, Some("nope"))).unwrap_err();
        assert!(
            missing
                .message
                .contains("HTTP 404 (text/plain): nothing is served there"),
            "{missing}"
        );
        let manifest = json!({"protocolVersion": "2026-08-01", "extension": {}});
        assert!(diagnose(&answered(200, "application/json", Some(manifest), None)).is_ok());
    }

    #[test]
    fn a_bearer_challenge_naming_resource_metadata_asks_for_a_sign_in() {
        let mut document = answered(401, "application/json", Some(json!({})), None);
        let metadata = "http://h/.well-known/oauth-protected-resource";
        document.www_authenticate = Some(format!(
            "Bearer error=\"invalid_token\", error_description=\"expired\", resource_metadata=\"{metadata}\""
        ));
        let error = diagnose(&document).unwrap_err();
        assert_eq!(
            (error.status, error.code.as_str()),
            (StatusCode::UNAUTHORIZED, codes::SIGN_IN_REQUIRED)
        );
        assert!(
            error
                .message
                .contains("refusing the token sent (invalid_token: expired)"),
            "{error}"
        );
        assert_eq!(
            error.details,
            [format!("protected resource metadata: {metadata}")]
        );
        // A static token's 401 names no metadata: nothing to sign in to.
        document.www_authenticate = Some("Bearer".into());
        assert_eq!(diagnose(&document).unwrap_err().code, codes::NOT_AEP);
    }

    #[test]
    fn no_answer_is_unreachable_or_timed_out() {
        let mut document = answered(200, "", None, None);
        document.status = None;
        document.failure = Some("connection refused".into());
        assert_eq!(diagnose(&document).unwrap_err().code, "extension_unreachable");
        document.timed_out = true;
        assert_eq!(diagnose(&document).unwrap_err().code, codes::TIMED_OUT);
    }
}
