//! Retrograde analysis of the morris family (DESIGN.md, "Solving"): fills
//! the tables of a rule set pair of sectors by pair, in an order where every
//! capture lands in a pair already solved, with exact DTM across sectors, in
//! parallel with rayon, reporting progress to a [`Progress`] (the library
//! draws nothing), skipping tables already on disk. The sliding phase first; then the placement phase, sector by
//! sector in one pass each, or under the Lasker rule (where a player with
//! stones in hand may move) pair by pair by retrograde analysis.
#![warn(missing_docs)]

mod pair;
pub mod placement;
pub mod progress;

pub use progress::{NoProgress, Progress};

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use morris_db::table::{table_path, write_table};
use morris_db::{RuleSet, Sector, Store, Table, TableError, TableHeader};

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
    #[error("{path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The rule set is not solved by this solver yet: its name in
    /// backquotes, then why in parentheses.
    #[error("rule set {0}: solving it is not supported yet")]
    Unsupported(String),
    /// An internal consistency check failed (a bug; the table was not written).
    #[error("internal error while solving sector {sector}: {detail}")]
    Internal {
        /// The sector being solved.
        sector: Sector,
        /// What went wrong.
        detail: String,
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
    /// Phase 2: ply-by-ply propagation (seconds).
    pub iterate_seconds: f64,
    /// Plies iterated (the longest DTM in the pair plus one or two).
    pub plies: u32,
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
}

/// The sliding pairs `(w, b)` with `w <= b`, both at least 3 and at most the
/// rule set's stones, `w + b <= max_stones`, in solving order (fewest stones
/// first: a capture lowers the total, so every capture lands in a pair
/// solved before).
pub fn sliding_pairs(rules: &RuleSet, max_stones: u32) -> Vec<(u8, u8)> {
    let n = rules.board().len() as u32;
    let mut pairs = Vec::new();
    for total in 6..=(2 * rules.stones as u32).min(max_stones).min(n) {
        for w in 3..=total / 2 {
            let b = total - w;
            if b <= rules.stones as u32 {
                pairs.push((w as u8, b as u8));
            }
        }
    }
    pairs
}

/// Solves every sliding sector with `w + b <= options.max_stones` of `rules`
/// into directory `dir` (created if missing), skipping sectors whose table is
/// already there with a valid header and checksum (a damaged table is solved
/// again and replaced). Removes left-over temporary files of an interrupted
/// run first. Every table a capture leads into is checksummed before it is
/// used.
///
/// # Errors
/// [`SolveError::Unsupported`] for rule sets whose sliding phase is not
/// handled yet; [`SolveError::Io`] when the directory cannot be used;
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
    if !sliding_supported(rules) {
        return Err(SolveError::Unsupported(format!(
            "`{}` (one removal per mill: a double mill captures two stones, into a sector not opened)",
            rules.name()
        )));
    }
    let start = Instant::now();
    let io = |source| SolveError::Io { path: dir.to_path_buf(), source };
    fs::create_dir_all(dir).map_err(io)?;
    remove_temporary_files(dir).map_err(io)?;
    let mut report = SolveReport::default();
    let pairs = sliding_pairs(rules, options.max_stones);
    progress.begin(rules.name(), "pairs", pairs.len() as u64);
    for (w, b) in pairs {
        let sectors: Vec<Sector> =
            if w == b { vec![Sector::sliding(w, b)] } else { vec![Sector::sliding(w, b), Sector::sliding(b, w)] };
        let missing = unsolved(rules, dir, &sectors);
        if missing.is_empty() {
            report.skipped.extend(sectors);
            progress.advance();
            continue;
        }
        progress.message(&format!("pair {w}-{b}"));
        let (solved, timing) = pair::solve_pair(rules, dir, Sector::sliding(w, b), progress)?;
        report.record(rules, dir, &missing, solved, timing)?;
        progress.advance();
    }
    progress.finish();
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// Whether this solver handles the sliding phase of `rules`: every rule
/// set but one removal per mill (a flight closing two mills captures into a
/// sector two stones down, which the solver does not open). The Lasker rule
/// changes nothing in the sliding phase (both hands are empty), so its
/// sliding sectors are solved here as those of the same rule set without it.
fn sliding_supported(rules: &RuleSet) -> bool {
    !rules.remove_per_mill
}

/// Solves the whole game of `rules`: every sliding sector first (as
/// [`solve_sliding`] with no stone limit), then every placement sector of
/// [`placement::placement_sectors`], fewest stones in hand first, down to
/// the start: one pass per sector, or under the Lasker rule retrograde
/// analysis pair by pair ([`placement::lasker_pairs`]). Tables already on
/// disk with a valid checksum are kept.
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
    if rules.lasker
        && rules.full_board == morris_db::rules::FullBoardOutcome::WhiteLoses
        && 2 * rules.stones as usize >= rules.board().len()
    {
        return Err(SolveError::Unsupported(format!(
            "`{}` (the Lasker rule with a full board lost by White: the side to move does not tell who is White)",
            rules.name()
        )));
    }
    let start = Instant::now();
    let mut report = solve_sliding_with(rules, dir, &SolveOptions { max_stones: u32::MAX, progress: false }, progress)?;
    let units: Vec<Vec<Sector>> = if rules.lasker {
        placement::lasker_pairs(rules)
            .into_iter()
            .map(|s| if s.mirrored() == s { vec![s] } else { vec![s, s.mirrored()] })
            .collect()
    } else {
        placement::placement_sectors(rules).into_iter().map(|s| vec![s]).collect()
    };
    let what = if rules.lasker { "Lasker placement pairs" } else { "placement sectors" };
    progress.begin(rules.name(), what, units.len() as u64);
    for unit in units {
        progress.message(&unit[0].to_string());
        let missing = unsolved(rules, dir, &unit);
        if missing.is_empty() {
            report.skipped.extend(unit);
            progress.advance();
            continue;
        }
        let t0 = Instant::now();
        let (solved, timing) = if rules.lasker {
            pair::solve_pair(rules, dir, unit[0], progress)?
        } else {
            let entries = placement::solve_placement_sector(rules, dir, unit[0])?;
            let timing = PairTiming {
                name: unit[0].to_string(),
                initialise_seconds: t0.elapsed().as_secs_f64(),
                iterate_seconds: 0.0,
                plies: 0,
            };
            (vec![(unit[0], entries)], timing)
        };
        report.record(rules, dir, &missing, solved, timing)?;
        progress.advance();
    }
    progress.finish();
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// The sectors of `sectors` without a table in `dir` that opens and passes
/// its checksum: those a solve must write.
fn unsolved(rules: &RuleSet, dir: &Path, sectors: &[Sector]) -> Vec<Sector> {
    sectors
        .iter()
        .copied()
        .filter(|&s| {
            let len = rules.indexer().sector(s.w as usize, s.b as usize).len();
            Table::open(dir, rules, s, len).and_then(|t| t.verify_checksum()).is_err()
        })
        .collect()
}

impl SolveReport {
    /// Writes the tables of a solved pair (or placement sector) that were
    /// `missing` and counts them; the others were on disk already.
    fn record(
        &mut self,
        rules: &RuleSet,
        dir: &Path,
        missing: &[Sector],
        solved: Vec<(Sector, Vec<u16>)>,
        timing: PairTiming,
    ) -> Result<(), SolveError> {
        self.pairs.push(timing);
        for (sector, entries) in solved {
            let header = TableHeader::for_entries(rules, sector, &entries);
            if missing.contains(&sector) {
                write_table(&table_path(dir, rules, sector), &header, &entries)?;
                self.positions += header.canonical_positions;
                self.solved.push(SectorReport { sector, header });
            } else {
                self.skipped.push(sector);
            }
        }
        Ok(())
    }
}

/// Removes `*.tmp` files that an interrupted run left behind.
fn remove_temporary_files(dir: &Path) -> std::io::Result<()> {
    for path in Store::new(dir).temporary_files()? {
        fs::remove_file(&path)?;
    }
    Ok(())
}
