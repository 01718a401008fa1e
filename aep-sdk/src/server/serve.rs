//! Serving an extension: listen address, authentication and timeouts from flags or
//! environment, `tracing` logs, and a graceful shutdown on SIGINT/SIGTERM that lets open
//! streams finish within a bound.

use std::future::Future;
use std::time::Duration;

use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;

use super::Extension;
use super::args::ServeArgs;
use crate::Error;

/// Connection-level options of [`Extension::serve_listener`].
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// How long a client may take to send a request's headers (slow-loris bound).
    pub header_read_timeout: Duration,
    /// How long open streams may run after the shutdown signal.
    pub shutdown_grace: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// Installs a `tracing` subscriber that honours `RUST_LOG` (default `info`). Does nothing
/// if one is already installed.
///
/// `RUST_LOG` is a list of `target=level` directives and at most one bare default level,
/// e.g. `info,aep_sdk=debug,hyper=warn` (tracing-subscriber's `Targets`); a value that is
/// not is reported, and `info` is used. For span and field filters, install a subscriber
/// of your own (tracing-subscriber's `EnvFilter`) before serving.
///
/// With the `otel` feature and an OTLP endpoint in the environment, spans are also
/// exported (see [`crate::telemetry`]); problems with that configuration are logged as
/// warnings.
pub fn init_tracing() {
    let (filter, refused) = log_filter(tracing::level_filters::LevelFilter::INFO);
    #[cfg(feature = "otel")]
    crate::telemetry::init_with(filter);
    #[cfg(not(feature = "otel"))]
    {
        use tracing_subscriber::prelude::*;
        let _ = tracing_subscriber::registry()
            .with(tracing_subscriber::fmt::layer().with_filter(filter))
            .try_init();
    }
    if let Some(problem) = refused {
        tracing::warn!("RUST_LOG ignored, logging at info: {problem}");
    }
}

/// The log filter `RUST_LOG` asks for, as [`init_tracing`] reads it (`default` when unset
/// or blank), for a subscriber of your own; and what was wrong with the value when it is
/// not a list of `target=level` directives (then the filter is `default`): log that once
/// the subscriber is installed.
///
/// ```
/// use aep_sdk::server::log_filter;
/// use tracing::level_filters::LevelFilter;
/// use tracing_subscriber::prelude::*;
///
/// let (filter, problem) = log_filter(LevelFilter::WARN);
/// let logs = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_filter(filter);
/// let _ = tracing_subscriber::registry().with(logs).try_init();
/// if let Some(problem) = problem {
///     tracing::warn!("RUST_LOG ignored: {problem}");
/// }
/// ```
pub fn log_filter(
    default: tracing::level_filters::LevelFilter,
) -> (tracing_subscriber::filter::Targets, Option<String>) {
    parse_log_filter(std::env::var("RUST_LOG").ok().as_deref(), default)
}

fn parse_log_filter(
    value: Option<&str>,
    default: tracing::level_filters::LevelFilter,
) -> (tracing_subscriber::filter::Targets, Option<String>) {
    use tracing_subscriber::filter::Targets;
    let default = || Targets::new().with_default(default);
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => (default(), None),
        Some(text) => match text.parse::<Targets>() {
            Ok(targets) => (targets, None),
            Err(error) => (
                default(),
                Some(format!(
                    "{text:?} is not a list of target=level directives ({error})"
                )),
            ),
        },
    }
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

/// How connections are served: HTTP/1.1, and with the `http2` feature also HTTP/2 (prior
/// knowledge, as behind a proxy that speaks h2c), chosen by the first bytes.
#[cfg(feature = "http2")]
fn connections(
    limits: &ConnectionLimits,
) -> hyper_util::server::conn::auto::Builder<hyper_util::rt::TokioExecutor> {
    let mut builder = hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    builder.http2().timer(TokioTimer::new());
    builder
}

/// How connections are served: HTTP/1.1 (the `http2` feature adds HTTP/2).
#[cfg(not(feature = "http2"))]
fn connections(limits: &ConnectionLimits) -> hyper::server::conn::http1::Builder {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    builder
}

impl Extension {
    /// Serves the extension with options read from the command line and environment
    /// (its `--help` introduces the extension: [`ServeArgs::command`]),
    /// installs a `tracing` subscriber ([`init_tracing`]; none if one is set), and shuts
    /// down gracefully on SIGINT/SIGTERM: the entry point of an extension binary, and
    /// the only one of these methods that touches the process.
    pub async fn serve(self) -> Result<(), Error> {
        init_tracing();
        let args = ServeArgs::from_env(self.identity());
        let served = self.serve_with(args).await;
        // Spans and metrics still buffered go out before the process ends.
        crate::telemetry::finish().await;
        served
    }

    /// The serving options that shape the router, applied to a built extension as
    /// [`ExtensionBuilder::serve_args`](super::ExtensionBuilder::serve_args) applies them.
    fn apply(mut self, args: &ServeArgs) -> Result<Self, Error> {
        self.settings.apply(args)?;
        if self.settings.metrics {
            self.record_metrics();
        }
        if let Some(oauth) = &self.settings.oauth {
            super::builder::check_oauth(oauth, &self.settings, &self.mcp, &self.identity().name)?;
        }
        Ok(self)
    }

    /// Like [`Extension::serve`] with explicit options, reading no command line or
    /// environment and setting nothing process-wide: install a subscriber first
    /// ([`init_tracing`]) to see its logs, and await [`crate::telemetry::finish`]
    /// after it if that exports spans.
    pub async fn serve_with(self, args: ServeArgs) -> Result<(), Error> {
        let extension = self.apply(&args)?;
        let listener = TcpListener::bind(&args.listen)
            .await
            .map_err(|source| Error::Bind {
                addr: args.listen.clone(),
                source,
            })?;
        let addr = listener.local_addr()?;
        tracing::info!(extension = %extension.identity().id, "listening on http://{addr}");
        let metrics = match (&args.metrics_listen, extension.metrics_router()) {
            (Some(metrics_addr), Some(router)) => {
                let listener = TcpListener::bind(metrics_addr)
                    .await
                    .map_err(|source| Error::Bind {
                        addr: metrics_addr.clone(),
                        source,
                    })?;
                let addr = listener.local_addr()?;
                tracing::info!("metrics on http://{addr}{}", super::metrics::PATH);
                Some(tokio::spawn(async move {
                    if let Err(error) = axum::serve(listener, router).await {
                        tracing::warn!("the metrics listener failed: {error}");
                    }
                }))
            }
            _ => None,
        };
        let limits = ConnectionLimits {
            header_read_timeout: Duration::from_secs(args.header_read_timeout_secs),
            shutdown_grace: Duration::from_secs(args.shutdown_grace_secs),
        };
        let served = extension
            .serve_listener(listener, shutdown_signal(), limits)
            .await;
        if let Some(metrics) = metrics {
            metrics.abort();
        }
        served
    }

    /// Serves on `listener` until `signal` resolves, then stops accepting connections,
    /// gives open requests and streams `limits.shutdown_grace` to finish, ends the rest
    /// with a terminal `shutting_down` update and returns within a further 5 s.
    pub async fn serve_listener(
        self,
        listener: TcpListener,
        signal: impl Future<Output = ()> + Send + 'static,
        limits: ConnectionLimits,
    ) -> Result<(), Error> {
        let mut this = self;
        // Pages on this machine are trusted only when the extension is reachable from
        // nowhere else; on other interfaces browser origins must be listed explicitly.
        let addr = listener.local_addr()?;
        if !addr.ip().is_loopback() {
            this.settings.mcp_access.local_origins = false;
        }
        if this.settings.public_url.is_none() {
            if this.settings.oauth.is_some() && addr.ip().is_unspecified() {
                tracing::warn!(
                    "OAuth resources are named after http://{addr}, which no client can reach: set --public-url"
                );
            }
            this.settings.public_url = Some(format!("http://{addr}"));
        }
        let router = this.router();
        let graceful = GracefulShutdown::new();
        let builder = connections(&limits);
        tokio::pin!(signal);
        loop {
            let (stream, _peer) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        // Out of file descriptors and the like: back off instead of spinning.
                        tracing::warn!("accept failed: {error}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
                () = &mut signal => break,
            };
            // Each SSE event is a small write: without this, Nagle's algorithm holds it
            // back until the previous one is acknowledged.
            let _ = stream.set_nodelay(true);
            let watcher = graceful.watcher();
            let builder = builder.clone();
            let router = router.clone();
            let first_byte = limits.header_read_timeout;
            tokio::spawn(async move {
                // hyper's header timer starts with the first byte; bound the wait for it too,
                // so a connection that never sends anything does not stay open forever.
                let mut probe = [0u8; 1];
                if !matches!(
                    tokio::time::timeout(first_byte, stream.peek(&mut probe)).await,
                    Ok(Ok(1..))
                ) {
                    return;
                }
                let service = hyper::service::service_fn(move |request: http::Request<Incoming>| {
                    // `Router` is always ready: `call` without `poll_ready` is allowed.
                    tower::Service::call(&mut router.clone(), request.map(Body::new))
                });
                #[cfg(feature = "http2")]
                let connection = builder
                    .serve_connection_with_upgrades(TokioIo::new(stream), service)
                    .into_owned();
                #[cfg(not(feature = "http2"))]
                let connection = builder.serve_connection(TokioIo::new(stream), service);
                if let Err(error) = watcher.watch(connection).await {
                    tracing::debug!("connection ended: {error}");
                }
            });
        }
        drop(listener);
        tracing::info!(
            "shutting down: open streams have {:?} to finish",
            limits.shutdown_grace
        );
        let drained = graceful.shutdown();
        tokio::pin!(drained);
        tokio::select! {
            () = &mut drained => return Ok(()),
            () = tokio::time::sleep(limits.shutdown_grace) => {}
        }
        this.shutdown.cancel();
        if tokio::time::timeout(Duration::from_secs(5), drained)
            .await
            .is_err()
        {
            tracing::warn!("connections still open 5 s after the shutdown deadline; closing them");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use tracing::Level;

    use tracing::level_filters::LevelFilter;

    use super::parse_log_filter;

    fn log_filter(value: Option<&str>) -> (tracing_subscriber::filter::Targets, Option<String>) {
        parse_log_filter(value, LevelFilter::INFO)
    }

    #[test]
    fn rust_log_is_read_as_target_levels_and_a_bad_value_is_reported() {
        let (unset, problem) = log_filter(None);
        assert!(unset.would_enable("hyper", &Level::INFO) && !unset.would_enable("hyper", &Level::DEBUG));
        assert!(problem.is_none());

        let (listed, problem) = log_filter(Some("warn,aep_sdk=debug"));
        assert!(listed.would_enable("aep_sdk::server", &Level::DEBUG));
        assert!(!listed.would_enable("hyper", &Level::INFO) && listed.would_enable("hyper", &Level::WARN));
        assert!(problem.is_none());

        let (fallback, problem) = log_filter(Some("aep_sdk=loud"));
        assert!(
            fallback.would_enable("aep_sdk", &Level::INFO)
                && !fallback.would_enable("aep_sdk", &Level::DEBUG)
        );
        let problem = problem.expect("the bad value is reported");
        assert!(problem.contains("aep_sdk=loud"), "{problem}");
    }
}
