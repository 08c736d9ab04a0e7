//! The one place this crate talks to `morris-probe`: a served database
//! (our tables or Malom's files) behind one type, [`Source`], answering
//! the value of a position, every move's value and the principal line, with
//! errors sorted into what the HTTP layer needs (bad position, missing
//! table, damaged table).
//!
//! Everything goes through the probe's table front-end
//! (`morris_probe::tables::Tables`: our DTM tables as `Database`, Malom's
//! files inside `MalomDatabase`): its value, its order of the moves (best
//! first), its principal line, its list of sectors. Its tables are mapped
//! guarded and checked on use: a table renamed over the one mapped is read
//! from the next check on (at most a second later), one truncated
//! underneath is a damaged table (never SIGBUS), one that may not be read
//! is `PermissionDenied`. A source holds owned, cloneable handles (the
//! probe crate's tables sit behind an `Arc`): nothing is leaked, and a
//! database no source holds any more is unmapped.

use std::path::{Path, PathBuf};

use morris_db::{Move, Position, RuleSet, Sector, Store, TableError, Value};
use morris_probe::malom::{MalomGame, MalomValue};
use morris_probe::wdl::WdlDatabase;
use morris_probe::{Database, MalomDatabase, ProbeError, Wdl};

/// A value for the player concerned (the side to move for a position, the
/// mover for a move): win, draw or loss, with the exact distance where the
/// files hold one, and Malom's draw rank when it came from Malom's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eval {
    /// Win, draw or loss.
    pub wdl: Wdl,
    /// The value with its distance to the end (DTM, plies): from our DTM
    /// tables and Malom's files; `None` from WDL files, which hold none.
    pub value: Option<Value>,
    /// Malom's evaluation A of a draw (higher is better for that player);
    /// `None` for our files and for wins and losses.
    pub draw_rank: Option<i32>,
}

impl Eval {
    fn ours(value: Value) -> Eval {
        Eval { wdl: Wdl::from(value), value: Some(value), draw_rank: None }
    }

    fn wdl_only(wdl: Wdl) -> Eval {
        Eval { wdl, value: None, draw_rank: None }
    }

    fn malom(v: MalomValue) -> Eval {
        Eval { wdl: Wdl::from(v.value), value: Some(v.value), draw_rank: v.draw_rank() }
    }

    /// `win`, `draw` or `loss`.
    pub fn category(&self) -> &'static str {
        match self.wdl {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }

    /// Plies to the end of the game under perfect play; `None` for a draw,
    /// and for any value from WDL files.
    pub fn dtm(&self) -> Option<u16> {
        self.value.and_then(Value::plies)
    }

    /// The value of a move for the mover, given this value of the position
    /// it leads to (Malom's draw rank is dropped: it is not one of the
    /// mover's).
    pub fn back(self) -> Eval {
        Eval { wdl: -self.wdl, value: self.value.map(Value::back), draw_rank: None }
    }

    /// Orders values best first for the player concerned: by
    /// [`Value::best_first`] when both have a distance (shortest win,
    /// draws, longest loss), else win, draw, loss.
    pub fn best_first(a: &Eval, b: &Eval) -> std::cmp::Ordering {
        match (a.value, b.value) {
            (Some(x), Some(y)) => Value::best_first(&x, &y),
            _ => b.wdl.cmp(&a.wdl),
        }
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
    /// A table file this process may not read (its permissions, or its
    /// directory's).
    #[error("{message}")]
    PermissionDenied {
        /// The file.
        file: String,
        /// The whole message.
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
            ProbeError::PermissionDenied { ref path, .. } => {
                LookupError::PermissionDenied { file: file_name(path), message: e.to_string() }
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
    /// Our WDL files (`morris export-wdl`): win, draw or loss, no DTM.
    Wdl(WdlDatabase),
    /// Malom's files.
    Malom(MalomDatabase),
}

impl Source {
    /// Opens our database in `dir` for `rules` (maps nothing yet).
    ///
    /// # Errors
    /// When `dir` is not a directory.
    pub fn open_ours(dir: &Path, rules: RuleSet) -> Result<Source, LookupError> {
        Ok(Source::Ours(Database::open(dir, rules)?))
    }

    /// Opens our WDL files in `dir` for `rules` (maps nothing yet).
    ///
    /// # Errors
    /// When `dir` is not a directory.
    pub fn open_wdl(dir: &Path, rules: RuleSet) -> Result<Source, LookupError> {
        Ok(Source::Wdl(WdlDatabase::open(dir, rules)?))
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
            Source::Wdl(db) => db.rules(),
            Source::Malom(db) => db.rules(),
        }
    }

    /// Whether `pos` can arise in a game ([`Database::reachable`]: each
    /// sector's bitmap kept mapped, a replaced one noticed as tables are):
    /// `None` where there is no reachability bitmap of its sector (our
    /// tables without `morris reach`, WDL files, Malom's files) or it
    /// cannot be read.
    pub fn reachable(&self, pos: &Position) -> Option<bool> {
        match self {
            Source::Ours(db) => db.reachable(pos).ok().flatten(),
            Source::Wdl(_) | Source::Malom(_) => None,
        }
    }

    /// `morris` (our DTM tables), `morris-wdl` (our WDL files) or
    /// `malom`.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Ours(_) => "morris",
            Source::Wdl(_) => "morris-wdl",
            Source::Malom(_) => "malom",
        }
    }

    /// Whether values carry a distance to the end (DTM): not from WDL files.
    pub fn has_dtm(&self) -> bool {
        !matches!(self, Source::Wdl(_))
    }

    /// The value of `pos` for the side to move.
    ///
    /// # Errors
    /// See [`LookupError`].
    pub fn evaluate(&self, pos: &Position) -> Result<Eval, LookupError> {
        match self {
            Source::Ours(db) => Ok(Eval::ours(db.value(pos)?)),
            Source::Wdl(db) => Ok(Eval::wdl_only(db.value(pos)?)),
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
            Source::Wdl(db) => Ok(db.analyze(pos)?.into_iter().map(|(mv, v)| (mv, Eval::wdl_only(v))).collect()),
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
            Source::Wdl(db) => {
                Ok(db.principal_line(pos, max_plies)?.into_iter().map(|(mv, v)| (mv, Eval::wdl_only(v))).collect())
            }
            Source::Malom(db) => Ok(db
                .tables()
                .principal_line(pos, max_plies)?
                .into_iter()
                .map(|(mv, v)| (mv, Eval::malom(v)))
                .collect()),
        }
    }

    /// The traps of a move: how many of the opponent's legal replies in
    /// `after` (the position the move leads to, the opponent to move) are
    /// worse for the opponent, by category, than `after` itself (win, draw,
    /// loss: a reply that turns the opponent's win into a draw or a loss, or
    /// their draw into a loss). Distances do not count: a slower win is no
    /// trap. 0 when the game is over in `after`. `None` when a table a
    /// reply needs is missing.
    ///
    /// # Errors
    /// As [`Source::evaluate`], other than a missing table.
    pub fn traps(&self, after: &Position) -> Result<Option<u32>, LookupError> {
        let own = match self.evaluate(after) {
            Ok(e) => e.wdl,
            Err(LookupError::Missing { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let rules = self.rules();
        let mut traps = 0;
        for reply in after.legal_moves(rules) {
            match self.evaluate(&after.play_unchecked(reply)) {
                Ok(e) if e.back().wdl < own => traps += 1,
                Ok(_) => {}
                Err(LookupError::Missing { .. }) => return Ok(None),
                Err(e) => return Err(e),
            }
        }
        Ok(Some(traps))
    }

    /// The sectors whose tables (or Malom files) the directory holds
    /// (none when it cannot be read).
    pub fn sectors_present(&self) -> Vec<Sector> {
        match self {
            Source::Ours(db) => db.sectors().unwrap_or_default(),
            Source::Wdl(db) => db.sectors().unwrap_or_default(),
            Source::Malom(db) => db.sectors_present(),
        }
    }
}

/// The rule-set names of the DTM tables (`.mtb` or `.mtz`) in `dir`,
/// sorted, each once (none when it cannot be read).
pub fn rule_sets_in(dir: &Path) -> Vec<String> {
    Store::new(dir).rule_set_names()
}

/// The rule-set names of the WDL files (`.mwdl`) in `dir`, sorted, each
/// once (none when it cannot be read).
pub fn wdl_rule_sets_in(dir: &Path) -> Vec<String> {
    Store::new(dir).wdl_rule_set_names()
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
