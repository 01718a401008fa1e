//! What the Inspector's tests start: the Inspector on a loopback port, the bundled
//! extensions, fixture extensions (slow, stalling, reasoning) and servers that are not
//! AEP extensions at all.
#![allow(dead_code)]

pub mod fixtures;
pub mod oauth;

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
        Self::start_with(aep_inspector::Inspector::new(startup)).await
    }

    /// Starts one with this state.
    pub async fn start_with(state: aep_inspector::Inspector) -> Self {
        let server = spawn(aep_inspector::router(Arc::new(state), true)).await;
        Self {
            url: server.base_url.clone(),
            http: reqwest::Client::builder()
                .timeout(std::time::Duration::from_secs(90))
                .build()
                .unwrap(),
            _server: server,
        }
    }

    /// Sends `method path` (with `body` as JSON when there is one) -> the raw response.
    pub async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> reqwest::Response {
        let request = self.http.request(method, format!("{}{path}", self.url));
        let request = match body {
            Some(body) => request.json(&body),
            None => request,
        };
        request.send().await.unwrap()
    }

    /// `GET url` (an absolute URL, the redirect back to its callback, say) without
    /// following redirects -> (status, `Location`, body).
    pub async fn visit(&self, url: &str) -> (u16, Option<String>, String) {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(std::time::Duration::from_secs(60))
            .build()
            .unwrap();
        let response = http.get(url).send().await.unwrap();
        let status = response.status().as_u16();
        let location = response
            .headers()
            .get("location")
            .map(|l| l.to_str().unwrap().to_owned());
        (status, location, response.text().await.unwrap())
    }

    /// `GET path` -> the raw response.
    pub async fn fetch(&self, path: &str) -> reqwest::Response {
        self.send(reqwest::Method::GET, path, None).await
    }

    /// `GET path` -> (status, JSON body).
    pub async fn get(&self, path: &str) -> (u16, Value) {
        status_and_json(self.fetch(path).await).await
    }

    /// `POST path` with a JSON body -> (status, JSON body).
    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        status_and_json(self.open(path, body).await).await
    }

    /// One with no startup URLs, connected to `url`, and the connection's id.
    pub async fn connected(url: &str) -> (Self, String) {
        Self::connected_with(json!({"url": url})).await
    }

    /// The SDK's echo example, and one with no startup URLs connected to it (with the
    /// connection's id).
    pub async fn connected_to_echo() -> (TestServer, Self, String) {
        let echo = echo().await;
        let (inspector, id) = Self::connected(&echo.base_url).await;
        (echo, inspector, id)
    }

    /// One with no startup URLs, connected with this request (see
    /// [`Inspector::connect_with`]), and the connection's id.
    pub async fn connected_with(request: Value) -> (Self, String) {
        let inspector = Self::start(vec![]).await;
        let id = id_of(&inspector.connect_with(request).await);
        (inspector, id)
    }

    /// Connects to `url`; panics unless it works. Returns the summary.
    pub async fn connect(&self, url: &str) -> Value {
        self.connect_with(json!({"url": url})).await
    }

    /// Connects to `url`; panics unless it works. Returns the connection's id.
    pub async fn connect_id(&self, url: &str) -> String {
        id_of(&self.connect(url).await)
    }

    /// Connects with this request (`url`, `token`, `revision`, `anyway`); panics unless
    /// it works. Returns the summary.
    pub async fn connect_with(&self, request: Value) -> Value {
        self.post_expect("/api/connections", request, 201).await
    }

    /// `GET path`, asserting the status (the body shown when it differs) -> JSON body.
    pub async fn get_expect(&self, path: &str, status: u16) -> Value {
        let (got, body) = self.get(path).await;
        assert_eq!(got, status, "GET {path}: {body}");
        body
    }

    /// `GET path` answered 200 -> JSON body.
    pub async fn get_ok(&self, path: &str) -> Value {
        self.get_expect(path, 200).await
    }

    /// `GET path` refused with `status` and error `code` -> JSON body.
    pub async fn get_refused(&self, path: &str, status: u16, code: &str) -> Value {
        let body = self.get_expect(path, status).await;
        assert_eq!(body["error"]["code"], code, "GET {path}: {body}");
        body
    }

    /// `POST path`, asserting the status (the body shown when it differs) -> JSON body.
    pub async fn post_expect(&self, path: &str, body: Value, status: u16) -> Value {
        let (got, body) = self.post(path, body).await;
        assert_eq!(got, status, "POST {path}: {body}");
        body
    }

    /// `POST path` answered 200 -> JSON body.
    pub async fn post_ok(&self, path: &str, body: Value) -> Value {
        self.post_expect(path, body, 200).await
    }

    /// `POST path` refused with `status` and error `code` -> JSON body.
    pub async fn post_refused(&self, path: &str, body: Value, status: u16, code: &str) -> Value {
        let body = self.post_expect(path, body, status).await;
        assert_eq!(body["error"]["code"], code, "POST {path}: {body}");
        body
    }

    /// The trace of connection `id`.
    pub async fn trace(&self, id: &str) -> Value {
        self.get_ok(&api(id, "trace")).await
    }

    /// Closes connection `id` (`DELETE`, answered 204).
    pub async fn close(&self, id: &str) {
        let path = format!("/api/connections/{id}");
        let response = self.send(reqwest::Method::DELETE, &path, None).await;
        assert_eq!(response.status(), 204, "DELETE {path}");
    }

    /// `POST path` answered as events: every `(name, data)` until the stream ends.
    pub async fn events(&self, path: &str, body: Value) -> Vec<(String, Value)> {
        let response = self.open(path, body).await;
        assert_eq!(response.status(), 200, "{path}");
        let text = response.text().await.unwrap();
        parse_events(&text)
    }

    /// Opens an event stream and returns the raw response (to read part of it).
    pub async fn open(&self, path: &str, body: Value) -> reqwest::Response {
        self.send(reqwest::Method::POST, path, Some(body)).await
    }
}

/// A response's status and JSON body (`null` when it is not JSON).
async fn status_and_json(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// `/api/connections/{id}/{rest}`: a path of connection `id`'s API.
pub fn api(id: &str, rest: &str) -> String {
    format!("/api/connections/{id}/{rest}")
}

/// The id in a connection's summary.
pub fn id_of(summary: &Value) -> String {
    summary["id"].as_str().unwrap().to_owned()
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
