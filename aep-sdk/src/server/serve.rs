//! Serving an extension: listen address from flag or environment, `tracing` logs, and
//! a graceful shutdown on SIGINT/SIGTERM that lets open streams finish within a bound.

use std::future::Future;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::Extension;
use crate::Error;

/// Where an extension listens unless told otherwise: loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8710";

/// Serving options; flatten them into your own clap parser, or let
/// [`Extension::serve`] read them from the command line and environment.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on, host:port. Loopback by default; use 0.0.0.0:PORT to accept
    /// other interfaces (then see the MCP allowed-hosts option).
    #[arg(long, env = "AEP_LISTEN", default_value = DEFAULT_LISTEN)]
    pub listen: String,
    /// Seconds open streams may run after a shutdown signal before they are ended with a
    /// terminal update.
    #[arg(long, env = "AEP_SHUTDOWN_GRACE_SECS", default_value_t = 10)]
    pub shutdown_grace_secs: u64,
}

impl Default for ServeArgs {
    fn default() -> Self {
        Self {
            listen: DEFAULT_LISTEN.to_owned(),
            shutdown_grace_secs: 10,
        }
    }
}

#[derive(clap::Parser)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

impl ServeArgs {
    /// Reads `--listen` / `AEP_LISTEN` and `--shutdown-grace-secs` from the process.
    pub fn from_env() -> Self {
        <Cli as clap::Parser>::parse().serve
    }
}

/// Installs a `tracing` subscriber that honours `RUST_LOG` (default `info`). Does nothing
/// if one is already installed.
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).try_init();
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = terminate => {} }
}

impl Extension {
    /// Serves the extension with options from the command line and environment, logs
    /// through `tracing`, and shuts down gracefully on SIGINT/SIGTERM.
    pub async fn serve(self) -> Result<(), Error> {
        self.serve_with(ServeArgs::from_env()).await
    }

    /// Like [`Extension::serve`] with explicit options.
    pub async fn serve_with(self, args: ServeArgs) -> Result<(), Error> {
        init_tracing();
        let listener = TcpListener::bind(&args.listen)
            .await
            .map_err(|source| Error::Bind {
                addr: args.listen.clone(),
                source,
            })?;
        let addr = listener.local_addr()?;
        tracing::info!(extension = %self.identity().id, "listening on http://{addr}");
        let grace = Duration::from_secs(args.shutdown_grace_secs);
        self.serve_listener(listener, shutdown_signal(), grace).await
    }

    /// Serves on `listener` until `signal` resolves, then stops accepting connections,
    /// gives open streams `grace` to finish, ends the rest with a terminal
    /// `shutting_down` update and returns within a further bounded time.
    pub async fn serve_listener(
        self,
        listener: TcpListener,
        signal: impl Future<Output = ()> + Send + 'static,
        grace: Duration,
    ) -> Result<(), Error> {
        let stop_accepting = CancellationToken::new();
        let deadline = self.shutdown.clone();
        let server = axum::serve(listener, self.router())
            .with_graceful_shutdown(stop_accepting.clone().cancelled_owned())
            .into_future();
        tokio::pin!(server);
        tokio::select! {
            result = &mut server => return result.map_err(Error::Serve),
            () = signal => {}
        }
        tracing::info!("shutting down: open streams have {grace:?} to finish");
        stop_accepting.cancel();
        tokio::select! {
            result = &mut server => return result.map_err(Error::Serve),
            () = tokio::time::sleep(grace) => {}
        }
        deadline.cancel();
        match tokio::time::timeout(Duration::from_secs(5), &mut server).await {
            Ok(result) => result.map_err(Error::Serve),
            Err(_) => {
                tracing::warn!("connections still open 5 s after the shutdown deadline; closing them");
                Ok(())
            }
        }
    }
}
