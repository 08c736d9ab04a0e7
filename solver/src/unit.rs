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

/// Bytes of working memory per slot of a pair: a 16-bit value, an 8-bit
/// successor counter, and claims and frontier (32-bit items; measured
/// below half the slots at once on `nine`'s largest pairs).
const PAIR_BYTES_PER_SLOT: u64 = 5;

/// Bytes of working memory per slot of a placement sector: its entries in
/// the mirrored index's order, then in its own (16 bits each).
const PLACEMENT_BYTES_PER_SLOT: u64 = 4;

/// Memory a solve needs besides its units: the program, rayon's threads,
/// indices and buffers.
pub const BASE_MEMORY: u64 = 64 << 20;

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
}

/// Slots of one sector's table.
pub fn sector_slots(rules: &RuleSet, sector: Sector) -> u64 {
    rules.indexer().sector(sector.w as usize, sector.b as usize).len()
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
