//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::time::Duration;

use serde_json::Value;

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client")
}

pub async fn post(base: &str, path: &str, body: Value) -> reqwest::Response {
    client()
        .post(format!("{base}{path}"))
        .json(&body)
        .send()
        .await
        .expect("request")
}

/// Splits an NDJSON body, asserting the framing: every line ends with `\n`,
/// no blank lines, compact JSON objects.
pub fn ndjson(body: &str) -> Vec<Value> {
    assert!(body.ends_with('\n'), "body must end with a newline: {body:?}");
    body.split_terminator('\n')
        .map(|l| {
            assert!(!l.is_empty(), "blank line in {body:?}");
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}"));
            assert_eq!(serde_json::to_string(&v).unwrap(), l, "line is not compact JSON");
            v
        })
        .collect()
}

pub fn content_type(r: &reqwest::Response) -> String {
    r.headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// POSTs a chat and returns (status, content-type, body text).
pub async fn chat(base: &str, body: Value) -> (u16, String, String) {
    let r = post(base, "/api/chat", body).await;
    let status = r.status().as_u16();
    let ct = content_type(&r);
    let text = r.text().await.expect("body");
    (status, ct, text)
}

/// Reads a streaming body chunk by chunk until it ends or fails; returns the
/// complete lines received and whether the body ended with an error.
pub async fn read_until_end(mut r: reqwest::Response) -> (Vec<String>, bool) {
    let mut buf = Vec::new();
    let failed = loop {
        match r.chunk().await {
            Ok(Some(c)) => buf.extend_from_slice(&c),
            Ok(None) => break false,
            Err(_) => break true,
        }
    };
    let text = String::from_utf8_lossy(&buf).into_owned();
    let lines = text.split_terminator('\n').map(str::to_string).collect();
    (lines, failed)
}
