//! The database's domain for the morris family of games: boards and rule
//! sets as data, positions and their text notation, moves forward and
//! backward, the board's symmetries, the symmetry-reduced index of a sector,
//! and the table file format (write, map, check).
//!
//! Nothing here knows about solving or probing; `morris-solver` and
//! `morris-probe` build on it.
#![warn(missing_docs)]

pub mod board;
pub mod compressed;
pub mod fen;
pub mod index;
pub mod mapped;
pub mod moves;
pub mod position;
pub mod record;
pub mod rules;
pub mod sector;
pub mod symmetry;
pub mod table;
pub mod value;
pub mod wdl;

pub use board::{Bitboard, Board, Point, Points};
pub use fen::FenError;
pub use index::{Indexer, SectorIndex};
pub use moves::{Move, MoveError, Outcome};
pub use position::{Color, Position, PositionError};
pub use rules::{Overrides, RuleSet, RulesError, SectorError, UnknownPreset};
pub use sector::Sector;
pub use table::{Table, TableError, TableHeader};
pub use value::Value;
