//! A rule set's solve as a graph of jobs for a cluster, one per unit (a
//! sliding pair, a placement sector, a Lasker placement pair), each after
//! the units whose tables it reads, sized with the rates of
//! [`crate::estimate`]; and the shell script that submits the graph to
//! Slurm (`morris plan --slurm FILE`).
//!
//! One job per unit, no job arrays: each unit has its own dependencies,
//! memory, cores and time limit, while a job array shares one request and
//! one dependency list among its tasks; units with the same inputs are few
//! (and small), so arrays would save little. The job counts (hundreds to a
//! few thousand) stay within Slurm's default `MaxJobCount` of 10,000.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use morris_db::table::table_path;
use morris_db::RuleSet;

use crate::estimate::{cpu_seconds, speedup};
use crate::unit::{units, Unit};

/// Slots per core a job asks for: a unit of `s` slots asks for
/// `ceil(s / SLOTS_PER_CPU)` cores, at most `--max-cpus`.
pub const SLOTS_PER_CPU: u64 = 20_000_000;

/// The shortest time limit a job gets, minutes (start-up, checksums of the
/// tables it reads).
pub const MIN_MINUTES: u64 = 10;

/// One job: a unit with its request.
pub struct Job {
    /// The unit the job solves.
    pub unit: Unit,
    /// Indices (into the job list) of the jobs whose tables it reads.
    pub after: Vec<usize>,
    /// Cores it asks for.
    pub cpus: u32,
    /// Memory request, bytes: working memory, mapped inputs, base, 10%.
    pub memory: u64,
    /// Estimated seconds on one core.
    pub cpu_seconds: f64,
    /// Estimated wall seconds on `cpus` cores.
    pub wall_seconds: f64,
}

/// The graph of jobs of a solve.
pub struct Graph {
    /// The jobs, each after the jobs it reads from (a topological order).
    pub jobs: Vec<Job>,
}

impl Graph {
    /// The jobs of `rules`' units: sliding sectors with at most
    /// `max_stones` stones, with `placement` every placement sector; each
    /// asks for at most `max_cpus` cores.
    pub fn new(rules: &RuleSet, max_stones: u32, placement: bool, max_cpus: u32) -> Graph {
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
            let memory = unit.peak_bytes(rules) * 11 / 10;
            let cpu = cpu_seconds(unit.kind, slots);
            jobs.push(Job { unit, after, cpus, memory, cpu_seconds: cpu, wall_seconds: cpu / speedup(cpus) });
        }
        Graph { jobs }
    }

    /// The longest chain of dependent jobs by estimated wall time: its
    /// jobs, first to last, and its time.
    pub fn critical_path(&self) -> (Vec<usize>, f64) {
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

/// What a Slurm script needs besides the graph.
pub struct SlurmOptions {
    /// The rule set as `morris` command-line words (`--rules nine ...`).
    pub rules_args: Vec<String>,
    /// `sbatch --partition`, when given.
    pub partition: Option<String>,
    /// `sbatch --account`, when given.
    pub account: Option<String>,
    /// Each job's time limit is this many times its estimated wall time
    /// (at least [`MIN_MINUTES`]).
    pub time_factor: f64,
    /// The `morris` binary the jobs run (absolute).
    pub morris: PathBuf,
    /// The database directory (absolute).
    pub db: PathBuf,
    /// The directory of the jobs' logs (absolute).
    pub logs: PathBuf,
}

/// A word quoted for bash: in single quotes, each `'` written `'\''`.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The prefix of every job name of `rules`: `morris-<rule set>-`.
fn job_prefix(rules: &RuleSet) -> String {
    format!("morris-{}-", rules.name())
}

/// The bash script that submits `graph`'s jobs of `rules` to Slurm,
/// skipping units already solved and jobs still queued.
pub fn slurm_script(rules: &RuleSet, graph: &Graph, options: &SlurmOptions) -> String {
    let (morris, db, logs) = (&options.morris, &options.db, &options.logs);
    let rules_args: Vec<String> = options.rules_args.iter().map(|a| quote(a)).collect();
    let mut extra = Vec::new();
    if let Some(p) = &options.partition {
        extra.push(quote(&format!("--partition={p}")));
    }
    if let Some(a) = &options.account {
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
        let minutes = ((job.wall_seconds * options.time_factor / 60.0).ceil() as u64).max(MIN_MINUTES);
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
