//! The placement-phase search (`morris_probe::search`, sliding tables at
//! the leaves) against the placement tables (`morris_solver::solve_all`):
//! two methods, one value, on every canonical position of every placement
//! sector of the small rule sets; and a value that depends neither on move
//! ordering nor on how the root is split.

use morris_db::{Color, Position, RuleSet, Value};
use morris_probe::search::{Prover, SearchOptions};
use morris_probe::Database;
use morris_solver::placement::placement_sectors;
use morris_solver::solve_all;

fn wdl(v: Value) -> i8 {
    match v {
        Value::Win(_) => 1,
        Value::Draw => 0,
        Value::Loss(_) => -1,
    }
}

/// Every canonical placement position: the search agrees with the tables.
fn search_agrees_with_tables(preset: &str, ordering: bool) {
    let rules = RuleSet::preset(preset).unwrap();
    let dir = tempfile::tempdir().unwrap();
    solve_all(&rules, dir.path(), false).unwrap();
    let db = Database::open(dir.path(), rules.clone()).unwrap();
    let mut prover =
        Prover::new(&db, SearchOptions { use_placement_tables: false, move_ordering: ordering, progress: None });
    let mut compared = 0u64;
    for sector in placement_sectors(&rules) {
        let index = rules.indexer().sector(sector.w as usize, sector.b as usize);
        for slot in 0..index.len() {
            let Some((us, them)) = index.position(slot) else { continue };
            let pos = Position::from_relative(us, them, Color::White, sector.wh, sector.bh);
            let Ok(table) = db.value(&pos) else { continue }; // decided positions (a line) are refused
            let searched = prover.prove(&pos).unwrap();
            assert_eq!(
                searched,
                wdl(table),
                "{preset} {}: search {searched}, tables {table:?}",
                pos.to_text(rules.board())
            );
            compared += 1;
        }
    }
    let s = prover.stats();
    eprintln!("{preset} (ordering {ordering}): {compared} positions agree; {} nodes, {:.2} s", s.nodes, s.seconds);
    assert!(compared > 0);
}

#[test]
fn three_every_placement_position() {
    search_agrees_with_tables("three", true);
    search_agrees_with_tables("three", false);
}

#[test]
fn three_nodiagonal_every_placement_position() {
    search_agrees_with_tables("three-nodiagonal", true);
    search_agrees_with_tables("three-nodiagonal", false);
}

#[test]
fn six_every_placement_position() {
    search_agrees_with_tables("six", true);
}

#[test]
fn six_flying_every_placement_position() {
    search_agrees_with_tables("six-flying", true);
}

/// The start of `six` and each first move: the same value with and without
/// move ordering and from separate searchers per first move (as the
/// parallel `morris prove` runs them) as from one.
#[test]
fn six_value_independent_of_ordering_and_split() {
    let rules = RuleSet::preset("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    solve_all(&rules, dir.path(), false).unwrap();
    let db = Database::open(dir.path(), rules.clone()).unwrap();
    let start = Position::start(&rules);
    let whole = Prover::new(&db, SearchOptions::default()).prove(&start).unwrap();
    let unordered =
        Prover::new(&db, SearchOptions { use_placement_tables: false, move_ordering: false, progress: None })
            .prove(&start)
            .unwrap();
    let split = start
        .legal_moves(&rules)
        .into_iter()
        .map(|mv| -Prover::new(&db, SearchOptions::default()).prove(&start.play_unchecked(mv)).unwrap())
        .max()
        .unwrap();
    assert_eq!((whole, unordered, split), (0, 0, 0), "six is a draw (Liou 2026)");
}
