//! `aep-inspector [--listen ADDR] [URL...]`: serves the Inspector (default
//! `127.0.0.1:8720`); the page opens each URL connected.

use std::sync::Arc;

use clap::Parser;

/// AEP Inspector: a web workbench for any AEP extension.
///
/// The help texts of the arguments are what `--help` prints, so they are plain text.
#[derive(Debug, Parser)]
#[command(
    name = "aep-inspector",
    version,
    about = "AEP Inspector: a web workbench for any AEP extension, in any language.\n\
             Serves one page where extensions open side by side, each with its overview, \
             a playground, its tools, its configuration, a conformance run and a trace.",
    long_about = None,
    after_help = EXAMPLES
)]
struct Args {
    /// Address to listen on, host:port.
    #[arg(
        long,
        env = "AEP_INSPECTOR_LISTEN",
        default_value = "127.0.0.1:8720",
        value_name = "ADDR"
    )]
    listen: String,
    /// Extension base URLs to open connected.
    #[arg(value_name = "URL")]
    urls: Vec<String>,
}

/// The end of `--help`.
const EXAMPLES: &str = "\
Examples:
  aep-inspector http://127.0.0.1:8710
      serve the Inspector on http://127.0.0.1:8720 with that extension connected
  aep-inspector --listen 127.0.0.1:9000 http://127.0.0.1:8710 http://127.0.0.1:8711
      another address, two extensions

Also aep-host inspect, with the same arguments. The guide:
https://docs.rs/aep-sdk/latest/aep_sdk/guide/conformance/";

#[tokio::main]
async fn main() -> std::process::ExitCode {
    {
        use tracing_subscriber::prelude::*;
        let (filter, problem) = aep_sdk::server::log_filter(tracing::level_filters::LevelFilter::WARN);
        let logs = tracing_subscriber::fmt::layer().with_filter(filter);
        let _ = tracing_subscriber::registry().with(logs).try_init();
        if let Some(problem) = problem {
            tracing::warn!("RUST_LOG ignored, logging at warn: {problem}");
        }
    }
    let args = Args::parse();
    let listener = match tokio::net::TcpListener::bind(&args.listen).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("aep-inspector: cannot listen on {}: {e}", args.listen);
            return std::process::ExitCode::FAILURE;
        }
    };
    match listener.local_addr() {
        Ok(addr) => println!("AEP Inspector on http://{addr}/"),
        Err(e) => eprintln!("aep-inspector: {e}"),
    }
    let inspector = Arc::new(aep_inspector::Inspector::new(args.urls));
    match aep_inspector::serve(listener, inspector).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aep-inspector: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
