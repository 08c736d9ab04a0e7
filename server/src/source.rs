//! The one place this crate talks to `morris-probe`: a served database
//! (our tables or Malom's files) behind one type, [`Source`], answering
//! the value of a position, every move's value and the principal line, with
//! errors sorted into what the HTTP layer needs (bad position, missing
//! table, damaged table).
//!
//! Everything goes through the probe's table front-end
//! (`morris_probe::tables::Tables`: our DTM tables as `Database`, Malom's
//! files inside `MalomDatabase`): its value, its order of the moves (best
//! first), its principal line, its list of sectors. The value of the
//! position asked for is read through one `Prober` per thread (kept in a
//! thread-local cache), so concurrent look-ups on the server's blocking
//! threads take no lock for it. A source holds owned, cloneable handles
//! (the probe crate's tables sit behind an `Arc`), and a thread's prober
//! holds its own clone: nothing is leaked, and a database no source and
//! no prober holds any more is unmapped.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use morris_db::{Move, Position, RuleSet, Sector, Store, TableError, Value};
use morris_probe::malom::{MalomGame, MalomValue};
use morris_probe::{Database, MalomDatabase, ProbeError, Prober};

/// A value with Malom's draw rank when it came from Malom's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eval {
    /// The value for the player concerned (the side to move for a position,
    /// the mover for a move).
    pub value: Value,
    /// Malom's evaluation A of a draw (higher is better for that player);
    /// `None` for our tables and for wins and losses.
    pub draw_rank: Option<i32>,
}

impl Eval {
    fn ours(value: Value) -> Eval {
        Eval { value, draw_rank: None }
    }

    fn malom(v: MalomValue) -> Eval {
        Eval { value: v.value, draw_rank: v.draw_rank() }
    }
}

/// Why a look-up has no answer, sorted by whose fault it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// The position is not one the rule set allows, or cannot arise in a
    /// game (the client's fault).
    #[error("{0}")]
    BadPosition(String),
    /// The table (or Malom file) of a sector is not in the database.
    #[error("{message}")]
    Missing {
        /// The sector, `w-b` or `w-b-wh-bh` from the side to move's view.
        sector: String,
        /// The file looked for.
        file: String,
        /// The whole message, with a hint on how to get the table.
        message: String,
    },
    /// A table file is damaged, unreadable or of another rule set.
    #[error("{message}")]
    Damaged {
        /// The file.
        file: String,
        /// What is wrong with it.
        message: String,
    },
    /// Anything else (an unsupported query, a database directory gone).
    #[error("{0}")]
    Other(String),
}

impl From<ProbeError> for LookupError {
    fn from(e: ProbeError) -> LookupError {
        match e {
            ProbeError::InvalidPosition(_) | ProbeError::Unreachable { .. } => LookupError::BadPosition(e.to_string()),
            ProbeError::MissingTable { sector, ref path, .. } => {
                LookupError::Missing { sector: sector.to_string(), file: file_name(path), message: e.to_string() }
            }
            ProbeError::Version { ref path, .. } => {
                LookupError::Damaged { file: file_name(path), message: e.to_string() }
            }
            ProbeError::Table(TableError::Missing { sector, ref path }) => {
                LookupError::Missing { sector: sector.to_string(), file: file_name(path), message: e.to_string() }
            }
            ProbeError::Table(
                TableError::Io { ref path, .. }
                | TableError::Corrupt { ref path, .. }
                | TableError::RuleSetMismatch { ref path, .. }
                | TableError::SectorMismatch { ref path, .. },
            ) => LookupError::Damaged { file: file_name(path), message: e.to_string() },
            other => LookupError::Other(other.to_string()),
        }
    }
}

/// The last component of a path (the file name shown to clients: never
/// the server's directories).
fn file_name(path: &Path) -> String {
    path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Where a rule set's answers come from. A clone is cheap (handles on the
/// same mapped files).
#[derive(Debug, Clone)]
pub enum Source {
    /// Our tables (`morris solve`).
    Ours(Database),
    /// Malom's files.
    Malom(MalomDatabase),
}

thread_local! {
    /// This thread's probers, one per database (keyed by the address of
    /// the rules of the database it holds: each prober holds a clone of
    /// its database, so that address is not reused while the prober
    /// lives).
    static PROBERS: RefCell<Vec<(usize, Prober)>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's prober of `db`.
fn with_prober<R>(db: &Database, f: impl FnOnce(&mut Prober) -> R) -> R {
    let key = db.rules() as *const RuleSet as usize;
    PROBERS.with(|cell| {
        let mut probers = cell.borrow_mut();
        let i = match probers.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                probers.push((key, db.prober()));
                probers.len() - 1
            }
        };
        f(&mut probers[i].1)
    })
}

impl Source {
    /// Opens our database in `dir` for `rules` (maps nothing yet).
    ///
    /// # Errors
    /// When `dir` is not a directory.
    pub fn open_ours(dir: &Path, rules: RuleSet) -> Result<Source, LookupError> {
        Ok(Source::Ours(Database::open(dir, rules)?))
    }

    /// Opens Malom's files in `dir` for `rules` (reads the `.secval` file).
    ///
    /// # Errors
    /// When `dir` is not a directory, Malom has no database of the rule
    /// set, or the `.secval` file is missing or malformed.
    pub fn open_malom(dir: &Path, rules: RuleSet) -> Result<Source, LookupError> {
        Ok(Source::Malom(MalomDatabase::open(dir, rules)?))
    }

    /// The rule set.
    pub fn rules(&self) -> &RuleSet {
        match self {
            Source::Ours(db) => db.rules(),
            Source::Malom(db) => db.rules(),
        }
    }

    /// Whether `pos` can arise in a game ([`morris_probe::reach::reachable`]):
    /// `None` where there is no reachability bitmap of its sector (our
    /// tables without `morris reach`, Malom's files) or it cannot be read.
    pub fn reachable(&self, pos: &Position) -> Option<bool> {
        match self {
            Source::Ours(db) => morris_probe::reach::reachable(db.dir(), db.rules(), pos).ok().flatten(),
            Source::Malom(_) => None,
        }
    }

    /// `morris` or `malom`.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Ours(_) => "morris",
            Source::Malom(_) => "malom",
        }
    }

    /// The value of `pos` for the side to move.
    ///
    /// # Errors
    /// See [`LookupError`].
    pub fn evaluate(&self, pos: &Position) -> Result<Eval, LookupError> {
        match self {
            Source::Ours(db) => Ok(Eval::ours(with_prober(db, |p| p.value(pos))?)),
            Source::Malom(db) => Ok(Eval::malom(db.evaluate(pos)?)),
        }
    }

    /// Every legal move with its value for the mover, best first, in the
    /// front-end's order (shortest win, draws, longest loss; ties by
    /// notation; Malom's files: draws by Malom's rank). Empty when the game
    /// is over.
    ///
    /// # Errors
    /// As [`Source::evaluate`], for the position or any position a move
    /// leads to.
    pub fn analyze(&self, pos: &Position) -> Result<Vec<(Move, Eval)>, LookupError> {
        match self {
            Source::Ours(db) => Ok(db.analyze(pos)?.into_iter().map(|(mv, v)| (mv, Eval::ours(v))).collect()),
            Source::Malom(db) => Ok(db.analyze_ranked(pos)?.into_iter().map(|(mv, v)| (mv, Eval::malom(v))).collect()),
        }
    }

    /// The principal line from `pos`: the front-end's best move for each
    /// side in turn, each with its value for the mover, until the game ends
    /// or `max_plies` moves are listed.
    ///
    /// # Errors
    /// As [`Source::analyze`], for any position on the line.
    pub fn line(&self, pos: &Position, max_plies: usize) -> Result<Vec<(Move, Eval)>, LookupError> {
        match self {
            Source::Ours(db) => {
                Ok(db.principal_line(pos, max_plies)?.into_iter().map(|(mv, v)| (mv, Eval::ours(v))).collect())
            }
            Source::Malom(db) => Ok(db
                .tables()
                .principal_line(pos, max_plies)?
                .into_iter()
                .map(|(mv, v)| (mv, Eval::malom(v)))
                .collect()),
        }
    }

    /// The sectors whose tables (or Malom files) the directory holds
    /// (none when it cannot be read).
    pub fn sectors_present(&self) -> Vec<Sector> {
        match self {
            Source::Ours(db) => db.sectors().unwrap_or_default(),
            Source::Malom(db) => db.sectors_present(),
        }
    }
}

/// The rule-set names of the DTM tables (`.mtb` or `.mtz`) in `dir`,
/// sorted, each once (none when it cannot be read).
pub fn rule_sets_in(dir: &Path) -> Vec<String> {
    Store::new(dir).rule_set_names()
}

/// The rule sets (presets) whose Malom files are in `dir`.
pub fn malom_games_in(dir: &Path) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            MalomGame::parse_file_name(&name)
                .map(|(g, _)| g)
                .or_else(|| MalomGame::ALL.into_iter().find(|g| g.values_file_name() == name))
                .map(|g| g.preset())
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// A directory given on the command line, with the rule set it serves if
/// named (`RULES=DIR`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirArg {
    /// The rule set named before `=`, if any.
    pub rules: Option<String>,
    /// The directory.
    pub dir: PathBuf,
}

impl std::str::FromStr for DirArg {
    type Err = String;

    /// `DIR` or `RULES=DIR`.
    fn from_str(s: &str) -> Result<DirArg, String> {
        match s.split_once('=') {
            Some((rules, dir)) if !rules.is_empty() && !rules.contains('/') => {
                if dir.is_empty() {
                    return Err(format!("`{s}`: no directory after `=`"));
                }
                Ok(DirArg { rules: Some(rules.to_string()), dir: PathBuf::from(dir) })
            }
            _ => Ok(DirArg { rules: None, dir: PathBuf::from(s) }),
        }
    }
}

/// `win`, `draw` or `loss`.
pub fn category(v: Value) -> &'static str {
    match v {
        Value::Win(_) => "win",
        Value::Draw => "draw",
        Value::Loss(_) => "loss",
    }
}
