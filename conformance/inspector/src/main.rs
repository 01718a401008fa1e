//! `aep-inspector [--listen ADDR] [URL...]`: serves the Inspector (default
//! `127.0.0.1:8720`); the page opens each URL connected.

use std::sync::Arc;

use clap::Parser;

/// AEP Inspector: a web workbench for any AEP extension.
#[derive(Debug, Parser)]
#[command(name = "aep-inspector", version)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "AEP_INSPECTOR_LISTEN", default_value = "127.0.0.1:8720")]
    listen: String,
    /// Extension base URLs to open connected.
    urls: Vec<String>,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
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
