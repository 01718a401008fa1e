//! `aep-conformance`: runs the AEP conformance suite against a running extension.
//!
//! ```text
//! aep-conformance check http://127.0.0.1:8710
//! aep-conformance check URL --revision 1.0 --provider ollama --model qwen3:0.6b
//! aep-conformance check URL --only 3.stream --skip 3.stream.cancellation --format junit > conformance.xml
//! aep-conformance list
//! ```
//!
//! Exit status: 0 when no check failed, 1 when some did, 2 on a usage error.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use aep_conformance::{CATALOG, Options, ProgressEvent, Revisions, Status};
use clap::{Parser, Subcommand, ValueEnum};

/// The help texts of the subcommands and their arguments are what `--help` prints, so
/// they are plain text.
#[derive(Parser)]
#[command(
    name = "aep-conformance",
    version,
    about = "Checks an AEP extension against the AEP contract.",
    long_about = None,
    after_help = EXAMPLES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The end of `aep-conformance --help` and `aep-conformance check --help`.
const EXAMPLES: &str = "\
Examples:
  aep-conformance check http://127.0.0.1:8710
      every check, both protocol revisions, as a table
  aep-conformance check http://127.0.0.1:8710 --revision 1.0 --provider ollama --model qwen3:0.6b
      one revision, the chat checks with that provider and model
  aep-conformance check http://127.0.0.1:8710 --only 3.stream --format junit > conformance.xml
      the streaming checks only, as JUnit XML for CI
  aep-conformance list
      every check: id, level, section and description

Exit status: 0 when no check failed, 1 when some did, 2 on a usage error. The guide:
https://docs.rs/aep-sdk/latest/aep_sdk/guide/conformance/";

#[derive(Subcommand)]
enum Command {
    /// Run the suite against the extension at URL (its base URL).
    #[command(after_help = EXAMPLES)]
    Check(CheckArgs),
    /// List every check: id, level, section and description.
    List {
        /// Output format.
        #[arg(long, value_enum, default_value_t = ListFormat::Table)]
        format: ListFormat,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ListFormat {
    Table,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// A coloured table (colour only on a terminal without NO_COLOR).
    Table,
    /// The report as JSON.
    Json,
    /// JUnit XML for CI systems.
    Junit,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Base URL of the extension, e.g. http://127.0.0.1:8710.
    url: String,
    /// Revisions to check: 1.0, 2026-08-01 or both.
    #[arg(long, default_value = "both")]
    revision: Revisions,
    /// Provider the chat, stream and error checks use (default: every provider).
    #[arg(long)]
    provider: Option<String>,
    /// Model the chat checks use (default: the provider's first listed model).
    #[arg(long)]
    model: Option<String>,
    /// Run only these checks: ids or prefixes such as 3.stream (repeat or comma-separate).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Leave out these checks: ids or prefixes (repeat or comma-separate).
    #[arg(long, value_delimiter = ',')]
    skip: Vec<String>,
    /// Fail on recommended (SHOULD) checks too.
    #[arg(long)]
    strict: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Token sent as Authorization: Bearer TOKEN on the AEP and MCP requests.
    #[arg(long, env = "AEP_BEARER_TOKEN", hide_env_values = true)]
    bearer_token: Option<String>,
    /// Seconds one check may take, all its requests included.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// Seconds one HTTP exchange may take.
    #[arg(long, default_value_t = 30)]
    request_timeout: u64,
    /// Do not call any MCP tool (by default read-only tools are called).
    #[arg(long)]
    no_tool_calls: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::List { format } => {
            list(format);
            ExitCode::SUCCESS
        }
        Command::Check(args) => check(args),
    }
}

fn list(format: ListFormat) {
    match format {
        ListFormat::Json => println!("{}", serde_json::to_string_pretty(CATALOG).unwrap_or_default()),
        ListFormat::Table => {
            let width = CATALOG.iter().map(|c| c.id.len()).max().unwrap_or(10);
            for check in CATALOG {
                println!(
                    "{:<width$}  {:<11}  §{:<5}  {}",
                    check.id,
                    check.level.as_str(),
                    check.section,
                    check.description
                );
            }
        }
    }
}

fn check(args: CheckArgs) -> ExitCode {
    let unknown: Vec<&str> = aep_conformance::unknown_patterns(&args.only)
        .into_iter()
        .chain(aep_conformance::unknown_patterns(&args.skip))
        .collect();
    if !unknown.is_empty() {
        eprintln!(
            "error: no check matches {} (see `aep-conformance list`)",
            unknown
                .iter()
                .map(|u| format!("'{u}'"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        return ExitCode::from(2);
    }
    let progress = std::io::stderr().is_terminal().then(progress_line);
    let options = Options {
        revisions: args.revision,
        provider: args.provider,
        model: args.model,
        only: args.only,
        skip: args.skip,
        strict: args.strict,
        bearer_token: args.bearer_token.filter(|t| !t.is_empty()),
        check_timeout: Duration::from_secs(args.timeout.max(1)),
        request_timeout: Duration::from_secs(args.request_timeout.max(1)),
        call_tools: !args.no_tool_calls,
        progress,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let report = runtime.block_on(aep_conformance::check_with(&args.url, &options));
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let text = match args.format {
        Format::Table => report.to_table(color),
        Format::Json => report.to_json() + "\n",
        Format::Junit => report.to_junit(),
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    if report.is_success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A one-line progress indicator on stderr: `[12/47] 3.stream.framing`, rewritten in
/// place and cleared at the end.
fn progress_line() -> aep_conformance::ProgressFn {
    Arc::new(|event: &ProgressEvent| {
        let mut stderr = std::io::stderr().lock();
        match event.done {
            None => {
                let _ = write!(
                    stderr,
                    "\r\x1b[2K[{}/{}] {} …",
                    event.index, event.total, event.id
                );
            }
            Some(status) => {
                let mark = match status {
                    Status::Passed => "pass",
                    Status::Failed => "FAIL",
                    Status::Warned => "warn",
                    Status::Skipped => "skip",
                };
                let _ = write!(
                    stderr,
                    "\r\x1b[2K[{}/{}] {} {mark}",
                    event.index, event.total, event.id
                );
                if event.index == event.total {
                    let _ = write!(stderr, "\r\x1b[2K");
                }
            }
        }
        let _ = stderr.flush();
    })
}
