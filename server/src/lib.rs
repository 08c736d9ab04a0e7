//! `morris serve`: a tablebase server. It answers a JSON API (the value of
//! a position and of every legal move, the principal line, the rule sets
//! served with their boards) and serves a web board that draws a position
//! and colours every legal move by its value. `morris review` (module
//! [`review`]) marks every move of a game record against the tables.
//!
//! Built on axum and tokio. Table look-ups run on tokio's blocking threads
//! (`spawn_blocking`), at most [`Config::max_in_flight`] at once (a
//! semaphore); each blocking thread keeps its own prober per database
//! ([`source`]). Opening is cheap whatever the database size: directories
//! are listed, tables are mapped on first use.
//!
//! The HTTP API (all answers JSON; see [`api`] for every field):
//!
//! | request | answer |
//! |---|---|
//! | `GET /api/rules` | the rule sets served, their boards (points with grid coordinates, edges, mills) and the phases their tables cover |
//! | `GET /api/{rules}?position=...` or `?fen=...` | the position in both notations, side to move, phase, stones, value (`category`, `dtm`, Malom's `draw_rank`), `game_over`, and every legal move best first |
//! | `GET /api/{rules}/line?position=...[&plies=N]` | the principal line |
//! | `POST /api/{rules}/review` (a game record as the body) | the review of the game ([`review`]) |
//! | `GET /` | the web board (one page embedded in the binary) |
//!
//! Errors: 400 with `{"error": "bad_position" | "unknown_rules" |
//! "bad_parameter", "message": ...}`, 404 `missing_table` naming the
//! sector and file, 500 `damaged_table` naming the file, 414 for a query
//! longer than [`MAX_QUERY`] bytes, 413 for a body over [`MAX_BODY`] bytes.

#![warn(missing_docs)]

pub mod api;
pub mod bench;
pub mod review;
pub mod served;
pub mod source;

use std::net::SocketAddr;
use std::sync::Arc;

pub use served::{Catalog, Config, Served};
pub use source::{DirArg, Eval, LookupError, Source};

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
