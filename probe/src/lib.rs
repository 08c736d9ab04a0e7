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
//! let pos = Position::parse("W:a4,a1,d3 B:a7,d1,c4 w", rules.board())?;
//! let db = Database::open("nine-db", rules)?;
//! println!("{:?}", db.value(&pos)?); // Draw
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

pub mod malom;
pub mod search;
pub mod search_dtm;
pub mod verify;
pub mod wdl;

pub use malom::{MalomDatabase, MalomValue};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use morris_db::table::table_path;
use morris_db::{Move, Position, PositionError, RuleSet, Sector, Store, Table, TableError, Value};

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
    /// The table the position needs is not in the database.
    #[error("no table for sector {sector} in {dir} (looked for {file}){hint}")]
    MissingTable {
        /// The sector of the position.
        sector: Sector,
        /// The database directory.
        dir: PathBuf,
        /// The file name looked for.
        file: String,
        /// A hint on what the directory holds instead, or empty.
        hint: String,
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
    /// already has fewer than 3 stones).
    #[error("not a position of a game: {0}")]
    Unreachable(String),
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

/// An open database: one rule set's tables in one directory.
#[derive(Debug)]
pub struct Database {
    dir: PathBuf,
    rules: RuleSet,
    options: ProbeOptions,
    tables: RwLock<HashMap<Sector, Arc<Table>>>,
}

impl Database {
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
        let dir = dir.as_ref().to_path_buf();
        if !dir.is_dir() {
            let why = if dir.exists() { "not a directory" } else { "does not exist (solve one with `morris solve`)" };
            return Err(ProbeError::NoDatabase { path: dir, why: why.to_string() });
        }
        Ok(Database { dir, rules, options, tables: RwLock::new(HashMap::new()) })
    }

    /// The rule set.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The table of `sector`, mapped and checked on first use.
    ///
    /// # Errors
    /// [`ProbeError::MissingTable`] when the file is not there;
    /// [`ProbeError::Table`] when it is damaged or of another rule set.
    pub fn table(&self, sector: Sector) -> Result<Arc<Table>, ProbeError> {
        if let Some(t) = self.tables.read().ok().and_then(|m| m.get(&sector).cloned()) {
            return Ok(t);
        }
        let len = self.rules.sector_index(sector).map_err(|e| ProbeError::Unreachable(e.to_string()))?.len();
        let table = match Table::open(&self.dir, &self.rules, sector, len) {
            Ok(t) => t,
            Err(TableError::Missing { .. }) => return Err(self.missing(sector)),
            Err(e) => return Err(e.into()),
        };
        if self.options.verify_checksums {
            table.verify_checksum()?;
        }
        let table = Arc::new(table);
        if let Ok(mut map) = self.tables.write() {
            map.insert(sector, table.clone());
        }
        Ok(table)
    }

    fn missing(&self, sector: Sector) -> ProbeError {
        let file = table_path(&self.dir, &self.rules, sector)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let others = Store::new(&self.dir).other_rule_sets(self.rules.name());
        let hint = if !others.is_empty() {
            format!("; the directory holds tables of rule set {}: is `--rules` right?", others.join(", "))
        } else if sector.is_sliding() {
            format!("; solve it with `morris solve --rules {} --db {}`", self.rules.name(), self.dir.display())
        } else {
            format!(
                "; positions with stones in hand need the placement tables: `morris solve --rules {} --phase all --db {}`",
                self.rules.name(),
                self.dir.display()
            )
        };
        ProbeError::MissingTable { sector, dir: self.dir.clone(), file, hint }
    }

    /// The value of `pos` for the side to move: `Win(n)` / `Loss(n)` with
    /// n plies to the end of the game under perfect play, or `Draw`.
    /// A side to move with fewer than 3 stones has lost: `Loss(0)`.
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] for a position the rule set does not
    /// allow, [`ProbeError::Unreachable`] when the opponent already has
    /// fewer than 3 stones, and the table errors of [`Database::table`].
    pub fn value(&self, pos: &Position) -> Result<Value, ProbeError> {
        pos.validate(&self.rules)?;
        let us = pos.us().count_ones() + pos.us_in_hand() as u32;
        let them = pos.them().count_ones() + pos.them_in_hand() as u32;
        if them < 3 {
            return Err(ProbeError::Unreachable(format!(
                "{} has fewer than 3 stones, so the game ended before {} was to move",
                pos.side_to_move.other(),
                pos.side_to_move
            )));
        }
        if us < 3 {
            return Ok(Value::Loss(0));
        }
        if self.rules.line_wins {
            // Three Men's Morris: the opponent's line ended the game.
            if self.rules.has_line(pos.them()) {
                return Ok(Value::Loss(0));
            }
            if self.rules.has_line(pos.us()) {
                return Err(ProbeError::Unreachable(format!(
                    "{} has a line, so the game ended before {} was to move",
                    pos.side_to_move, pos.side_to_move
                )));
            }
        }
        let sector = pos.sector();
        let table = self.table(sector)?;
        let slot = self.rules.indexer().slot(pos.us(), pos.them());
        table.value(slot).ok_or_else(|| {
            ProbeError::Table(TableError::Corrupt {
                path: table.path().to_path_buf(),
                field: "payload",
                detail: format!("slot {slot} of a canonical position holds no value"),
            })
        })
    }

    /// Every legal move with its value for the mover, best first: shortest
    /// win, then draws, then longest loss (ties in notation order). Empty
    /// when the game is over.
    ///
    /// # Errors
    /// As [`Database::value`], for the position or any position a move
    /// leads to.
    pub fn analyze(&self, pos: &Position) -> Result<Vec<(Move, Value)>, ProbeError> {
        // Refuses what `value` refuses (invalid or after the end of the game).
        self.value(pos)?;
        let board = self.rules.board();
        let mut out = pos
            .legal_moves(&self.rules)
            .into_iter()
            .map(|mv| Ok((mv, self.value(&pos.play_unchecked(mv))?.back())))
            .collect::<Result<Vec<_>, ProbeError>>()?;
        out.sort_by(|a, b| Value::best_first(&a.1, &b.1).then_with(|| a.0.notation(board).cmp(&b.0.notation(board))));
        Ok(out)
    }

    /// A best move with its value (see [`Database::analyze`] for the order);
    /// `None` when the game is over.
    ///
    /// # Errors
    /// As [`Database::analyze`].
    pub fn best_move(&self, pos: &Position) -> Result<Option<(Move, Value)>, ProbeError> {
        Ok(self.analyze(pos)?.into_iter().next())
    }
}

impl Database {
    /// The principal line from `pos`: a best move of the side to move (see
    /// [`Database::best_move`]), then a best move of the opponent, and so
    /// on, each with its value for the player who makes it, until the game
    /// ends or `max_plies` moves are listed. From a won or lost position the
    /// line is exactly as long as the distance to mate (the winner takes the
    /// shortest win, the loser the longest loss) and ends the game; from a
    /// draw it never ends, so `max_plies` bounds it. Empty when the game is
    /// over.
    ///
    /// ```
    /// use morris_db::{Position, RuleSet, Value};
    /// use morris_probe::Database;
    ///
    /// // A tiny database: the sliding sector 3-3 of the standard game.
    /// let rules = RuleSet::preset("nine")?;
    /// let dir = tempfile::tempdir()?;
    /// let options = morris_solver::SolveOptions { max_stones: 6, progress: false };
    /// morris_solver::solve_sliding(&rules, dir.path(), &options)?;
    ///
    /// let db = Database::open(dir.path(), rules)?;
    /// let pos = Position::parse("W:a4,d1,g4 B:b2,d6,f2 w", db.rules().board())?;
    /// assert_eq!(db.value(&pos)?, Value::Win(15));
    /// let line = db.principal_line(&pos, 100)?;
    /// assert_eq!(line.len(), 15); // to the end of the game
    /// assert_eq!(line[0].1, Value::Win(15));
    /// assert_eq!(line[14].1, Value::Win(1));
    /// for (mv, value) in &line {
    ///     println!("{} {value:?}", mv.notation(db.rules().board()));
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Database::analyze`], for any position on the line.
    pub fn principal_line(&self, pos: &Position, max_plies: usize) -> Result<Vec<(Move, Value)>, ProbeError> {
        let mut line = Vec::new();
        let mut current = *pos;
        while line.len() < max_plies {
            let Some((mv, value)) = self.best_move(&current)? else {
                break;
            };
            line.push((mv, value));
            current = current.play_unchecked(mv);
        }
        Ok(line)
    }
}

/// A handle for many probes from one thread: it keeps the tables and
/// sector indexes it has used, so that a probe touches no lock and no
/// shared counter (each [`Database::value`] call takes a read lock and
/// clones shared handles, which threads probing at once contend for).
/// Answers exactly as [`Database::value`]. Get one per thread with
/// [`Database::prober`].
///
/// ```no_run
/// use morris_db::{Position, RuleSet};
/// use morris_probe::Database;
///
/// let db = Database::open("nine-db", RuleSet::preset("nine")?)?;
/// let positions: Vec<Position> = Vec::new(); // ... from an engine's search
/// std::thread::scope(|s| {
///     for chunk in positions.chunks(positions.len() / 2 + 1) {
///         let db = &db;
///         s.spawn(move || {
///             let mut prober = db.prober();
///             chunk.iter().map(|p| prober.value(p)).collect::<Vec<_>>()
///         });
///     }
/// });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Prober<'a> {
    db: &'a Database,
    tables: Vec<(Sector, morris_db::SectorIndex, Arc<Table>)>,
}

impl Database {
    /// A [`Prober`] for fast repeated probes from one thread.
    pub fn prober(&self) -> Prober<'_> {
        Prober { db: self, tables: Vec::new() }
    }
}

impl Prober<'_> {
    /// The value of `pos`, as [`Database::value`].
    ///
    /// # Errors
    /// As [`Database::value`].
    #[inline]
    pub fn value(&mut self, pos: &Position) -> Result<Value, ProbeError> {
        let rules = &self.db.rules;
        let sector = pos.sector();
        if rules.line_wins || sector.w + sector.wh < 3 || sector.b + sector.bh < 3 || pos.validate(rules).is_err() {
            // Every unusual case, and every error, as `Database::value` says.
            return self.db.value(pos);
        }
        let i = match self.tables.iter().position(|(s, _, _)| *s == sector) {
            Some(i) => i,
            None => {
                let table = self.db.table(sector)?;
                let index = rules.indexer().sector(sector.w as usize, sector.b as usize);
                self.tables.push((sector, index, table));
                self.tables.len() - 1
            }
        };
        let (_, index, table) = &self.tables[i];
        let slot = index.index(pos.us(), pos.them());
        table.value(slot).ok_or_else(|| {
            ProbeError::Table(TableError::Corrupt {
                path: table.path().to_path_buf(),
                field: "payload",
                detail: format!("slot {slot} of a canonical position holds no value"),
            })
        })
    }
}
