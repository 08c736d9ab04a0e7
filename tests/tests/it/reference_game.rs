//! The real solver (`morris_solver::solve_all`, probed through
//! `morris_probe::Database`) agrees position by position with the
//! independent reference solver of complete games
//! (`morris_tests::reference_game`) on small rule sets: `three`,
//! `three-nodiagonal`, and the 16-point board with 4 stones per player
//! (`six` and `six-flying`); the 24-point board with 3 stones per player
//! (`nine`, `nine-noflying`, `nine-diagonal` and the diagonal board without
//! flying: the placement phase with mills while placing, sliding, flying);
//! and under the Lasker rule (a player with stones in hand may also move)
//! `three`, `three-nodiagonal`, the 16-point board with 3 and 4 stones,
//! with and without flying, and `lasker` with 3 stones; the rule options
//! on the 16-point board (flying with up to 4 stones, always flying,
//! strict and lenient removal, and always flying with strict removal under
//! the Lasker rule) and the 17-point board of Seven Men's Morris with 4
//! stones, with and without flying; misère play on the 16-point board
//! (with 4 stones, with and without flying, and with 3 under the Lasker
//! rule). Every position of
//! the reference (every hand combination of the placement phase and the
//! sliding phase, each side with at least 3 stones on board plus hand but
//! for the side to move, which may have 2) is probed: win, loss or draw, and
//! the DTM of every win and loss. Sliding positions, and under the Lasker
//! rule every position, are probed with White and with Black to move.
//!
//! Positions are carried from the reference's bit order to the database's
//! by point names.

use std::time::Instant;

use morris_db::rules::{Flying, Removal};
use morris_db::{Color, Overrides, RuleSet, Setup};
use morris_probe::{Database, ProbeError};
use morris_solver::solve_all;
use morris_tests::assert_no_mismatches;
use morris_tests::reference_game::{solve_game, RefGame, RefPos, RefRemoval, RefValue};
use rayon::prelude::*;

/// The board data of the reference and of `morris-db` agree by point names
/// (adjacency and mills), so a disagreement below is about play.
fn check_board(game: &RefGame, rules: &RuleSet) {
    let board = rules.board();
    assert_eq!(board.len(), game.points.len(), "{}: number of points", game.name);
    let to_ref = |set: u32| {
        (0..board.len() as u8).filter(|&p| set & (1 << p) != 0).fold(0, |a, p| a | game.bit(board.point_name(p)))
    };
    let mut db_mills: Vec<u32> = board.mills().iter().map(|&m| to_ref(m)).collect();
    let mut ref_mills: Vec<u32> = game.mills().to_vec();
    db_mills.sort_unstable();
    ref_mills.sort_unstable();
    assert_eq!(db_mills, ref_mills, "{}: mills", game.name);
    for p in 0..board.len() as u8 {
        let name = board.point_name(p);
        let i = game.bit(name).trailing_zeros() as usize;
        assert_eq!(to_ref(board.adjacent(p)), game.adjacent(i), "{}: points adjacent to {name}", game.name);
    }
}

/// Solves `rules` completely with the real solver and compares every
/// position of the reference solution of `game`; returns the reference
/// solution's value of the start position.
fn agree(rules: RuleSet, game: RefGame) -> RefValue {
    check_board(&game, &rules);
    let dir = tempfile::tempdir().expect("temp dir");
    let t = Instant::now();
    let report = solve_all(&rules, dir.path(), false).expect("real solver");
    eprintln!(
        "{}: real solver: {} tables, {} positions, {:.1} s",
        rules.name(),
        report.solved.len(),
        report.positions,
        t.elapsed().as_secs_f64()
    );

    let t = Instant::now();
    let solution = solve_game(&game);
    eprintln!(
        "{}: reference: {} positions, {} plies, {:.1} s",
        rules.name(),
        solution.positions.len(),
        solution.plies,
        t.elapsed().as_secs_f64()
    );
    let (mut wins, mut losses, mut draws, mut longest, mut over) = (0, 0, 0, 0, 0);
    for (&p, &v) in solution.positions.iter().zip(&solution.values) {
        match v {
            RefValue::Win(n) => (wins, longest) = (wins + 1, longest.max(n)),
            RefValue::Loss(n) => (losses, longest) = (losses + 1, longest.max(n)),
            RefValue::Draw => draws += 1,
        }
        over += game.is_over(p) as usize;
    }
    eprintln!(
        "{}: reference: {wins} wins, {losses} losses, {draws} draws, longest {longest} plies; \
         {over} positions where the game is over (side to move below 3 stones or facing a line)",
        rules.name()
    );
    let start = solution.get(game.start()).expect("start position");
    eprintln!("{}: reference start value {start:?}", rules.name());

    // Reference bit i is the database point named game.points[i].
    let to_db: Vec<u32> = game
        .points
        .iter()
        .map(|&name| 1u32 << rules.board().point(name).unwrap_or_else(|| panic!("point {name}")))
        .collect();
    let convert = |set: u32| (0..to_db.len()).filter(|&i| set & (1 << i) != 0).fold(0, |a, i| a | to_db[i]);

    let db = Database::open(dir.path(), rules.clone()).expect("open database");
    let t = Instant::now();
    let (probes, mismatches): (usize, Vec<String>) = solution
        .positions
        .par_iter()
        .zip(solution.values.par_iter())
        .map(|(&p, &expected)| {
            let sides: &[Color] = if (p.us_hand == 0 && p.them_hand == 0) || game.lasker {
                &[Color::White, Color::Black]
            } else if p.white_to_move() {
                &[Color::White]
            } else {
                &[Color::Black]
            };
            let mut wrong = Vec::new();
            for &side in sides {
                let pos = Setup::from_relative(convert(p.us), convert(p.them), side, p.us_hand, p.them_hand);
                let got = pos.validate(&rules).map_err(ProbeError::from).and_then(|pos| db.value(&pos));
                // docs/rules.md, "Values": under misère the tables count the
                // end of the game as one ply more than the plies played.
                let expected = match expected {
                    RefValue::Win(a) if game.misere => RefValue::Win(a + 1),
                    RefValue::Loss(a) if game.misere => RefValue::Loss(a + 1),
                    v => v,
                };
                let agrees = crate::common::agrees(expected, &got)
                    // No game reaches a position whose opponent has no stone
                    // on the board after a move (`unreachable_sectors.rs`):
                    // the solver skips its sector and the probe refuses it.
                    || p.them == 0 && p != game.start() && matches!(got, Err(ProbeError::Unreachable { .. }));
                if !agrees {
                    wrong.push(format!("{}: reference {expected:?}, solver {got:?}", pos.to_text(rules.board())));
                }
            }
            (sides.len(), wrong)
        })
        .reduce(
            || (0, Vec::new()),
            |(n, mut a), (m, b)| {
                a.extend(b);
                (n + m, a)
            },
        );
    eprintln!("{}: compared {probes} probes in {:.1} s", rules.name(), t.elapsed().as_secs_f64());
    assert_no_mismatches(mismatches, &format!("{probes} probes of {}", rules.name()), 20);
    assert!(probes > solution.positions.len(), "{}: every position probed", rules.name());
    start
}

fn with_stones(preset: &str, stones: u8) -> RuleSet {
    RuleSet::custom(preset, &Overrides { stones: Some(stones), ..Default::default() }).expect("custom rule set")
}

#[test]
fn three_mens_morris_agrees_with_the_reference() {
    let start = agree(RuleSet::preset("three").unwrap(), RefGame::three(true));
    assert!(matches!(start, RefValue::Win(_)), "{start:?}");
    // The reference alone: only the centre wins, corners draw, edges lose.
    let game = RefGame::three(true);
    let solution = solve_game(&game);
    for (point, expected) in [("b2", 'w'), ("a1", 'd'), ("c3", 'd'), ("a2", 'l'), ("b3", 'l')] {
        let after = RefPos { us: 0, them: game.bit(point), us_hand: 3, them_hand: 2 };
        // The value for Black, to move after White's first stone.
        let v = solution.get(after).expect("position after a first move");
        let got = match v {
            RefValue::Loss(_) => 'w',
            RefValue::Draw => 'd',
            RefValue::Win(_) => 'l',
        };
        assert_eq!(got, expected, "White opens on {point}: Black's value {v:?}");
    }
}

#[test]
fn three_mens_morris_without_diagonals_agrees_with_the_reference() {
    let start = agree(RuleSet::preset("three-nodiagonal").unwrap(), RefGame::three(false));
    assert_eq!(start, RefValue::Draw);
}

#[test]
fn six_with_four_stones_agrees_with_the_reference() {
    agree(with_stones("six", 4), RefGame::sixteen(4, false));
}

#[test]
fn six_flying_with_four_stones_agrees_with_the_reference() {
    agree(with_stones("six-flying", 4), RefGame::sixteen(4, true));
}

fn lasker_with_stones(preset: &str, stones: u8) -> RuleSet {
    RuleSet::custom(preset, &Overrides { stones: Some(stones), lasker: Some(true), ..Default::default() })
        .expect("custom rule set")
}

#[test]
fn three_mens_morris_with_the_lasker_rule_agrees_with_the_reference() {
    let rules = RuleSet::custom("three", &Overrides { lasker: Some(true), ..Default::default() }).unwrap();
    let start = agree(rules, RefGame::three(true).with_lasker());
    // Both solvers: still a win for White (in 11 plies, docs/results.md).
    assert_eq!(start, RefValue::Win(11));
}

#[test]
fn three_mens_morris_without_diagonals_with_the_lasker_rule_agrees_with_the_reference() {
    let rules = RuleSet::custom("three-nodiagonal", &Overrides { lasker: Some(true), ..Default::default() }).unwrap();
    assert_eq!(agree(rules, RefGame::three(false).with_lasker()), RefValue::Draw);
}

#[test]
fn six_lasker_with_three_stones_agrees_with_the_reference() {
    agree(lasker_with_stones("six", 3), RefGame::sixteen(3, false).with_lasker());
}

#[test]
fn six_flying_lasker_with_three_stones_agrees_with_the_reference() {
    agree(lasker_with_stones("six-flying", 3), RefGame::sixteen(3, true).with_lasker());
}

#[test]
fn six_lasker_with_four_stones_agrees_with_the_reference() {
    agree(lasker_with_stones("six", 4), RefGame::sixteen(4, false).with_lasker());
}

#[test]
fn six_flying_lasker_with_four_stones_agrees_with_the_reference() {
    agree(lasker_with_stones("six-flying", 4), RefGame::sixteen(4, true).with_lasker());
}

// The 24-point board with 3 stones a side: the placement phase (mills
// while placing, captures into every smaller sector), sliding and flying.

#[test]
fn nine_with_three_stones_agrees_with_the_reference() {
    agree(with_stones("nine", 3), RefGame::twentyfour(3, true, false));
}

#[test]
fn nine_noflying_with_three_stones_agrees_with_the_reference() {
    agree(with_stones("nine-noflying", 3), RefGame::twentyfour(3, false, false));
}

#[test]
fn nine_diagonal_with_three_stones_agrees_with_the_reference() {
    agree(with_stones("nine-diagonal", 3), RefGame::twentyfour(3, true, true));
}

#[test]
fn nine_diagonal_noflying_with_three_stones_agrees_with_the_reference() {
    // The diagonal board with flying off: a custom rule set.
    let rules = RuleSet::custom(
        "nine-diagonal",
        &Overrides { stones: Some(3), flying: Some(Flying::Never), ..Default::default() },
    )
    .expect("custom rule set");
    agree(rules, RefGame::twentyfour(3, false, true));
}

#[test]
fn lasker_with_three_stones_agrees_with_the_reference() {
    agree(with_stones("lasker", 3), RefGame::twentyfour(3, true, false).with_lasker());
}

// The rule options (flying with up to 4 stones or always, strict and
// lenient removal) on the 16-point board with 4 stones a side, and the
// 17-point board of Seven Men's Morris: the reference plays each rule
// from its own code (`RefGame::with_fly_max`, `RefGame::with_removal`).

fn six_with(stones: u8, o: Overrides) -> RuleSet {
    RuleSet::custom("six", &Overrides { stones: Some(stones), ..o }).expect("custom rule set")
}

#[test]
fn six_flying_at_four_agrees_with_the_reference() {
    let rules = six_with(4, Overrides { flying: Some(Flying::AtFour), ..Default::default() });
    agree(rules, RefGame::sixteen(4, false).with_fly_max(4));
}

#[test]
fn six_flying_always_agrees_with_the_reference() {
    let rules = six_with(5, Overrides { flying: Some(Flying::Always), ..Default::default() });
    agree(rules, RefGame::sixteen(5, false).with_fly_max(u32::MAX));
}

#[test]
fn six_with_strict_removal_agrees_with_the_reference() {
    let rules = six_with(4, Overrides { removal: Some(Removal::Strict), ..Default::default() });
    agree(rules, RefGame::sixteen(4, false).with_removal(RefRemoval::Strict));
}

#[test]
fn six_flying_with_strict_removal_agrees_with_the_reference() {
    let rules =
        six_with(4, Overrides { flying: Some(Flying::AtFour), removal: Some(Removal::Strict), ..Default::default() });
    agree(rules, RefGame::sixteen(4, false).with_fly_max(4).with_removal(RefRemoval::Strict));
}

#[test]
fn six_with_lenient_removal_agrees_with_the_reference() {
    let rules = six_with(4, Overrides { removal: Some(Removal::Lenient), ..Default::default() });
    agree(rules, RefGame::sixteen(4, false).with_removal(RefRemoval::Lenient));
}

#[test]
fn six_lasker_flying_always_with_strict_removal_agrees_with_the_reference() {
    let rules = six_with(
        3,
        Overrides {
            flying: Some(Flying::Always),
            removal: Some(Removal::Strict),
            lasker: Some(true),
            ..Default::default()
        },
    );
    agree(rules, RefGame::sixteen(3, false).with_fly_max(u32::MAX).with_removal(RefRemoval::Strict).with_lasker());
}

// Misère play (the player who would win loses): the reference turns its
// own terminal values (`RefGame::with_misere`). With flying, a mill that
// takes the opponent to two stones loses at once; under the Lasker rule
// the placement pairs are solved by retrograde analysis too.

fn misere(preset: &str, o: Overrides) -> RuleSet {
    RuleSet::custom(preset, &Overrides { misere: Some(true), ..o }).expect("custom rule set")
}

#[test]
fn six_misere_with_four_stones_agrees_with_the_reference() {
    let rules = misere("six", Overrides { stones: Some(4), ..Default::default() });
    agree(rules, RefGame::sixteen(4, false).with_misere());
}

#[test]
fn six_flying_misere_with_four_stones_agrees_with_the_reference() {
    let rules = misere("six-flying", Overrides { stones: Some(4), ..Default::default() });
    agree(rules, RefGame::sixteen(4, true).with_misere());
}

#[test]
fn six_lasker_misere_with_three_stones_agrees_with_the_reference() {
    let rules = misere("six-flying", Overrides { stones: Some(3), lasker: Some(true), ..Default::default() });
    agree(rules, RefGame::sixteen(3, true).with_lasker().with_misere());
}

#[test]
fn seven_with_four_stones_agrees_with_the_reference() {
    agree(with_stones("seven", 4), RefGame::seventeen(4, false));
}

#[test]
fn seven_flying_with_four_stones_agrees_with_the_reference() {
    agree(with_stones("seven-flying", 4), RefGame::seventeen(4, true));
}
