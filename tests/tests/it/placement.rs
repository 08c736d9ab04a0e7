//! The whole game (placement and sliding) of the small rule sets against
//! the known values of their start positions (docs/testing.md, "The oracle"):
//! Three Men's Morris is a first-player win only by opening in the centre
//! (corners draw, edges lose; folklore, Murray 1952), without diagonals a
//! draw; Six Men's Morris a draw (Liou 2026).

use std::collections::BTreeMap;

use morris_db::{Position, RuleSet, Value};
use morris_probe::Database;
use morris_solver::solve_all;

/// Solves `preset` completely into a temporary directory and returns the
/// start value and the value of each first move by its notation.
fn start_values(preset: &str) -> (Value, BTreeMap<String, Value>) {
    let rules = RuleSet::preset(preset).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let report = solve_all(&rules, dir.path(), false).unwrap();
    eprintln!("{preset}: {} tables, {} positions, {:.2} s", report.solved.len(), report.positions, report.seconds);
    let db = Database::open(dir.path(), rules.clone()).unwrap();
    let start = Position::start(&rules);
    let moves = db.analyze(&start).unwrap().into_iter().map(|(m, v)| (m.notation(rules.board()), v)).collect();
    (db.value(&start).unwrap(), moves)
}

#[test]
fn three_mens_morris_is_won_only_by_the_centre() {
    let (value, moves) = start_values("three");
    assert!(matches!(value, Value::Win(_)), "{value:?}");
    assert!(matches!(moves["b2"], Value::Win(_)), "centre: {:?}", moves["b2"]);
    for corner in ["a1", "a3", "c1", "c3"] {
        assert_eq!(moves[corner], Value::Draw, "corner {corner}");
    }
    for edge in ["a2", "b1", "b3", "c2"] {
        assert!(matches!(moves[edge], Value::Loss(_)), "edge {edge}: {:?}", moves[edge]);
    }
}

#[test]
fn three_mens_morris_without_diagonals_is_a_draw() {
    let (value, moves) = start_values("three-nodiagonal");
    assert_eq!(value, Value::Draw);
    assert!(moves.values().all(|v| !matches!(v, Value::Win(_))));
}

#[test]
fn six_mens_morris_is_a_draw() {
    let (value, moves) = start_values("six");
    assert_eq!(value, Value::Draw);
    assert_eq!(moves.len(), 16);
    assert!(moves.values().all(|v| !matches!(v, Value::Win(_))));
}

#[test]
fn six_mens_morris_with_flying_solves_and_is_consistent() {
    let (value, moves) = start_values("six-flying");
    // No published value: the start's value must be the best of its moves.
    let best = moves.values().copied().min_by(Value::best_first).unwrap();
    assert_eq!(value, best);
}

/// A placement sector whose children hold no value where its moves lead
/// (every canonical slot padding, under a valid header and checksum, as a
/// damaged or wrongly made table could) is refused with an internal error
/// naming it, and no table is written; with children of draws the same
/// sector solves. Nine's `3-3-1-1`: its quiet placements lead to `3-4-1-0`,
/// those closing a mill to `2-4-1-0` (its opponent keeps 3 stones, so
/// neither is decided without its table).
#[test]
fn a_placement_child_without_values_is_an_error() {
    use morris_db::table::{table_path, write_table};
    use morris_db::value::PADDING_ENTRY;
    use morris_db::{Sector, TableHeader};
    use morris_solver::{solve_only, NoProgress, SolveError};

    let rules = RuleSet::preset("nine").unwrap();
    let parent = Sector { w: 3, b: 3, wh: 1, bh: 1 };
    let quiet = Sector { w: 3, b: 4, wh: 1, bh: 0 };
    let capture = Sector { w: 2, b: 4, wh: 1, bh: 0 };
    let write = |dir: &std::path::Path, sector: Sector, value: u16| {
        let index = rules.indexer().sector(sector);
        let entries: Vec<u16> =
            (0..index.len()).map(|slot| if index.is_padding(slot) { PADDING_ENTRY } else { value }).collect();
        write_table(&table_path(dir, &rules, sector), &TableHeader::for_entries(&rules, sector, &entries), &entries)
            .unwrap();
    };
    for (quiet_entry, capture_entry) in [(0, 0), (PADDING_ENTRY, 0), (0, PADDING_ENTRY)] {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), quiet, quiet_entry);
        write(dir.path(), capture, capture_entry);
        let solved = solve_only(&rules, dir.path(), &parent.to_string(), &NoProgress);
        let written = table_path(dir.path(), &rules, parent).exists();
        if quiet_entry == 0 && capture_entry == 0 {
            let report = solved.unwrap();
            assert_eq!(report.solved.len(), 1);
            assert!(written);
        } else {
            match solved {
                Err(SolveError::Internal { sector, .. }) => assert_eq!(sector, parent),
                other => panic!("quiet {quiet_entry:#x}, capture {capture_entry:#x}: {other:?}"),
            }
            assert!(!written, "quiet {quiet_entry:#x}, capture {capture_entry:#x}: a table was written");
        }
    }
}
