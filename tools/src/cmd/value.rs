//! `morris value`: the value of the start position of a rule set and of
//! every first move, solving whatever tables are missing first (with an
//! estimate of time, memory and disk, and a refusal when they do not fit).

use std::io::{BufRead, Write};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;
use morris_db::{Position, Store, Table, Value};
use morris_probe::Database;
use morris_solver::{solve_all_with, SolveEvent};

use crate::args::{DbArg, RulesArg};
use crate::ui::bars::SolveBars;
use morris_solver::estimate::Plan;

/// The value of the start position and of every first move.
///
/// The value of the start position and of every first move, solving the
/// whole game (sliding and placement sectors) first where tables are
/// missing.
///
/// Before solving it prints the estimated time, memory and disk, and
/// refuses when they do not fit this machine.
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
    /// Output format: `text`, or `csv`, one row of `results/values.csv`:
    /// `rules,start,first_moves,positions,tables,solve_s,verify_s` (first
    /// moves up to symmetry as `b2=Win(9);a1=Draw;...`, best first, ties by
    /// name; positions and tables summed over the rule set's tables in the
    /// directory; the two times as given by `--solve-s` and `--verify-s`).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// With `--format csv`: the solve's time in seconds, as measured
    /// outside (e.g. by `/usr/bin/time`); empty when not given.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    solve_s: Option<String>,
    /// With `--format csv`: the time of `morris verify` in seconds, as
    /// measured outside; empty when not given.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    verify_s: Option<String>,
}

/// The parser of `--solve-s` and `--verify-s`: a number of seconds from 0
/// to 10^9 (decimals allowed), kept as written.
fn seconds(text: &str) -> Result<String, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && (0.0..=1e9).contains(&s) && !text.starts_with('+') => Ok(text.to_string()),
        _ => Err(format!("`{text}` is not a number of seconds from 0 to 1000000000")),
    }
}

/// Output formats of `morris value`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// The value and the first moves in words.
    Text,
    /// One CSV row with a header line (see `--format`).
    Csv,
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
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set_in(&args.db.db, crate::args::DirUse::Creates)?;
    let dir = &args.db.db;
    let plan = Plan::new(&rules, dir, u32::MAX, true, morris_solver::Finished::Keep);
    if !plan.is_empty() {
        if args.no_solve {
            bail!("tables are missing in {}; run without --no-solve to solve them", dir.display());
        }
        crate::ui::report_plan(&plan, &rules, dir, args.force, &mut out)?;
        confirmed(plan.seconds(), args.yes, &mut out)?;
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        solve_all_with(
            &rules,
            dir,
            &SolveBars::new(args.quiet, |e: &SolveEvent| crate::ui::events::report_event(e, false)),
        )?;
    }
    let db = Database::open(dir, rules.clone())?;
    let start = Position::start(&rules);
    let value = db.value(&start)?;
    let representatives = start.legal_moves_up_to_symmetry(&rules);
    let mut moves: Vec<(String, Value)> = db
        .analyze(&start)?
        .into_iter()
        .filter(|(mv, _)| representatives.contains(mv))
        .map(|(mv, v)| (mv.notation(rules.board()), v))
        .collect();
    moves.sort_by(|(a, va), (b, vb)| Value::best_first(va, vb).then_with(|| a.cmp(b)));
    if args.format == Format::Csv {
        let (positions, tables) = size(dir, rules.name())?;
        let first: Vec<String> = moves.iter().map(|(mv, v)| format!("{mv}={v:?}")).collect();
        let opt = |s: &Option<String>| s.clone().unwrap_or_default();
        writeln!(out, "rules,start,first_moves,positions,tables,solve_s,verify_s")?;
        writeln!(
            out,
            "{},{value:?},{},{positions},{tables},{},{}",
            rules.name(),
            first.join(";"),
            opt(&args.solve_s),
            opt(&args.verify_s)
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "rule set {}: start position `{}`: {value:?}", rules.name(), start.to_text(rules.board()))?;
    writeln!(out, "first moves (up to symmetry, best first):")?;
    for (mv, v) in moves {
        writeln!(out, "  {mv:<8} {v:?}")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Canonical positions and tables of rule set `name` in `dir`, from the
/// tables' headers (each checked as it is opened).
fn size(dir: &std::path::Path, name: &str) -> anyhow::Result<(u64, u64)> {
    let tables = Store::new(dir).tables().with_context(|| format!("cannot read {}", dir.display()))?;
    let (mut positions, mut count) = (0, 0);
    for t in tables.iter().filter(|t| t.rules_name == name) {
        positions += Table::open_unchecked(&t.path)?.header().canonical_positions;
        count += 1;
    }
    Ok((positions, count))
}
