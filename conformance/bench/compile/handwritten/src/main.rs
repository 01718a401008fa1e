//! Serves the extension: `cargo run -- --listen 127.0.0.1:8710` (or `AEP_LISTEN`).

#[tokio::main]
async fn main() -> std::io::Result<()> {
    handwritten_extension::serve().await
}
