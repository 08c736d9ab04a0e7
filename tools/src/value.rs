//! `morris value`: the value of the start position of a rule set and of
//! every first move, solving whatever tables are missing first (with an
//! estimate of time, memory and disk, and a refusal when they do not fit).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;
use morris_db::table::{table_path, HEADER_SIZE};
use morris_db::{Position, RuleSet, Sector};
use morris_probe::Database;
use morris_solver::placement::placement_sectors;
use morris_solver::{sliding_pairs, solve_all};

use crate::{DbArg, RulesArg};

/// Arguments of `morris value`.
#[derive(Args)]
pub struct ValueArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// Only probe; fail instead of solving missing tables.
    #[arg(long)]
    no_solve: bool,
    /// Solve even when the estimate says the work does not fit.
    #[arg(long)]
    force: bool,
    /// No progress bars.
    #[arg(long, short)]
    quiet: bool,
}

/// Canonical-position rate assumed for the time estimate, per second on two
/// cores (measured on `nine`'s sliding sectors; placement is faster).
const ESTIMATED_RATE: f64 = 2.0e6;

/// What solving the missing tables would take.
struct Estimate {
    missing: usize,
    slots: u64,
    largest_pair_slots: u64,
}

fn estimate(rules: &RuleSet, dir: &Path) -> Estimate {
    let mut e = Estimate { missing: 0, slots: 0, largest_pair_slots: 0 };
    let len = |s: Sector| rules.indexer().sector(s.w as usize, s.b as usize).len();
    for (w, b) in sliding_pairs(rules, u32::MAX) {
        let mut pair = 0;
        for s in [Sector::sliding(w, b), Sector::sliding(b, w)] {
            if w == b && s.w != w {
                continue;
            }
            pair += len(s);
            if !table_path(dir, rules, s).exists() {
                e.missing += 1;
                e.slots += len(s);
            }
        }
        e.largest_pair_slots = e.largest_pair_slots.max(pair);
    }
    for s in placement_sectors(rules) {
        e.largest_pair_slots = e.largest_pair_slots.max(len(s));
        if !table_path(dir, rules, s).exists() {
            e.missing += 1;
            e.slots += len(s);
        }
    }
    e
}

fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// Runs `morris value`.
pub fn run(args: ValueArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let rules = args.rules.rule_set()?;
    let dir = &args.db.db;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let e = estimate(&rules, dir);
    if e.missing > 0 {
        if args.no_solve {
            bail!("{} tables are missing in {}; run without --no-solve to solve them", e.missing, dir.display());
        }
        let disk = e.slots * 2 + e.missing as u64 * HEADER_SIZE as u64;
        // Retrograde analysis keeps 3 bytes per slot of the largest pair.
        let memory = e.largest_pair_slots * 3 + (64 << 20);
        let free_disk = fs4::available_space(dir).ok();
        let free_memory = available_memory();
        writeln!(
            out,
            "solving {} missing tables of {}: {} slots; estimated {:.0} s on 2 cores, {} of memory, {} of disk (free: {} memory, {} disk)",
            e.missing,
            rules.name(),
            e.slots,
            e.slots as f64 / ESTIMATED_RATE,
            gib(memory),
            gib(disk),
            free_memory.map_or("unknown".into(), gib),
            free_disk.map_or("unknown".into(), gib),
        )?;
        let fits = free_disk.is_none_or(|f| f > disk) && free_memory.is_none_or(|f| f > memory);
        if !fits && !args.force {
            bail!("the solve does not fit this machine (see the figures above); --force to try anyway");
        }
        out.flush()?;
        solve_all(&rules, dir, !args.quiet)?;
    }
    let db = Database::open(dir, rules.clone())?;
    let start = Position::start(&rules);
    let value = db.value(&start)?;
    writeln!(out, "rule set {}: start position `{}`: {value:?}", rules.name(), start.to_text(rules.board()))?;
    writeln!(out, "first moves (up to symmetry, best first):")?;
    let mut seen = std::collections::HashSet::new();
    for (mv, v) in db.analyze(&start)? {
        let child = start.play_unchecked(mv);
        let slot = rules
            .indexer()
            .sector(child.us().count_ones() as usize, child.them().count_ones() as usize)
            .index(child.us(), child.them());
        if seen.insert(slot) {
            writeln!(out, "  {:<8} {v:?}", mv.notation(rules.board()))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
