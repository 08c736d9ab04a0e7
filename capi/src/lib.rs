//! `libmorris`: a C library over [`morris_probe`]: open a directory of
//! morris tables, ask the value of a position (win, draw or loss and the
//! distance to the end of the game in plies), a best move, every move's
//! value. The C interface is in [`ffi`] and `include/morris.h` (generated
//! from it by cbindgen); docs/c-api.md shows it in use.
//!
//! The rules of the interface:
//! - every function returns a [`MorrisStatus`] (or, for `morris_open`, a
//!   handle or NULL), never panics across the boundary (each entry catches
//!   a panic and returns [`MorrisStatus::Panic`]), and on an error sets a
//!   message that `morris_last_error()` returns (one per thread);
//! - a NULL pointer where one is needed is [`MorrisStatus::NullPointer`];
//! - a handle may be used from many threads at once (the tables are
//!   shared and read-only), and is freed by `morris_close`.
//!
//! This crate's Rust side, safe, is what the C functions call: [`Handle`].

use morris_db::{Move, Position, Value};
use morris_probe::{ProbeError, Tablebase};

pub mod ffi;

pub use ffi::{MorrisMove, MorrisStatus, MorrisValue};

/// An open tablebase with the operations the C functions expose, on Rust
/// types: what `MorrisDb *` points to.
#[derive(Debug, Clone)]
pub struct Handle {
    tb: Tablebase,
}

/// A failure: the status code C sees and the message of
/// `morris_last_error()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The code.
    pub status: MorrisStatus,
    /// The message.
    pub message: String,
}

impl Failure {
    /// A failure with `status` and `message`.
    pub fn new(status: MorrisStatus, message: impl Into<String>) -> Failure {
        Failure { status, message: message.into() }
    }
}

impl From<ProbeError> for Failure {
    fn from(e: ProbeError) -> Failure {
        let status = match e {
            ProbeError::InvalidPosition(_) | ProbeError::Unreachable { .. } => MorrisStatus::BadPosition,
            ProbeError::NoDatabase { .. } => MorrisStatus::NoDatabase,
            ProbeError::MissingTable { .. } => MorrisStatus::MissingTable,
            ProbeError::Table(_) | ProbeError::Version { .. } | ProbeError::PermissionDenied { .. } => {
                MorrisStatus::BadTable
            }
            _ => MorrisStatus::Unsupported,
        };
        Failure::new(status, e.to_string())
    }
}

/// Win (1), draw (0) or loss (-1) for the player concerned and the signed
/// distance in plies (positive for a win, negative for a loss, 0 for a
/// draw).
pub fn wdl_dtm(v: Value) -> (i32, i32) {
    match v {
        Value::Win(n) => (1, i32::from(n.get())),
        Value::Loss(n) => (-1, -i32::from(n.get())),
        Value::Draw => (0, 0),
    }
}

impl Handle {
    /// Opens `dir` for the rule set `rules` (a preset name), or the one
    /// rule set the directory holds when `None`.
    ///
    /// # Errors
    /// As [`Tablebase::open`].
    pub fn open(dir: &str, rules: Option<&str>) -> Result<Handle, Failure> {
        Ok(Handle { tb: Tablebase::open(dir, rules)? })
    }

    /// The tablebase.
    pub fn tablebase(&self) -> &Tablebase {
        &self.tb
    }

    /// Reads a position in our notation or as a Sanmill FEN.
    ///
    /// # Errors
    /// [`MorrisStatus::BadPosition`] naming what is wrong.
    pub fn position(&self, text: &str) -> Result<Position, Failure> {
        Position::read_for(text, self.tb.rules())
            .map(|(p, _)| p)
            .map_err(|e| Failure::new(MorrisStatus::BadPosition, format!("position `{text}`: {e}")))
    }

    /// The value of the position `text` for the side to move.
    ///
    /// # Errors
    /// As [`Handle::position`] and [`Tablebase::value`].
    pub fn probe(&self, text: &str) -> Result<Value, Failure> {
        Ok(self.tb.value(&self.position(text)?)?)
    }

    /// Win (1), draw (0) or loss (-1) of each of the positions `texts`, in
    /// order, read in batches ([`Tablebase::wdl_many`]).
    ///
    /// # Errors
    /// The first failure in the list's order: a position that does not
    /// parse ([`Handle::position`]) or one the tables cannot answer (as
    /// [`Tablebase::wdl`]); its message says which position of the list.
    pub fn probe_wdl_many<'a>(&self, texts: impl IntoIterator<Item = &'a str>) -> Result<Vec<i8>, Failure> {
        let items = texts.into_iter().enumerate().map(|(i, text)| self.position(text).map_err(|e| at_index(i, e)));
        let values = self.tb.wdl_of_list(items, |i, e| at_index(i, e.into()))?;
        Ok(values.into_iter().map(|w| w.signum() as i8).collect())
    }

    /// A best move, written as `morris bestmove` writes it, with its value
    /// for the mover; `None` when the game is over.
    ///
    /// # Errors
    /// As [`Handle::position`] and [`Tablebase::best_move`].
    pub fn best_move(&self, text: &str) -> Result<Option<(String, Value)>, Failure> {
        let pos = self.position(text)?;
        Ok(self.tb.best_move(&pos)?.map(|(mv, v)| (self.notation(mv), v)))
    }

    /// Every legal move with its value for the mover, best first, as `morris
    /// analyze` lists them.
    ///
    /// # Errors
    /// As [`Handle::position`] and [`Tablebase::analyze`].
    pub fn moves(&self, text: &str) -> Result<Vec<(String, Value)>, Failure> {
        let pos = self.position(text)?;
        Ok(self.tb.analyze(&pos)?.into_iter().map(|(mv, v)| (self.notation(mv), v)).collect())
    }

    fn notation(&self, mv: Move) -> String {
        mv.notation(self.tb.rules().board())
    }
}

/// `failure` of position `i` (from 0) of a list, saying so.
fn at_index(i: usize, failure: Failure) -> Failure {
    Failure::new(failure.status, format!("position {i} of the list: {}", failure.message))
}
