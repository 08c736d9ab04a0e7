//! Win/draw/loss queries from a directory of compact WDL files
//! (`morris export-wdl`; format in [`morris_db::wdl`]): two bits per
//! position instead of sixteen, for engines that need no distance to mate.
//!
//! ```
//! use morris_db::wdl::{export_table, wdl_path};
//! use morris_db::{Position, RuleSet, Sector, Table};
//! use morris_probe::wdl::{Wdl, WdlDatabase};
//!
//! // A tiny database: the sliding sector 3-3 of the standard game.
//! let rules = RuleSet::preset("nine")?;
//! let dtm = tempfile::tempdir()?;
//! let options = morris_solver::SolveOptions { max_stones: 6, progress: false };
//! morris_solver::solve_sliding(&rules, dtm.path(), &options)?;
//! // Its WDL export (what `morris export-wdl` writes).
//! let wdl_dir = tempfile::tempdir()?;
//! let sector = Sector::sliding(3, 3);
//! let slots = rules.indexer().sector(3, 3).len();
//! let table = Table::open(dtm.path(), &rules, sector, slots)?;
//! export_table(&table, &wdl_path(wdl_dir.path(), &rules, sector))?;
//!
//! let db = WdlDatabase::open(wdl_dir.path(), rules)?;
//! let pos = Position::parse("W:a4,a1,d3 B:a7,d1,c4 w", db.rules().board())?;
//! assert_eq!(db.wdl(&pos)?, Wdl::Draw);
//! let moves = db.analyze(&pos)?; // best first
//! assert_eq!(moves[0].1, Wdl::Draw);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use morris_db::wdl::{wdl_file_name, WdlTable};
use morris_db::{Move, Position, RuleSet, Sector, TableError};

pub use morris_db::wdl::Wdl;

use crate::{ProbeError, ProbeOptions};

/// An open WDL database: one rule set's WDL files in one directory. Cheap
/// to open; each file is mapped (and, by default, checksummed) on first use.
/// `Send + Sync`.
#[derive(Debug)]
pub struct WdlDatabase {
    dir: PathBuf,
    rules: RuleSet,
    options: ProbeOptions,
    tables: RwLock<HashMap<Sector, Arc<WdlTable>>>,
}

impl WdlDatabase {
    /// Opens the WDL files of `rules` in `dir`, with default options. Maps
    /// nothing yet.
    ///
    /// # Errors
    /// [`ProbeError::NoDatabase`] when `dir` is not a directory.
    pub fn open(dir: impl AsRef<Path>, rules: RuleSet) -> Result<WdlDatabase, ProbeError> {
        WdlDatabase::open_with(dir, rules, ProbeOptions::default())
    }

    /// Opens the WDL files of `rules` in `dir` with `options`.
    ///
    /// # Errors
    /// [`ProbeError::NoDatabase`] when `dir` is not a directory.
    pub fn open_with(dir: impl AsRef<Path>, rules: RuleSet, options: ProbeOptions) -> Result<WdlDatabase, ProbeError> {
        let dir = dir.as_ref().to_path_buf();
        if !dir.is_dir() {
            let why =
                if dir.exists() { "not a directory" } else { "does not exist (make one with `morris export-wdl`)" };
            return Err(ProbeError::NoDatabase { path: dir, why: why.to_string() });
        }
        Ok(WdlDatabase { dir, rules, options, tables: RwLock::new(HashMap::new()) })
    }

    /// The rule set.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The WDL file of `sector`, mapped and checked on first use.
    ///
    /// # Errors
    /// [`ProbeError::MissingTable`] when the file is not there;
    /// [`ProbeError::Table`] when it is damaged or of another rule set or
    /// sector.
    pub fn table(&self, sector: Sector) -> Result<Arc<WdlTable>, ProbeError> {
        if let Some(t) = self.tables.read().ok().and_then(|m| m.get(&sector).cloned()) {
            return Ok(t);
        }
        let len = self.rules.sector_index(sector).map_err(|e| ProbeError::Unreachable(e.to_string()))?.len();
        let table = match WdlTable::open(&self.dir, &self.rules, sector, len) {
            Ok(t) => t,
            Err(TableError::Missing { .. }) => {
                let file = wdl_file_name(self.rules.name(), sector);
                return Err(ProbeError::MissingTable {
                    sector,
                    dir: self.dir.clone(),
                    file,
                    hint: format!(
                        "; export it from a solved database with `morris export-wdl --rules {} --db DIR --out {}`",
                        self.rules.name(),
                        self.dir.display()
                    ),
                });
            }
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

    /// Win, draw or loss for the side to move in `pos`. A side to move with
    /// fewer than 3 stones has lost.
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] for a position the rule set does not
    /// allow, [`ProbeError::Unreachable`] when the opponent already has
    /// fewer than 3 stones (or, where a line wins, the side to move has a
    /// line), and the errors of [`WdlDatabase::table`].
    pub fn wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
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
            return Ok(Wdl::Loss);
        }
        if self.rules.line_wins {
            // Three Men's Morris: the opponent's line ended the game; a
            // line of the side to move cannot arise (WDL files read padding
            // as a draw, so this must be caught here).
            if self.rules.has_line(pos.them()) {
                return Ok(Wdl::Loss);
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
        let slot = self.rules.indexer().sector(sector.w as usize, sector.b as usize).index(pos.us(), pos.them());
        table.wdl(slot).ok_or_else(|| {
            ProbeError::Table(TableError::Corrupt {
                path: table.path().to_path_buf(),
                field: "payload",
                detail: format!("slot {slot} of a canonical position holds no value"),
            })
        })
    }

    /// Every legal move with its value for the mover, best first (wins,
    /// draws, losses; ties in notation order). Empty when the game is over.
    ///
    /// # Errors
    /// As [`WdlDatabase::wdl`], for the position or any position a move
    /// leads to.
    pub fn analyze(&self, pos: &Position) -> Result<Vec<(Move, Wdl)>, ProbeError> {
        self.wdl(pos)?;
        let board = self.rules.board();
        let mut out = pos
            .legal_moves(&self.rules)
            .into_iter()
            .map(|mv| Ok((mv, -self.wdl(&pos.play_unchecked(mv))?)))
            .collect::<Result<Vec<_>, ProbeError>>()?;
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.notation(board).cmp(&b.0.notation(board))));
        Ok(out)
    }
}

/// A handle for many WDL probes from one thread: it keeps the files and
/// sector indexes it has used, so that a probe touches no lock and no
/// shared counter. Answers exactly as [`WdlDatabase::wdl`]. Get one per
/// thread with [`WdlDatabase::prober`].
#[derive(Debug)]
pub struct WdlProber<'a> {
    db: &'a WdlDatabase,
    tables: Vec<(Sector, morris_db::SectorIndex, Arc<WdlTable>)>,
}

impl WdlDatabase {
    /// A [`WdlProber`] for fast repeated probes from one thread.
    pub fn prober(&self) -> WdlProber<'_> {
        WdlProber { db: self, tables: Vec::new() }
    }
}

impl WdlProber<'_> {
    /// Win, draw or loss for the side to move, as [`WdlDatabase::wdl`].
    ///
    /// # Errors
    /// As [`WdlDatabase::wdl`].
    #[inline]
    pub fn wdl(&mut self, pos: &Position) -> Result<Wdl, ProbeError> {
        let rules = &self.db.rules;
        let sector = pos.sector();
        if rules.line_wins || sector.w + sector.wh < 3 || sector.b + sector.bh < 3 || pos.validate(rules).is_err() {
            // Every unusual case, and every error, as `WdlDatabase::wdl` says.
            return self.db.wdl(pos);
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
        table.wdl(slot).ok_or_else(|| {
            ProbeError::Table(TableError::Corrupt {
                path: table.path().to_path_buf(),
                field: "payload",
                detail: format!("slot {slot} of a canonical position holds no value"),
            })
        })
    }
}
