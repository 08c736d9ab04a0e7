//! `morris bench-probe`: how fast the probe answers. The time to open a
//! database and answer a first query, and warm probes per second per thread
//! on one thread and on several at once, over random positions of the
//! tables in the directory (a random symmetry and colour applied, so that
//! every probe canonicalises): single values, and one-ply searches (every
//! legal move's value, as a move list needs).

use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use morris_db::{Color, FileKind, Position, RuleSet, Sector, Store};
use morris_probe::wdl::WdlDatabase;
use morris_probe::{Database, ProbeOptions};

use crate::args::{DbArg, RulesArg, ThreadsArg};

/// Time the probe: opening, first query, warm probes per second.
///
/// Time the probe: opening a database and answering a first query, and
/// warm probes and one-ply searches (every legal move's value) per
/// second per thread.
#[derive(Args)]
pub struct BenchProbeArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// Also time WDL probes from this directory of WDL files
    /// (`morris export-wdl`).
    #[arg(long, value_name = "DIR")]
    wdl: Option<PathBuf>,
    /// Time the WDL probes of `--wdl` only, not the DTM tables of `--db`
    /// (which still give the sectors the positions are drawn from).
    #[arg(long, requires = "wdl")]
    wdl_only: bool,
    /// Random positions probed per run and thread.
    #[arg(long, value_name = "N", default_value_t = 1_000_000, value_parser = crate::args::number::<usize>(1..=100_000_000))]
    positions: usize,
    /// Timed runs (the median is reported).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = crate::args::number::<usize>(1..=1000))]
    runs: usize,
    // Threads of the parallel run.
    #[command(flatten)]
    threads: ThreadsArg,
}

/// A small, fixed random number generator (xorshift64*), so runs are
/// repeatable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Sliding sectors of `rules` with a file in `dir` (DTM tables or stubs, or
/// WDL files with `wdl`), by file name.
fn sectors_in(dir: &Path, rules: &RuleSet, wdl: bool) -> anyhow::Result<Vec<Sector>> {
    // Single-sided sectors (stubs) too: their probes search one ply.
    let kinds: &[FileKind] =
        if wdl { &[FileKind::Wdl] } else { &[FileKind::Dtm, FileKind::Compressed, FileKind::Derived] };
    let mut v: Vec<Sector> = Store::new(dir)
        .sectors(rules, kinds)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .into_iter()
        .filter(Sector::is_sliding)
        .collect();
    // The samples are drawn in this order: keep it as it was measured.
    v.sort();
    Ok(v)
}

/// `n` random canonical positions of `sectors`, each mapped by a random
/// symmetry, with a random colour to move.
///
/// # Errors
/// When a sector cannot exist under `rules`, or the memory for `n`
/// positions (`--positions`) cannot be had.
fn sample(rules: &RuleSet, sectors: &[Sector], n: usize) -> anyhow::Result<Vec<Position>> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let syms = rules.board().symmetries();
    let indexes = sectors.iter().map(|&s| rules.sector_index(s)).collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::new();
    out.try_reserve_exact(n)
        .map_err(|e| anyhow::anyhow!("cannot hold {n} positions in memory ({e}); give a smaller --positions"))?;
    while out.len() < n && !indexes.is_empty() {
        let index = &indexes[rng.below(indexes.len() as u64) as usize];
        let Some((us, them)) = index.position(rng.below(index.len())) else {
            continue;
        };
        let sym = &syms[rng.below(syms.len() as u64) as usize];
        let color = if rng.next() & 1 == 0 { Color::White } else { Color::Black };
        // A slot of a sliding sector's index (hands empty) and its image
        // under a symmetry of the board: a trusted position.
        let sector = Sector::sliding(index.w() as u8, index.b() as u8);
        out.push(Position::from_sector(sector, color, sym.apply(us), sym.apply(them)));
    }
    Ok(out)
}

/// Probes per second per thread of `probe` over `positions`, on `threads`
/// threads at once (each probing every position): the median of `runs`.
fn rate(positions: &[Position], threads: usize, runs: usize, probe: &(dyn Fn(&Position) -> u64 + Sync)) -> f64 {
    let mut rates = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut sum = 0u64;
                    for p in positions {
                        sum = sum.wrapping_add(probe(black_box(p)));
                    }
                    black_box(sum);
                });
            }
        });
        rates.push(positions.len() as f64 / start.elapsed().as_secs_f64().max(1e-9));
    }
    median(rates)
}

/// As [`rate`], with each thread running `work` once (it probes every
/// position).
fn rate_with(positions: &[Position], threads: usize, runs: usize, work: &(dyn Fn() + Sync)) -> f64 {
    let mut rates = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(work);
            }
        });
        rates.push(positions.len() as f64 / start.elapsed().as_secs_f64().max(1e-9));
    }
    median(rates)
}

/// Runs `morris bench-probe`.
pub fn run(args: BenchProbeArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set_in(&args.db.db, crate::args::DirUse::Reads)?;
    let dir = &args.db.db;
    let sectors = sectors_in(dir, &rules, false)?;
    if sectors.is_empty() {
        anyhow::bail!("{} holds no sliding table of rule set `{}`", dir.display(), rules.name());
    }
    let threads = args.threads.count();
    let runs = args.runs.max(1);
    let positions = sample(&rules, &sectors, args.positions.max(1))?;
    writeln!(
        out,
        "{} sampled from {} ({}), {} each, median reported",
        crate::ui::plural(positions.len() as u64, "position", "positions"),
        crate::ui::plural(sectors.len() as u64, "table", "tables"),
        sectors.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
        crate::ui::plural(runs as u64, "run", "runs")
    )?;
    if !args.wdl_only {
        bench_dtm(&mut out, dir, &rules, &positions, &sectors, threads, runs)?;
    }

    if let Some(wdl_dir) = &args.wdl {
        let wdl_sectors = sectors_in(wdl_dir, &rules, true)?;
        let positions: Vec<Position> = positions.into_iter().filter(|p| wdl_sectors.contains(&p.sector())).collect();
        if positions.is_empty() {
            anyhow::bail!("{} holds no WDL file of the sampled sectors", wdl_dir.display());
        }
        let wdl = WdlDatabase::open(wdl_dir, rules.clone())?;
        for p in &positions {
            wdl.wdl(p)?;
        }
        let probe = |p: &Position| wdl.wdl(p).map_or(u64::MAX, |v| v.signum() as u64);
        let one = rate(&positions, 1, runs, &probe);
        let many = rate(&positions, threads, runs, &probe);
        report_rates(&mut out, "wdl", one, many, threads)?;
        let work = || {
            let mut prober = wdl.prober();
            let sum = positions
                .iter()
                .fold(0u64, |sum, q| sum.wrapping_add(prober.wdl(black_box(q)).map_or(7, |v| v as u64)));
            black_box(sum);
        };
        let one = rate_with(&positions, 1, runs, &work);
        let many = rate_with(&positions, threads, runs, &work);
        report_rates(&mut out, "wdl through a WdlProber per thread", one, many, threads)?;
        let work = || {
            let mut prober = wdl.prober();
            let mut sum = 0u64;
            prober.values_with(black_box(&positions), |_, v| sum = sum.wrapping_add(v.map_or(7, |v| v as u64)));
            black_box(sum);
        };
        let one = rate_with(&positions, 1, runs, &work);
        let many = rate_with(&positions, threads, runs, &work);
        report_rates(&mut out, "wdl in batches (WdlProber::values_with)", one, many, threads)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The DTM part of `morris bench-probe`: opening `dir` and a first query,
/// then warm `Database::value`, `Prober::value` and one-ply rates over
/// `positions` (drawn from `sectors`) on 1 and `threads` threads, the
/// median of `runs` runs each.
///
/// # Errors
/// A table that cannot be opened or read, or a position without an answer.
fn bench_dtm(
    out: &mut dyn Write,
    dir: &Path,
    rules: &RuleSet,
    positions: &[Position],
    sectors: &[Sector],
    threads: usize,
    runs: usize,
) -> anyhow::Result<()> {
    // The first query goes to the largest table, whose checksum takes longest.
    let largest =
        sectors.iter().copied().max_by_key(|&s| rules.sector_index(s).map_or(0, |i| i.len())).unwrap_or(sectors[0]);
    let first = sample(rules, &[largest], 1)?[0];
    // Opening: a fresh database, its first query maps one table (the file
    // is in the page cache after the first run).
    for (what, verify) in [("with checksum check", true), ("without checksum check", false)] {
        let mut times = Vec::new();
        for _ in 0..runs {
            let start = Instant::now();
            let db = Database::open_with(dir, rules.clone(), ProbeOptions { verify_checksums: verify })?;
            black_box(db.value(&first)?);
            times.push(start.elapsed().as_secs_f64());
        }
        writeln!(
            out,
            "open + first query ({what}, table of sector {}): {:.3} ms",
            first.sector(),
            median(times) * 1e3
        )?;
    }

    let db = Database::open(dir, rules.clone())?;
    for p in positions {
        db.value(p)?; // maps every table, and checks every answer exists
    }
    let value = |p: &Position| db.value(p).map_or(u64::MAX, |v| v.to_entry() as u64);
    let one = rate(positions, 1, runs, &value);
    let many = rate(positions, threads, runs, &value);
    report_rates(out, "value", one, many, threads)?;

    // The same through one `Prober` per thread (no shared map, no clock).
    let work = || {
        let mut prober = db.prober();
        let sum = positions.iter().fold(0u64, |sum, q| {
            sum.wrapping_add(prober.value(black_box(q)).map_or(u64::MAX, |v| v.to_entry() as u64))
        });
        black_box(sum);
    };
    let prober_rate = |threads: usize| rate_with(positions, threads, runs, &work);
    let one = prober_rate(1);
    let many = prober_rate(threads);
    report_rates(out, "value through a Prober per thread", one, many, threads)?;

    // A one-ply search: the value of every legal move, each child probed
    // (what `analyze`, the server's move list and `line` do per position,
    // and what a probe costs where a table is left out and its values are
    // derived from its children's).
    let work = || {
        let mut prober = db.prober();
        let sum = positions.iter().fold(0u64, |sum, q| {
            let q = black_box(q);
            q.legal_moves(rules).into_iter().fold(sum, |sum, mv| {
                sum.wrapping_add(prober.value(&q.play_unchecked(mv)).map_or(u64::MAX, |v| v.to_entry() as u64))
            })
        });
        black_box(sum);
    };
    // Every child has an answer (a missing table is an error, not a fast
    // miss), and the moves are counted.
    let mut moves = 0usize;
    for p in positions {
        for mv in p.legal_moves(rules) {
            db.value(&p.play_unchecked(mv))?;
            moves += 1;
        }
    }
    let one = rate_with(positions, 1, runs, &work);
    let many = rate_with(positions, threads, runs, &work);
    writeln!(
        out,
        "one-ply (every legal move's value; {:.1} moves a position) through a Prober per thread, warm: {:.3} M positions/s on 1 thread; {:.3} M positions/s per thread on {threads} threads at once ({:.3} M/s in all)",
        moves as f64 / positions.len() as f64,
        one / 1e6,
        many / 1e6,
        many * threads as f64 / 1e6
    )?;

    Ok(())
}

/// Writes one line of warm probe rates: `what`, then `one` (probes a
/// second on 1 thread) and `many` (probes a second per thread with
/// `threads` threads at once), in millions.
fn report_rates(out: &mut dyn Write, what: &str, one: f64, many: f64, threads: usize) -> std::io::Result<()> {
    writeln!(
        out,
        "{what}, warm: {:.2} M probes/s on 1 thread; {:.2} M probes/s per thread on {threads} threads at once ({:.2} M/s in all)",
        one / 1e6,
        many / 1e6,
        many * threads as f64 / 1e6
    )
}
