//! Perfect-play queries from a morris database: the value of a position
//! (`Win(n)`, `Loss(n)`, `Draw`, n in plies to the end of the game), the
//! value of every legal move, and a best move.
//!
//! A [`Database`] is a directory of table files of one rule set. Opening it
//! is cheap; each table is mapped on first use (and its payload checksum
//! checked then, unless switched off) and kept for later queries. It is an
//! owned handle (`Clone`, cheap: the tables sit behind an `Arc`; `Send +
//! Sync + 'static`), so a server or a language binding keeps one without
//! leaking or borrowing it.
//!
//! The entry points, each with an example in its docs:
//! - [`Database`] ([`Tables`]): value, every move's value, best move,
//!   principal line from our DTM tables; [`wdl::WdlDatabase`] the same
//!   from WDL files, [`MalomDatabase`] from Malom's files;
//! - [`Prober`] ([`TableProber`]): many probes from one thread, lock-free;
//! - [`Tablebase`]: every kind of table from several directories, the rule
//!   set read off the file names (what the Python package and the C
//!   library use);
//! - [`sample()`]: random positions of a sector with their values;
//! - [`prove::Prover`]: the value of a placement position by search, with
//!   the sliding tables at the leaves;
//! - [`reach::reachable`]: whether a position can arise in a game, where
//!   `morris reach` has written its bitmaps;
//! - [`diff::diff_sector`]: two of our databases of one rule set compared
//!   position by position (a new solver against an earlier release);
//! - [`ProbeError`]: why a query has no answer.
//!
//! ```no_run
//! use morris_db::{Position, RuleSet};
//! use morris_probe::Database;
//!
//! let rules = RuleSet::preset("nine")?;
//! let pos = Position::parse("W:a4,a1,d3 B:a7,d1,c4 w", &rules)?;
//! let db = Database::open("nine-db", rules)?;
//! println!("{:?}", db.value(&pos)?); // Draw
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

pub mod diff;
mod error;
pub mod longest;
pub mod malom;
pub mod prove;
pub mod prove_dtm;
pub mod reach;
mod sample;
mod tablebase;
pub mod tables;
pub mod wdl;

pub use error::{MissingHint, ProbeError};
pub use malom::{MalomDatabase, MalomValue};
/// Win, draw or loss for the side to move, without distance: the one such
/// type of the workspace (defined in `morris-db`, whose WDL files store
/// it; the same type as [`wdl::Wdl`]).
pub use morris_db::wdl::Wdl;
pub use sample::{sample, Sample};
pub use tablebase::{rule_sets_in, Tablebase};
pub use tables::{Answer, Database, Dtm, DtmFile, Encoding, ProbeOptions, Prober, TableProber, Tables};
