//! `morris value`: the value of the start position of a rule set and of
//! every first move, solving whatever tables are missing first (with an
//! estimate of time, memory and disk, and a refusal when they do not fit).

use std::io::{BufRead, Write};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;
use morris_db::Position;
use morris_probe::Database;
use morris_solver::{solve_all_with, SolveEvent};

use crate::bars::SolveBars;
use crate::plan::Plan;
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
    /// Start a solve estimated to take more than a few minutes without
    /// asking (on a terminal the question is asked; elsewhere such a solve
    /// is refused without this flag).
    #[arg(long, short = 'y')]
    yes: bool,
    /// No progress bars.
    #[arg(long, short)]
    quiet: bool,
}

/// Solves estimated to take longer than this (seconds) need `--yes` or an
/// answer at the terminal.
const ASK_ABOVE_SECONDS: f64 = 180.0;

/// Whether a solve the plan says takes `seconds` may start: at once when it
/// is short or `yes`; else the answer to a question on a terminal, or an
/// error saying how to proceed when standard input is not one.
fn confirmed(seconds: f64, yes: bool, out: &mut impl Write) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    if yes || seconds <= ASK_ABOVE_SECONDS {
        return Ok(());
    }
    let duration = if seconds >= 5400.0 {
        format!("about {:.1} hours", seconds / 3600.0)
    } else {
        format!("about {:.0} minutes", seconds / 60.0)
    };
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        bail!("this solve would take {duration} (estimate above); run again with --yes to start it, or with --no-solve to use only the tables already there");
    }
    write!(out, "this solve would take {duration}; start it? [y/N] ")?;
    out.flush()?;
    let mut answer = String::new();
    stdin.lock().read_line(&mut answer).context("cannot read the answer")?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        bail!("not solved: the answer was not `yes`")
    }
}

/// Runs `morris value`.
pub fn run(args: ValueArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::output::stdout();
    let rules = args.rules.rule_set()?;
    let dir = &args.db.db;
    let plan = Plan::new(&rules, dir, u32::MAX, true, morris_solver::Finished::Keep);
    if !plan.is_empty() {
        if args.no_solve {
            bail!("tables are missing in {}; run without --no-solve to solve them", dir.display());
        }
        plan.report(&rules, dir, args.force, &mut out)?;
        confirmed(plan.seconds(), args.yes, &mut out)?;
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        solve_all_with(
            &rules,
            dir,
            &SolveBars::new(args.quiet, |e: &SolveEvent| crate::solve::report_event(e, false)),
        )?;
    }
    let db = Database::open(dir, rules.clone())?;
    let start = Position::start(&rules);
    let value = db.value(&start)?;
    writeln!(out, "rule set {}: start position `{}`: {value:?}", rules.name(), start.to_text(rules.board()))?;
    writeln!(out, "first moves (up to symmetry, best first):")?;
    let representatives = start.legal_moves_up_to_symmetry(&rules);
    for (mv, v) in db.analyze(&start)?.into_iter().filter(|(mv, _)| representatives.contains(mv)) {
        writeln!(out, "  {:<8} {v:?}", mv.notation(rules.board()))?;
    }
    Ok(ExitCode::SUCCESS)
}
