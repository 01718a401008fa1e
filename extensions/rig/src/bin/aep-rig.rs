//! `aep-rig`: serves a rig provider as an AEP model-provider extension. See `--help`
//! and the README.

use aep_rig::cli::Cli;
use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    aep_sdk::server::init_tracing();
    let extension = match cli.extension() {
        Ok(extension) => extension,
        Err(error) => {
            eprintln!("aep-rig: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    tracing::info!(provider = %extension.upstream().describe(), "serving a rig provider");
    let served = match extension.build() {
        Ok(extension) => extension.serve_with(cli.serve).await,
        Err(error) => Err(error),
    };
    // Spans and metrics still buffered go out before the process ends.
    aep_sdk::telemetry::finish().await;
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("aep-rig: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
