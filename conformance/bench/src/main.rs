//! `aep-bench`: the SDK's cost against hand-written baselines, measured side by side.
//!
//! `cargo run --release -p aep-bench -- all` prints a table and writes
//! `target/aep-bench/report.json`. Targets are goals reported against, not assertions.

mod measure;
mod report;
mod servers;
mod stats;

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

/// The help texts of the subcommands and their arguments are what `--help` prints, so
/// they are plain text.
#[derive(Parser)]
#[command(
    name = "aep-bench",
    about = "Side-by-side measurements of aep-sdk against hand-written baselines",
    long_about = None,
    after_help = EXAMPLES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The end of `aep-bench --help`.
const EXAMPLES: &str = "\
Examples:
  cargo run --release -p aep-bench -- all
      every measurement but compile: a table, and target/aep-bench/report.json
  cargo run --release -p aep-bench -- open-loop --only chat,mcp --duration 10
      tail latency at fixed rates, for /chat and MCP only, in shorter rounds

Measure release builds: the numbers of a debug build say little.";

#[derive(Subcommand)]
enum Command {
    /// Every measurement.
    All,
    /// 1. streaming throughput (and 7. per-update cost).
    Stream,
    /// 2. /chat latency.
    Latency,
    /// 3. MCP tools/call throughput.
    Mcp,
    /// 4. Ollama proxy overhead.
    Ollama,
    /// 8. OpenAI-compatible proxy overhead (stand-in out of process).
    Openai,
    /// 6. host tool resolution, cold and warm.
    Host,
    /// 10. the gateway's added latency (OpenAI in, AEP out) and MCP forwarding.
    Gateway,
    /// 11. open-loop tail latency at fixed rates (/chat, MCP, the proxies).
    OpenLoop(measure::openloop::Settings),
    /// Serve one open-loop server kind until killed (used by measurement 11).
    #[command(hide = true)]
    OpenLoopServe {
        kind: String,
        #[arg(long)]
        upstream: Option<String>,
    },
    /// 12. build cost: a cold cargo build and the rebuild after a tool's body changes.
    ///
    /// The template's generated extension against a hand-written axum + rmcp one; it
    /// takes minutes and is not part of all.
    Compile {
        /// Cold builds of each (a fresh target directory every time); the goal is judged on
        /// the median of 3.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Rebuilds of each after one tool's body changed.
        #[arg(long, default_value_t = 3)]
        rebuilds: usize,
        /// The lock every build holds (the file flock takes); default target/.build-lock.
        #[arg(long)]
        lock: Option<PathBuf>,
    },
    /// 5. memory (and 7. per-stream memory).
    Memory,
    /// 1,000 x 1,000 streams without loss.
    Load {
        #[arg(long, default_value_t = 1000)]
        streams: usize,
        #[arg(long, default_value_t = 1000)]
        updates: usize,
    },
    /// 9. instructions per request (callgrind): /chat and MCP tools/call.
    Micro {
        /// Requests of the /chat probe (run for N and 2N).
        #[arg(long, default_value_t = 2000)]
        chat_requests: usize,
        /// Calls of the MCP probe (run for N and 2N).
        #[arg(long, default_value_t = 200)]
        mcp_calls: usize,
    },
    /// Run one probe `n` times (what `micro` runs under callgrind).
    #[command(hide = true)]
    Probe {
        probe: measure::micro::Probe,
        /// `sdk` or `baseline`.
        variant: String,
        n: usize,
    },
    /// Serve one variant until killed (used by the memory measurement).
    #[command(hide = true)]
    Serve { kind: String },
    /// Serve the fake Ollama, answering every chat with `deltas` unpaced deltas, until
    /// killed (used by measurement 4).
    #[command(hide = true)]
    OllamaUpstream {
        #[arg(long, default_value_t = 5000)]
        deltas: usize,
    },
    /// Serve the OpenAI-compatible stand-in until killed (used by measurement 8).
    #[command(hide = true)]
    Upstream {
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: String,
    },
}

fn report_path() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("aep-bench/report.json")
}

fn main() {
    let cli = Cli::parse();
    if let Command::Probe { probe, variant, n } = &cli.command {
        // A runtime of its own, on this thread only.
        measure::micro::probe(*probe, variant == "sdk", *n);
        return;
    }
    tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(run(cli));
}

async fn run(cli: Cli) {
    if let Command::Serve { kind } = &cli.command {
        servers::serve_forever(kind).await;
        return;
    }
    if let Command::OllamaUpstream { deltas } = &cli.command {
        measure::ollama::serve_upstream(*deltas).await;
        return;
    }
    if let Command::Upstream { listen } = &cli.command {
        measure::openai::serve_upstream(listen).await;
        return;
    }
    if let Command::OpenLoopServe { kind, upstream } = &cli.command {
        measure::openloop::serve(kind, upstream.as_deref()).await;
        return;
    }
    eprintln!("machine: {}", report::machine());
    let mut rows = Vec::new();
    let all = matches!(cli.command, Command::All);
    if all || matches!(cli.command, Command::Stream) {
        eprintln!("measuring 1. streaming throughput ...");
        let samples = measure::stream::samples().await;
        rows.extend(measure::stream::rows(&samples));
        rows.extend(measure::growth::update_rows(&samples));
    }
    if all || matches!(cli.command, Command::Latency) {
        eprintln!("measuring 2. request latency ...");
        rows.extend(measure::latency::rows().await);
    }
    if all || matches!(cli.command, Command::Mcp) {
        eprintln!("measuring 3. MCP tool calls ...");
        rows.extend(measure::mcp::rows().await);
    }
    if all || matches!(cli.command, Command::Ollama) {
        eprintln!("measuring 4. Ollama proxy overhead ...");
        rows.extend(measure::ollama::rows().await);
    }
    if all || matches!(cli.command, Command::Openai) {
        eprintln!("measuring 8. OpenAI-compatible proxy overhead ...");
        rows.extend(measure::openai::rows().await);
    }
    if all || matches!(cli.command, Command::Host) {
        eprintln!("measuring 6. host tool resolution ...");
        rows.extend(measure::host::rows().await);
    }
    if all || matches!(cli.command, Command::Gateway) {
        eprintln!("measuring 10. the gateway ...");
        rows.extend(measure::gateway::rows().await);
    }
    if let Command::OpenLoop(settings) = &cli.command {
        eprintln!("measuring 11. open-loop tail latency ...");
        rows.extend(measure::openloop::rows(settings).await);
    }
    if let Command::Compile {
        rounds,
        rebuilds,
        lock,
    } = &cli.command
    {
        eprintln!("measuring 12. build cost (cold builds take minutes each) ...");
        let target = report_path().parent().and_then(Path::parent).map(Path::to_owned);
        let target = target.unwrap_or_else(|| PathBuf::from("target"));
        let options = measure::compile::Options {
            rounds: *rounds,
            rebuilds: *rebuilds,
            lock: lock.clone().unwrap_or_else(|| target.join(".build-lock")),
            work: target.join("aep-bench/compile"),
        };
        match measure::compile::rows(&options) {
            Ok(compile) => rows.extend(compile),
            Err(error) => {
                eprintln!("aep-bench compile: {error}");
                std::process::exit(1);
            }
        }
    }
    if all || matches!(cli.command, Command::Memory) {
        eprintln!("measuring 5. memory ...");
        let sdk = measure::memory::profile("sdk").await;
        let base = measure::memory::profile("baseline").await;
        rows.extend(measure::memory::rows(&sdk, &base));
        rows.extend(measure::growth::stream_rows(&sdk, &base));
    }
    let micro = match cli.command {
        Command::Micro {
            chat_requests,
            mcp_calls,
        } => Some((chat_requests, mcp_calls)),
        Command::All => Some((2000, 200)),
        _ => None,
    };
    if let Some((chat_requests, mcp_calls)) = micro {
        eprintln!("measuring 9. instructions per request (callgrind) ...");
        rows.extend(measure::micro::rows(chat_requests, mcp_calls));
    }
    match cli.command {
        Command::Load { streams, updates } => rows.extend(measure::load::rows(streams, updates).await),
        Command::All => {
            eprintln!("running the 1,000 x 1,000 load ...");
            rows.extend(measure::load::rows(1000, 1000).await);
        }
        _ => {}
    }
    report::print(&rows);
    let path = report_path();
    match report::write_json(&rows, &path) {
        Ok(()) => eprintln!("wrote {}", path.display()),
        Err(error) => eprintln!("could not write {}: {error}", path.display()),
    }
}
