//! The server's life: bind an address, serve the API and the board on
//! tokio, stop on request ([`start`], [`Running::stop`]), or serve until
//! killed ([`serve`]); and the request size limits.

use std::net::SocketAddr;
use std::sync::Arc;

use crate::{api, Catalog, Config};

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
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Stops accepting connections and waits for the server to finish.
    ///
    /// # Errors
    /// The server's I/O error, if it failed.
    pub async fn stop(mut self) -> std::io::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.task.await.map_err(std::io::Error::other)?
    }
}

/// Binds `addr` and serves `catalog` on the current tokio runtime until
/// [`Running::stop`].
///
/// # Errors
/// When the address cannot be bound.
pub async fn start(catalog: Catalog, addr: SocketAddr) -> std::io::Result<Running> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let app = api::router(Arc::new(catalog));
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = rx.await;
            })
            .await
    });
    Ok(Running { addr, shutdown: Some(tx), task })
}

/// Runs `morris serve`: opens the databases of `config`, binds and serves
/// until interrupted (Ctrl-C), printing the address and what is served.
///
/// # Errors
/// When a database cannot be opened or the address cannot be bound.
pub fn serve(config: Config) -> anyhow::Result<()> {
    let catalog = Catalog::open(&config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(config.max_in_flight.max(1))
        .build()?;
    runtime.block_on(async move {
        let summary = catalog.summary();
        let running = start(catalog, config.bind).await?;
        println!("morris serve: http://{}/ ({summary})", running.addr);
        tokio::signal::ctrl_c().await?;
        eprintln!("stopping");
        running.stop().await?;
        Ok::<(), anyhow::Error>(())
    })
}
