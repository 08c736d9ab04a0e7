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
/// small units stay in cache, large ones look up captures in large mapped
/// tables at random. Measured on `nine` here, in one undisturbed run of all
/// 49 sliding sectors (5,487 s; this model says 6,178 s): pairs of up to 50
/// M slots at 2.2 to 22 M slots/s, up to 300 M at 2.2 to 9.8 M/s, larger
/// ones (13 to 18 stones) at 1.23 to 2.59 M/s. Lasker placement pairs look
/// up every placement in a solved table: 0.9 (6 stones) to 1.8 (5 stones)
/// M slots/s measured, so a third of the sliding rate.
pub fn estimated_rate(kind: UnitKind, unit_slots: u64) -> f64 {
    let rate = match unit_slots {
        0..=50_000_000 => 3.0e6,
        50_000_001..=300_000_000 => 2.2e6,
        _ => 1.4e6,
    };
    if kind == UnitKind::Lasker {
        rate / 3.0
    } else {
        rate
    }
}

/// Cores of the machine on which [`estimated_rate`] was measured.
pub const MEASURED_CORES: u32 = 2;

/// Speed-up of one thread to two, measured here (`morris bench`).
const TWO_THREAD_SPEEDUP: f64 = 1.8;

/// Seconds to solve `slots` slots of a unit of `kind` on one core: the
/// time at [`estimated_rate`] on two cores times their measured speed-up.
pub fn cpu_seconds(kind: UnitKind, slots: u64) -> f64 {
    slots as f64 / estimated_rate(kind, slots) * TWO_THREAD_SPEEDUP
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
    largest_unit_memory: u64,
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
            Plan { missing: 0, slots: 0, largest_unit_memory: 0, seconds: 0.0, disk_peak: 0, disk_final: 0, finished };
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
                plan.largest_unit_memory = plan.largest_unit_memory.max(unit.working_bytes(rules));
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

    /// Bytes of memory the largest unit needs, the process's base included.
    pub fn memory(&self) -> u64 {
        self.largest_unit_memory + BASE_MEMORY
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
