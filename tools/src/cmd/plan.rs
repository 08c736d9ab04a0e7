//! `morris plan`: a rule set's solve as a graph of jobs, one per unit (a
//! sliding pair, a placement sector, a Lasker placement pair), each after
//! the units whose tables it reads. Prints the graph's size (units,
//! critical path, largest unit, total CPU time) and with `--slurm FILE`
//! writes a shell script that submits the jobs to Slurm. The graph and
//! the script are [`morris_solver::jobs`]'s; this is the terminal side.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;
use morris_db::RuleSet;
use morris_solver::jobs::{slurm_script, Graph, SlurmOptions};

use crate::args::{DbArg, Phase, RulesArg};

/// A solve as a graph of jobs, and a Slurm script that runs it.
///
/// The solve of a rule set as a graph of jobs, one per unit (a sliding
/// pair, a placement sector, a Lasker placement pair): its size, and
/// with `--slurm FILE` a script that submits the jobs to Slurm.
///
/// Prints the units, the critical path (the longest chain of units that
/// wait for each other, with its estimated time), the largest unit's
/// memory and disk, and the total CPU time. The script submits one
/// `sbatch` job per unit running `morris solve --only UNIT`, after the
/// jobs whose tables it reads; run it again after failures and it
/// submits only what is missing.
#[derive(Args)]
pub struct PlanArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// Write a shell script that submits one Slurm job per unit to FILE.
    #[arg(long, value_name = "FILE")]
    slurm: Option<PathBuf>,
    /// Which phase: `sliding` or `all` (as `morris solve`).
    #[arg(long, value_enum, default_value = "sliding")]
    phase: Phase,
    /// Only sliding sectors with at most N stones on the board in all.
    #[arg(long, value_name = "N", conflicts_with = "phase")]
    max_stones: Option<u32>,
    /// Slurm partition for every job (`sbatch --partition`).
    #[arg(long, value_name = "P")]
    partition: Option<String>,
    /// Slurm account for every job (`sbatch --account`).
    #[arg(long, value_name = "A")]
    account: Option<String>,
    /// Each job's time limit is this many times its estimated time (which
    /// comes from rates measured on a 2-core machine), at least 10 minutes.
    #[arg(long, value_name = "F", default_value_t = 3.0)]
    time_factor: f64,
    /// The most cores one job asks for (`--cpus-per-task`); small units ask
    /// for fewer, one per 20 M slots.
    #[arg(long, value_name = "N", default_value_t = 16)]
    max_cpus: u32,
    /// Cores of the cluster, for the wall-time figure (default: 8 nodes of
    /// 16 cores).
    #[arg(long, value_name = "N", default_value_t = 128)]
    cluster_cores: u32,
    /// The `morris` binary the jobs run (default: this one); the script's
    /// environment variable MORRIS overrides it.
    #[arg(long, value_name = "PATH")]
    morris: Option<PathBuf>,
    /// Directory of the jobs' logs, one file per job (default: DIR/slurm-logs).
    #[arg(long, value_name = "DIR")]
    logs: Option<PathBuf>,
}

/// Runs `morris plan`.
pub fn run(args: PlanArgs) -> anyhow::Result<ExitCode> {
    let rules = args.rules.rule_set_in(&args.db.db, crate::args::DirUse::Creates)?;
    if !(args.time_factor.is_finite() && args.time_factor > 0.0 && args.time_factor <= 1000.0) {
        bail!("--time-factor must be a number above 0 and at most 1000, not {}", args.time_factor);
    }
    if args.max_cpus == 0 || args.max_cpus > 4096 {
        bail!("--max-cpus must be between 1 and 4096, not {}", args.max_cpus);
    }
    if args.cluster_cores == 0 {
        bail!("--cluster-cores must be at least 1");
    }
    let placement = args.phase == Phase::All;
    let graph = Graph::new(&rules, args.max_stones.unwrap_or(u32::MAX), placement, args.max_cpus);
    let mut out = std::io::stdout().lock();
    print_figures(&rules, &graph, args.cluster_cores, &mut out)?;
    let unsolvable: Vec<String> = graph
        .jobs
        .iter()
        .filter_map(|j| j.unit.unsolvable(&rules).map(|why| format!("{}: {why}", j.unit.name())))
        .collect();
    if !unsolvable.is_empty() {
        let list = unsolvable.iter().take(6).cloned().collect::<Vec<_>>().join("; ");
        let more = if unsolvable.len() > 6 { format!("; and {} more", unsolvable.len() - 6) } else { String::new() };
        let what = format!(
            "this solver cannot solve {} of rule set {} ({list}{more}): `morris solve` refuses them (docs/cluster.md)",
            crate::ui::plural(unsolvable.len() as u64, "unit", "units"),
            rules.name()
        );
        if args.slurm.is_some() {
            bail!("{what}; no job script written, since its jobs would fail");
        }
        crate::ui::output::errln!("warning: {what}; the figures above count them as if it could");
    }
    if let Some(file) = &args.slurm {
        let morris = match &args.morris {
            Some(p) => absolute(p)?,
            None => std::env::current_exe().context("cannot find this program's path; give --morris PATH")?,
        };
        let db = absolute(&args.db.db)?;
        let logs = match &args.logs {
            Some(l) => absolute(l)?,
            None => db.join("slurm-logs"),
        };
        let options = SlurmOptions {
            rules_args: crate::args::rules_args(&rules),
            partition: args.partition.clone(),
            account: args.account.clone(),
            time_factor: args.time_factor,
            morris,
            db,
            logs,
        };
        let script = slurm_script(&rules, &graph, &options);
        crate::ui::write_atomically(file, &script, true)?;
        writeln!(out, "wrote {} ({} jobs); run it with `bash {}`", file.display(), graph.jobs.len(), file.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot make {} absolute", path.display()))
}

fn print_figures(rules: &RuleSet, graph: &Graph, cores: u32, out: &mut impl Write) -> anyhow::Result<()> {
    let jobs = &graph.jobs;
    let tables: usize = jobs.iter().map(|j| j.unit.sectors.len()).sum();
    let slots: u64 = jobs.iter().map(|j| j.unit.slots(rules)).sum();
    let disk: u64 = jobs.iter().map(|j| j.unit.disk_bytes(rules)).sum();
    let cpu: f64 = jobs.iter().map(|j| j.cpu_seconds).sum();
    let (chain, critical) = graph.critical_path();
    let chain_names = |c: &[usize]| match c {
        [] => String::new(),
        [one] => jobs[*one].unit.name(),
        [first, .., last] => format!("{} ... {}", jobs[*first].unit.name(), jobs[*last].unit.name()),
    };
    writeln!(
        out,
        "rule set {}: {} units ({} tables, {} slots, {} on disk)",
        rules.name(),
        jobs.len(),
        tables,
        slots,
        gib(disk)
    )?;
    writeln!(out, "critical path: {} units ({}), estimated {}", chain.len(), chain_names(&chain), duration(critical))?;
    if let Some(big) = jobs.iter().max_by_key(|j| j.memory) {
        writeln!(
            out,
            "largest unit: {} ({} slots): memory {} ({} working, {} of mapped tables read), disk {}, {} cores",
            big.unit.name(),
            big.unit.slots(rules),
            gib(big.memory),
            gib(big.unit.working_bytes(rules)),
            gib(big.unit.input_bytes(rules)),
            gib(big.unit.disk_bytes(rules)),
            big.cpus,
        )?;
    }
    writeln!(
        out,
        "total CPU time: estimated {} ({:.0} core-hours, each unit on one core)",
        duration(cpu),
        cpu / 3600.0
    )?;
    writeln!(
        out,
        "on {cores} cores: at least {} (the larger of the critical path and the CPU time spread over all cores)",
        duration(critical.max(cpu / cores as f64))
    )?;
    Ok(())
}

fn gib(bytes: u64) -> String {
    if bytes < 1 << 30 {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
    }
}

fn duration(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 2.0 * 3600.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}
