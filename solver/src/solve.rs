//! Solving a rule set's tables into a directory, unit by unit: the sliding
//! pairs fewest stones first, then the placement sectors down to the start
//! (or one unit alone, for a cluster job), keeping tables already there,
//! under a directory lock, writing each table under a temporary name.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use morris_db::compressed::{compress_sector, expand_sector, DEFAULT_LEVEL};
use morris_db::table::{table_path, write_table};
use morris_db::{FileKind, RuleSet, Sector, Store, Table, TableError, TableHeader};

use crate::lock::DirLock;
use crate::progress::{NoProgress, Progress};
use crate::unit::{sector_slots, units, Unit, UnitKind};
use crate::{pair, placement, unit};

/// How to solve.
#[derive(Debug, Clone)]
pub struct SolveOptions {
    /// Solve the sliding sectors with `w + b <= max_stones` (stones on the
    /// board of both sides together).
    pub max_stones: u32,
    /// Kept for callers; the library draws nothing. Progress goes to the
    /// [`Progress`] given to [`solve_sliding_with`].
    pub progress: bool,
}

impl Default for SolveOptions {
    /// Every sliding sector, with progress.
    fn default() -> Self {
        SolveOptions { max_stones: u32::MAX, progress: true }
    }
}

/// Why a solve stopped.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// A table could not be written, or a solved table it depends on could
    /// not be read.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The database directory could not be created or listed.
    #[error("{path}: {error}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// The operating system's error (in the message, so not also the
        /// error's source: a chain would print it twice).
        error: std::io::Error,
    },
    /// The rule set is not solved by this solver yet: its name in
    /// backquotes, then why in parentheses.
    #[error("rule set {0}: solving it is not supported yet")]
    Unsupported(String),
    /// Another solve holds a lock this one needs ([`crate::lock`]): nothing was
    /// solved.
    #[error("{} is locked: {holder}; wait for it to finish (or solve other units side by side with `morris solve --only`)", lock.display())]
    Busy {
        /// The lock file.
        lock: PathBuf,
        /// Who holds it.
        holder: String,
    },
    /// `--only` named no unit of the rule set.
    #[error("no unit `{}` in rule set {rules}: {why}", morris_db::quoted(.name))]
    NoSuchUnit {
        /// The name given.
        name: String,
        /// The rule set's name.
        rules: String,
        /// Why not.
        why: String,
    },
    /// A table the unit reads is missing or damaged: nothing was solved.
    #[error("unit {unit} cannot start: {problem} (solve unit {producer} first)")]
    Input {
        /// The unit.
        unit: String,
        /// The unit whose table it is.
        producer: String,
        /// What is wrong with the table (in the message, so not also the
        /// error's source).
        problem: Box<TableError>,
    },
    /// The caller stopped the solve after a unit ([`Progress::unit_done`]),
    /// e.g. because a table failed verification; the tables written so
    /// far stay.
    #[error("solve stopped after unit {unit}: {reason}")]
    Stopped {
        /// The unit.
        unit: String,
        /// Why, as the caller said.
        reason: String,
    },
    /// An internal consistency check failed (a bug; the table was not written).
    #[error("internal error while solving sector {sector}: {detail}")]
    Internal {
        /// The sector being solved.
        sector: Sector,
        /// What went wrong.
        detail: String,
    },
}

/// What a solve does with a table once no unit left in the run reads it
/// ([`unit::releases`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Finished {
    /// Keep it as a `.mtb` table (two bytes a slot).
    #[default]
    Keep,
    /// Replace it by its compressed twin, a `.mtz` file of about 0.4 bytes a
    /// slot ([`morris_db::compressed::compress_sector`]: written under a
    /// temporary name, every slot checked, renamed, then the `.mtb` file
    /// removed), so the disk a run needs at once is the tables still to be
    /// read at random plus the compressed rest.
    Compress,
}

/// What a solve tells its caller while it runs ([`solve_sliding_with`],
/// [`solve_all_with`]), so that a command line can say it at once.
#[derive(Debug)]
pub enum SolveEvent<'a> {
    /// A table on disk cannot be used (damaged, cut short, of another rule
    /// set or sector): it is solved again and replaced.
    Damaged {
        /// The sector.
        sector: Sector,
        /// What is wrong with the file; it names the file.
        error: &'a TableError,
    },
    /// A pair of sliding sectors (or a placement sector, or a Lasker
    /// placement pair) has been solved and its tables written.
    Solved(&'a PairTiming),
    /// A table that no unit left in the run reads has been replaced by its
    /// compressed twin ([`Finished::Compress`]).
    Compressed {
        /// The sector.
        sector: Sector,
        /// Bytes of the `.mtb` table removed.
        before: u64,
        /// Bytes of the `.mtz` table written.
        after: u64,
        /// Wall time of the whole replacement (checking the `.mtb` table,
        /// compressing it, checking every slot of the twin, removing the
        /// original), seconds.
        seconds: f64,
    },
    /// A table the next unit reads was there only compressed (`.mtz`): its
    /// `.mtb` form has been written from it first, since the solver reads
    /// it at random.
    Expanded {
        /// The sector.
        sector: Sector,
    },
    /// A table the unit of [`solve_only`] reads is there only compressed
    /// (`.mtz`) and is read as it is, a block of 4096 slots decompressed
    /// for each look-up that misses the block cache: `--only` jobs may run
    /// side by side, so none writes the `.mtb` form of a table another
    /// unit made. Expect a much slower solve (`nine-diagonal-noflying`
    /// 6-7-1-0 from `.mtb` children: 100 s; from `.mtz` ones: stopped
    /// unfinished after 19 minutes).
    ReadCompressed {
        /// The sector.
        sector: Sector,
    },
}

/// What one solved sector holds.
#[derive(Debug, Clone)]
pub struct SectorReport {
    /// The sector.
    pub sector: Sector,
    /// Its header (counts, longest distances).
    pub header: TableHeader,
}

/// Where the time of one pair went.
#[derive(Debug, Clone)]
pub struct PairTiming {
    /// The pair, e.g. `3-4/4-3`.
    pub name: String,
    /// Phase 1: counters, capture look-ups, claims (seconds).
    pub initialise_seconds: f64,
    /// Phase 2: ply-by-ply propagation, and the entries gathered into
    /// the tables' slot order (seconds).
    pub iterate_seconds: f64,
    /// Plies iterated (the longest DTM in the pair plus one or two).
    pub plies: u32,
    /// Writing the unit's tables: their header statistics, checksums and
    /// files (seconds; 0 in the timing a solver returns, set when the
    /// tables are stored).
    pub store_seconds: f64,
}

/// What a solve did.
#[derive(Debug, Clone, Default)]
pub struct SolveReport {
    /// Sectors solved in this run.
    pub solved: Vec<SectorReport>,
    /// Sectors skipped because a valid table was already on disk.
    pub skipped: Vec<Sector>,
    /// Canonical positions solved in this run.
    pub positions: u64,
    /// Wall time of this run, seconds.
    pub seconds: f64,
    /// Per solved pair, where the time went.
    pub pairs: Vec<PairTiming>,
    /// Tables replaced by their compressed twins in this run
    /// ([`Finished::Compress`]).
    pub compressed: Vec<Sector>,
    /// Bytes of the `.mtb` tables those replaced, and of the `.mtz` files
    /// written for them.
    pub compressed_bytes: (u64, u64),
    /// Tables whose `.mtb` form was written from their `.mtz` twin because a
    /// unit of this run reads them.
    pub expanded: Vec<Sector>,
}

/// The sliding pairs `(w, b)` with `w <= b`, both at least 3 and at most the
/// rule set's stones, `w + b <= max_stones`, in solving order (fewest stones
/// first: a capture lowers the total, so every capture lands in a pair
/// solved before).
pub fn sliding_pairs(rules: &RuleSet, max_stones: u32) -> Vec<(u8, u8)> {
    let n = rules.board().len() as u32;
    let mut pairs = Vec::new();
    for total in 6..=(2 * rules.stones() as u32).min(max_stones).min(n) {
        for w in 3..=total / 2 {
            let b = total - w;
            if b <= rules.stones() as u32 {
                pairs.push((w as u8, b as u8));
            }
        }
    }
    pairs
}

/// Solves every sliding sector with `w + b <= options.max_stones` of `rules`
/// into directory `dir` (created if missing), skipping sectors whose table is
/// already there with a valid header and checksum (a damaged table is solved
/// again and replaced). Holds the directory's lock exclusively
/// ([`crate::lock::DirLock::whole`]) and removes left-over temporary files of an
/// interrupted run first. Every table a capture leads into is checksummed
/// before it is used.
///
/// # Errors
/// [`SolveError::Unsupported`] for rule sets whose sliding phase is not
/// handled yet; [`SolveError::Busy`] when another solve uses `dir`;
/// [`SolveError::Io`] when the directory cannot be used;
/// [`SolveError::Table`] when a table cannot be written or read.
pub fn solve_sliding(rules: &RuleSet, dir: &Path, options: &SolveOptions) -> Result<SolveReport, SolveError> {
    solve_sliding_with(rules, dir, options, &NoProgress)
}

/// As [`solve_sliding`], reporting to `progress`: one stage of `pairs`,
/// a message per pair and per ply.
///
/// # Errors
/// As [`solve_sliding`].
pub fn solve_sliding_with(
    rules: &RuleSet,
    dir: &Path,
    options: &SolveOptions,
    progress: &dyn Progress,
) -> Result<SolveReport, SolveError> {
    solve_sliding_finishing(rules, dir, options, Finished::Keep, progress)
}

/// As [`solve_sliding_with`], doing `finished` with each table once no
/// later pair of the run reads it.
///
/// # Errors
/// As [`solve_sliding`].
pub fn solve_sliding_finishing(
    rules: &RuleSet,
    dir: &Path,
    options: &SolveOptions,
    finished: Finished,
    progress: &dyn Progress,
) -> Result<SolveReport, SolveError> {
    check_supported(rules, false)?;
    let start = Instant::now();
    let _lock = DirLock::whole(dir)?;
    remove_temporary_files(dir, |_| true).map_err(|error| SolveError::Io { path: dir.to_path_buf(), error })?;
    let mut report = SolveReport::default();
    let run = Run::new(rules, dir, units(rules, options.max_stones, false), finished);
    run.solve(0..run.units.len(), "pairs", progress, &mut report)?;
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// Refuses rule sets this solver does not handle: one removal per mill (a
/// flight closing two mills captures into a sector two stones down, which
/// the solver does not open); with `placement`, also the Lasker rule with
/// a board that can fill up under a full-board rule that counts against
/// White (the tables are relative to the side to move, which does not tell
/// White from Black there). The Lasker rule changes nothing in the sliding
/// phase (both hands are empty), so its sliding sectors are solved as
/// those of the same rule set without it.
fn check_supported(rules: &RuleSet, placement: bool) -> Result<(), SolveError> {
    if rules.remove_per_mill() {
        return Err(SolveError::Unsupported(format!(
            "`{}` (one removal per mill: a double mill captures two stones, into a sector not opened)",
            rules.name()
        )));
    }
    if placement
        && rules.lasker()
        && rules.full_board() == morris_db::rules::FullBoardOutcome::WhiteLoses
        && 2 * rules.stones() as usize >= rules.board().len()
    {
        return Err(SolveError::Unsupported(format!(
            "`{}` (the Lasker rule with a full board lost by White: the side to move does not tell who is White)",
            rules.name()
        )));
    }
    Ok(())
}

/// The units of one run in solving order, and what to do with the tables
/// once no unit left reads them.
struct Run<'a> {
    rules: &'a RuleSet,
    dir: &'a Path,
    units: Vec<Unit>,
    finished: Finished,
    /// Per unit, the sectors due for `finished` after it
    /// ([`unit::releases`]).
    releases: Vec<Vec<Sector>>,
    /// Whether an input there only as `.mtz` is expanded to `.mtb` before
    /// a unit reads it ([`expand_inputs`]): not for `--only` jobs, which
    /// may run side by side and read the same inputs.
    expand: bool,
}

impl<'a> Run<'a> {
    fn new(rules: &'a RuleSet, dir: &'a Path, units: Vec<Unit>, finished: Finished) -> Run<'a> {
        let releases = unit::releases(rules, &units);
        Run { rules, dir, units, finished, releases, expand: true }
    }

    /// Solves the units `range` of the run in order, as one stage of
    /// `progress` counting `what`; after each one (solved or already
    /// there), does [`Run::finished`] with the tables due.
    fn solve(
        &self,
        range: std::ops::Range<usize>,
        what: &str,
        progress: &dyn Progress,
        report: &mut SolveReport,
    ) -> Result<(), SolveError> {
        progress.begin(self.rules.name(), what, range.len() as u64);
        for i in range {
            let unit = &self.units[i];
            progress.message(&unit.name());
            solve_unit(self.rules, self.dir, unit, self.expand, progress, report)?;
            progress
                .unit_done(&unit.name(), &unit.sectors)
                .map_err(|reason| SolveError::Stopped { unit: unit.name(), reason })?;
            for &sector in &self.releases[i] {
                if report.expanded.contains(&sector) {
                    // Written from its `.mtz` twin for this run's readers,
                    // all done now: the twin is the table again.
                    let path = Store::new(self.dir).path(self.rules.name(), sector, FileKind::Dtm);
                    fs::remove_file(&path).map_err(|error| TableError::Io { path, error })?;
                } else if self.finished == Finished::Compress {
                    compress_finished(self.rules, self.dir, sector, progress, report)?;
                }
            }
            progress.advance();
        }
        progress.finish();
        Ok(())
    }
}

/// Replaces `sector`'s `.mtb` table by its compressed twin when there is
/// one ([`morris_db::compressed::compress_sector`]); nothing when the table
/// is only compressed already (or is not there: a sector no unit solved).
fn compress_finished(
    rules: &RuleSet,
    dir: &Path,
    sector: Sector,
    progress: &dyn Progress,
    report: &mut SolveReport,
) -> Result<(), SolveError> {
    if !Store::new(dir).path(rules.name(), sector, FileKind::Dtm).exists() {
        return Ok(());
    }
    let start = Instant::now();
    let done = compress_sector(dir, rules, sector, DEFAULT_LEVEL, true)?;
    report.compressed.push(sector);
    report.compressed_bytes.0 += done.original_bytes;
    report.compressed_bytes.1 += done.report.bytes;
    progress.event(&SolveEvent::Compressed {
        sector,
        before: done.original_bytes,
        after: done.report.bytes,
        seconds: start.elapsed().as_secs_f64(),
    });
    Ok(())
}

/// Whether the table of `sector` is in `dir` only in its compressed form
/// (a `.mtz` file and no `.mtb`).
fn only_compressed(rules: &RuleSet, dir: &Path, sector: Sector) -> bool {
    let store = Store::new(dir);
    !store.path(rules.name(), sector, FileKind::Dtm).exists()
        && store.path(rules.name(), sector, FileKind::Compressed).exists()
}

/// Writes the `.mtb` form of every table `unit` reads that is there only
/// compressed ([`morris_db::compressed::expand_sector`]): the solver reads
/// its inputs at random, and a look-up in a `.mtz` file decompresses a
/// block of 4096 slots.
fn expand_inputs(
    rules: &RuleSet,
    dir: &Path,
    unit: &Unit,
    progress: &dyn Progress,
    report: &mut SolveReport,
) -> Result<(), SolveError> {
    for sector in unit.inputs(rules) {
        if only_compressed(rules, dir, sector) {
            expand_sector(dir, rules, sector)?;
            report.expanded.push(sector);
            progress.event(&SolveEvent::Expanded { sector });
        }
    }
    Ok(())
}

/// Solves one unit into `dir` unless every table of it is there with a
/// valid checksum; writes only the tables that are missing or damaged.
/// With `expand`, first writes the `.mtb` form of inputs there only as
/// `.mtz` ([`expand_inputs`]).
fn solve_unit(
    rules: &RuleSet,
    dir: &Path,
    unit: &Unit,
    expand: bool,
    progress: &dyn Progress,
    report: &mut SolveReport,
) -> Result<(), SolveError> {
    let missing: Vec<Sector> =
        unit.sectors.iter().copied().filter(|&s| needs_solving(rules, dir, s, progress)).collect();
    if missing.is_empty() {
        report.skipped.extend(&unit.sectors);
        return Ok(());
    }
    if expand {
        expand_inputs(rules, dir, unit, progress, report)?;
    }
    let t0 = Instant::now();
    let (solved, mut timing) = match unit.kind {
        UnitKind::Sliding | UnitKind::Lasker => pair::solve_pair(rules, dir, unit.sectors[0], progress)?,
        UnitKind::Placement => {
            let entries = placement::solve_placement_sector(rules, dir, unit.sectors[0])?;
            let timing = PairTiming {
                name: unit.name(),
                initialise_seconds: t0.elapsed().as_secs_f64(),
                iterate_seconds: 0.0,
                plies: 0,
                store_seconds: 0.0,
            };
            (vec![(unit.sectors[0], entries)], timing)
        }
    };
    let t1 = Instant::now();
    store(rules, dir, solved, &missing, report)?;
    timing.store_seconds = t1.elapsed().as_secs_f64();
    progress.event(&SolveEvent::Solved(&timing));
    report.pairs.push(timing);
    Ok(())
}

/// Solves the whole game of `rules`: every sliding sector first (as
/// [`solve_sliding`] with no stone limit), then every placement sector of
/// [`placement::placement_sectors`], fewest stones in hand first, down to
/// the start: one pass per sector, or under the Lasker rule retrograde
/// analysis pair by pair ([`placement::lasker_pairs`]). Tables already on
/// disk with a valid checksum are kept. Holds the directory's lock
/// exclusively.
///
/// # Errors
/// [`SolveError::Unsupported`] for one removal per mill, and for the Lasker
/// rule with a board that can fill up under a full-board rule that counts
/// against White (the tables are relative to the side to move, which does
/// not tell White from Black there); otherwise as [`solve_sliding`].
pub fn solve_all(rules: &RuleSet, dir: &Path, progress: bool) -> Result<SolveReport, SolveError> {
    // `progress` is kept for callers; the library draws nothing.
    let _ = progress;
    solve_all_with(rules, dir, &NoProgress)
}

/// As [`solve_all`], reporting to `progress`: the stage of [`solve_sliding_with`],
/// then one stage of placement sectors (or Lasker placement pairs).
///
/// # Errors
/// As [`solve_all`].
pub fn solve_all_with(rules: &RuleSet, dir: &Path, progress: &dyn Progress) -> Result<SolveReport, SolveError> {
    solve_all_finishing(rules, dir, Finished::Keep, progress)
}

/// As [`solve_all_with`], doing `finished` with each table once no later
/// unit of the whole game reads it: with [`Finished::Compress`], a sliding
/// table becomes `.mtz` after the last placement sector that places into
/// it, a placement table after its last parent sector, the start sector at
/// once. Tables already there are treated alike as the run passes them, so
/// a directory of `.mtb` sliding tables has those no placement sector reads
/// compressed at once. A kill at any point leaves every table whole, as
/// `.mtb` or as a checked `.mtz`; a rerun continues.
///
/// # Errors
/// As [`solve_all`].
pub fn solve_all_finishing(
    rules: &RuleSet,
    dir: &Path,
    finished: Finished,
    progress: &dyn Progress,
) -> Result<SolveReport, SolveError> {
    check_supported(rules, true)?;
    let start = Instant::now();
    let _lock = DirLock::whole(dir)?;
    remove_temporary_files(dir, |_| true).map_err(|error| SolveError::Io { path: dir.to_path_buf(), error })?;
    let mut report = SolveReport::default();
    let run = Run::new(rules, dir, units(rules, u32::MAX, true), finished);
    let sliding = run.units.iter().take_while(|u| u.kind == UnitKind::Sliding).count();
    run.solve(0..sliding, "pairs", progress, &mut report)?;
    let what = if rules.lasker() { "Lasker placement pairs" } else { "placement sectors" };
    run.solve(sliding..run.units.len(), what, progress, &mut report)?;
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// Solves exactly one unit of `rules` into `dir`: the unit holding sector
/// `name` ([`unit::find_unit`]). Skips it when its tables are there with
/// valid checksums; otherwise checks that every table it reads is there
/// and intact (a job of `morris plan --slurm` cannot trust its
/// dependencies alone), removes its own left-over temporary files, solves
/// it, and writes its tables under temporary names, renamed when complete.
/// Holds the directory's lock shared and the unit's exclusively
/// ([`crate::lock::DirLock::unit`]), so units of one directory can be solved side
/// by side. Reports to `progress` as one stage of one unit.
///
/// # Errors
/// [`SolveError::NoSuchUnit`], [`SolveError::Busy`], [`SolveError::Input`]
/// (nothing solved), and as [`solve_all`].
pub fn solve_only(rules: &RuleSet, dir: &Path, name: &str, progress: &dyn Progress) -> Result<SolveReport, SolveError> {
    let unit = unit::find_unit(rules, name)?;
    check_supported(rules, unit.kind != UnitKind::Sliding)?;
    let start = Instant::now();
    let _lock = DirLock::unit(dir, rules, &unit)?;
    let own: Vec<String> =
        unit.sectors.iter().map(|&s| table_path(dir, rules, s).to_string_lossy().into_owned() + ".tmp").collect();
    remove_temporary_files(dir, |tmp| own.iter().any(|o| o == tmp))
        .map_err(|error| SolveError::Io { path: dir.to_path_buf(), error })?;
    let all_valid = unit
        .sectors
        .iter()
        .all(|&s| Table::open(dir, rules, s, sector_slots(rules, s)).and_then(|t| t.verify_checksum()).is_ok());
    if !all_valid {
        let all = units(rules, u32::MAX, true);
        for input in unit.inputs(rules) {
            if let Err(problem) =
                Table::open(dir, rules, input, sector_slots(rules, input)).and_then(|t| t.verify_checksum())
            {
                let producer = all.iter().find(|u| u.sectors.contains(&input)).map_or(input.to_string(), Unit::name);
                return Err(SolveError::Input { unit: unit.name(), producer, problem: Box::new(problem) });
            }
            if only_compressed(rules, dir, input) {
                progress.event(&SolveEvent::ReadCompressed { sector: input });
            }
        }
    }
    let mut report = SolveReport::default();
    let run = Run { expand: false, ..Run::new(rules, dir, vec![unit], Finished::Keep) };
    run.solve(0..1, "units", progress, &mut report)?;
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// Whether `sector`'s table must be solved: it is missing, or it is there
/// but cannot be used (then `progress` is told why before it is replaced).
fn needs_solving(rules: &RuleSet, dir: &Path, sector: Sector, progress: &dyn Progress) -> bool {
    match Table::open(dir, rules, sector, sector_slots(rules, sector)).and_then(|t| t.verify_checksum()) {
        Ok(()) => false,
        Err(TableError::Missing { .. }) => true,
        Err(error) => {
            progress.event(&SolveEvent::Damaged { sector, error: &error });
            true
        }
    }
}

/// Writes the tables of `solved` that were `missing` (counting them in
/// `report`; the others are kept as they are), a pair's two side by side.
/// A table written replaces both forms on disk: the compressed twin
/// (`.mtz`) of a re-solved table is removed, so no stale copy stays beside
/// the new `.mtb`.
fn store(
    rules: &RuleSet,
    dir: &Path,
    solved: Vec<(Sector, Vec<u16>)>,
    missing: &[Sector],
    report: &mut SolveReport,
) -> Result<(), SolveError> {
    let (solved, kept): (Vec<_>, Vec<_>) = solved.into_iter().partition(|(sector, _)| missing.contains(sector));
    report.skipped.extend(kept.into_iter().map(|(sector, _)| sector));
    let write = |(sector, entries): (Sector, Vec<u16>)| -> Result<SectorReport, TableError> {
        let header = TableHeader::for_entries(rules, sector, &entries);
        write_table(&table_path(dir, rules, sector), &header, &entries)?;
        let twin = Store::new(dir).path(rules.name(), sector, FileKind::Compressed);
        match fs::remove_file(&twin) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(TableError::Io { path: twin, error }),
            _ => Ok(SectorReport { sector, header }),
        }
    };
    // In order, each table's result in its place, so the report does not
    // depend on which write finished first.
    let written: Vec<Result<SectorReport, TableError>> = solved.into_par_iter().map(write).collect();
    for done in written {
        let done = done?;
        report.positions += done.header.canonical_positions;
        report.solved.push(done);
    }
    Ok(())
}

/// Removes the `*.tmp` files that an interrupted run left behind and
/// `which` selects (by path).
fn remove_temporary_files(dir: &Path, which: impl Fn(&str) -> bool) -> std::io::Result<()> {
    for path in Store::new(dir).temporary_files()? {
        if which(&path.to_string_lossy()) {
            fs::remove_file(&path)?;
        }
    }
    Ok(())
}
