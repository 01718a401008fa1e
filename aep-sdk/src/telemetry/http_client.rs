//! The OTLP exporters' HTTP client: the workspace's reqwest (0.13) behind
//! `opentelemetry_http::HttpClient`, so the exporter needs no client (and no reqwest
//! major) of its own.
//!
//! The SDK's batch span processor and periodic metric reader export from threads of
//! their own, outside any async runtime, while reqwest needs Tokio: each request runs on
//! a one-thread runtime that belongs to the exporter and lives as long as the process.
//! It is independent of the application's runtime, so a flush at shutdown works from a
//! current-thread runtime too.

use std::sync::OnceLock;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use opentelemetry_http::{HttpClient, HttpError, Request, Response};

/// Bound on a collector's answer (they are a few bytes).
const MAX_RESPONSE_BODY: usize = 1024 * 1024;

/// An `HttpClient` over reqwest 0.13.
#[derive(Debug, Clone)]
pub(crate) struct ReqwestExporterClient {
    http: reqwest::Client,
}

fn runtime() -> Result<&'static tokio::runtime::Runtime, HttpError> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("aep-otlp-export")
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| format!("cannot start the OTLP export runtime: {e}").into())
}

impl ReqwestExporterClient {
    /// A client whose requests time out after `timeout` (`OTEL_EXPORTER_OTLP_TIMEOUT`).
    pub(crate) fn new(timeout: Duration) -> Result<Self, String> {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| format!("cannot build the OTLP HTTP client: {e}"))?;
        Ok(Self { http })
    }
}

async fn send(http: reqwest::Client, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
    let (parts, body) = request.into_parts();
    let url = parts.uri.to_string();
    let response = http
        .request(parts.method, url)
        .headers(parts.headers)
        .body(body)
        .send()
        .await?;
    let status = response.status();
    let headers = response.headers().clone();
    let mut body = Vec::new();
    let mut response = response;
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > MAX_RESPONSE_BODY {
            return Err("the collector's answer is larger than 1 MiB".into());
        }
        body.extend_from_slice(&chunk);
    }
    let mut answer = Response::new(Bytes::from(body));
    *answer.status_mut() = status;
    *answer.headers_mut() = headers;
    Ok(answer)
}

#[async_trait]
impl HttpClient for ReqwestExporterClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let task = runtime()?.spawn(send(self.http.clone(), request));
        task.await?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_sent_from_a_thread_without_a_runtime() {
        // What the SDK's export threads do: block on the future outside Tokio.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut stream, _) = listener.accept().unwrap();
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            while !seen.windows(5).any(|w| w == b"hello") {
                let n = stream.read(&mut buf).unwrap();
                seen.extend_from_slice(&buf[..n]);
            }
            stream
                .write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 2\r\nx-seen: 1\r\n\r\nok")
                .unwrap();
            String::from_utf8_lossy(&seen).into_owned()
        });
        let client = ReqwestExporterClient::new(Duration::from_secs(5)).unwrap();
        let request = Request::post(format!("http://{addr}/v1/traces"))
            .header("content-type", "application/x-protobuf")
            .body(Bytes::from_static(b"hello"))
            .unwrap();
        let response = futures::executor::block_on(client.send_bytes(request)).unwrap();
        assert_eq!(response.status(), 202);
        assert_eq!(response.body().as_ref(), b"ok");
        assert_eq!(response.headers()["x-seen"], "1");
        let seen = server.join().unwrap();
        assert!(seen.starts_with("POST /v1/traces HTTP/1.1\r\n"), "{seen}");
        assert!(seen.contains("content-type: application/x-protobuf"), "{seen}");
    }
}
