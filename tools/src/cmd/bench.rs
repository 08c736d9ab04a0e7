//! `morris bench`: a fixed solving suite timed several times, with a
//! one-thread baseline measured in the same run, so that figures from this
//! shared machine can be compared as ratios.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use morris_solver::{solve_sliding, SolveOptions};

use crate::args::RulesArg;

/// Time a fixed solving suite against a one-thread baseline.
///
/// Time a fixed solving suite (median of several runs, with a
/// one-thread baseline measured in the same run).
#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    rules: RulesArg,
    /// The suite: every sliding sector with at most N stones on the board.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = crate::args::number::<u32>(6..=24))]
    max_stones: u32,
    /// Timed runs per thread count (the median is reported).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = crate::args::number::<usize>(1..=1000))]
    runs: usize,
    /// Skip the one-thread baseline.
    #[arg(long)]
    no_baseline: bool,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs `morris bench`.
pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set()?;
    let threads = rayon::current_num_threads();
    let mut configs = vec![threads];
    if !args.no_baseline && threads > 1 {
        configs.push(1);
    }
    let mut medians = Vec::new();
    for &n in &configs {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build().context("cannot start threads")?;
        let mut times = Vec::new();
        let mut positions = 0;
        for run in 0..args.runs.max(1) {
            let dir = std::env::temp_dir().join(format!("morris-bench-{}-{n}-{run}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let options = SolveOptions { max_stones: args.max_stones, progress: false };
            let start = Instant::now();
            let report = pool.install(|| solve_sliding(&rules, &dir, &options));
            let seconds = start.elapsed().as_secs_f64();
            let _ = std::fs::remove_dir_all(&dir);
            positions = report?.positions;
            times.push(seconds);
        }
        let m = median(times.clone());
        writeln!(
            out,
            "{} sliding sectors with at most {} stones, {}: median {:.3} s over {} ({}), {} canonical positions, {:.2} M positions/s",
            rules.name(),
            args.max_stones,
            crate::ui::plural(n as u64, "thread", "threads"),
            m,
            crate::ui::plural(times.len() as u64, "run", "runs"),
            times.iter().map(|t| format!("{t:.3}")).collect::<Vec<_>>().join(" "),
            positions,
            positions as f64 / m / 1e6
        )?;
        medians.push(m);
    }
    if medians.len() == 2 {
        writeln!(out, "speed-up of {} threads over 1 thread: {:.2}x", configs[0], medians[1] / medians[0])?;
    }
    writeln!(out, "peak memory of this process: {}", crate::ui::peak_memory())?;
    Ok(ExitCode::SUCCESS)
}
