//! `morris solve`: solve sliding sectors into a database directory.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use morris_solver::{solve_all, solve_only, solve_sliding, SolveOptions, SolveReport};

use crate::plan::Plan;
use crate::{DbArg, RulesArg};

/// The phases `morris solve` can solve.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Phase {
    /// The sliding phase: both hands empty.
    Sliding,
    /// The whole game: sliding sectors first, then placement sectors.
    All,
}

/// Arguments of `morris solve`.
#[derive(Args)]
pub struct SolveArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// Solve only sectors with at most N stones on the board in all
    /// (w + b <= N); default: every sliding sector (49 for `nine`).
    #[arg(long, value_name = "N")]
    max_stones: Option<u32>,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// No progress bars.
    #[arg(long, short)]
    quiet: bool,
    /// Which phase: `sliding` (both hands empty) or `all` (the sliding
    /// sectors, then every placement sector down to the start position).
    #[arg(long, value_enum, default_value = "sliding")]
    phase: Phase,
    /// Solve even when the estimate says the work does not fit.
    #[arg(long)]
    force: bool,
    /// Also print, per solved pair, the time of each phase and the plies.
    #[arg(long, short)]
    verbose: bool,
    /// Print what the solve would take (tables missing, slots, estimated
    /// time, memory and disk) and stop without solving.
    #[arg(long)]
    plan: bool,
    /// Solve exactly one unit: the sliding pair, placement sector or Lasker
    /// placement pair holding sector UNIT (`w-b` or `w-b-wh-bh`), as the
    /// jobs of `morris plan --slurm` do. Refuses when a table it reads is
    /// missing or damaged; does nothing when its tables are there and
    /// intact. Units of one directory can be solved side by side.
    #[arg(long, value_name = "UNIT", conflicts_with_all = ["max_stones", "phase", "plan"])]
    only: Option<String>,
}

/// Runs `morris solve`.
pub fn run(args: SolveArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let rules = args.rules.rule_set()?;
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global().context("cannot start the worker threads")?;
    }
    if let Some(unit) = &args.only {
        let report = solve_only(&rules, &args.db.db, unit, !args.quiet)?;
        print_replaced(&report);
        if report.solved.is_empty() {
            writeln!(out, "unit {unit} of {}: its tables are there and intact, nothing to do", rules.name())?;
        } else {
            writeln!(
                out,
                "unit {unit} of {}: solved {} table{} ({} canonical positions) in {:.2} s ({} threads, peak memory {})",
                rules.name(),
                report.solved.len(),
                if report.solved.len() == 1 { "" } else { "s" },
                report.positions,
                report.seconds,
                rayon::current_num_threads(),
                peak_memory().unwrap_or_else(|| "unknown".to_string()),
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let options = SolveOptions { max_stones: args.max_stones.unwrap_or(u32::MAX), progress: !args.quiet };
    let plan = Plan::new(&rules, &args.db.db, options.max_stones, args.phase == Phase::All);
    if args.plan {
        if plan.is_empty() {
            writeln!(out, "nothing to solve: every table is in {}", args.db.db.display())?;
        } else {
            plan.report(&rules, &args.db.db, true, &mut out)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !plan.is_empty() && !args.quiet {
        plan.report(&rules, &args.db.db, args.force, &mut out)?;
    }
    let start = Instant::now();
    let report = match args.phase {
        Phase::Sliding => solve_sliding(&rules, &args.db.db, &options)?,
        Phase::All => {
            if args.max_stones.is_some() {
                anyhow::bail!("--max-stones limits the sliding phase only; drop it with --phase all");
            }
            solve_all(&rules, &args.db.db, !args.quiet)?
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    print_replaced(&report);
    writeln!(out,
        "rule set {}: solved {} tables ({} canonical positions), kept {} already on disk, in {:.2} s ({:.2} M positions/s, {} threads, peak memory {})",
        rules.name(),
        report.solved.len(),
        report.positions,
        report.skipped.len(),
        seconds,
        report.positions as f64 / seconds.max(1e-9) / 1e6,
        rayon::current_num_threads(),
        peak_memory().unwrap_or_else(|| "unknown".to_string()),
    )?;
    if args.verbose {
        for p in &report.pairs {
            writeln!(
                out,
                "pair {:<9} initialise {:>8.3} s, iterate {:>8.3} s, {} plies",
                p.name, p.initialise_seconds, p.iterate_seconds, p.plies
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Says on standard error which damaged tables were solved again.
fn print_replaced(report: &SolveReport) {
    for (sector, why) in &report.replaced {
        eprintln!("note: the table of {sector} was damaged ({why}); solved it again");
    }
}

/// The process's peak resident memory, from /proc (Linux only).
pub fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(format!("{:.1} MiB", kib / 1024.0))
}
