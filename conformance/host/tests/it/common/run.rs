//! Running the `aep-host` binary in a test: bounded, its output captured.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a run of `aep-host` ended.
pub struct Run {
    /// The exit code (-1 when killed by a signal).
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// How long it ran.
    pub took: Duration,
}

/// Runs `aep-host args...` (no configuration from the environment, `RUST_LOG=warn`),
/// `configure` adjusting the command first; killed and failed after 60 s.
pub async fn aep_host_with(args: &[&str], configure: impl FnOnce(&mut Command) + Send + 'static) -> Run {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let mut command = Command::new(env!("CARGO_BIN_EXE_aep-host"));
        command
            .args(&args)
            .env_remove("AEP_HOST_CONFIG")
            .env_remove("OLLAMA_HOST")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        configure(&mut command);
        let mut child = command.spawn().expect("spawn aep-host");
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("aep-host {args:?} did not finish within 60 s");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let (mut stdout, mut stderr) = (String::new(), String::new());
        child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
        child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
        Run {
            code: status.code().unwrap_or(-1),
            stdout,
            stderr,
            took: started.elapsed(),
        }
    })
    .await
    .unwrap()
}

/// Runs `aep-host args...` as [`aep_host_with`] does, unchanged.
pub async fn aep_host(args: &[&str]) -> Run {
    aep_host_with(args, |_| {}).await
}
