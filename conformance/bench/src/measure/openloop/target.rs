//! What is sent: a `/chat` with a fixed body, or an MCP `tools/call` on one session.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;

/// One kind of request: where it goes and what it carries.
#[derive(Clone)]
pub struct Target {
    pub addr: SocketAddr,
    /// `Host` header (hyper's connection-level client does not set one).
    host: String,
    path: String,
    headers: Vec<(http::HeaderName, http::HeaderValue)>,
    body: Body,
    /// A byte string every good answer contains.
    pub expect: &'static [u8],
    /// The process serving it, whose CPU time is counted per request.
    pub server: Option<u32>,
}

#[derive(Clone)]
pub enum Body {
    Fixed(Bytes),
    /// An MCP `tools/call` with a fresh JSON-RPC id (one session, many calls in flight).
    McpCall,
}

impl Target {
    pub fn new(base_url: &str, path: &str, body: Body, expect: &'static [u8]) -> Self {
        let host = base_url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned();
        let addr = host.parse().expect("a loopback address with a port");
        Self {
            addr,
            host,
            path: path.to_owned(),
            headers: vec![(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/json"),
            )],
            body,
            expect,
            server: None,
        }
    }

    /// Counts the CPU time of process `pid` as this target's server's.
    pub fn served_by(mut self, pid: Option<u32>) -> Self {
        self.server = pid;
        self
    }

    pub fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((
            http::HeaderName::from_static(name),
            http::HeaderValue::from_str(value).expect("header value"),
        ));
        self
    }

    pub fn request(&self, id: u64) -> http::Request<Full<Bytes>> {
        let body = match &self.body {
            Body::Fixed(bytes) => bytes.clone(),
            Body::McpCall => Bytes::from(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{id},"b":1}}}}}}"#
            )),
        };
        let mut request = http::Request::post(&self.path)
            .header(http::header::HOST, &self.host)
            .body(Full::new(body))
            .expect("request");
        for (name, value) in &self.headers {
            request.headers_mut().insert(name.clone(), value.clone());
        }
        request
    }
}

/// Opens an MCP session at `{base}/mcp` (initialize, then notifications/initialized) and
/// returns the `tools/call` target carrying its session and protocol-version headers.
pub async fn mcp_target(base: &str) -> Target {
    let client = super::super::http();
    let url = format!("{base}/mcp");
    let accept = "application/json, text/event-stream";
    let post = |body: serde_json::Value, session: Option<(&str, &str)>| {
        let mut request = client
            .post(&url)
            .header("accept", accept)
            .json(&body)
            .timeout(Duration::from_secs(10));
        if let Some((session, version)) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", version);
        }
        let method = body["method"].as_str().unwrap_or_default().to_owned();
        async move {
            let response = request
                .send()
                .await
                .unwrap_or_else(|e| panic!("MCP {method}: {e}"));
            assert!(response.status().is_success(), "{method}: {}", response.status());
            response
        }
    };
    let response = post(
        serde_json::json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "aep-bench", "version": "1.0.0"}
            }
        }),
        None,
    )
    .await;
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    let body = response.text().await.expect("initialize answer");
    let version = body
        .split("\"protocolVersion\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or("2025-11-25")
        .to_owned();
    post(
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some((&session, &version)),
    )
    .await;
    Target::new(base, "/mcp", Body::McpCall, b"\"result\"")
        .header("accept", accept)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", &version)
}

pub fn chat_target(base: &str) -> Target {
    let body = serde_json::to_vec(&super::super::request(8)).expect("request JSON");
    Target::new(
        base,
        "/aep/model-providers/echo/chat",
        Body::Fixed(body.into()),
        b"\"finish",
    )
}
