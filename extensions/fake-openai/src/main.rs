//! `fake-openai --listen ADDR`: the stand-in as a process (default `127.0.0.1:0`); prints
//! `listening on http://HOST:PORT` once it accepts connections.

use clap::Parser;

/// The command line. The help texts are what `--help` prints, so they are plain text.
#[derive(Parser)]
#[command(
    name = "fake-openai",
    version,
    about = "A test stand-in that speaks the OpenAI Chat Completions API as llama.cpp, LocalAI \
             and OpenAI serve it (SSE streaming, usage chunks, tool-call deltas, faults).\n\
             Prints listening on http://HOST:PORT once it accepts connections, then serves \
             until it is killed.",
    long_about = None,
    after_help = EXAMPLES
)]
struct Args {
    /// Address to listen on, host:port; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:0", value_name = "ADDR")]
    listen: String,
}

/// The end of `--help`.
const EXAMPLES: &str = "\
Examples:
  fake-openai
      serve on a free loopback port (the first line printed names it)
  fake-openai --listen 127.0.0.1:8000
      serve where aep-openai looks by default";

#[tokio::main]
async fn main() -> std::process::ExitCode {
    // A mistake prints the usage and exits with status 2; --help and --version exit 0.
    let args = Args::parse();
    let fake = match fake_openai::Fake::try_start_on(&args.listen).await {
        Ok(fake) => fake,
        Err(error) => {
            eprintln!("fake-openai: cannot listen on {}: {error}", args.listen);
            return std::process::ExitCode::FAILURE;
        }
    };
    println!("listening on {}", fake.base_url);
    std::future::pending::<()>().await;
    std::process::ExitCode::SUCCESS
}
