//! The database's domain for the morris family of games, in two wings:
//!
//! - [`game`]: boards and rule sets as data, positions and their text
//!   notation, moves forward and backward, the board's symmetries, sectors,
//!   the symmetry-reduced index of a sector, and values;
//! - [`storage`]: the table file formats (write, map, check) and the
//!   database directory.
//!
//! **The public API is the crate root.** Every module is re-exported here
//! under its short name (`morris_db::fen`, `morris_db::table`, ...) together
//! with the most used types (`morris_db::Position`, ...); other crates use
//! those paths, not `morris_db::game::...` or `morris_db::storage::...`, so
//! that files can move between the wings without breaking callers.
//!
//! Nothing here knows about solving or probing; `morris-solver` and
//! `morris-probe` build on it.
#![warn(missing_docs)]

pub mod game;
pub mod storage;

pub use game::{board, fen, index, moves, position, record, rules, sector, symmetry, value};
pub use storage::{compressed, derived, mapped, reach, store, table, wdl};

pub use board::{Bitboard, Board, Point, Points};
pub use fen::FenError;
pub use index::{Indexer, Located, SectorIndex};
pub use moves::{EndReason, GameOver, Move, MoveError, Outcome};
pub use position::{Color, Position, PositionError, Setup};
pub use rules::{Overrides, RuleSet, RulesError, SectorError, UnknownPreset};
pub use sector::Sector;
pub use store::{FileKind, Store};
pub use table::{Table, TableError, TableHeader};
pub use value::{Even, Odd, Tally, Value};

/// The most characters of an input that an error message quotes.
pub const QUOTE_CHARS: usize = 80;

/// `text` as an error message quotes it: whole when it is at most
/// [`QUOTE_CHARS`] characters, else its first ones, `...` and its length,
/// so that a mistaken 100 KB argument is not echoed back whole. Every error
/// that shows an input, here and in the `morris` command line, quotes it
/// through this function.
pub fn quoted(text: &str) -> String {
    quoted_within(text, QUOTE_CHARS)
}

/// A part of an input quoted in a message that quotes the whole input too:
/// at most a quarter of [`QUOTE_CHARS`] characters.
pub(crate) fn quoted_part(text: &str) -> String {
    quoted_within(text, QUOTE_CHARS / 4)
}

/// `text` quoted as [`quoted`] does, to at most `max` characters: for a
/// part of an input that a message quotes besides the whole.
pub fn quoted_within(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max).collect();
    format!("{head}... ({n} characters)")
}
