//! Units of work: what the solver computes at once (a sliding pair, a
//! placement sector, or a Lasker placement pair), in solving order, with
//! the tables each one reads and the memory it needs. `morris solve` walks
//! them in order; `morris solve --only` solves one; `morris plan --slurm`
//! makes one Slurm job of each, with dependencies on the units whose
//! tables it reads.

use morris_db::table::HEADER_SIZE;
use morris_db::{RuleSet, Sector};

use crate::pair::{exit_reads_table, exit_sectors};
use crate::placement::{child_sectors, is_double_removal, lasker_pairs, placement_sectors};
use crate::{sliding_pairs, SolveError};

/// What kind of computation a unit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    /// A sliding pair `w-b`/`b-w` (one sector when `w == b`), by
    /// retrograde analysis.
    Sliding,
    /// One placement sector, in one pass from the tables its placements
    /// lead to (no Lasker rule).
    Placement,
    /// A Lasker placement pair `w-b-wh-bh`/`b-w-bh-wh`, by retrograde
    /// analysis.
    Lasker,
}

/// One unit of work: the sectors solved together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Its kind.
    pub kind: UnitKind,
    /// Its sectors: one, or a pair (the first with `(w, wh) <= (b, bh)`).
    pub sectors: Vec<Sector>,
}

/// Bytes of working memory per slot of a pair: a 16-bit cell (the value,
/// or the successor counter while the position is unknown), claims (32-bit
/// items) and the frontier (64-bit positions). Claims and frontier together
/// stayed below half the slots at once on `nine`'s largest pairs (with
/// 32-bit frontier items, then 4 bytes per slot in all); holding positions
/// in the frontier raised the peak resident by 1.06 bytes per slot on the
/// pair 4-7/7-4 of `nine-noflying`.
const PAIR_BYTES_PER_SLOT: u64 = 5;

/// Bytes of working memory per slot of a placement sector: its entries in
/// the mirrored index's order, then in its own (16 bits each).
const PLACEMENT_BYTES_PER_SLOT: u64 = 4;

/// Memory a solve needs besides its units: the program, rayon's threads,
/// indices and buffers.
pub const BASE_MEMORY: u64 = 64 << 20;

/// The most slots one sector of a pair unit (sliding or Lasker) may hold:
/// the pair solver numbers a position by its slot in 31 bits, the 32nd
/// telling the pair's two sectors apart (`solver/src/pair.rs`). Sesotho
/// Morabaraba's largest sliding sectors exceed it (8-9: 3,322,141,680
/// slots; docs/cluster.md).
pub const MAX_PAIR_SECTOR_SLOTS: u64 = 1 << 31;

impl Unit {
    fn pair(kind: UnitKind, sector: Sector) -> Unit {
        let mirrored = sector.mirrored();
        let sectors = if mirrored == sector { vec![sector] } else { vec![sector, mirrored] };
        Unit { kind, sectors }
    }

    /// The unit's name: its first sector, `w-b` or `w-b-wh-bh`.
    pub fn name(&self) -> String {
        self.sectors[0].to_string()
    }

    /// Slots of the unit's sectors together.
    pub fn slots(&self, rules: &RuleSet) -> u64 {
        self.sectors.iter().map(|&s| sector_slots(rules, s)).sum()
    }

    /// Why this solver cannot solve the unit, or `None` when it can: a
    /// pair unit with a sector of more than [`MAX_PAIR_SECTOR_SLOTS`]
    /// slots (named with its slots), which `morris solve` refuses.
    pub fn unsolvable(&self, rules: &RuleSet) -> Option<String> {
        if self.kind == UnitKind::Placement {
            return None;
        }
        let (sector, slots) = self
            .sectors
            .iter()
            .map(|&s| (s, sector_slots(rules, s)))
            .find(|&(_, slots)| slots > MAX_PAIR_SECTOR_SLOTS)?;
        Some(format!("sector {sector} has {slots} slots, more than the pair solver's {MAX_PAIR_SECTOR_SLOTS} (2^31)"))
    }

    /// Bytes its tables take on disk (two bytes a slot plus headers).
    pub fn disk_bytes(&self, rules: &RuleSet) -> u64 {
        self.sectors.iter().map(|&s| table_bytes(rules, s)).sum()
    }

    /// Bytes of working memory while it is solved (without the tables it
    /// reads, which are mapped: [`Unit::input_bytes`]).
    pub fn working_bytes(&self, rules: &RuleSet) -> u64 {
        let per_slot = match self.kind {
            UnitKind::Sliding | UnitKind::Lasker => PAIR_BYTES_PER_SLOT,
            UnitKind::Placement => PLACEMENT_BYTES_PER_SLOT,
        };
        self.slots(rules) * per_slot
    }

    /// The tables it reads, each once, in a fixed order: for a pair, where
    /// captures and placements leaving it land; for a placement sector, the
    /// sectors its placements lead to. Every one of them must be solved,
    /// with a valid checksum, before the unit starts.
    pub fn inputs(&self, rules: &RuleSet) -> Vec<Sector> {
        let mut inputs = Vec::new();
        for &s in &self.sectors {
            let targets: Vec<Sector> = match self.kind {
                UnitKind::Sliding | UnitKind::Lasker => {
                    exit_sectors(rules, s).into_iter().flatten().filter(|&t| exit_reads_table(rules, t)).collect()
                }
                UnitKind::Placement => {
                    child_sectors(rules, s).into_iter().filter(|&c| !is_double_removal(s, c)).collect()
                }
            };
            for t in targets {
                if !inputs.contains(&t) && !self.sectors.contains(&t) {
                    inputs.push(t);
                }
            }
        }
        inputs
    }

    /// Bytes of the tables it reads, all mapped while it runs.
    pub fn input_bytes(&self, rules: &RuleSet) -> u64 {
        self.inputs(rules).into_iter().map(|s| table_bytes(rules, s)).sum()
    }

    /// Bytes resident at its peak: [`Unit::working_bytes`], the tables it
    /// reads ([`Unit::input_bytes`]: a pair copies the large ones into
    /// memory, a placement sector reads them mapped, page by page) and
    /// [`BASE_MEMORY`]. On `nine`'s largest unit, 8-9/9-8, 7.17 GiB against
    /// 6.77 GiB (6,937 MiB) measured as the whole solve's peak resident
    /// memory (`results/nine-runs.csv`).
    pub fn peak_bytes(&self, rules: &RuleSet) -> u64 {
        self.working_bytes(rules) + self.input_bytes(rules) + BASE_MEMORY
    }
}

/// Slots of one sector's table.
pub fn sector_slots(rules: &RuleSet, sector: Sector) -> u64 {
    rules.indexer().sector(sector).len()
}

/// Bytes of one sector's table file (`.mtb`).
pub fn table_bytes(rules: &RuleSet, sector: Sector) -> u64 {
    sector_slots(rules, sector) * 2 + HEADER_SIZE as u64
}

/// The units of `rules` in solving order (every unit after those whose
/// tables it reads): the sliding pairs with `w + b <= max_stones`, then,
/// with `placement`, the placement sectors (or under the Lasker rule the
/// placement pairs).
pub fn units(rules: &RuleSet, max_stones: u32, placement: bool) -> Vec<Unit> {
    let mut units: Vec<Unit> = sliding_pairs(rules, max_stones)
        .into_iter()
        .map(|(w, b)| Unit::pair(UnitKind::Sliding, Sector::sliding(w, b)))
        .collect();
    if placement {
        if rules.lasker() {
            units.extend(lasker_pairs(rules).into_iter().map(|s| Unit::pair(UnitKind::Lasker, s)));
        } else {
            units.extend(
                placement_sectors(rules).into_iter().map(|s| Unit { kind: UnitKind::Placement, sectors: vec![s] }),
            );
        }
    }
    units
}

/// When each table of a run can be compressed: for each unit of `units`
/// (a run's units in solving order), the sectors that no later unit of the
/// run reads once it is done, each listed once, at the first unit after
/// which that holds. A sector of the run is due after its own unit if no
/// later unit reads it, else after its last reader; a sector the run only
/// reads (solved before, outside `units`) is due after its last reader.
/// The reads are [`Unit::inputs`]: placement `child_sectors`, the sliding
/// and Lasker pairs' exits.
pub fn releases(rules: &RuleSet, units: &[Unit]) -> Vec<Vec<Sector>> {
    let mut due: std::collections::HashMap<Sector, usize> = std::collections::HashMap::new();
    for (i, unit) in units.iter().enumerate() {
        for &s in &unit.sectors {
            due.insert(s, i);
        }
        for s in unit.inputs(rules) {
            due.insert(s, i);
        }
    }
    let mut releases = vec![Vec::new(); units.len()];
    for (s, i) in due {
        releases[i].push(s);
    }
    for r in &mut releases {
        morris_db::store::sort_sectors(r);
    }
    releases
}

/// The unit of the whole game of `rules` holding sector `name` (`w-b` or
/// `w-b-wh-bh`; either sector of a pair).
///
/// # Errors
/// [`SolveError::NoSuchUnit`] when `name` is not a sector, or names no
/// sector this solver solves for `rules`.
pub fn find_unit(rules: &RuleSet, name: &str) -> Result<Unit, SolveError> {
    let no_such = |why: &str| SolveError::NoSuchUnit {
        name: name.to_string(),
        rules: rules.name().to_string(),
        why: why.to_string(),
    };
    let sector =
        Sector::parse(name.trim()).ok_or_else(|| no_such("write a sector as `w-b` (sliding) or `w-b-wh-bh`"))?;
    units(rules, u32::MAX, true)
        .into_iter()
        .find(|u| u.sectors.contains(&sector))
        .ok_or_else(|| no_such("no unit of this rule set holds that sector (`morris plan` lists them)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every unit's inputs are sectors of units listed before it, and
    /// every sector is in exactly one unit, for rule sets with and without
    /// the Lasker rule: the order `morris solve` and the Slurm jobs rely on.
    #[test]
    fn every_unit_reads_only_units_before_it() {
        for preset in ["six", "nine", "three", "morabaraba"] {
            let rules = RuleSet::preset(preset).unwrap();
            let all = units(&rules, u32::MAX, true);
            let mut done: Vec<Sector> = Vec::new();
            for u in &all {
                for input in u.inputs(&rules) {
                    assert!(done.contains(&input), "{preset}: unit {} reads {input}, not solved before", u.name());
                }
                for s in &u.sectors {
                    assert!(!done.contains(s), "{preset}: {s} in two units");
                }
                done.extend(&u.sectors);
            }
        }
        let rules = RuleSet::custom("six", &morris_db::Overrides { lasker: Some(true), ..Default::default() }).unwrap();
        let all = units(&rules, u32::MAX, true);
        let mut done: Vec<Sector> = Vec::new();
        for u in &all {
            assert!(u.inputs(&rules).iter().all(|i| done.contains(i)), "six --lasker: unit {}", u.name());
            done.extend(&u.sectors);
        }
    }

    /// Every sector of a run is due once, after its own unit and after
    /// every unit that reads it; and no earlier: right after the later of
    /// its own unit and its last reader. With the placement phase, the
    /// start is due after its own unit, the last.
    #[test]
    fn releases_follow_the_last_reader() {
        for preset in ["six", "nine", "three"] {
            let rules = RuleSet::preset(preset).unwrap();
            for placement in [false, true] {
                let all = units(&rules, u32::MAX, placement);
                let due = releases(&rules, &all);
                assert_eq!(due.len(), all.len());
                let sectors: Vec<Sector> = all.iter().flat_map(|u| u.sectors.clone()).collect();
                let mut seen: Vec<Sector> = due.iter().flatten().copied().collect();
                assert_eq!(seen.len(), sectors.len(), "{preset}: each sector due once");
                seen.sort_by_key(morris_db::store::sector_order);
                let mut want = sectors.clone();
                want.sort_by_key(morris_db::store::sector_order);
                assert_eq!(seen, want, "{preset}");
                for (i, d) in due.iter().enumerate() {
                    for s in d {
                        let own = all.iter().position(|u| u.sectors.contains(s)).unwrap();
                        let last = (0..all.len()).filter(|&j| all[j].inputs(&rules).contains(s)).max();
                        assert_eq!(i, last.map_or(own, |l| l.max(own)), "{preset}: {s}");
                    }
                }
                let start = Sector { w: 0, b: 0, wh: rules.stones(), bh: rules.stones() };
                if placement && !rules.lasker() {
                    assert!(due.last().unwrap().contains(&start), "{preset}");
                }
            }
        }
    }

    /// A pair is found by either sector; a sector outside the rule set is
    /// refused.
    #[test]
    fn find_unit_by_either_sector() {
        let rules = RuleSet::preset("six").unwrap();
        assert_eq!(find_unit(&rules, "4-3").unwrap().sectors, vec![Sector::sliding(3, 4), Sector::sliding(4, 3)]);
        assert_eq!(find_unit(&rules, "3-4").unwrap().name(), "3-4");
        assert!(find_unit(&rules, "7-7").is_err());
        assert!(find_unit(&rules, "x").is_err());
        // The sliding pair 3-3 reads nothing (a capture ends the game);
        // 3-4/4-3 reads 3-3 (a capture from 3-4 leaves 3 against 3, the
        // other side to move; one from 4-3 leaves 2 stones and wins).
        assert!(find_unit(&rules, "3-3").unwrap().inputs(&rules).is_empty());
        assert_eq!(find_unit(&rules, "3-4").unwrap().inputs(&rules), vec![Sector::sliding(3, 3)]);
    }
}
