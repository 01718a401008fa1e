//! What the Inspector's tests start: the Inspector on a loopback port, the bundled
//! extensions, fixture extensions (slow, stalling, reasoning) and servers that are not
//! AEP extensions at all.
#![allow(dead_code)]

pub mod fixtures;

use std::sync::Arc;

use aep_sdk::server::AepExtension;
use aep_sdk::testing::{TestServer, spawn};
use futures::StreamExt;
use serde_json::{Value, json};

#[path = "../../../../aep-sdk/examples/echo.rs"]
#[allow(dead_code)]
pub mod echo;

/// The Inspector on `127.0.0.1:0`; `url` is `http://127.0.0.1:PORT` (no slash).
pub struct Inspector {
    /// Base URL.
    pub url: String,
    /// HTTP client for its API.
    pub http: reqwest::Client,
    _server: TestServer,
}

impl Inspector {
    /// Starts one with these startup URLs.
    pub async fn start(startup: Vec<String>) -> Self {
        let state = Arc::new(aep_inspector::Inspector::new(startup));
        let server = spawn(aep_inspector::router(state, true)).await;
        Self {
            url: server.base_url.clone(),
            http: reqwest::Client::builder()
                .timeout(std::time::Duration::from_secs(90))
                .build()
                .unwrap(),
            _server: server,
        }
    }

    /// `GET path` -> (status, JSON body).
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let response = self.http.get(format!("{}{path}", self.url)).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// `POST path` with a JSON body -> (status, JSON body).
    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}{path}", self.url))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// Connects to `url`; panics unless it works. Returns the summary.
    pub async fn connect(&self, url: &str) -> Value {
        let (status, body) = self.post("/api/connections", json!({"url": url})).await;
        assert_eq!(status, 201, "{body}");
        body
    }

    /// `POST path` answered as events: every `(name, data)` until the stream ends.
    pub async fn events(&self, path: &str, body: Value) -> Vec<(String, Value)> {
        let response = self
            .http
            .post(format!("{}{path}", self.url))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let text = response.text().await.unwrap();
        parse_events(&text)
    }

    /// Opens an event stream and returns the raw response (to read part of it).
    pub async fn open(&self, path: &str, body: Value) -> reqwest::Response {
        self.http
            .post(format!("{}{path}", self.url))
            .json(&body)
            .send()
            .await
            .unwrap()
    }
}

/// Splits `event:`/`data:` blocks.
pub fn parse_events(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .map(|block| {
            let mut name = String::new();
            let mut data = String::new();
            for line in block.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = n.to_owned();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data.push_str(d);
                }
            }
            (name, serde_json::from_str(&data).unwrap_or(Value::Null))
        })
        .collect()
}

/// Reads a response's events until one named `name` arrives (bounded by 10 s).
pub async fn read_until(response: &mut reqwest::Response, name: &str) -> Vec<(String, Value)> {
    let mut text = String::new();
    let found = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        loop {
            let Some(chunk) = response.chunk().await.unwrap() else {
                break;
            };
            text.push_str(&String::from_utf8_lossy(&chunk));
            if parse_events(&text).iter().any(|(n, _)| n == name) {
                break;
            }
        }
    })
    .await;
    assert!(found.is_ok(), "no {name} event within 10 s: {text}");
    parse_events(&text)
}

/// The utilities extension on a loopback port.
pub async fn utilities() -> TestServer {
    spawn(aep_utilities::Utilities.into_extension().unwrap().router()).await
}

/// The SDK's echo example on a loopback port.
pub async fn echo() -> TestServer {
    spawn(echo::extension().unwrap().router()).await
}

/// Reads a whole `bytes_stream` as text (for tests that need it chunk by chunk).
pub async fn body_text(response: reqwest::Response) -> String {
    let mut out = String::new();
    let mut stream = response.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        out.push_str(&String::from_utf8_lossy(&chunk));
    }
    out
}
