//! `aep-ollama`: serves the Ollama AEP extension. See `--help` and the README.

use aep_ollama::OllamaExtension;
use aep_ollama::config::Cli;
use aep_sdk::server::AepExtension;
use clap::Parser;

#[tokio::main]
async fn main() -> Result<(), aep_sdk::Error> {
    let cli = Cli::parse();
    aep_sdk::server::init_tracing();
    tracing::info!(ollama = %cli.ollama.url, "using Ollama");
    let served = OllamaExtension::new(cli.ollama)?
        .into_extension()?
        .serve_with(cli.serve)
        .await;
    // Spans and metrics still buffered go out before the process ends.
    aep_sdk::telemetry::finish().await;
    served
}
