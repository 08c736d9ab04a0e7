//! What a solve will take, said before it starts: tables missing, slots,
//! and estimated time, peak memory and disk, against what this machine has
//! free; `solve` and `value` refuse work that does not fit.

use std::io::Write;
use std::path::Path;

use anyhow::bail;
use morris_db::compressed::COMPRESSED_EXTENSION;
use morris_db::table::{table_path, HEADER_SIZE};
use morris_db::{RuleSet, Sector};
use morris_solver::placement::placement_sectors;
use morris_solver::sliding_pairs;

/// Slots per second assumed for the time estimate on two cores, by the
/// size of the unit solved at once (a pair or a placement sector): small
/// units stay in cache, large ones look up captures in large mapped
/// tables at random. Measured on `nine` here, in one undisturbed run of all
/// 49 sliding sectors (5,487 s; this model says 6,178 s): pairs of up to 50
/// M slots at 2.2 to 22 M slots/s, up to 300 M at 2.2 to 9.8 M/s, larger
/// ones (13 to 18 stones) at 1.23 to 2.59 M/s.
fn estimated_rate(unit_slots: u64) -> f64 {
    match unit_slots {
        0..=50_000_000 => 3.0e6,
        50_000_001..=300_000_000 => 2.2e6,
        _ => 1.4e6,
    }
}

/// Bytes of working memory per slot of the largest pair: a 16-bit value and
/// an 8-bit successor counter.
const BYTES_PER_SLOT: u64 = 3;

/// The work of a solve.
pub struct Plan {
    missing: usize,
    slots: u64,
    largest_unit_slots: u64,
    seconds: f64,
}

impl Plan {
    /// The tables of `rules` missing in `dir`: sliding sectors with at most
    /// `max_stones` stones, and with `placement` every placement sector.
    pub fn new(rules: &RuleSet, dir: &Path, max_stones: u32, placement: bool) -> Plan {
        let mut plan = Plan { missing: 0, slots: 0, largest_unit_slots: 0, seconds: 0.0 };
        let len = |s: Sector| rules.indexer().sector(s.w as usize, s.b as usize).len();
        let mut add = |sectors: &[Sector]| {
            let mut unit = 0;
            for &s in sectors {
                let path = table_path(dir, rules, s);
                if !path.exists() && !path.with_extension(COMPRESSED_EXTENSION).exists() {
                    plan.missing += 1;
                    plan.slots += len(s);
                    unit += len(s);
                }
            }
            plan.largest_unit_slots = plan.largest_unit_slots.max(unit);
            plan.seconds += unit as f64 / estimated_rate(unit);
        };
        for (w, b) in sliding_pairs(rules, max_stones) {
            if w == b {
                add(&[Sector::sliding(w, b)]);
            } else {
                add(&[Sector::sliding(w, b), Sector::sliding(b, w)]);
            }
        }
        if placement {
            for s in placement_sectors(rules) {
                add(&[s]);
            }
        }
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

    /// Prints the estimate to `out`; refuses (unless `force`) when the
    /// memory or disk it needs exceeds what is free.
    ///
    /// # Errors
    /// When it does not fit, naming the figures; when `out` fails.
    pub fn report(&self, rules: &RuleSet, dir: &Path, force: bool, out: &mut impl Write) -> anyhow::Result<()> {
        let disk = self.slots * 2 + self.missing as u64 * HEADER_SIZE as u64;
        let memory = self.largest_unit_slots * BYTES_PER_SLOT + (64 << 20);
        // The directory may not exist yet: ask about its nearest ancestor.
        let existing = dir.ancestors().find(|d| d.exists()).unwrap_or(Path::new("."));
        let free_disk = fs4::available_space(existing).ok();
        let free_memory = available_memory();
        writeln!(
            out,
            "{} of {} to solve, {} slots: estimated {:.0} s on 2 cores, peak memory {}, disk {} (free: memory {}, disk {})",
            crate::plural(self.missing as u64, "table", "tables"),
            rules.name(),
            self.slots,
            self.seconds,
            gib(memory),
            gib(disk),
            free_memory.map_or("unknown".into(), gib),
            free_disk.map_or("unknown".into(), gib),
        )?;
        out.flush()?;
        let fits = free_disk.is_none_or(|f| f > disk) && free_memory.is_none_or(|f| f > memory);
        if !fits && !force {
            bail!("this solve does not fit this machine (figures above); --force to try anyway");
        }
        Ok(())
    }
}

/// The memory available to a new process now (`MemAvailable` of
/// /proc/meminfo, Linux only), in bytes.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}
