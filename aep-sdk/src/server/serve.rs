//! Serving an extension: listen address, authentication and timeouts from flags or
//! environment, `tracing` logs, and a graceful shutdown on SIGINT/SIGTERM that lets open
//! streams finish within a bound.

use std::future::Future;
use std::time::Duration;

use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
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
/// With the `otel` feature and an OTLP endpoint in the environment, spans are also
/// exported (see [`crate::telemetry`]); problems with that configuration are logged as
/// warnings.
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    #[cfg(feature = "otel")]
    crate::telemetry::init_with(filter.to_string());
    #[cfg(not(feature = "otel"))]
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
        let mut builder = auto::Builder::new(TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read_timeout);
        builder.http2().timer(TokioTimer::new());
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
                let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
                if let Err(error) = watcher.watch(connection.into_owned()).await {
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
