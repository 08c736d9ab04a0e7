//! `morris solve`: solve sliding sectors into a database directory.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use morris_solver::{
    solve_all_finishing, solve_only, solve_sliding_finishing, Finished, SolveEvent, SolveOptions, SolveReport,
};

use crate::args::{DbArg, Phase, RulesArg, ThreadsArg};
use crate::ui::bars::SolveBars;
use crate::ui::events::report_event;
use crate::ui::peak_memory;
use crate::ui::verified::write_outcome;
use morris_solver::estimate::Plan;
use morris_solver::Progress;
use std::sync::Mutex;

use morris_db::Sector;
use morris_verify::ledger::Ledger;
use morris_verify::{Outcome, Session, Verifier};

/// Solve a rule set's sectors into a database directory.
///
/// Solve a rule set's sectors into a database directory: the sliding
/// phase, or with `--phase all` the whole game.
///
/// Sectors are solved pair by pair, fewest stones first; tables already
/// in the directory are kept, so an interrupted run continues where it
/// stopped.
#[derive(Args)]
pub struct SolveArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// Solve only sectors with at most N stones on the board in all
    /// (w + b <= N); default: every sliding sector (49 for `nine`).
    #[arg(long, value_name = "N", value_parser = crate::args::number::<u32>(6..=24))]
    max_stones: Option<u32>,
    #[command(flatten)]
    threads: ThreadsArg,
    /// No progress bars.
    #[arg(long, short)]
    quiet: bool,
    /// Which phase: `sliding` (both hands empty) or `all` (the sliding
    /// sectors, then every placement sector down to the start position).
    #[arg(long, value_enum, default_value = "sliding")]
    phase: Phase,
    /// Solve even when the estimate says the work does not fit the free
    /// memory or disk (`--yes` says the same).
    #[arg(long, visible_alias = "yes")]
    force: bool,
    /// Also print, per solved pair, the time of each phase and the plies,
    /// and with `--verify` each table's check (also under `--quiet`).
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
    #[arg(long, value_name = "UNIT", conflicts_with_all = ["max_stones", "phase", "plan", "compress"])]
    only: Option<String>,
    /// Replace each table by its compressed twin (`.mtz`, every slot
    /// checked, then the `.mtb` removed) as soon as no unit left in this run
    /// reads it, so the disk peak is the tables still to be read plus the
    /// compressed rest. Tables already in DIR are treated alike.
    #[arg(long)]
    compress: bool,
    /// Verify each unit's tables with the independent verifier (as `morris
    /// verify`) as soon as they are on disk, while the tables they read
    /// are still in the page cache, recording each in the ledger; a table
    /// that fails stops the solve. Units kept from an earlier run are
    /// verified too, unless the ledger has them already.
    #[arg(long)]
    verify: bool,
    /// The ledger of verified tables for --verify (docs/ledger.md);
    /// default `verified.csv` in DIR.
    #[arg(long, value_name = "FILE", requires = "verify")]
    ledger: Option<std::path::PathBuf>,
}

/// Runs `morris solve`.
pub fn run(args: SolveArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set_in(&args.db.db, crate::args::DirUse::Creates)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.count())
        .build_global()
        .context("cannot start the worker threads")?;
    if !args.plan {
        morris_db::Store::new(&args.db.db)
            .check_writable()
            .with_context(|| format!("cannot write to {}", args.db.db.display()))?;
    }
    if let Some(unit) = &args.only {
        let observer = SolveBars::new(args.quiet, |event: &SolveEvent| report_event(event, args.verbose));
        let verifier = Verifier::new(&args.db.db, rules.clone());
        let observer = Verifying::new(observer, &verifier, &args)?;
        let report = solve_only(&rules, &args.db.db, unit, &observer)?;
        observer.summary()?;
        if report.solved.is_empty() {
            writeln!(out, "unit {unit} of {}: its tables are there and intact, nothing to do", rules.name())?;
        } else {
            writeln!(
                out,
                "unit {unit} of {}: solved {} in {:.2} s ({})",
                rules.name(),
                tables_and_positions(&report),
                report.seconds,
                threads_and_memory(),
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let options = SolveOptions { max_stones: args.max_stones.unwrap_or(u32::MAX), progress: !args.quiet };
    let finished = if args.compress { Finished::Compress } else { Finished::Keep };
    let plan = Plan::new(&rules, &args.db.db, options.max_stones, args.phase == Phase::All, finished);
    if args.plan {
        if plan.is_empty() {
            writeln!(out, "nothing to solve: every table is in {}", args.db.db.display())?;
        } else {
            crate::ui::report_plan(&plan, &rules, &args.db.db, true, &mut out)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !plan.is_empty() && !args.quiet {
        crate::ui::report_plan(&plan, &rules, &args.db.db, args.force, &mut out)?;
    }
    let start = Instant::now();
    let observer = SolveBars::new(args.quiet, |event: &SolveEvent| report_event(event, args.verbose));
    let verifier = Verifier::new(&args.db.db, rules.clone());
    let observer = Verifying::new(observer, &verifier, &args)?;
    let report = match args.phase {
        Phase::Sliding => solve_sliding_finishing(&rules, &args.db.db, &options, finished, &observer)?,
        Phase::All => {
            if args.max_stones.is_some() {
                anyhow::bail!("--max-stones limits the sliding phase only; drop it with --phase all");
            }
            solve_all_finishing(&rules, &args.db.db, finished, &observer)?
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "rule set {}: solved {}, kept {} already on disk, in {:.2} s ({:.2} M positions/s, {})",
        rules.name(),
        tables_and_positions(&report),
        report.skipped.len(),
        seconds,
        report.positions as f64 / seconds.max(1e-9) / 1e6,
        threads_and_memory(),
    )?;
    observer.summary()?;
    if !report.compressed.is_empty() {
        let (before, after) = report.compressed_bytes;
        writeln!(
            out,
            "compressed {} ({before} bytes of .mtb to {after} of .mtz, every slot checked)",
            crate::ui::plural(report.compressed.len() as u64, "table", "tables"),
        )?;
    }
    if !report.expanded.is_empty() {
        writeln!(
            out,
            "expanded {} from .mtz to .mtb for the units that read them (removed again after the last one)",
            crate::ui::plural(report.expanded.len() as u64, "table", "tables"),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `N tables (M canonical positions)`: what a solve wrote.
fn tables_and_positions(report: &SolveReport) -> String {
    format!(
        "{} ({})",
        crate::ui::plural(report.solved.len() as u64, "table", "tables"),
        crate::ui::plural(report.positions, "canonical position", "canonical positions")
    )
}

/// `N threads, peak memory M`: what a solve ran with.
fn threads_and_memory() -> String {
    format!(
        "{}, peak memory {}",
        crate::ui::plural(rayon::current_num_threads() as u64, "thread", "threads"),
        peak_memory()
    )
}

/// The solve's progress bars, and with `--verify` each unit's tables
/// verified once they are on disk ([`Progress::unit_done`]), through a
/// ledger [`Session`]: a table a ledger row vouches for is not checked
/// again, one that passes gets a row, one that fails (or cannot be
/// checked) stops the solve.
struct Verifying<'a> {
    bars: SolveBars<'a>,
    session: Option<Mutex<Session<'a>>>,
    /// Print only the checks that fail (`--quiet` without `--verbose`).
    quiet: bool,
}

impl<'a> Verifying<'a> {
    fn new(bars: SolveBars<'a>, verifier: &'a Verifier, args: &SolveArgs) -> anyhow::Result<Verifying<'a>> {
        let session = if args.verify {
            std::fs::create_dir_all(&args.db.db)
                .with_context(|| format!("cannot create database directory {}", args.db.db.display()))?;
            let ledger = Ledger::of_database(&args.db.db, verifier.rules(), args.ledger.as_deref())?;
            for warning in ledger.warnings() {
                crate::ui::output::errln!("warning: {warning}");
            }
            Some(Mutex::new(Session::new(verifier, ledger, false)))
        } else {
            None
        };
        Ok(Verifying { bars, session, quiet: args.quiet && !args.verbose })
    }

    /// Verifies `sector`'s table; `Err` with why the solve must stop.
    fn verify(&self, session: &mut Session, sector: Sector) -> Result<(), String> {
        self.bars.message(&format!("verify {sector}"));
        let outcome = session.table(sector, &|_| {}).map_err(|e| e.to_string())?;
        let failed = match &outcome {
            Outcome::Checked(report) => !report.is_ok(),
            Outcome::NotChecked { .. } => true,
            Outcome::Ledger(_) => false,
        };
        if failed || !self.quiet {
            let mut out = crate::ui::output::stdout();
            self.bars
                .suspend(|| write_outcome(&mut out, sector, &outcome).and_then(|()| out.flush()))
                .map_err(|e| format!("cannot write to standard output: {e}"))?;
        }
        match outcome {
            Outcome::Checked(report) if !report.is_ok() => Err(format!(
                "the table of sector {sector} failed verification ({} in {})",
                crate::ui::plural(report.fault_count, "fault", "faults"),
                report.path.display()
            )),
            Outcome::NotChecked { dependency, .. } => Err(format!(
                "the table of sector {sector} cannot be verified: the table of sector {dependency}, which it depends on, is damaged"
            )),
            _ => Ok(()),
        }
    }

    /// Prints how many tables were verified, and where they are recorded.
    fn summary(&self) -> std::io::Result<()> {
        let Some(session) = &self.session else { return Ok(()) };
        let Ok(session) = session.lock() else { return Ok(()) };
        let tally = session.tally();
        writeln!(
            crate::ui::output::stdout(),
            "verified {}: {} from the ledger, {} now (ledger {})",
            crate::ui::plural(tally.verified() as u64, "table", "tables"),
            tally.from_ledger,
            tally.now,
            session.ledger().path().display()
        )
    }
}

impl Progress for Verifying<'_> {
    fn begin(&self, rules: &str, what: &str, units: u64) {
        self.bars.begin(rules, what, units)
    }

    fn message(&self, text: &str) {
        self.bars.message(text)
    }

    fn advance(&self) {
        self.bars.advance()
    }

    fn finish(&self) {
        self.bars.finish()
    }

    fn event(&self, event: &SolveEvent) {
        self.bars.event(event)
    }

    fn unit_done(&self, _unit: &str, sectors: &[Sector]) -> Result<(), String> {
        let Some(session) = &self.session else { return Ok(()) };
        let mut session = session.lock().map_err(|_| "the verifier stopped".to_string())?;
        sectors.iter().try_for_each(|&sector| self.verify(&mut session, sector))
    }
}
