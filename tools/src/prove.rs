//! `morris prove`: the value of a position with stones in hand (default:
//! the start) by alpha-beta search over the placement phase, with the
//! sliding tables at the leaves: a second method beside the placement
//! tables, after Gasser (1996).

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use clap::Args;
use indicatif::ProgressBar;
use morris_db::{Position, Value};
use morris_probe::search::{Prover, SearchOptions, SearchStats, Wdl};
use morris_probe::Database;
use rayon::prelude::*;

use crate::{DbArg, RulesArg};

/// Arguments of `morris prove`.
#[derive(Args)]
pub struct ProveArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// Also prove the value of every first move (one per symmetry class).
    #[arg(long)]
    divide: bool,
    /// Search first moves in parallel, one transposition table each
    /// (default with more than one thread).
    #[arg(long)]
    no_parallel: bool,
    /// Switch the move-ordering heuristic off (same value, more work).
    #[arg(long)]
    no_ordering: bool,
    /// Compare the result with the placement tables where they exist.
    #[arg(long)]
    check: bool,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
    /// The position (default: the start of the rule set).
    #[arg(value_name = "POSITION", num_args = 0.., allow_hyphen_values = true)]
    position: Vec<String>,
}

fn word(v: Wdl) -> &'static str {
    match v {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}

fn add(total: &mut SearchStats, s: &SearchStats) {
    total.nodes += s.nodes;
    total.table_probes += s.table_probes;
    total.transpositions += s.transpositions;
}

/// Runs `morris prove`.
pub fn run(args: ProveArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let rules = args.rules.rule_set()?;
    let pos = if args.position.is_empty() {
        Position::start(&rules)
    } else {
        let pos = Position::parse(&args.position.join(" "), rules.board())?;
        pos.validate(&rules)?;
        pos
    };
    let db = Database::open(&args.db.db, rules.clone())?;
    let counter = Arc::new(AtomicU64::new(0));
    let options = SearchOptions {
        use_placement_tables: false,
        move_ordering: !args.no_ordering,
        progress: Some(counter.clone()),
    };
    let done = Arc::new(AtomicBool::new(false));
    let spinner = {
        let (counter, done) = (counter.clone(), done.clone());
        let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new_spinner() };
        std::thread::spawn(move || {
            let start = Instant::now();
            while !done.load(Ordering::Relaxed) {
                let n = counter.load(Ordering::Relaxed);
                bar.set_message(format!(
                    "searching: {n} positions, {:.0} per second",
                    n as f64 / start.elapsed().as_secs_f64().max(1e-3)
                ));
                bar.tick();
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            bar.finish_and_clear();
        })
    };
    let start = Instant::now();
    let parallel = !args.no_parallel && rayon::current_num_threads() > 1;
    // First moves up to symmetry: one representative per canonical child.
    let mut seen = std::collections::HashSet::new();
    let moves: Vec<_> = pos
        .legal_moves(&rules)
        .into_iter()
        .filter(|&mv| {
            let c = pos.play_unchecked(mv);
            let s = c.sector();
            seen.insert((s, rules.indexer().sector(s.w as usize, s.b as usize).index(c.us(), c.them())))
        })
        .collect();
    let (value, per_move, stats) = if (parallel || args.divide) && !moves.is_empty() {
        let results: Vec<_> = moves
            .par_iter()
            .map(|&mv| {
                let mut prover = Prover::new(&db, options.clone());
                let v = prover.prove(&pos.play_unchecked(mv)).map(|v| -v);
                (mv, v, prover.stats())
            })
            .collect();
        let mut total = SearchStats::default();
        let mut per_move = Vec::new();
        for (mv, v, s) in results {
            add(&mut total, &s);
            per_move.push((mv, v?));
        }
        let value = per_move.iter().map(|m| m.1).max().unwrap_or(-1);
        (value, per_move, total)
    } else {
        let mut prover = Prover::new(&db, options.clone());
        let v = prover.prove(&pos)?;
        (v, Vec::new(), prover.stats())
    };
    let seconds = start.elapsed().as_secs_f64();
    done.store(true, Ordering::Relaxed);
    let _ = spinner.join();
    writeln!(out, "position `{}`: {} (by search)", pos.to_text(rules.board()), word(value))?;
    writeln!(
        out,
        "{} positions searched, {} table probes, {} transposition entries, {:.2} s, peak memory {}",
        stats.nodes,
        stats.table_probes,
        stats.transpositions,
        seconds,
        crate::solve::peak_memory().unwrap_or_else(|| "unknown".into())
    )?;
    let mut disagree = 0;
    if args.divide {
        for (mv, v) in &per_move {
            let mut line = format!("  {:<8} {}", mv.notation(rules.board()), word(*v));
            if args.check {
                if let Ok(t) = db.value(&pos.play_unchecked(*mv)) {
                    let t = -wdl(t);
                    line.push_str(if t == *v { "  (tables agree)" } else { "  (TABLES DISAGREE)" });
                    disagree += (t != *v) as usize;
                }
            }
            writeln!(out, "{line}")?;
        }
    }
    if args.check {
        match db.value(&pos) {
            Ok(t) if wdl(t) == value => writeln!(out, "placement tables agree: {t:?}")?,
            Ok(t) => {
                writeln!(out, "placement tables DISAGREE: {t:?}")?;
                disagree += 1;
            }
            Err(e) => writeln!(out, "no placement table to compare with: {e}")?,
        }
    }
    Ok(if disagree == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn wdl(v: Value) -> Wdl {
    match v {
        Value::Win(_) => 1,
        Value::Draw => 0,
        Value::Loss(_) => -1,
    }
}
