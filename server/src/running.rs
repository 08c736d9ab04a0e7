//! The server's life: bind an address, accept connections up to a cap,
//! serve each with hyper under the timeouts of [`Limits`], and stop
//! gracefully: on [`Running::stop`] (or SIGTERM / SIGINT in [`serve`]) no
//! new connection is accepted, requests in flight finish within the
//! shutdown timeout, idle connections close.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::limits::{Limits, LogFormat};
use crate::metrics::Metrics;
use crate::{http, Catalog, Config};

/// The longest query string accepted, in bytes (a position in either
/// notation is under 200).
pub const MAX_QUERY: usize = 2048;

/// The largest request body accepted, in bytes (a game record to review).
pub const MAX_BODY: usize = 64 * 1024;

/// A running server: its address and a handle to stop it.
pub struct Running {
    /// The address it listens on (with the port the system chose when the
    /// configured port was 0).
    pub addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<Stopped>>,
}

/// How a server stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped {
    /// Connections still open when the shutdown timeout ran out (their
    /// requests were cut off); 0 when every request finished.
    pub cut_off: usize,
}

impl Running {
    /// Stops accepting connections, lets requests in flight finish (at
    /// most the shutdown timeout) and waits for the server to end.
    ///
    /// # Errors
    /// The server's I/O error, if it failed.
    pub async fn stop(mut self) -> std::io::Result<Stopped> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.task.await.map_err(std::io::Error::other)?
    }
}

/// Binds `addr` and serves `catalog` with the default [`Limits`] on the
/// current tokio runtime until [`Running::stop`].
///
/// # Errors
/// When the address cannot be bound.
pub async fn start(catalog: Catalog, addr: SocketAddr) -> std::io::Result<Running> {
    start_with(catalog, addr, Limits::default(), Arc::new(Metrics::default())).await
}

/// Binds `addr` and serves `catalog` under `limits`, counting into
/// `metrics`, until [`Running::stop`].
///
/// # Errors
/// When the address cannot be bound, or `limits` do not pass
/// [`Limits::check`] (as `InvalidInput`).
pub async fn start_with(
    catalog: Catalog,
    addr: SocketAddr,
    limits: Limits,
    metrics: Arc<Metrics>,
) -> std::io::Result<Running> {
    limits.check().map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let app = http::app(Arc::new(catalog), metrics.clone(), &limits);
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(accept_loop(listener, app, limits, metrics, rx));
    Ok(Running { addr, shutdown: Some(tx), task })
}

async fn accept_loop(
    listener: TcpListener,
    app: axum::Router,
    limits: Limits,
    metrics: Arc<Metrics>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) -> std::io::Result<Stopped> {
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let mut builder = http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout).keep_alive(true);
    loop {
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // Out of file descriptors and the like: wait and go on
                // rather than end the server.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            metrics.refused_connections.inc();
            tokio::spawn(refuse(stream));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let mut timed = tokio_io_timeout::TimeoutStream::new(stream);
        timed.set_read_timeout(Some(limits.idle_timeout));
        timed.set_write_timeout(Some(limits.write_timeout));
        let io = TokioIo::new(Box::pin(timed));
        let connection = graceful.watch(builder.serve_connection(io, TowerToHyperService::new(app.clone())));
        let metrics = metrics.clone();
        metrics.connections.inc();
        tokio::spawn(async move {
            let _ = connection.await;
            metrics.connections.dec();
            drop(slot);
        });
    }
    drop(listener);
    let open = slots.available_permits();
    Ok(match tokio::time::timeout(limits.shutdown_timeout, graceful.shutdown()).await {
        Ok(()) => Stopped { cut_off: 0 },
        Err(_) => Stopped { cut_off: limits.max_connections - open.min(limits.max_connections) },
    })
}

/// Answers a connection past the cap: 503 `overloaded` with `Retry-After`,
/// then closes it (reading what the client sent first, briefly, so that
/// the close does not reset the answer away).
async fn refuse(mut stream: TcpStream) {
    let body = r#"{"error":"overloaded","message":"too many connections; try again in a second"}"#;
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n\
         connection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut buf = [0u8; 4096];
    let _ = tokio::time::timeout(Duration::from_millis(100), stream.read(&mut buf)).await;
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(answer.as_bytes())).await;
    let _ = stream.shutdown().await;
}

/// Runs `morris serve`: opens the databases of `config`, binds and serves
/// until SIGTERM or SIGINT, then stops gracefully (requests in flight get
/// `config.limits.shutdown_timeout`), printing the address and what is
/// served. With an access log, one line per request on standard error.
///
/// # Errors
/// When the limits are out of range, a database cannot be opened or the
/// address cannot be bound.
pub fn serve(config: Config) -> anyhow::Result<()> {
    config.limits.check().map_err(anyhow::Error::msg)?;
    if let Some(format) = config.limits.log {
        let subscriber = tracing_subscriber::fmt().with_writer(std::io::stderr).with_target(false);
        match format {
            LogFormat::Text => subscriber.init(),
            LogFormat::Json => subscriber.json().flatten_event(true).init(),
        }
    }
    let catalog = Catalog::open(&config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(config.max_in_flight.max(1))
        .build()?;
    runtime.block_on(async move {
        let summary = catalog.summary();
        let running = start_with(catalog, config.bind, config.limits.clone(), Arc::new(Metrics::default())).await?;
        println!("morris serve: http://{}/ ({summary})", running.addr);
        let which = stop_signal().await?;
        eprintln!("morris serve: {which}: stopping (requests in flight get {:?})", config.limits.shutdown_timeout);
        let stopped = running.stop().await?;
        if stopped.cut_off > 0 {
            eprintln!("morris serve: {} connections cut off at the shutdown timeout", stopped.cut_off);
        }
        Ok::<(), anyhow::Error>(())
    })
}

/// Waits for SIGTERM (what systemd, Docker and Kubernetes send) or SIGINT
/// (Ctrl-C) and names it.
async fn stop_signal() -> std::io::Result<&'static str> {
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            r = tokio::signal::ctrl_c() => r.map(|()| "SIGINT"),
            _ = term.recv() => Ok("SIGTERM"),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await.map(|()| "Ctrl-C")
    }
}
