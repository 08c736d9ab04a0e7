//! Perfect-play queries from a morris database: the value of a position
//! (`Win(n)`, `Loss(n)`, `Draw`, n in plies to the end of the game), the
//! value of every legal move, and a best move.
//!
//! A [`Database`] is a directory of table files of one rule set. Opening it
//! is cheap; each table is mapped on first use (and its payload checksum
//! checked then, unless switched off) and kept for later queries. The
//! database is `Send + Sync` and may be shared between threads.
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

pub mod front;
pub mod malom;
pub mod search;
pub mod search_dtm;
pub mod wdl;

pub use front::{Answer, Dtm, Encoding, TableProber, Tables};
pub use malom::{MalomDatabase, MalomValue};
/// The independent verifier, a crate of its own (`morris-verify`, which
/// depends on `morris-db` only); re-exported here for callers of
/// `morris_probe::verify`.
pub use morris_verify as verify;

use std::path::{Path, PathBuf};

use morris_db::{PositionError, RuleSet, Sector, TableError};

/// Why a query has no answer.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The database directory cannot be used.
    #[error("database directory {path}: {why}")]
    NoDatabase {
        /// The directory given.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The table the position needs is not in the database (a different
    /// error from a table that is there but damaged: [`ProbeError::Table`]).
    #[error("no table for sector {sector} in {dir} (looked for {file}){hint}")]
    MissingTable {
        /// The sector of the position.
        sector: Sector,
        /// The database directory.
        dir: PathBuf,
        /// The file name looked for.
        file: String,
        /// What the directory says about it (a command line turns this
        /// into the command to run).
        hint: MissingHint,
    },
    /// A table is damaged or belongs to another rule set or sector.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The position is not valid under the rule set.
    #[error("invalid position: {0}")]
    InvalidPosition(PositionError),
    /// The query is not supported for this rule set yet.
    #[error("not supported yet: {0}")]
    Unsupported(String),
    /// The position cannot arise in a game (the opponent of the side to move
    /// already has fewer than 3 stones, or no stone on the board after a
    /// move).
    #[error("not a position of a game: {0}")]
    Unreachable(String),
}

/// Why a table is missing, as far as the directory tells; shown after the
/// error's first part (`; ...`). The library names no commands: a front-end
/// (the command line, a server) turns this into what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MissingHint {
    /// The directory holds tables of these other rule sets: the rule set
    /// asked for may be the wrong one.
    OtherRuleSets(Vec<String>),
    /// The table is not solved yet: a sliding table, or with `placement`
    /// a placement table (positions with stones in hand).
    Unsolved {
        /// The rule set's name.
        rules: String,
        /// Whether the sector is a placement sector.
        placement: bool,
    },
    /// A WDL file that was not exported (from a solved database).
    NotExported {
        /// The rule set's name.
        rules: String,
    },
    /// Malom's sector values file (named) has no such sector.
    NotInMalom {
        /// The `.secval` file.
        values_file: String,
    },
    /// Malom's full database for the rule set (named) has the sector.
    InMalomFull {
        /// The rule set's name.
        rules: String,
    },
}

impl std::fmt::Display for MissingHint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MissingHint::OtherRuleSets(others) => {
                write!(f, "; the directory holds tables of rule set {}: is the rule set right?", others.join(", "))
            }
            MissingHint::Unsolved { rules, placement: false } => {
                write!(f, "; the sliding phase of rule set {rules} is not solved that far there")
            }
            MissingHint::Unsolved { rules, placement: true } => write!(
                f,
                "; positions with stones in hand need the placement tables of rule set {rules}, not solved there"
            ),
            MissingHint::NotExported { rules } => {
                write!(f, "; WDL files are exported from a solved database of rule set {rules}")
            }
            MissingHint::NotInMalom { values_file } => write!(f, "; Malom's {values_file} has no such sector"),
            MissingHint::InMalomFull { rules } => write!(f, "; Malom's full database for rule set {rules} has it"),
        }
    }
}

impl From<PositionError> for ProbeError {
    /// The position error is shown in the message, not also given as the
    /// error's source (a chain would print it twice).
    fn from(e: PositionError) -> ProbeError {
        ProbeError::InvalidPosition(e)
    }
}

/// Options for opening a database.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// Check each table's payload checksum when it is first mapped (a full
    /// read of the file, about 0.1 s per GB). Default: on.
    pub verify_checksums: bool,
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions { verify_checksums: true }
    }
}

/// An open database of our DTM tables: one rule set's tables in one
/// directory (the front-end of [`front`] over the [`Dtm`] encoding). Maps
/// each table on first use; `Send + Sync`.
pub type Database = Tables<Dtm>;

/// A handle for many probes of a [`Database`] from one thread (see
/// [`TableProber`]).
pub type Prober<'a> = TableProber<'a, Dtm>;

impl Tables<Dtm> {
    /// Opens the database in `dir` for `rules`, with default options. Maps
    /// nothing yet.
    ///
    /// # Errors
    /// [`ProbeError::NoDatabase`] when `dir` is not a directory.
    pub fn open(dir: impl AsRef<Path>, rules: RuleSet) -> Result<Database, ProbeError> {
        Database::open_with(dir, rules, ProbeOptions::default())
    }

    /// Opens the database in `dir` for `rules` with `options`.
    ///
    /// # Errors
    /// [`ProbeError::NoDatabase`] when `dir` is not a directory.
    pub fn open_with(dir: impl AsRef<Path>, rules: RuleSet, options: ProbeOptions) -> Result<Database, ProbeError> {
        Tables::with_encoding(dir, rules, options, Dtm)
    }
}
