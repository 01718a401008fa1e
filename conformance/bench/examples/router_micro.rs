use axum::body::Body;
use std::time::Instant;
use tower::ServiceExt;
#[path = "../src/servers.rs"]
#[allow(dead_code)]
mod servers;
use aep_sdk::server::AepExtension;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let body = serde_json::to_vec(&aep_sdk::protocol::ChatRequest::new(
        "n:8",
        vec![aep_sdk::protocol::Message::user("go")],
    ))
    .unwrap();
    let sdk = servers::SdkBench.into_extension().unwrap().router();
    let base = servers::baseline_router();
    let only = std::env::args().nth(1).unwrap_or_default();
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20000);
    let rounds = if only.is_empty() { 6 } else { 2 };
    for round in 0..rounds {
        for (name, router) in [("sdk", &sdk), ("base", &base)] {
            for path in [
                "/aep/model-providers/echo/chat",
                "/aep/model-providers/echo/chat/stream",
            ] {
                if !only.is_empty() && !path.ends_with(&only[only.find(':').map(|i| i + 1).unwrap_or(0)..]) {
                    continue;
                }
                if !only.is_empty() && !only.starts_with(name) {
                    continue;
                }
                let start = Instant::now();
                for _ in 0..n {
                    let req = http::Request::post(path)
                        .header("content-type", "application/json")
                        .body(Body::from(body.clone()))
                        .unwrap();
                    let resp = router.clone().oneshot(req).await.unwrap();
                    let _ = axum::body::to_bytes(resp.into_body(), usize::MAX).await.unwrap();
                }
                if round > 0 {
                    println!(
                        "{name} {path}: {:.2} µs/req",
                        start.elapsed().as_secs_f64() * 1e6 / n as f64
                    );
                }
            }
        }
    }
}
