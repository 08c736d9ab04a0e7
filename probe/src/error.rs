//! Why a query has no answer ([`ProbeError`]), and what a directory says
//! about a missing table ([`MissingHint`]).

use std::path::{Path, PathBuf};

use morris_db::{PositionError, Sector, TableError};

/// Why a query has no answer.
///
/// `#[non_exhaustive]`, as are its variants with fields: match with a
/// `_` arm and `..`, so that a later release may add kinds and details.
/// The kinds an embedder tells apart:
///
/// - the input's fault: [`ProbeError::InvalidPosition`] (not a position of
///   the rule set), [`ProbeError::Unreachable`] (no game reaches it);
/// - the database's: [`ProbeError::NoDatabase`] (no such directory),
///   [`ProbeError::MissingTable`] (a table it needs is not there: solve or
///   fetch it), [`ProbeError::Version`] (a file of a format version this
///   library does not read), [`ProbeError::PermissionDenied`] (a file
///   this process may not read), [`ProbeError::Table`] (a file that is
///   damaged or of another rule set or sector);
/// - [`ProbeError::Unsupported`]: a query this library cannot answer yet.
///
/// ```
/// use morris_db::{Position, RuleSet, Sector};
/// use morris_probe::{Database, ProbeError};
///
/// let dir = tempfile::tempdir()?; // an empty database
/// let rules = RuleSet::preset("three")?;
/// let db = Database::open(dir.path(), rules)?;
/// let pos = Position::parse("W:a1,b1,c1 B:a2,b3,c3 w", db.rules())?;
/// match db.value(&pos) {
///     Err(ProbeError::Unreachable { reason, .. }) => assert!(reason.contains("line"), "{reason}"),
///     other => panic!("{other:?}"),
/// }
/// let pos = Position::parse("W:a1,c1,b3 B:a2,c2,a3 w", db.rules())?;
/// match db.value(&pos) {
///     Err(ProbeError::MissingTable { sector, path, .. }) => {
///         assert_eq!(sector, Sector::sliding(3, 3));
///         assert!(path.starts_with(dir.path()));
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProbeError {
    /// The database directory cannot be used.
    #[error("database directory {path}: {why}")]
    #[non_exhaustive]
    NoDatabase {
        /// The directory given.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The table the position needs is not in the database (a different
    /// error from a table that is there but damaged: [`ProbeError::Table`]).
    #[error("no table for sector {sector} in {} (looked for {}){hint}", dir_of(path).display(), file_of(path))]
    #[non_exhaustive]
    MissingTable {
        /// The sector of the position.
        sector: Sector,
        /// The file looked for (in the database directory).
        path: PathBuf,
        /// What the directory says about it (a command line turns this
        /// into the command to run).
        hint: MissingHint,
    },
    /// A file is of a format version this library does not read (written
    /// by a newer or older `morris`): re-solve, or use a matching release.
    #[error("{}: format version {found}; this library reads version {supported}", path.display())]
    #[non_exhaustive]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in its header.
        found: u32,
        /// The version this library reads.
        supported: u32,
    },
    /// A table is damaged or belongs to another rule set or sector
    /// ([`TableError::Corrupt`], [`TableError::RuleSetMismatch`], ...).
    #[error(transparent)]
    Table(TableError),
    /// A file the query needs is there but this process may not read it
    /// (or may not search its directory): fix the permissions, or run as a
    /// user who may read the database.
    #[error("{}: permission denied: this process may not read it (check the permissions of the file and its directory)", path.display())]
    #[non_exhaustive]
    PermissionDenied {
        /// The file.
        path: PathBuf,
    },
    /// The position is not valid under the rule set.
    #[error("invalid position: {0}")]
    InvalidPosition(PositionError),
    /// The query is not supported for this rule set yet.
    #[error("not supported yet: {0}")]
    Unsupported(String),
    /// The position cannot arise in a game (the opponent of the side to move
    /// already has fewer than 3 stones, or no stone on the board after a
    /// move).
    #[error("not a position of a game: {reason}")]
    #[non_exhaustive]
    Unreachable {
        /// Why no game reaches it.
        reason: String,
    },
}

impl ProbeError {
    /// A [`ProbeError::Unreachable`] with `reason`.
    pub fn unreachable(reason: impl Into<String>) -> ProbeError {
        ProbeError::Unreachable { reason: reason.into() }
    }

    /// A [`ProbeError::NoDatabase`] of `path` with `why`.
    pub fn no_database(path: impl Into<PathBuf>, why: impl Into<String>) -> ProbeError {
        ProbeError::NoDatabase { path: path.into(), why: why.into() }
    }

    /// A [`ProbeError::MissingTable`].
    pub fn missing_table(sector: Sector, path: impl Into<PathBuf>, hint: MissingHint) -> ProbeError {
        ProbeError::MissingTable { sector, path: path.into(), hint }
    }

    /// The directory of a [`ProbeError::MissingTable`]'s file.
    pub fn missing_dir(&self) -> Option<&Path> {
        match self {
            ProbeError::MissingTable { path, .. } => Some(dir_of(path)),
            _ => None,
        }
    }

    /// The file name of a [`ProbeError::MissingTable`] (`nine_3_3.mtb`).
    pub fn missing_file(&self) -> Option<String> {
        match self {
            ProbeError::MissingTable { path, .. } => Some(file_of(path)),
            _ => None,
        }
    }
}

/// The directory of `path` (empty for a bare name).
fn dir_of(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new(""))
}

/// The last component of `path`.
fn file_of(path: &Path) -> String {
    path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
}

impl From<TableError> for ProbeError {
    /// A header's version field that this library does not read becomes
    /// [`ProbeError::Version`], a file that may not be read
    /// [`ProbeError::PermissionDenied`]; every other table error
    /// [`ProbeError::Table`].
    fn from(e: TableError) -> ProbeError {
        if let TableError::Io { path, error } = &e {
            if error.kind() == std::io::ErrorKind::PermissionDenied {
                return ProbeError::PermissionDenied { path: path.clone() };
            }
        }
        if let TableError::Corrupt { path, field: "version", detail } = &e {
            if let Some((found, supported)) = versions(detail) {
                return ProbeError::Version { path: path.clone(), found, supported };
            }
        }
        ProbeError::Table(e)
    }
}

/// The version found and the one read, from the detail of morris-db's
/// version error (`<name> <found>; this program reads version <supported>:
/// ...`).
fn versions(detail: &str) -> Option<(u32, u32)> {
    let (head, tail) = detail.split_once(';')?;
    let found = head.rsplit(' ').next()?.parse().ok()?;
    let rest = tail.split_once("reads version ")?.1;
    let supported = rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()?;
    Some((found, supported))
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

#[cfg(test)]
mod tests {
    use std::io::{Seek, SeekFrom, Write};

    use morris_db::{Position, RuleSet, Sector, Store};

    use super::*;
    use crate::Database;

    /// A table whose header has another format version is
    /// [`ProbeError::Version`] with both versions, not a generic damage.
    #[test]
    fn a_table_of_another_format_version_is_a_version_error() {
        let rules = RuleSet::preset("three").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let options = morris_solver::SolveOptions { max_stones: 6, progress: false };
        morris_solver::solve_sliding(&rules, dir.path(), &options).unwrap();
        let path = Store::new(dir.path()).table_path(&rules, Sector::sliding(3, 3));
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.seek(SeekFrom::Start(8)).unwrap();
        f.write_all(&7u32.to_le_bytes()).unwrap();
        drop(f);
        let db = Database::open(dir.path(), rules).unwrap();
        let pos = Position::parse("W:a1,c1,b3 B:a2,c2,a3 w", db.rules()).unwrap();
        match db.value(&pos).unwrap_err() {
            ProbeError::Version { path: p, found, supported } => {
                assert_eq!((p, found, supported), (path, 7, morris_db::table::FORMAT_VERSION));
            }
            other => panic!("expected a version error, got {other:?}"),
        }
    }

    /// The handles an embedder keeps are owned, cloneable and shareable.
    #[test]
    fn handles_are_send_sync_static_and_clone() {
        fn owned<T: Send + Sync + Clone + 'static>() {}
        owned::<crate::Database>();
        owned::<crate::wdl::WdlDatabase>();
        owned::<crate::MalomDatabase>();
        owned::<crate::Tablebase>();
        owned::<crate::Prober>();
        fn error<T: std::error::Error + Send + Sync + 'static>() {}
        error::<ProbeError>();
    }
}
