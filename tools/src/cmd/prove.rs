//! `morris prove`: the value of a position with stones in hand (default:
//! the start) by alpha-beta search over the placement phase, with the
//! sliding tables at the leaves: a second method beside the placement
//! tables, after Gasser (1996).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use clap::Args;
use indicatif::ProgressBar;
use morris_db::{Position, Value};
use morris_probe::prove::{prove_parallel, SearchOptions, SearchStats, TranspositionTable};
use morris_probe::prove_dtm::prove_dtm;
use morris_probe::wdl::WdlDatabase;
use morris_probe::Database;
use morris_probe::Wdl;

use crate::args::{DbArg, RulesArg, StartArg, ThreadsArg};

/// Prove a position's value by search over the placement phase.
///
/// The value of a position with stones in hand (default: the start) by
/// alpha-beta search over the placement phase, with the sliding tables
/// at the leaves (Gasser's method); --check compares with the placement
/// tables.
#[derive(Args)]
pub struct ProveArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// Read the leaves (sliding positions) from the WDL files in DIR
    /// (`morris export-wdl`; may be `--db` itself) instead of the DTM
    /// tables: same values, an eighth of the memory.
    #[arg(long, value_name = "DIR")]
    wdl: Option<PathBuf>,
    /// Also prove the value of every first move (one per symmetry class).
    #[arg(long)]
    divide: bool,
    // Threads searching together, sharing one transposition table.
    #[command(flatten)]
    threads: ThreadsArg,
    /// One thread (same as `--threads 1`).
    #[arg(long)]
    no_parallel: bool,
    /// Size of the transposition table in MiB (8 bytes per entry).
    #[arg(long, value_name = "MIB", default_value_t = 1024, value_parser = crate::args::number::<usize>(1..=1 << 24))]
    table_mib: usize,
    /// Switch move ordering off (same value, more work).
    #[arg(long)]
    no_ordering: bool,
    /// Compare the result with the placement tables where they exist.
    #[arg(long)]
    check: bool,
    /// Also print the positions searched by plies to the leaves.
    #[arg(long, short)]
    verbose: bool,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
    /// The exact value with its DTM (plies to the end of the game) by full
    /// minimax over the placement phase, DTM tables at the leaves: for small
    /// games (`three`, `six`); `nine` from the empty board is far too large.
    #[arg(long, conflicts_with_all = ["wdl", "no_ordering"])]
    dtm: bool,
    #[command(flatten)]
    position: StartArg,
}

fn word(v: Wdl) -> &'static str {
    match v {
        Wdl::Win => "Win",
        Wdl::Draw => "Draw",
        Wdl::Loss => "Loss",
    }
}

/// Runs `morris prove`.
pub fn run(args: ProveArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set_in(&args.db.db, crate::args::DirUse::Reads)?;
    let pos = args.position.parse(&rules)?;
    let db = Database::open(&args.db.db, rules.clone())?;
    if args.dtm {
        return prove_dtm_and_report(&db, &pos, &args, &mut out);
    }
    let wdl = args.wdl.as_ref().map(|dir| WdlDatabase::open(dir, rules.clone())).transpose()?.map(Arc::new);
    let threads = if args.no_parallel { 1 } else { args.threads.count() };
    let counter = Arc::new(AtomicU64::new(0));
    let table = Arc::new(transposition_table(args.table_mib)?);
    let options = SearchOptions {
        use_placement_tables: false,
        move_ordering: !args.no_ordering,
        progress: Some(counter.clone()),
        wdl,
        transpositions: Some(table.clone()),
    };
    let done = Arc::new(AtomicBool::new(false));
    let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new_spinner() };
    let spinner = {
        let (counter, done, bar) = (counter.clone(), done.clone(), bar.clone());
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
    let mut disagree = 0;
    let mut total = SearchStats::default();
    let value = if args.divide && pos.us_in_hand() + pos.them_in_hand() > 0 {
        // First moves up to symmetry: one representative per canonical child.
        let moves = pos.legal_moves_up_to_symmetry(&rules);
        let mut best = Wdl::Loss;
        for mv in moves {
            let child = pos.play_unchecked(mv);
            let (v, s) = prove_parallel(&db, &options, &child, threads)?;
            let v = -v;
            best = best.max(v);
            total.add(&s);
            let mut line = format!(
                "  {:<8} {:<5} {:>12} positions {:>9.2} s",
                mv.notation(rules.board()),
                word(v),
                s.nodes,
                s.seconds
            );
            if args.check {
                if let Ok(t) = db.value(&child) {
                    let t = -Wdl::from(t);
                    line.push_str(if t == v { "  (tables agree)" } else { "  (TABLES DISAGREE)" });
                    disagree += (t != v) as usize;
                }
            }
            bar.suspend(|| writeln!(out, "{line}"))?;
        }
        best
    } else {
        let (v, s) = prove_parallel(&db, &options, &pos, threads)?;
        total.add(&s);
        v
    };
    let seconds = start.elapsed().as_secs_f64();
    done.store(true, Ordering::Relaxed);
    let _ = spinner.join();
    writeln!(out, "position `{}`: {} (by search)", pos.to_text(rules.board()), word(value))?;
    writeln!(
        out,
        "{} positions searched ({:.0} per second), {} table probes, {} of {} transposition entries used, {}, {:.2} s, peak memory {}",
        total.nodes,
        total.nodes as f64 / seconds.max(1e-9),
        total.table_probes,
        table.occupied(),
        table.capacity(),
        crate::ui::plural(threads as u64, "thread", "threads"),
        seconds,
        crate::ui::peak_memory()
    )?;
    if args.verbose {
        let by_depth: Vec<String> = total
            .nodes_by_depth
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, &n)| n > 0)
            .map(|(d, n)| format!("{d}: {n}"))
            .collect();
        writeln!(out, "positions by plies to the leaves: {}", by_depth.join(", "))?;
    }
    if args.check {
        match db.value(&pos) {
            Ok(t) if Wdl::from(t) == value => writeln!(out, "placement tables agree: {t:?}")?,
            Ok(t) => {
                writeln!(out, "placement tables DISAGREE: {t:?}")?;
                disagree += 1;
            }
            Err(e) => writeln!(out, "no placement table to compare with: {e}")?,
        }
    }
    Ok(if disagree == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The transposition table of `--table-mib`, refused with an error (not an
/// abort) when this machine has not that much memory available or the
/// allocation fails.
fn transposition_table(mib: usize) -> anyhow::Result<TranspositionTable> {
    let bytes = (mib as u64).saturating_mul(1 << 20);
    if let Some(free) = morris_solver::estimate::available_memory() {
        if bytes > free {
            anyhow::bail!(
                "--table-mib {mib} asks for {:.1} GiB, but this machine has {:.1} GiB of memory available; give a smaller size",
                bytes as f64 / (1u64 << 30) as f64,
                free as f64 / (1u64 << 30) as f64
            );
        }
    }
    TranspositionTable::try_new(mib).map_err(|e| {
        anyhow::anyhow!("cannot allocate a transposition table of {mib} MiB ({e}); give a smaller --table-mib")
    })
}

/// `prove --dtm`: the exact value by full minimax, of the position and with
/// `--divide` of every first move; `--check` compares with the tables.
fn prove_dtm_and_report(
    db: &Database,
    pos: &Position,
    args: &ProveArgs,
    out: &mut impl Write,
) -> anyhow::Result<ExitCode> {
    let rules = db.rules();
    let start = Instant::now();
    let mut disagree = 0;
    let mut check = |what: &Position, found: Value, out: &mut dyn Write| -> anyhow::Result<()> {
        if args.check {
            match db.value(what) {
                Ok(t) if t == found => write!(out, "  (tables agree)")?,
                Ok(t) => {
                    write!(out, "  (TABLES DISAGREE: {t:?})")?;
                    disagree += 1;
                }
                Err(_) => write!(out, "  (no table)")?,
            }
        }
        Ok(())
    };
    let (value, stats) = prove_dtm(db, pos)?;
    if args.divide && pos.us_in_hand() + pos.them_in_hand() > 0 {
        for mv in pos.legal_moves_up_to_symmetry(rules) {
            let child = pos.play_unchecked(mv);
            let child_value = prove_dtm(db, &child)?.0;
            write!(out, "  {:<8} {:?}", mv.notation(rules.board()), child_value.back())?;
            check(&child, child_value, out)?;
            writeln!(out)?;
        }
    }
    write!(out, "position `{}`: {value:?} (by search)", pos.to_text(rules.board()))?;
    check(pos, value, out)?;
    writeln!(out)?;
    writeln!(
        out,
        "{} placement positions valued, {} table probes, {:.2} s, peak memory {}",
        stats.positions,
        stats.table_probes,
        start.elapsed().as_secs_f64(),
        crate::ui::peak_memory()
    )?;
    Ok(if disagree == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
