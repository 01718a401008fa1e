//! `aep-openai`: serves the OpenAI-compatible AEP extension. See `--help` and the README.

use aep_openai_compatible::config::OpenAiCli;
use aep_openai_compatible::openai::OpenAiExtension;
use aep_openai_compatible::upstream::Upstream;
use clap::Parser;

#[tokio::main]
async fn main() -> Result<(), aep_sdk::Error> {
    let cli = OpenAiCli::parse();
    aep_sdk::server::init_tracing();
    let upstream = cli.upstream()?;
    tracing::info!(endpoint = %upstream.endpoint, key = upstream.api_key.is_some(), "using an OpenAI-compatible server");
    let extension = OpenAiExtension(Upstream::new(upstream, cli.model_capabilities.clone())?);
    aep_openai_compatible::serve(extension, cli.serve).await
}
