//! Why a query has no answer ([`ProbeError`]), and what a directory says
//! about a missing table ([`MissingHint`]).

use std::path::PathBuf;

use morris_db::{PositionError, Sector, TableError};

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
