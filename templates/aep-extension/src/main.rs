//! Serves the extension: `cargo run -- --listen 127.0.0.1:8710` (or `AEP_LISTEN`).

use aep_sdk::server::AepExtension;

#[tokio::main]
async fn main() -> Result<(), aep_sdk::Error> {
    {{crate_name}}::Extension::default().serve().await
}
