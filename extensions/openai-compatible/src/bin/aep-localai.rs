//! `aep-localai`: serves the LocalAI AEP extension. See `--help` and the README.

use aep_openai_compatible::config::LocalAiCli;
use aep_openai_compatible::localai::LocalAiExtension;
use aep_openai_compatible::upstream::Upstream;
use clap::Parser;

#[tokio::main]
async fn main() -> Result<(), aep_sdk::Error> {
    let cli = LocalAiCli::parse();
    aep_sdk::server::init_tracing();
    let upstream = cli.upstream()?;
    tracing::info!(endpoint = %upstream.endpoint, key = upstream.api_key.is_some(), "using LocalAI");
    let extension = LocalAiExtension(Upstream::new(upstream, Vec::new())?);
    aep_openai_compatible::serve(extension, cli.serve).await
}
