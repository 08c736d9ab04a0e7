//! The game: boards and rule sets as data, positions and their text
//! notation (our own and FEN, single positions and game records), moves
//! forward and backward, the board's symmetries, sectors and the
//! symmetry-reduced index of a sector, and the values of positions.
//!
//! Nothing in this wing reads or writes files; that is [`crate::storage`].

pub mod board;
pub mod fen;
pub mod index;
pub mod moves;
pub mod position;
pub mod record;
pub mod rules;
pub mod sector;
pub mod symmetry;
pub mod value;
