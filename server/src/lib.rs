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
pub mod http;
pub mod limits;
pub mod metrics;
pub mod review;
mod running;
pub mod served;
pub mod source;

pub use limits::{Limits, LogFormat};
pub use metrics::Metrics;
pub use running::{serve, start, start_with, Running, Stopped, MAX_BODY, MAX_QUERY};
pub use served::{Catalog, Config, Served};
pub use source::{DirArg, Eval, LookupError, Source};
