//! The servers, each in a process of its own: the SDK extension, the hand-written
//! baseline, the proxies; started as children of the generator's process.

use std::time::Duration;

/// `aep-bench open-loop-serve <kind> [--upstream URL]`: serves one variant until killed;
/// the first line on stdout is `listening on <url>`.
///
/// Each is served as it is in production: an SDK extension by its own accept loop
/// ([`Extension::serve_listener`](aep_sdk::server::Extension::serve_listener), what
/// `serve()` runs), the hand-written baseline by `axum::serve` with `TCP_NODELAY` set on
/// each connection, as a server answering on SSE has to: without it, every MCP answer's
/// second write waits for the client's delayed ACK (~40 ms on a kept-alive connection).
pub async fn serve(kind: &str, upstream: Option<&str>) {
    use aep_sdk::server::AepExtension;
    let extension = match kind {
        "sdk" => crate::servers::SdkBench
            .into_extension()
            .expect("valid declaration"),
        "sdk-operator" => {
            aep_sdk::server::init_tracing();
            crate::servers::SdkBench
                .extension_builder()
                .metrics()
                .build()
                .expect("valid declaration")
        }
        "baseline" => return serve_baseline().await,
        "baseline-operator" => {
            aep_sdk::server::init_tracing();
            return serve_baseline().await;
        }
        "ollama-proxy" => {
            let upstream = upstream.expect("--upstream");
            let config = aep_ollama::config::OllamaConfig::with_url(upstream).expect("upstream URL");
            aep_ollama::OllamaExtension::new(config)
                .expect("extension")
                .into_extension()
                .expect("valid declaration")
        }
        "openai-proxy" => {
            use aep_openai_compatible::config::UpstreamConfig;
            use aep_openai_compatible::flavor::Flavor;
            use aep_openai_compatible::openai::OpenAiExtension;
            use aep_openai_compatible::upstream::Upstream;
            let upstream = upstream.expect("--upstream");
            let mut config = UpstreamConfig::new(Flavor::OpenAi, upstream).expect("endpoint");
            config.tuning.include_usage = false;
            aep_openai_compatible::build(OpenAiExtension(
                Upstream::new(config, Vec::new()).expect("client"),
            ))
            .expect("valid declaration")
        }
        other => panic!("unknown server kind {other}"),
    };
    let listener = bind().await;
    extension
        .serve_listener(
            listener,
            std::future::pending(),
            aep_sdk::server::ConnectionLimits::default(),
        )
        .await
        .expect("serve");
}

/// Binds a loopback port and says which on stdout.
async fn bind() -> tokio::net::TcpListener {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("bound address");
    println!("listening on http://{addr}");
    listener
}

async fn serve_baseline() {
    use axum::serve::ListenerExt;
    let listener = bind().await.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let router = crate::servers::baseline_router().route_service("/mcp", crate::servers::baseline_mcp());
    axum::serve(listener, router.into_make_service())
        .await
        .expect("serve");
}

/// A server child process, killed when dropped.
pub struct Child {
    process: tokio::process::Child,
    pub base_url: String,
}

impl Child {
    pub fn pid(&self) -> Option<u32> {
        self.process.id()
    }
}

/// CPU time (user + system, all threads) process `pid` has used so far, from
/// `/proc/<pid>/stat` (in clock ticks of 10 ms: good to ~0.1 µs per request over a round).
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's closing parenthesis; utime and stime are the 12th
    // and 13th of them (fields 14 and 15 of the line).
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then(|| Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

/// Starts `aep-bench <args>` as a child process, on the CPUs `on` if given (its runtime
/// then starts one worker per CPU it may use).
pub async fn start(args: &[&str], on: Option<&[usize]>) -> Child {
    let mut command = tokio::process::Command::new(std::env::current_exe().expect("own executable"));
    if let Some(cpus) = on {
        let cpus = cpus.to_vec();
        // SAFETY: the closure makes one system call (sched_setaffinity), allowed between
        // fork and exec.
        unsafe {
            command.pre_exec(move || super::cpus::pin(&cpus));
        }
    }
    let start = super::super::spawn_self(command, args);
    let (process, base_url) = tokio::time::timeout(Duration::from_secs(30), start)
        .await
        .expect("the server process starts within 30 s");
    Child { process, base_url }
}
