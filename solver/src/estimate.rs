//! What a solve will take, estimated before it starts: tables missing,
//! slots, time, peak memory and disk ([`Plan`]), and what this machine has
//! free; `morris solve` and `morris value` print it and refuse work that
//! does not fit, `morris plan` sizes Slurm jobs with the same rates.
//!
//! The rates were measured on the 2-core development machine (one
//! undisturbed solve of the whole of `nine`); see each constant.

use std::collections::HashSet;
use std::path::Path;

use morris_db::{FileKind, RuleSet, Sector, Store};

use crate::unit::{releases, sector_slots, table_bytes, units, UnitKind, BASE_MEMORY};
use crate::Finished;

/// Slots per second assumed for the time estimate on two cores, by the
/// kind and size of the unit solved at once (a pair or a placement sector):
/// small units stay in cache, large ones look up captures and placements in
/// large tables at random. Calibrated on the latest undisturbed solve of
/// the whole of `nine` (2026-12-07, 2 cores, commit bac17f2, 3,647 s, on a
/// host that ran `morris bench` in 0.90 s against 1.64 s before the 5,101 s
/// run of 2026-12-06:
/// `results/nine-runs.csv`), from its per-unit times
/// (`results/nine-sliding-timing.csv`, `results/nine-placement-timing.csv`):
/// each rate is the slots of the units of that kind and size divided by
/// their seconds, so the model gives that run's 1,783 s of sliding pairs
/// and 1,581 s of placement sectors back (`results/fit-rates.py` fits them
/// to a run).
/// Lasker placement pairs look up every placement in a solved table: 0.9
/// (6 stones) to 1.8 (5 stones) M slots/s measured, so a third of the
/// sliding rate.
pub fn estimated_rate(kind: UnitKind, unit_slots: u64) -> f64 {
    // (slots up to, sliding pairs' rate, placement sectors' rate)
    const RATES: [(u64, f64, f64); 4] = [
        (5_000_000, 11.82e6, 13.34e6),
        (50_000_000, 12.88e6, 13.27e6),
        (300_000_000, 7.47e6, 11.62e6),
        (u64::MAX, 4.86e6, 11.76e6),
    ];
    let &(_, sliding, placement) = RATES.iter().find(|r| unit_slots <= r.0).unwrap_or(&RATES[3]);
    match kind {
        UnitKind::Sliding => sliding,
        UnitKind::Placement => placement,
        UnitKind::Lasker => sliding / 3.0,
    }
}

/// Seconds per slot, on two cores, of what follows a unit's solve: writing
/// its tables, checking them, and with `--compress` compressing them. The
/// same run's 283 s for 27,860,688,626 slots (its wall time less the units'
/// times); a solve without `--compress` takes less.
pub const FINISH_SECONDS_PER_SLOT: f64 = 283.0 / 27_860_688_626.0;

/// Cores of the machine on which [`estimated_rate`] was measured.
pub const MEASURED_CORES: u32 = 2;

/// Speed-up of one thread to two, measured here (`morris bench`).
const TWO_THREAD_SPEEDUP: f64 = 1.8;

/// Seconds to solve `slots` slots of a unit of `kind` on one core, its
/// tables written: the time at [`estimated_rate`] and
/// [`FINISH_SECONDS_PER_SLOT`] on two cores times their measured speed-up.
pub fn cpu_seconds(kind: UnitKind, slots: u64) -> f64 {
    let slots = slots as f64;
    (slots / estimated_rate(kind, slots as u64) + slots * FINISH_SECONDS_PER_SLOT) * TWO_THREAD_SPEEDUP
}

/// Speed-up on `cores` cores over one: `cores^0.85` (1.8 on 2 cores as
/// measured; about 10 on 16, assumed, not measured: no larger machine was
/// lent to this project).
pub fn speedup(cores: u32) -> f64 {
    (cores.max(1) as f64).powf(0.85)
}

/// Bytes per slot of a compressed table (`.mtz`) assumed for the disk
/// estimate of `solve --compress`: measured 0.38 on `nine`'s 49 sliding
/// tables (18.4 GB to 3.49 GB) and 0.39 on its placement tables (37.3 GB
/// to 7.21 GB); small tables pay a little more for block offsets.
pub const COMPRESSED_BYTES_PER_SLOT: f64 = 0.4;

/// Estimated bytes of `sector`'s compressed table.
fn compressed_bytes(rules: &RuleSet, sector: Sector) -> i64 {
    (sector_slots(rules, sector) as f64 * COMPRESSED_BYTES_PER_SLOT) as i64 + 4096
}

/// The work of a solve.
pub struct Plan {
    missing: usize,
    slots: u64,
    /// The unit with the largest resident peak ([`Unit::peak_bytes`]):
    /// its working memory and the tables it reads, bytes.
    largest_unit: (u64, u64),
    seconds: f64,
    /// The most bytes the directory grows by at any time of the run.
    disk_peak: u64,
    /// Bytes the directory grows (or, negative, shrinks) by at the end.
    disk_final: i64,
    finished: Finished,
}

impl Plan {
    /// The tables of `rules` missing in `dir`: sliding sectors with at most
    /// `max_stones` stones, and with `placement` every placement sector;
    /// the disk as the solver uses it, doing `finished` with each table once
    /// no unit left reads it ([`crate::unit::releases`]): `.mtb`
    /// tables written, inputs there only as `.mtz` expanded, and with
    /// [`Finished::Compress`] each `.mtb` table (new or already there)
    /// replaced by a `.mtz` of [`COMPRESSED_BYTES_PER_SLOT`] after its last
    /// reader, its temporary file beside it while it is written.
    pub fn new(rules: &RuleSet, dir: &Path, max_stones: u32, placement: bool, finished: Finished) -> Plan {
        let mut plan =
            Plan { missing: 0, slots: 0, largest_unit: (0, 0), seconds: 0.0, disk_peak: 0, disk_final: 0, finished };
        let all = units(rules, max_stones, placement);
        let releases = releases(rules, &all);
        let store = Store::new(dir);
        let exists = |s: Sector, kind: FileKind| store.path(rules.name(), s, kind).exists();
        // Sectors with a `.mtb` table during the run, and those expanded.
        let mut plain: HashSet<Sector> = HashSet::new();
        let mut expanded: HashSet<Sector> = HashSet::new();
        let mut disk = 0i64;
        let mut peak = 0i64;
        for (unit, due) in all.iter().zip(&releases) {
            let mut slots = 0;
            for &s in &unit.sectors {
                if exists(s, FileKind::Dtm) {
                    plain.insert(s);
                } else if !exists(s, FileKind::Compressed) {
                    plan.missing += 1;
                    slots += sector_slots(rules, s);
                }
            }
            if slots > 0 {
                plan.slots += slots;
                let sizes = (unit.working_bytes(rules), unit.input_bytes(rules));
                if sizes.0 + sizes.1 > plan.largest_unit.0 + plan.largest_unit.1 {
                    plan.largest_unit = sizes;
                }
                plan.seconds += cpu_seconds(unit.kind, slots) / speedup(MEASURED_CORES);
                for input in unit.inputs(rules) {
                    if !plain.contains(&input) && !exists(input, FileKind::Dtm) {
                        expanded.insert(input);
                        plain.insert(input);
                        disk += table_bytes(rules, input) as i64;
                    }
                }
                for &s in &unit.sectors {
                    if !exists(s, FileKind::Dtm) && !exists(s, FileKind::Compressed) {
                        plain.insert(s);
                        disk += table_bytes(rules, s) as i64;
                    }
                }
                peak = peak.max(disk);
            }
            for &s in due {
                if !plain.remove(&s) {
                    continue;
                }
                if expanded.contains(&s) {
                    disk -= table_bytes(rules, s) as i64;
                } else if finished == Finished::Compress {
                    peak = peak.max(disk + compressed_bytes(rules, s));
                    disk += compressed_bytes(rules, s) - table_bytes(rules, s) as i64;
                }
            }
        }
        plan.disk_peak = peak.max(0) as u64;
        plan.disk_final = disk;
        plan
    }

    /// The estimated time of the solve on this machine, in seconds.
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// The number of tables missing.
    pub fn missing(&self) -> usize {
        self.missing
    }

    /// Whether nothing is missing.
    pub fn is_empty(&self) -> bool {
        self.missing == 0
    }

    /// The canonical positions (slots) of the missing tables.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// Bytes resident at the solve's peak: the largest unit's
    /// [`Unit::peak_bytes`](crate::unit::Unit::peak_bytes), its working
    /// memory, the tables it reads and the process's base.
    pub fn memory(&self) -> u64 {
        self.largest_unit.0 + self.largest_unit.1 + BASE_MEMORY
    }

    /// Of [`Plan::memory`]: the largest unit's working memory and the
    /// tables it reads, bytes.
    pub fn memory_parts(&self) -> (u64, u64) {
        self.largest_unit
    }

    /// The most bytes the directory grows by at any time of the run.
    pub fn disk_peak(&self) -> u64 {
        self.disk_peak
    }

    /// Bytes the directory grows (or, negative, shrinks) by at the end.
    pub fn disk_final(&self) -> i64 {
        self.disk_final
    }

    /// What is done with each table after its last reader.
    pub fn finished(&self) -> Finished {
        self.finished
    }

    /// What `dir`'s file system (its nearest existing ancestor when `dir`
    /// does not exist yet) and this machine have free now, in bytes.
    pub fn free(dir: &Path) -> Free {
        let existing = dir.ancestors().find(|d| d.exists()).unwrap_or(Path::new("."));
        Free { disk: fs4::available_space(existing).ok(), memory: available_memory() }
    }

    /// Whether the solve fits what is `free` (an unknown figure fits).
    pub fn fits(&self, free: &Free) -> bool {
        free.disk.is_none_or(|f| f > self.disk_peak) && free.memory.is_none_or(|f| f > self.memory())
    }
}

/// Free disk and memory, bytes; `None` where the system does not say.
#[derive(Clone, Copy, Debug)]
pub struct Free {
    /// Bytes free on the database's file system.
    pub disk: Option<u64>,
    /// Memory available to a new process (`MemAvailable`).
    pub memory: Option<u64>,
}

/// The memory available to a new process now (`MemAvailable` of
/// /proc/meminfo, Linux only), in bytes.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The row of `results/nine-runs.csv` for `step`, by column name: the
    /// figures of the latest undisturbed whole solve of `nine`, measured, not
    /// computed by this module.
    fn measured(step: &str) -> std::collections::HashMap<String, f64> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/nine-runs.csv");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        let names: Vec<&str> = lines.next().unwrap().split(',').collect();
        let row = lines.map(|l| l.split(',').collect::<Vec<_>>()).find(|r| r[0] == step).unwrap();
        names.iter().zip(row).filter_map(|(n, v)| Some((n.to_string(), v.parse().ok()?))).collect()
    }

    /// `solve --phase all --compress` of `nine` into an empty directory is
    /// estimated within 10% of the measured run's wall time, peak resident
    /// memory and disk (peak and final). The rates were fitted to that
    /// run's per-unit times, so this checks that the estimate adds them up
    /// as the solver runs them (every unit, each kind at its rate, the
    /// tables' writing, the compressed sizes), not the rates themselves.
    #[test]
    fn the_whole_of_nine_is_estimated_as_it_was_measured() {
        let rules = RuleSet::preset("nine").unwrap();
        let empty = tempfile::tempdir().unwrap();
        let plan = Plan::new(&rules, empty.path(), u32::MAX, true, Finished::Compress);
        let run = measured("solve");
        let near = |what: &str, estimate: f64, measured: f64| {
            let ratio = estimate / measured;
            assert!((0.9..=1.1).contains(&ratio), "{what}: estimated {estimate:.3e}, measured {measured:.3e}");
        };
        assert_eq!(plan.missing(), 498);
        near("seconds", plan.seconds(), run["wall_s"]);
        near("peak memory", plan.memory() as f64, run["peak_rss_mib"] * (1u64 << 20) as f64);
        near("disk at the peak", plan.disk_peak() as f64, run["disk_peak_gb"] * 1e9);
        near("disk at the end", plan.disk_final() as f64, run["disk_final_gb"] * 1e9);
    }

    /// A solve fits only where both the disk at its peak and the memory at
    /// its peak are free; an unknown figure does not refuse it.
    #[test]
    fn a_solve_that_needs_more_than_is_free_does_not_fit() {
        let rules = RuleSet::preset("nine").unwrap();
        let empty = tempfile::tempdir().unwrap();
        let plan = Plan::new(&rules, empty.path(), u32::MAX, true, Finished::Compress);
        let (disk, memory) = (plan.disk_peak(), plan.memory());
        let free = |disk, memory| Free { disk, memory };
        assert!(plan.fits(&free(Some(disk + 1), Some(memory + 1))));
        assert!(!plan.fits(&free(Some(disk - 1), Some(memory + 1))));
        assert!(!plan.fits(&free(Some(disk + 1), Some(memory - 1))));
        assert!(plan.fits(&free(None, None)));
        // Without compression the tables stay as they are: the disk grows.
        let plain = Plan::new(&rules, empty.path(), u32::MAX, true, Finished::Keep);
        assert!(!plain.fits(&free(Some(disk + 1), Some(memory + 1))));
    }
}
