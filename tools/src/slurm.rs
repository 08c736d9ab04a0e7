//! `morris plan`: a rule set's solve as a graph of jobs, one per unit (a
//! sliding pair, a placement sector, a Lasker placement pair), each after
//! the units whose tables it reads. Prints the graph's size (units,
//! critical path, largest unit, total CPU time) and with `--slurm FILE`
//! writes a shell script that submits the jobs to Slurm.
//!
//! One job per unit, no job arrays: each unit has its own dependencies,
//! memory, cores and time limit, while a job array shares one request and
//! one dependency list among its tasks; units with the same inputs are few
//! (and small), so arrays would save little. The job counts (hundreds to a
//! few thousand) stay within Slurm's default `MaxJobCount` of 10,000.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;
use morris_db::table::table_path;
use morris_db::RuleSet;
use morris_solver::unit::{units, Unit, BASE_MEMORY};

use crate::plan::{cpu_seconds, speedup};
use crate::solve::Phase;
use crate::{DbArg, RulesArg};

/// Arguments of `morris plan`.
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

/// Slots per core a job asks for: a unit of `s` slots asks for
/// `ceil(s / SLOTS_PER_CPU)` cores, at most `--max-cpus`.
const SLOTS_PER_CPU: u64 = 20_000_000;

/// The shortest time limit a job gets, minutes (start-up, checksums of the
/// tables it reads).
const MIN_MINUTES: u64 = 10;

/// One job: a unit with its request.
struct Job {
    unit: Unit,
    /// Indices (into the job list) of the jobs whose tables it reads.
    after: Vec<usize>,
    cpus: u32,
    /// Memory request, bytes: working memory, mapped inputs, base, 10%.
    memory: u64,
    /// Estimated seconds on one core.
    cpu_seconds: f64,
    /// Estimated wall seconds on `cpus` cores.
    wall_seconds: f64,
}

/// The graph of jobs of a solve.
struct Graph {
    jobs: Vec<Job>,
}

impl Graph {
    fn new(rules: &RuleSet, max_stones: u32, placement: bool, max_cpus: u32) -> Graph {
        let all = units(rules, max_stones, placement);
        let mut jobs: Vec<Job> = Vec::with_capacity(all.len());
        for unit in all {
            let after: Vec<usize> = unit
                .inputs(rules)
                .into_iter()
                .filter_map(|input| jobs.iter().position(|j| j.unit.sectors.contains(&input)))
                .fold(Vec::new(), |mut v, i| {
                    if !v.contains(&i) {
                        v.push(i);
                    }
                    v
                });
            let slots = unit.slots(rules);
            let cpus = slots.div_ceil(SLOTS_PER_CPU).clamp(1, max_cpus.max(1) as u64) as u32;
            let memory = (unit.working_bytes(rules) + unit.input_bytes(rules) + BASE_MEMORY) * 11 / 10;
            let cpu = cpu_seconds(unit.kind, slots);
            jobs.push(Job { unit, after, cpus, memory, cpu_seconds: cpu, wall_seconds: cpu / speedup(cpus) });
        }
        Graph { jobs }
    }

    /// The longest chain of dependent jobs by estimated wall time: its
    /// jobs, first to last, and its time.
    fn critical_path(&self) -> (Vec<usize>, f64) {
        let mut finish = vec![0.0f64; self.jobs.len()];
        let mut via: Vec<Option<usize>> = vec![None; self.jobs.len()];
        for (i, job) in self.jobs.iter().enumerate() {
            let before = job.after.iter().copied().max_by(|&a, &b| finish[a].total_cmp(&finish[b]));
            finish[i] = before.map_or(0.0, |b| finish[b]) + job.wall_seconds;
            via[i] = before;
        }
        let Some(mut last) = (0..finish.len()).max_by(|&a, &b| finish[a].total_cmp(&finish[b])) else {
            return (Vec::new(), 0.0);
        };
        let time = finish[last];
        let mut chain = vec![last];
        while let Some(b) = via[last] {
            chain.push(b);
            last = b;
        }
        chain.reverse();
        (chain, time)
    }
}

/// Runs `morris plan`.
pub fn run(args: PlanArgs) -> anyhow::Result<ExitCode> {
    let rules = args.rules.rule_set()?;
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
        let script = script(&rules, &args, &graph, &morris, &db, &logs);
        write_script(file, &script)?;
        writeln!(out, "wrote {} ({} jobs); run it with `bash {}`", file.display(), graph.jobs.len(), file.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot make {} absolute", path.display()))
}

/// Writes the script (mode 755) under a temporary name, then renames it.
fn write_script(file: &Path, text: &str) -> anyhow::Result<()> {
    let mut tmp = file.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("cannot make {} executable", tmp.display()))?;
    }
    std::fs::rename(&tmp, file).with_context(|| format!("cannot write {}", file.display()))
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

/// A word quoted for bash: in single quotes, each `'` written `'\''`.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The prefix of every job name of `rules`: `morris-<rule set>-`.
fn job_prefix(rules: &RuleSet) -> String {
    format!("morris-{}-", rules.name())
}

fn script(rules: &RuleSet, args: &PlanArgs, graph: &Graph, morris: &Path, db: &Path, logs: &Path) -> String {
    let rules_args: Vec<String> = args.rules.to_args().iter().map(|a| quote(a)).collect();
    let mut extra = Vec::new();
    if let Some(p) = &args.partition {
        extra.push(quote(&format!("--partition={p}")));
    }
    if let Some(a) = &args.account {
        extra.push(quote(&format!("--account={a}")));
    }
    let mut s = String::new();
    let _ = write!(
        s,
        r#"#!/usr/bin/env bash
# Solves rule set {name} into {db} as Slurm jobs, one per unit ({n} units),
# each after the jobs whose tables it reads. Written by `morris plan`.
#
# Run it again after jobs failed or were cancelled: it skips units whose
# tables are in the directory, keeps the jobs of this directory that are
# still queued or running, and submits the rest, after those.
# Each job runs `morris solve --only UNIT`, which checks the tables it reads,
# skips a unit already solved, and writes under temporary names.
set -euo pipefail
MORRIS=${{MORRIS:-{morris}}}
DB={db_q}
LOGS={logs_q}
RULES=({rules_args})
EXTRA=({extra})
PREFIX={prefix}
mkdir -p "$DB" "$LOGS"
declare -A JOB=()
# Jobs of this directory still queued or running, by name.
queue=$(squeue --noheader --user="$(id -un)" --format='%i|%j|%Z')
while IFS='|' read -r id name dir; do
  if [ -n "$id" ] && [ "$dir" = "$DB" ]; then JOB[$name]=$id; fi
done <<<"$queue"
submitted=0 queued=0 solved=0
# unit NAME MEMORY_MIB CPUS MINUTES "UNITS IT READS" TABLE...
unit() {{
  local name=$1 mem=$2 cpus=$3 minutes=$4 deps=$5 t d id after=""
  shift 5
  local all=1
  for t in "$@"; do
    if [ ! -e "$DB/$t.mtb" ] && [ ! -e "$DB/$t.mtz" ]; then all=0; fi
  done
  if [ "$all" = 1 ]; then solved=$((solved + 1)); return; fi
  if [ -n "${{JOB[$PREFIX$name]:-}}" ]; then queued=$((queued + 1)); return; fi
  for d in $deps; do
    id=${{JOB[$PREFIX$d]:-}}
    if [ -n "$id" ]; then after="$after:$id"; fi
  done
  id=$(sbatch --parsable --job-name="$PREFIX$name" --chdir="$DB" --output="$LOGS/$PREFIX$name.%j.log" \
    --mem="${{mem}}M" --cpus-per-task="$cpus" --time="$minutes" --kill-on-invalid-dep=yes \
    ${{after:+--dependency=afterok$after}} "${{EXTRA[@]}}" \
    --wrap="exec $(printf '%q ' "$MORRIS" solve "${{RULES[@]}}" --db "$DB" --only "$name" --threads "$cpus" --quiet)")
  JOB[$PREFIX$name]=${{id%%;*}}
  submitted=$((submitted + 1))
}}
"#,
        name = rules.name(),
        db = db.display(),
        n = graph.jobs.len(),
        morris = quote(&morris.to_string_lossy()),
        db_q = quote(&db.to_string_lossy()),
        logs_q = quote(&logs.to_string_lossy()),
        rules_args = rules_args.join(" "),
        extra = extra.join(" "),
        prefix = quote(&job_prefix(rules)),
    );
    for job in &graph.jobs {
        let deps: Vec<String> = job.after.iter().map(|&i| graph.jobs[i].unit.name()).collect();
        let minutes = ((job.wall_seconds * args.time_factor / 60.0).ceil() as u64).max(MIN_MINUTES);
        let tables: Vec<String> = job
            .unit
            .sectors
            .iter()
            .map(|&sector| {
                let path = table_path(Path::new(""), rules, sector);
                quote(&path.with_extension("").to_string_lossy())
            })
            .collect();
        let _ = writeln!(
            s,
            "unit {} {} {} {} {} {}",
            job.unit.name(),
            job.memory.div_ceil(1 << 20),
            job.cpus,
            minutes,
            quote(&deps.join(" ")),
            tables.join(" ")
        );
    }
    let _ = writeln!(
        s,
        r#"echo "submitted $submitted jobs; $queued still queued or running; $solved units already solved" >&2"#
    );
    s
}
