//! The Lasker rule (issue 4): a player with stones in hand may place or move,
//! so the placement sectors are solved pair by pair by retrograde analysis
//! (`morris_solver::solve_all`). Position by position agreement with the
//! reference solver of complete games is in `reference_game.rs`; here:
//!
//! - the independent verifier (`morris_verify`, its own re-derivation
//!   of every stored value from its successors) passes on every table of
//!   small Lasker rule sets, the 24-point board with 4 stones (which the
//!   reference solver cannot hold) and Six Men's Morris with the Lasker
//!   rule (6 stones) included;
//! - the probe answers positions with stones in hand: moves and placements
//!   both listed, principal lines exactly as long as the DTM, and the
//!   Lasker rule's moves actually chosen;
//! - what the solver refuses, it refuses with an error.

use std::path::Path;

use morris_db::rules::FullBoardOutcome;
use morris_db::{Overrides, Position, RuleSet, Sector, Value};
use morris_probe::Database;
use morris_solver::placement::placement_sectors;
use morris_solver::{solve_all, SolveError};
use morris_verify::Verifier;

fn lasker(preset: &str, stones: u8) -> RuleSet {
    RuleSet::custom(preset, &Overrides { stones: Some(stones), lasker: Some(true), ..Overrides::default() })
        .expect("custom rule set")
}

fn solved(rules: &RuleSet) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    solve_all(rules, dir.path(), false).expect("solve_all");
    dir
}

fn verify_all(rules: &RuleSet, dir: &Path) -> u64 {
    let verifier = Verifier::new(dir, rules.clone()).max_faults(20);
    let sectors = verifier.sectors().expect("listing tables");
    let placement = placement_sectors(rules);
    assert_eq!(sectors.iter().filter(|s| !s.is_sliding()).count(), placement.len(), "{}", rules.name());
    let mut positions = 0;
    for sector in sectors {
        let report = verifier.verify(sector, &|_| {});
        assert!(report.is_ok(), "{} {sector}: {:?}", rules.name(), report.faults);
        positions += report.positions;
    }
    positions
}

#[test]
fn lasker_tables_pass_the_independent_verifier() {
    // The start values: those of the 16-point board with 4 stones are the
    // reference solver's too (`reference_game.rs` compares every position
    // of those two games); the other two are regression checks of our own
    // output, with no outside source (the reference cannot hold those
    // games, nothing published solves them, and Malom's `lask_*` files are
    // of the 10-stone game).
    for (rules, start) in [
        (lasker("six", 4), Value::Draw),
        (lasker("six-flying", 4), Value::Draw),
        (lasker("nine", 4), Value::Draw),
        // Six Men's Morris with the Lasker rule: the whole game.
        (lasker("six", 6), Value::Draw),
    ] {
        let dir = solved(&rules);
        let positions = verify_all(&rules, dir.path());
        assert!(positions > 100_000, "{}: {positions}", rules.name());
        let db = Database::open(dir.path(), rules.clone()).unwrap();
        assert_eq!(db.value(&Position::start(&rules)).unwrap(), start, "{}", rules.name());
    }
}

#[test]
fn positions_with_stones_in_hand_are_probed_with_moves_and_placements() {
    let rules = lasker("six", 4);
    let dir = solved(&rules);
    let db = Database::open(dir.path(), rules.clone()).unwrap();
    let board = rules.board();

    // White, with a stone in hand, may place (on 10 empty points; f6 closes
    // a mill and comes with each removal) or slide.
    let pos = Position::parse("W:b6,d6,f4 B:d2,e4,c3 w 1 1", &rules).unwrap();
    let moves = db.analyze(&pos).unwrap();
    let mut placed: Vec<_> = moves.iter().filter(|(m, _)| m.from.is_none()).map(|(m, _)| m.to).collect();
    placed.sort_unstable();
    placed.dedup();
    let placements = placed.len();
    let slides = moves.iter().filter(|(m, _)| m.from.is_some()).count();
    assert_eq!(placements, 16 - 6);
    assert!(slides > 0, "{moves:?}");
    let value = db.value(&pos).unwrap();
    assert_eq!(moves[0].1, value);

    // Over a whole sector with stones in hand: every value is its best
    // move's, every won or lost principal line is as long as its DTM and
    // ends the game, and somewhere the only best moves are slides (the
    // Lasker rule decides the value).
    let sector = Sector { w: 2, b: 3, wh: 2, bh: 1 };
    let index = rules.indexer().sector(sector);
    let (mut lines, mut slide_only, mut placement_only) = (0, 0, 0);
    for slot in 0..index.len() {
        let Some((us, them)) = index.position(slot) else { continue };
        let pos = Position::from_sector(sector, morris_db::Color::White, us, them);
        let value = db.value(&pos).unwrap();
        let moves = db.analyze(&pos).unwrap();
        assert_eq!(moves[0].1, value, "{}", pos.to_text(board));
        let best: Vec<_> = moves.iter().filter(|(_, v)| *v == value).collect();
        if best.iter().all(|(m, _)| m.from.is_some()) {
            slide_only += 1;
        }
        if best.iter().all(|(m, _)| m.from.is_none()) {
            placement_only += 1;
        }
        if let Some(n) = value.plies() {
            if lines < 200 && n >= 3 {
                lines += 1;
                let line = db.principal_line(&pos, 1000).unwrap();
                assert_eq!(line.len(), n as usize, "{}", pos.to_text(board));
                let mut end = pos;
                for (mv, _) in &line {
                    end = end.play_unchecked(*mv);
                }
                assert!(end.outcome(&rules).is_some(), "{}: the line ends the game", pos.to_text(board));
            }
        }
    }
    assert!(lines > 0 && slide_only > 0 && placement_only > 0, "{lines} {slide_only} {placement_only}");
}

#[test]
fn lasker_with_a_full_board_lost_by_white_is_refused() {
    let rules = RuleSet::custom(
        "six",
        &Overrides {
            stones: Some(8),
            lasker: Some(true),
            full_board: Some(FullBoardOutcome::WhiteLoses),
            ..Overrides::default()
        },
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = solve_all(&rules, dir.path(), false).unwrap_err();
    assert!(matches!(e, SolveError::Unsupported(_)), "{e}");
    assert!(e.to_string().contains(rules.name()), "{e}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written");
}
