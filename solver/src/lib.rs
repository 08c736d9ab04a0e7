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
use morris_db::{FileKind, RuleSet, Sector, Store, Table, TableError, TableHeader};

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
    /// An internal consistency check failed (a bug; the table was not written).
    #[error("internal error while solving sector {sector}: {detail}")]
    Internal {
        /// The sector being solved.
        sector: Sector,
        /// What went wrong.
        detail: String,
    },
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
    let io = |error| SolveError::Io { path: dir.to_path_buf(), error };
    if dir.exists() && !dir.is_dir() {
        // create_dir_all would say only "File exists".
        return Err(io(std::io::Error::new(std::io::ErrorKind::InvalidInput, "exists and is not a directory")));
    }
    fs::create_dir_all(dir).map_err(io)?;
    remove_temporary_files(dir).map_err(io)?;
    let mut report = SolveReport::default();
    let pairs = sliding_pairs(rules, options.max_stones);
    progress.begin(rules.name(), "pairs", pairs.len() as u64);
    for (w, b) in pairs {
        let sectors: Vec<Sector> =
            if w == b { vec![Sector::sliding(w, b)] } else { vec![Sector::sliding(w, b), Sector::sliding(b, w)] };
        let missing: Vec<Sector> =
            sectors.iter().copied().filter(|&s| needs_solving(rules, dir, s, progress)).collect();
        if missing.is_empty() {
            report.skipped.extend(sectors);
            progress.advance();
            continue;
        }
        progress.message(&format!("pair {w}-{b}"));
        let (solved, timing) = pair::solve_pair(rules, dir, Sector::sliding(w, b), progress)?;
        store(rules, dir, solved, &missing, &mut report)?;
        progress.event(&SolveEvent::Solved(&timing));
        report.pairs.push(timing);
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
        let missing: Vec<Sector> = unit.iter().copied().filter(|&s| needs_solving(rules, dir, s, progress)).collect();
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
        store(rules, dir, solved, &missing, &mut report)?;
        progress.event(&SolveEvent::Solved(&timing));
        report.pairs.push(timing);
        progress.advance();
    }
    progress.finish();
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// Whether `sector`'s table must be solved: it is missing, or it is there
/// but cannot be used (then `progress` is told why before it is replaced).
fn needs_solving(rules: &RuleSet, dir: &Path, sector: Sector, progress: &dyn Progress) -> bool {
    let len = rules.indexer().sector(sector.w as usize, sector.b as usize).len();
    match Table::open(dir, rules, sector, len).and_then(|t| t.verify_checksum()) {
        Ok(()) => false,
        Err(TableError::Missing { .. }) => true,
        Err(error) => {
            progress.event(&SolveEvent::Damaged { sector, error: &error });
            true
        }
    }
}

/// Writes the tables of `solved` that were `missing` (counting them in
/// `report`; the others are kept as they are). A table written replaces
/// both forms on disk: the compressed twin (`.mtz`) of a re-solved table
/// is removed, so no stale copy stays beside the new `.mtb`.
fn store(
    rules: &RuleSet,
    dir: &Path,
    solved: Vec<(Sector, Vec<u16>)>,
    missing: &[Sector],
    report: &mut SolveReport,
) -> Result<(), SolveError> {
    for (sector, entries) in solved {
        if !missing.contains(&sector) {
            report.skipped.push(sector);
            continue;
        }
        let header = TableHeader::for_entries(rules, sector, &entries);
        let path = table_path(dir, rules, sector);
        write_table(&path, &header, &entries)?;
        let twin = Store::new(dir).path(rules.name(), sector, FileKind::Compressed);
        match fs::remove_file(&twin) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(TableError::Io { path: twin, error }.into()),
        }
        report.positions += header.canonical_positions;
        report.solved.push(SectorReport { sector, header });
    }
    Ok(())
}

/// Removes `*.tmp` files that an interrupted run left behind.
fn remove_temporary_files(dir: &Path) -> std::io::Result<()> {
    for path in Store::new(dir).temporary_files()? {
        fs::remove_file(&path)?;
    }
    Ok(())
}
