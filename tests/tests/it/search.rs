//! The placement-phase search (`morris_probe::prove`, sliding tables at
//! the leaves) against the placement tables (`morris_solver::solve_all`):
//! two methods, one value, on every canonical position of every placement
//! sector of the small rule sets; and a value that depends neither on move
//! ordering nor on how the root is split.

use std::sync::Arc;

use morris_db::wdl::{export_table, wdl_path};
use morris_db::{Color, Overrides, Position, RuleSet, Sector, Table, TableError, Value};
use morris_probe::prove::{prove_parallel, Prover, SearchOptions, TranspositionTable};
use morris_probe::prove_dtm::prove_dtm;
use morris_probe::wdl::WdlDatabase;
use morris_probe::{Database, ProbeError, Wdl};
use morris_solver::placement::placement_sectors;
use morris_solver::solve_all;

fn wdl(v: Value) -> Wdl {
    Wdl::from(v)
}

/// The tables' value of `pos`, or `None` for the one kind of position the
/// tables refuse on purpose: under a line-wins rule set (`three`), a
/// position whose side to move already has a line (the game ended before).
/// Any other error fails the test.
fn table_value(db: &Database, pos: &Position) -> Option<Value> {
    match db.value(pos) {
        Ok(v) => Some(v),
        Err(ProbeError::Unreachable { .. }) if db.rules().line_wins() && db.rules().has_line(pos.us()) => None,
        Err(e) => panic!("{}: {e}", pos.to_text(db.rules().board())),
    }
}

/// Who is to move in a placement sector (no Lasker rule here): White
/// places first, so with equal hands White is to move, and with one stone
/// more in the mover's hand Black is.
fn side_to_move(sector: Sector) -> Color {
    if sector.wh == sector.bh {
        Color::White
    } else {
        Color::Black
    }
}

/// How the searcher of [`search_agrees_with_tables`] is set up.
#[derive(Clone, Copy)]
struct Setup {
    ordering: bool,
    /// Leaves from WDL files exported from the DTM tables.
    wdl: bool,
    /// Those WDL files single-sided: the sectors `derived::choose` picks
    /// get a stub, searched one more ply.
    single_sided: bool,
    /// A transposition table of the smallest size, so that entries are
    /// replaced all the time.
    small_table: bool,
}

const PLAIN: Setup = Setup { ordering: true, wdl: false, single_sided: false, small_table: false };

/// Exports every sliding table of `dir` as WDL files into a new directory,
/// those of the sectors [`morris_db::derived::choose`] picks as stubs when
/// `single_sided`.
fn export_sliding(rules: &RuleSet, dir: &std::path::Path, single_sided: bool) -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    let mut sizes = Vec::new();
    for w in 0..=rules.board().len() as u8 {
        for b in 0..=rules.board().len() as u8 - w {
            let sector = morris_db::Sector::sliding(w, b);
            let len = rules.indexer().sector(Sector::sliding(w, b)).len();
            match Table::open(dir, rules, sector, len) {
                Ok(table) => {
                    export_table(&table, &wdl_path(out.path(), rules, sector)).unwrap();
                    sizes.push((sector, len));
                }
                Err(TableError::Missing { .. }) => {} // not a sector of the game (too few or too many stones)
                Err(e) => panic!("{sector}: {e}"),
            }
        }
    }
    if single_sided {
        let stubs = morris_db::derived::choose(rules, &sizes);
        assert!(!stubs.is_empty());
        for sector in stubs {
            let table = Table::open(dir, rules, sector, rules.indexer().sector(sector).len()).unwrap();
            morris_db::wdl::write_stub(&table, &wdl_path(out.path(), rules, sector)).unwrap();
        }
    }
    out
}

/// Every canonical placement position: the search agrees with the tables.
fn search_agrees_with_tables(preset: &str, setup: Setup) {
    search_agrees_with(RuleSet::preset(preset).unwrap(), setup);
}

/// [`search_agrees_with_tables`] for any rule set.
fn search_agrees_with(rules: RuleSet, setup: Setup) {
    let preset = rules.name().to_string();
    let dir = tempfile::tempdir().unwrap();
    solve_all(&rules, dir.path(), false).unwrap();
    let db = Database::open(dir.path(), rules.clone()).unwrap();
    let wdl_dir = setup.wdl.then(|| export_sliding(&rules, dir.path(), setup.single_sided));
    let options = SearchOptions {
        move_ordering: setup.ordering,
        wdl: wdl_dir.as_ref().map(|d| Arc::new(WdlDatabase::open(d.path(), rules.clone()).unwrap())),
        transpositions: setup.small_table.then(|| Arc::new(TranspositionTable::with_entries(1024))),
        ..SearchOptions::default()
    };
    let ordering = setup.ordering;
    let mut prover = Prover::new(&db, options);
    let mut compared = 0u64;
    for sector in placement_sectors(&rules) {
        let index = rules.indexer().sector(sector);
        for slot in 0..index.len() {
            let Some((us, them)) = index.position(slot) else { continue };
            let pos = Position::from_sector(sector, side_to_move(sector), us, them);
            let Some(table) = table_value(&db, &pos) else { continue };
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
    search_agrees_with_tables("three", PLAIN);
    search_agrees_with_tables("three", Setup { ordering: false, ..PLAIN });
    search_agrees_with_tables("three", Setup { wdl: true, small_table: true, ..PLAIN });
}

#[test]
fn three_nodiagonal_every_placement_position() {
    search_agrees_with_tables("three-nodiagonal", PLAIN);
    search_agrees_with_tables("three-nodiagonal", Setup { ordering: false, ..PLAIN });
    search_agrees_with_tables("three-nodiagonal", Setup { wdl: true, small_table: true, ..PLAIN });
}

#[test]
fn six_every_placement_position() {
    search_agrees_with_tables("six", PLAIN);
}

#[test]
fn six_every_placement_position_from_wdl_leaves_with_a_small_table() {
    search_agrees_with_tables("six", Setup { wdl: true, small_table: true, ..PLAIN });
}

#[test]
fn six_every_placement_position_from_single_sided_wdl_leaves() {
    search_agrees_with_tables("six", Setup { wdl: true, single_sided: true, ..PLAIN });
}

#[test]
fn six_flying_every_placement_position() {
    search_agrees_with_tables("six-flying", PLAIN);
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
        Prover::new(&db, SearchOptions { move_ordering: false, ..SearchOptions::default() }).prove(&start).unwrap();
    let split = start
        .legal_moves(&rules)
        .into_iter()
        .map(|mv| -Prover::new(&db, SearchOptions::default()).prove(&start.play_unchecked(mv)).unwrap())
        .max()
        .unwrap();
    let (threads, stats) = prove_parallel(&db, &SearchOptions::default(), &start, 2).unwrap();
    assert!(stats.nodes > 0);
    assert_eq!(
        (whole, unordered, split, threads),
        (Wdl::Draw, Wdl::Draw, Wdl::Draw, Wdl::Draw),
        "six is a draw (Liou 2026)"
    );
}

/// Two threads sharing one transposition table (each deferring what the
/// other searches) give every first move of `six` and of `six-flying` the
/// value of the placement tables; so does one thread with a table so small
/// that entries are replaced all the time.
#[test]
fn six_first_moves_in_parallel_and_with_a_small_table() {
    for preset in ["six", "six-flying"] {
        let rules = RuleSet::preset(preset).unwrap();
        let dir = tempfile::tempdir().unwrap();
        solve_all(&rules, dir.path(), false).unwrap();
        let db = Database::open(dir.path(), rules.clone()).unwrap();
        let start = Position::start(&rules);
        let shared = SearchOptions { transpositions: Some(Arc::new(TranspositionTable::new(8))), ..Default::default() };
        let small = SearchOptions {
            transpositions: Some(Arc::new(TranspositionTable::with_entries(1024))),
            ..Default::default()
        };
        for mv in start.legal_moves(&rules) {
            let child = start.play_unchecked(mv);
            let table = wdl(db.value(&child).unwrap());
            let (parallel, _) = prove_parallel(&db, &shared, &child, 2).unwrap();
            let (single, _) = prove_parallel(&db, &small, &child, 1).unwrap();
            assert_eq!((parallel, single), (table, table), "{preset} after {}", mv.notation(rules.board()));
        }
    }
}

/// `prove_dtm` (full minimax, DTM tables at the leaves) gives the placement
/// tables' exact value, DTM included, on every canonical placement position
/// of `preset` (every `step`-th slot).
fn dtm_search_agrees_with_tables(preset: &str, step: usize) {
    dtm_search_agrees_with(RuleSet::preset(preset).unwrap(), step);
}

/// [`dtm_search_agrees_with_tables`] for any rule set.
fn dtm_search_agrees_with(rules: RuleSet, step: usize) {
    let preset = rules.name().to_string();
    let dir = tempfile::tempdir().unwrap();
    solve_all(&rules, dir.path(), false).unwrap();
    let db = Database::open(dir.path(), rules.clone()).unwrap();
    let mut compared = 0u64;
    for sector in placement_sectors(&rules) {
        let index = rules.indexer().sector(sector);
        for slot in (0..index.len()).step_by(step) {
            let Some((us, them)) = index.position(slot) else { continue };
            let pos = Position::from_sector(sector, side_to_move(sector), us, them);
            let Some(table) = table_value(&db, &pos) else { continue };
            let (searched, _) = prove_dtm(&db, &pos).unwrap();
            assert_eq!(searched, table, "{preset} {}", pos.to_text(rules.board()));
            compared += 1;
        }
    }
    assert!(compared > 100, "{preset}: only {compared} positions compared");
}

#[test]
fn dtm_search_three_every_placement_position() {
    dtm_search_agrees_with_tables("three", 1);
    dtm_search_agrees_with_tables("three-nodiagonal", 1);
}

#[test]
fn dtm_search_six_start_and_a_sample_of_placement_positions() {
    // The start (Draw, as the tables and Liou 2026 say), then positions
    // spread over every placement sector.
    let rules = RuleSet::preset("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    solve_all(&rules, dir.path(), false).unwrap();
    let db = Database::open(dir.path(), rules.clone()).unwrap();
    assert_eq!(prove_dtm(&db, &Position::start(&rules)).unwrap().0, Value::Draw);
    drop(dir);
    dtm_search_agrees_with_tables("six", 997);
}

/// Six Men's Morris misère with 4 stones a side (the player who closes a
/// winning position loses, [`RuleSet::decided_value`]): the search and the
/// exact search agree with the tables, which agree with the reference
/// solver (`reference_game.rs`), on every canonical placement position;
/// with and without flying.
#[test]
fn misere_search_every_placement_position() {
    for preset in ["six", "six-flying"] {
        let o = Overrides { misere: Some(true), stones: Some(4), ..Default::default() };
        let rules = RuleSet::custom(preset, &o).unwrap();
        search_agrees_with(rules.clone(), PLAIN);
        search_agrees_with(rules.clone(), Setup { wdl: true, small_table: true, ..PLAIN });
        dtm_search_agrees_with(rules, 1);
    }
}
