//! One module per subcommand (`query` holds `probe`, `analyze` and
//! `bestmove`, which share their arguments): each defines its arguments,
//! with the subcommand's help as their doc comment, and a `run` function.
//! A command imports only [`crate::args`], [`crate::ui`] and the library
//! crates, never another command.

pub mod bench;
pub mod bench_probe;
pub mod bench_serve;
pub mod chart;
pub mod compare;
pub mod compress;
pub mod export_wdl;
pub mod line;
pub mod perft;
pub mod plan;
pub mod play;
pub mod prove;
pub mod query;
pub mod reach;
pub mod replay;
pub mod review;
pub mod sample;
pub mod serve;
pub mod show;
pub mod solve;
pub mod stats;
pub mod value;
pub mod verify;
