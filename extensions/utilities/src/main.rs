//! Serves the utilities extension: `aep-utilities --listen 127.0.0.1:8711`.

use aep_sdk::server::AepExtension;

#[tokio::main]
async fn main() -> Result<(), aep_sdk::Error> {
    aep_utilities::Utilities.serve().await
}
