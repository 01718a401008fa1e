//! `aep-llamacpp`: serves the llama.cpp AEP extension. See `--help` and the README.

use aep_openai_compatible::config::LlamaCppCli;
use aep_openai_compatible::llamacpp::LlamaCppExtension;
use aep_openai_compatible::upstream::Upstream;
use clap::Parser;

#[tokio::main]
async fn main() -> Result<(), aep_sdk::Error> {
    let cli = LlamaCppCli::parse();
    aep_sdk::server::init_tracing();
    let upstream = cli.upstream()?;
    tracing::info!(endpoint = %upstream.endpoint, "using llama.cpp");
    let extension = LlamaCppExtension(Upstream::new(upstream, Vec::new())?);
    aep_openai_compatible::serve(extension, cli.serve).await
}
