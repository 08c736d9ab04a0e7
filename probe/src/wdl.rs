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
//! let slots = rules.indexer().sector(Sector::sliding(3, 3)).len();
//! let table = Table::open(dtm.path(), &rules, sector, slots)?;
//! export_table(&table, &wdl_path(wdl_dir.path(), &rules, sector))?;
//!
//! let db = WdlDatabase::open(wdl_dir.path(), rules)?;
//! let pos = Position::parse("W:a4,a1,d3 B:a7,d1,c4 w", db.rules())?;
//! assert_eq!(db.wdl(&pos)?, Wdl::Draw);
//! let moves = db.analyze(&pos)?; // best first
//! assert_eq!(moves[0].1, Wdl::Draw);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::Path;

use morris_db::wdl::{wdl_file_name, WdlTable};
use morris_db::{Bitboard, FileKind, Position, RuleSet, Sector, SectorIndex, Store, TableError};

pub use morris_db::wdl::Wdl;

use crate::tables::{no_value, Encoding, TableProber, Tables};
use crate::{MissingHint, ProbeError, ProbeOptions};

/// Our WDL files ([`morris_db::wdl`], `.mwdl`): win, draw or loss without
/// distance.
#[derive(Debug, Clone, Copy, Default)]
pub struct WdlFiles;

impl Encoding for WdlFiles {
    type File = WdlTable;
    type Answer = Wdl;

    fn open(&self, dir: &Path, rules: &RuleSet, sector: Sector) -> Result<WdlTable, TableError> {
        let len = rules.indexer().sector(sector).len();
        WdlTable::open_guarded(dir, rules, sector, len)
    }

    fn verify(&self, file: &WdlTable) -> Result<(), TableError> {
        file.verify_checksum()
    }

    #[inline]
    fn check_intact(&self, file: &WdlTable) -> Result<(), TableError> {
        file.check_intact()
    }

    fn is_current(&self, file: &WdlTable) -> bool {
        file.is_current()
    }

    #[inline]
    fn derived(&self, file: &WdlTable) -> bool {
        file.is_derived()
    }

    #[inline]
    fn lookup(
        &self,
        file: &WdlTable,
        rules: &RuleSet,
        index: Option<&SectorIndex>,
        us: Bitboard,
        them: Bitboard,
    ) -> Result<Wdl, ProbeError> {
        let slot = self.slot(file, rules, index, us, them);
        file.wdl(slot).ok_or_else(|| no_value(file.path(), slot))
    }

    #[inline]
    fn head(&self, file: &WdlTable, slot: u64) -> u64 {
        file.head(slot)
    }

    #[inline]
    fn step(&self, file: &WdlTable, slot: u64, head: u64) -> u64 {
        file.step(slot, head)
    }

    #[inline]
    fn at_slot(&self, file: &WdlTable, slot: u64, step: u64) -> Result<Wdl, ProbeError> {
        file.wdl_after(slot, step).ok_or_else(|| no_value(file.path(), slot))
    }

    fn lost(&self) -> Wdl {
        Wdl::Loss
    }

    fn missing(&self, _dir: &Path, rules: &RuleSet, sector: Sector) -> (String, MissingHint) {
        (wdl_file_name(rules.name(), sector), MissingHint::NotExported { rules: rules.name().to_string() })
    }

    fn no_directory(&self) -> &'static str {
        "does not exist (no WDL files were exported there)"
    }

    fn sectors(&self, dir: &Path, rules: &RuleSet) -> std::io::Result<Vec<Sector>> {
        Store::new(dir).sectors(rules, &[FileKind::Wdl])
    }
}

/// An open WDL database: one rule set's WDL files in one directory (the
/// front-end of [`crate::tables`] over [`WdlFiles`]). Cheap to open; each
/// file is mapped (and, by default, checksummed) on first use.
/// `Send + Sync`.
pub type WdlDatabase = Tables<WdlFiles>;

/// A handle for many WDL probes from one thread (see [`TableProber`]).
pub type WdlProber = TableProber<WdlFiles>;

impl Tables<WdlFiles> {
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
        Tables::with_encoding(dir, rules, options, WdlFiles)
    }

    /// Win, draw or loss for the side to move in `pos`, as
    /// [`Tables::value`].
    ///
    /// # Errors
    /// As [`Tables::value`].
    pub fn wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        self.value(pos)
    }
}

impl TableProber<WdlFiles> {
    /// Win, draw or loss for the side to move, as [`Tables::value`].
    ///
    /// # Errors
    /// As [`Tables::value`].
    #[inline]
    pub fn wdl(&mut self, pos: &Position) -> Result<Wdl, ProbeError> {
        self.value(pos)
    }
}
