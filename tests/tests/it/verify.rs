//! `morris_verify`: the independent verifier passes on every table
//! the solver writes, and names the position when one stored value is
//! changed to another valid value, even when the table's checksums are
//! rewritten to match (so that only re-deriving values can catch it). It
//! reports damaged, missing and unusable tables as faults and never panics.
//!
//! Every test works on copies of one solved database (`nine`, sliding
//! sectors with at most 7 stones: 3-3, 3-4, 4-3).

use std::fs;
use std::path::Path;

use morris_db::table::{table_path, write_table, HEADER_SIZE};
use morris_db::{Color, Position, RuleSet, Sector, Setup, Table, TableHeader, Value};
use morris_probe::Database;
use morris_verify::{Fault, TableReport, Verifier};
use proptest::prelude::*;

use crate::common::{copy_of_db, nine, solved};

fn verify(dir: &Path, w: u8, b: u8) -> TableReport {
    Verifier::new(dir, nine()).max_faults(1000).verify(Sector::sliding(w, b), &|_| {})
}

fn entries(dir: &Path, sector: Sector) -> Vec<u16> {
    let len = nine().indexer().sector(sector).len();
    let t = Table::open(dir, &nine(), sector, len).unwrap();
    (0..len).map(|s| t.entry(s).unwrap()).collect()
}

/// Rewrites a table with `entries`, header and checksums made to match:
/// the table looks intact to every check but re-deriving values.
fn rewrite(dir: &Path, sector: Sector, entries: &[u16]) {
    let header = TableHeader::for_entries(&nine(), sector, entries);
    write_table(&table_path(dir, &nine(), sector), &header, entries).unwrap();
}

/// The first slot of `sector` whose stored value satisfies `pick`.
fn find(entries: &[u16], pick: impl Fn(Value) -> bool) -> usize {
    entries.iter().position(|&e| Value::from_entry(e).is_some_and(&pick)).expect("a slot with such a value")
}

fn text_of(sector: Sector, slot: usize) -> String {
    let index = nine().indexer().sector(sector);
    let (us, them) = index.position(slot as u64).unwrap();
    Setup::from_relative(us, them, Color::White, 0, 0).to_text(nine().board())
}

#[test]
fn every_table_the_solver_writes_passes() {
    let v = Verifier::new(solved(), nine());
    let sectors = v.sectors().unwrap();
    assert_eq!(sectors, [Sector::sliding(3, 3), Sector::sliding(3, 4), Sector::sliding(4, 3)]);
    let total = std::sync::atomic::AtomicU64::new(0);
    for s in sectors {
        let r = v.verify(s, &|n| {
            total.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        });
        assert!(r.is_ok(), "{s}: {:?}", r.faults);
        assert_eq!(r.faults, []);
        assert_eq!(r.rederived, 0, "{s}: the fast derivation agrees on a sound table");
    }
    // Published counts (../shared/oracle): every canonical position checked.
    let positions: u64 = [(3, 3), (3, 4), (4, 3)].iter().map(|&(w, b)| verify(solved(), w, b).positions).sum();
    assert_eq!(positions, 169_626 + 760_398 + 760_398);
    let slots: u64 =
        [(3, 3), (3, 4), (4, 3)].iter().map(|&(w, b)| nine().indexer().sector(Sector::sliding(w, b)).len()).sum();
    assert_eq!(total.into_inner(), slots, "progress reports every slot once");
}

/// Changes one stored value to `to(old)` with matching checksums and
/// expects verify to name that position, with the stored and derived values.
fn changed_value_is_caught(sector: Sector, pick: impl Fn(Value) -> bool, to: impl Fn(Value) -> Value) {
    let dir = copy_of_db();
    let mut e = entries(dir.path(), sector);
    let slot = find(&e, pick);
    let old = Value::from_entry(e[slot]).unwrap();
    let new = to(old);
    assert_ne!(old, new);
    e[slot] = new.to_entry();
    rewrite(dir.path(), sector, &e);

    // Every other check passes, and the probe returns the changed value.
    let len = e.len() as u64;
    let t = Table::open(dir.path(), &nine(), sector, len).unwrap();
    t.verify_checksum().unwrap();
    let text = text_of(sector, slot);
    let pos = Position::parse(&text, &nine()).unwrap();
    assert_eq!(Database::open(dir.path(), nine()).unwrap().value(&pos).unwrap(), new);

    let r = verify(dir.path(), sector.w, sector.b);
    assert!(!r.is_ok(), "{old:?} -> {new:?} at {text} was not caught");
    let named = r.faults.iter().find_map(|f| match f {
        Fault::Value { slot: s, position, stored, derived, .. } if *s == slot as u64 => {
            Some((position.clone(), *stored, *derived))
        }
        _ => None,
    });
    assert_eq!(named, Some((text.clone(), new, old)), "faults: {:?}", r.faults);
    let shown = r.faults.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("\n");
    assert!(shown.contains(&text), "{shown}");
}

#[test]
fn a_longer_win_is_caught() {
    changed_value_is_caught(
        Sector::sliding(3, 4),
        |v| matches!(v, Value::Win(n) if n.get() >= 3),
        |v| match v {
            Value::Win(n) => Value::win(n.get() + 2).unwrap(),
            v => v,
        },
    );
}

#[test]
fn a_shorter_win_is_caught() {
    changed_value_is_caught(
        Sector::sliding(3, 4),
        |v| matches!(v, Value::Win(n) if n.get() >= 3),
        |v| match v {
            Value::Win(n) => Value::win(n.get() - 2).unwrap(),
            v => v,
        },
    );
}

#[test]
fn a_win_made_a_draw_is_caught() {
    changed_value_is_caught(Sector::sliding(3, 4), |v| matches!(v, Value::Win(_)), |_| Value::Draw);
}

#[test]
fn a_draw_made_a_win_is_caught() {
    changed_value_is_caught(Sector::sliding(4, 3), |v| v == Value::Draw, |_| Value::win(5).unwrap());
}

#[test]
fn a_draw_made_a_loss_is_caught() {
    changed_value_is_caught(Sector::sliding(3, 3), |v| v == Value::Draw, |_| Value::LOST);
}

#[test]
fn a_longer_loss_is_caught() {
    changed_value_is_caught(
        Sector::sliding(4, 3),
        |v| matches!(v, Value::Loss(n) if n.get() >= 2),
        |v| match v {
            Value::Loss(n) => Value::loss(n.get() + 2).unwrap(),
            v => v,
        },
    );
}

#[test]
fn a_loss_made_a_draw_is_caught() {
    changed_value_is_caught(Sector::sliding(4, 3), |v| matches!(v, Value::Loss(_)), |_| Value::Draw);
}

#[test]
fn a_win_made_a_blocked_loss_is_caught() {
    // No position of 3-3, 3-4 or 4-3 is blocked (a side with 3 stones
    // flies, and 3 stones cannot block 4), so `Loss(0)` is always wrong.
    changed_value_is_caught(Sector::sliding(3, 3), |v| matches!(v, Value::Win(_)), |_| Value::LOST);
}

#[test]
fn a_flipped_payload_bit_is_reported_with_its_position() {
    let dir = copy_of_db();
    let sector = Sector::sliding(3, 4);
    let e = entries(dir.path(), sector);
    let slot = find(&e, |v| matches!(v, Value::Win(n) if n.get() >= 3));
    let path = table_path(dir.path(), &nine(), sector);
    let mut bytes = fs::read(&path).unwrap();
    bytes[HEADER_SIZE + 2 * slot] ^= 2; // Win(n) becomes Win(n +- 2)
    fs::write(&path, &bytes).unwrap();
    let r = verify(dir.path(), 3, 4);
    assert!(matches!(&r.faults[0], Fault::File(m) if m.contains("payload checksum")), "{:?}", r.faults);
    assert!(r.faults.iter().any(|f| matches!(f, Fault::Value { slot: s, .. } if *s == slot as u64)));
}

#[test]
fn a_value_in_a_padding_slot_is_caught() {
    let dir = copy_of_db();
    let sector = Sector::sliding(3, 3);
    let mut e = entries(dir.path(), sector);
    let slot = e.iter().position(|&x| x == morris_db::value::PADDING_ENTRY).unwrap();
    e[slot] = Value::Draw.to_entry();
    rewrite(dir.path(), sector, &e);
    let r = verify(dir.path(), 3, 3);
    assert!(
        r.faults.iter().any(|f| matches!(f, Fault::Padding { slot: s, .. } if *s == slot as u64)),
        "{:?}",
        r.faults
    );
}

#[test]
fn header_statistics_are_checked() {
    let dir = copy_of_db();
    let sector = Sector::sliding(3, 3);
    let e = entries(dir.path(), sector);
    let mut header = TableHeader::for_entries(&nine(), sector, &e);
    header.own.max_win += 2;
    write_table(&table_path(dir.path(), &nine(), sector), &header, &e).unwrap();
    let r = verify(dir.path(), 3, 3);
    assert_eq!(r.faults, [Fault::Statistics { field: "longest win", header: 27, payload: 25 }]);
}

#[test]
fn damaged_and_missing_tables_are_faults() {
    let dir = copy_of_db();
    // Cut short: the file itself is refused.
    let path = table_path(dir.path(), &nine(), Sector::sliding(3, 3));
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 2]).unwrap();
    let r = verify(dir.path(), 3, 3);
    assert_eq!(r.fault_count, 1);
    assert!(
        matches!(&r.faults[0], Fault::File(m) if m.contains("file size") && m.contains("nine_3_3_0_0.mtb")),
        "{:?}",
        r.faults
    );
    // 4-3's moves without capture lead to 3-4: without it nothing can be
    // re-derived, and every fault says why.
    fs::remove_file(table_path(dir.path(), &nine(), Sector::sliding(3, 4))).unwrap();
    let r = verify(dir.path(), 4, 3);
    assert!(!r.is_ok());
    assert!(
        r.faults
            .iter()
            .all(|f| matches!(f, Fault::Successor { detail, .. } if detail.contains("sector 3-4 is missing"))),
        "{:?}",
        r.faults
    );
    let r = verify(dir.path(), 3, 4);
    assert!(matches!(&r.faults[0], Fault::File(m) if m.contains("3-4")));
}

/// One verifier keeps the successor tables of the table it checked last
/// for the next; a successor changed on disk in between is read again.
#[test]
fn a_successor_changed_since_the_last_table_is_read_again() {
    let dir = copy_of_db();
    let v = Verifier::new(dir.path(), nine());
    let four_three = Sector::sliding(4, 3);
    // 4-3's moves lead to 3-4 only (a capture would leave 2 stones).
    assert_eq!(v.successor_sectors(four_three), [Sector::sliding(3, 4)]);
    assert!(v.verify(four_three, &|_| {}).is_ok());
    let path = table_path(dir.path(), &nine(), Sector::sliding(3, 4));
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 2]).unwrap();
    let r = v.verify(four_three, &|_| {});
    assert_eq!(r.unusable, [Sector::sliding(3, 4)], "{:?}", r.faults);
    assert!(r.faults.iter().all(|f| matches!(f, Fault::Successor { detail, .. } if detail.contains("file size"))));
    fs::remove_file(&path).unwrap();
    let r = v.verify(four_three, &|_| {});
    assert!(r.faults.iter().all(|f| matches!(f, Fault::Successor { detail, .. } if detail.contains("missing"))));
    fs::write(&path, &bytes).unwrap();
    assert!(v.verify(four_three, &|_| {}).is_ok());
}

/// In `reading_order`, consecutive tables share their successors: over the
/// whole of `nine` (every placement and sliding sector) no successor table
/// is read more than twice by a verifier that keeps the last table's
/// successors (in solving order most are read four times or more).
#[test]
fn reading_order_reads_each_successor_at_most_twice() {
    let rules = nine();
    let v = Verifier::new(solved(), rules.clone());
    let mut sectors = morris_solver::placement::placement_sectors(&rules);
    for w in 3..=9 {
        for b in 3..=9 {
            sectors.push(Sector::sliding(w, b));
        }
    }
    let ordered = v.reading_order(&sectors);
    let (mut sorted, mut given) = (ordered.clone(), sectors.clone());
    sorted.sort();
    given.sort();
    assert_eq!(sorted, given, "a permutation");
    let mut reads = std::collections::HashMap::<Sector, u32>::new();
    let mut kept: Vec<Sector> = Vec::new();
    for &s in &ordered {
        let needed = v.successor_sectors(s);
        for &n in &needed {
            if !kept.contains(&n) {
                *reads.entry(n).or_default() += 1;
            }
        }
        kept = needed;
    }
    let worst = reads.iter().max_by_key(|(_, &n)| n).unwrap();
    assert!(*worst.1 <= 2, "{} read {} times", worst.0, worst.1);
    assert!(reads.len() > 300, "{} successor tables", reads.len());
}

#[test]
fn a_table_of_another_sector_renamed_into_place_is_a_fault() {
    let dir = copy_of_db();
    fs::copy(
        table_path(dir.path(), &nine(), Sector::sliding(4, 3)),
        table_path(dir.path(), &nine(), Sector::sliding(3, 4)),
    )
    .unwrap();
    let r = verify(dir.path(), 3, 4);
    assert!(matches!(&r.faults[..], [Fault::File(m)] if m.contains("holds sector 4-3")), "{:?}", r.faults);
}

#[test]
fn one_thread_and_two_threads_find_the_same_faults() {
    let dir = copy_of_db();
    let sector = Sector::sliding(3, 4);
    let mut e = entries(dir.path(), sector);
    let wins: Vec<usize> = (0..e.len()).filter(|&s| matches!(Value::from_entry(e[s]), Some(Value::Win(_)))).collect();
    for (k, &slot) in wins.iter().step_by(wins.len() / 8).enumerate() {
        if let Some(Value::Win(n)) = Value::from_entry(e[slot]) {
            e[slot] = Value::win(n.get() + 2 * (k as u16 + 1)).unwrap().to_entry();
        }
    }
    rewrite(dir.path(), sector, &e);
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| Verifier::new(dir.path(), nine()).max_faults(5).verify(sector, &|_| {}))
    };
    let (one, two) = (run(1), run(2));
    assert!(one.fault_count > 0);
    assert_eq!(one.fault_count, two.fault_count);
    assert_eq!(one.faults, two.faults);
    assert_eq!(one.faults.len(), 5);
    let slots: Vec<u64> = one.faults.iter().map(Fault::slot).collect();
    assert!(slots.windows(2).all(|w| w[0] <= w[1]), "lowest slots first");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Arbitrary entries written into 3-3 with matching checksums: verify
    /// reports faults (or none, if the entries happen to be right) and never
    /// panics.
    #[test]
    fn verify_never_panics_on_arbitrary_entries(
        changes in proptest::collection::vec((any::<u32>(), any::<u16>()), 1..40),
    ) {
        let dir = copy_of_db();
        let sector = Sector::sliding(3, 3);
        let mut e = entries(dir.path(), sector);
        let before = e.clone();
        for (slot, v) in changes {
            let n = e.len();
            e[slot as usize % n] = v;
        }
        rewrite(dir.path(), sector, &e);
        let r = verify(dir.path(), 3, 3);
        prop_assert_eq!(r.is_ok(), e == before, "{:?}", r.faults);
    }
}

/// Verifies every table of `dir`; returns the tables and positions checked.
fn verify_all(dir: &Path, rules: &RuleSet) -> (usize, u64) {
    let v = Verifier::new(dir, rules.clone());
    let sectors = v.sectors().unwrap();
    let mut positions = 0;
    for &s in &sectors {
        let r = v.verify(s, &|_| {});
        assert!(r.is_ok(), "{} {s}: {:?}", rules.name(), r.faults);
        positions += r.positions;
    }
    (sectors.len(), positions)
}

#[test]
fn whole_games_with_placement_and_lines_pass() {
    for preset in ["three", "three-nodiagonal", "six"] {
        let rules = RuleSet::preset(preset).unwrap();
        let dir = tempfile::tempdir().unwrap();
        morris_solver::solve_all(&rules, dir.path(), false).unwrap();
        let (tables, positions) = verify_all(dir.path(), &rules);
        assert!(tables > 5 && positions > 0, "{preset}: {tables} tables, {positions} positions");
        if preset == "six" {
            // A changed placement value is caught too: the first win of
            // the sector where White has placed two stones and Black one.
            let sector = Sector { w: 1, b: 2, wh: 4, bh: 4 };
            let index = rules.indexer().sector(Sector::sliding(1, 2));
            let t = Table::open(dir.path(), &rules, sector, index.len()).unwrap();
            let mut e: Vec<u16> = (0..index.len()).map(|s| t.entry(s).unwrap()).collect();
            drop(t);
            let slot = e.iter().position(|&x| Value::from_entry(x).is_some()).unwrap();
            let old = Value::from_entry(e[slot]).unwrap();
            let new = if old == Value::Draw { Value::win(3).unwrap() } else { Value::Draw };
            e[slot] = new.to_entry();
            let header = TableHeader::for_entries(&rules, sector, &e);
            write_table(&table_path(dir.path(), &rules, sector), &header, &e).unwrap();
            let r = Verifier::new(dir.path(), rules.clone()).verify(sector, &|_| {});
            assert!(
                r.faults.iter().any(|f| matches!(f, Fault::Value { slot: s, stored, derived, .. }
                    if *s == slot as u64 && *stored == new && *derived == old)),
                "{:?}",
                r.faults
            );
        }
    }
}

/// Changes every `step`-th canonical position of `sector` (in `dir`, of
/// `rules`) to another valid value, with the checksums made to match, and
/// expects verify to name exactly those slots, each with the value it had
/// as the derived one, and to have derived nothing else slowly. The
/// sector's successors must lie in other tables (`w != b`, or a placement
/// sector), so that no unchanged position's value is contradicted. Returns
/// how many changed positions had an opponent's set fixed by a symmetry,
/// and how many not; the table is put back as it was.
fn changes_are_named(dir: &Path, rules: &RuleSet, sector: Sector, step: usize) -> (u32, u32) {
    let path = table_path(dir, rules, sector);
    let original = fs::read(&path).unwrap();
    let index = rules.indexer().sector(sector);
    let them_orbits = rules.indexer().orbits(sector.b as usize).clone();
    let t = Table::open(dir, rules, sector, index.len()).unwrap();
    let mut e: Vec<u16> = (0..index.len()).map(|s| t.entry(s).unwrap()).collect();
    drop(t);
    let mut changed = std::collections::BTreeMap::new();
    let (mut fixed, mut free) = (0, 0);
    let canonical: Vec<usize> = (0..e.len()).filter(|&s| Value::from_entry(e[s]).is_some()).collect();
    for &slot in canonical.iter().step_by(step) {
        let old = Value::from_entry(e[slot]).unwrap();
        let new = match old {
            Value::Draw => Value::win(1).unwrap(),
            Value::Win(n) => Value::win(n.get() + 2).unwrap(),
            Value::Loss(n) => Value::loss(n.get() + 2).unwrap(),
        };
        e[slot] = new.to_entry();
        changed.insert(slot as u64, (new, old));
        let (_, them) = index.position(slot as u64).unwrap();
        let (o, _) = them_orbits.orbit_of(them);
        if them_orbits.stabiliser(o).is_empty() {
            free += 1;
        } else {
            fixed += 1;
        }
    }
    let header = TableHeader::for_entries(rules, sector, &e);
    write_table(&path, &header, &e).unwrap();
    let r = Verifier::new(dir, rules.clone()).max_faults(100_000).verify(sector, &|_| {});
    assert_eq!(r.fault_count, changed.len() as u64, "{sector}: {:?}", &r.faults[..5.min(r.faults.len())]);
    assert_eq!(r.rederived, r.fault_count, "{sector}: only the changed positions are derived slowly");
    let named: std::collections::BTreeMap<u64, (Value, Value)> = r
        .faults
        .iter()
        .filter_map(|f| match f {
            Fault::Value { slot, stored, derived, .. } => Some((*slot, (*stored, *derived))),
            _ => None,
        })
        .collect();
    assert_eq!(named, changed, "{sector}");
    fs::write(&path, original).unwrap();
    (fixed, free)
}

/// Verify re-derives values by the orbit of the opponent's stones, not in
/// slot order: every canonical position must still be visited once and
/// compared with its own slot. Changes one position in 61 of 3-4 (whose
/// successors are in 4-3 and 3-3, left as they were), in orbits of the
/// opponent's stones with and without a symmetry that fixes them, and
/// expects each changed slot named, with the value it had as the derived one.
#[test]
fn every_changed_position_is_named_whatever_the_opponents_orbit() {
    let dir = copy_of_db();
    let (fixed, free) = changes_are_named(dir.path(), &nine(), Sector::sliding(3, 4), 61);
    assert!(fixed > 10 && free > 10, "{fixed} with a symmetry, {free} without");
}

/// The same for the moves the verifier ranks without building them
/// (placements with and without a mill, slides, captures): Six Men's
/// Morris solved whole, a position in 7 changed in each placement sector
/// and each sliding sector `w != b`; every changed slot is named, and on
/// the sound tables not one position needs the slow derivation.
#[test]
fn changed_placements_and_slides_are_named() {
    let rules = RuleSet::preset("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    morris_solver::solve_all(&rules, dir.path(), false).unwrap();
    let v = Verifier::new(dir.path(), rules.clone());
    let sectors = v.sectors().unwrap();
    for &s in &sectors {
        assert_eq!(v.verify(s, &|_| {}).rederived, 0, "{s}: the fast derivation agrees on a sound table");
    }
    let (mut placing, mut moving, mut changed) = (0, 0, 0);
    for &s in &sectors {
        if s.wh > 0 || s.w != s.b {
            let (fixed, free) = changes_are_named(dir.path(), &rules, s, 7);
            changed += fixed + free;
            if s.wh > 0 {
                placing += 1;
            } else {
                moving += 1;
            }
        }
    }
    assert!(
        placing > 20 && moving > 5 && changed > 1000,
        "{placing} placement and {moving} sliding sectors, {changed} positions"
    );
}
