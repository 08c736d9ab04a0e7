//! `morris value`: the value of the start position of a rule set and of
//! every first move, solving whatever tables are missing first (with an
//! estimate of time, memory and disk, and a refusal when they do not fit).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;
use morris_db::Position;
use morris_probe::Database;
use morris_solver::solve_all_with;

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
    /// No progress bars.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `morris value`.
pub fn run(args: ValueArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let rules = args.rules.rule_set()?;
    let dir = &args.db.db;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let plan = Plan::new(&rules, dir, u32::MAX, true);
    if !plan.is_empty() {
        if args.no_solve {
            bail!("tables are missing in {}; run without --no-solve to solve them", dir.display());
        }
        plan.report(&rules, dir, args.force, &mut out)?;
        solve_all_with(&rules, dir, &SolveBars::new(args.quiet))?;
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
