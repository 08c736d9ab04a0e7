//! The full-board rule (docs/rules.md: a board filled at the end of placement is
//! a draw in Morabaraba and a loss for White, who placed first, in Twelve
//! Men's Morris), on the smallest game that fills its board: the 16-point
//! board with 8 stones a side. Both outcomes are solved completely by the
//! real solver (`morris_solver::solve_all`), which meets a full board in
//! the sliding sector 8-8 (every position of it is full and blocked).
//!
//! The independent computation: the end of the placement phase by the
//! reference's own move generation (`morris_tests::reference_game`) and its
//! own reading of the rule, minimax over every position in which no stone
//! was removed yet and at most one stone is left in each hand (the full
//! boards, the last placement by Black, the last placement by White). A
//! placement that closes a mill removes a stone, which leaves the board
//! short of full for good: those children are leaves, read from the real
//! solver's tables (the rule cannot reach them). Every position is probed:
//! value and DTM.

use rustc_hash::FxHashMap as HashMap;

use morris_db::rules::FullBoardOutcome;
use morris_db::{Color, Overrides, Position, RuleSet, Setup, Value};
use morris_probe::Database;
use morris_solver::solve_all;
use morris_tests::reference_game::{RefGame, RefPos};
use rayon::prelude::*;

const STONES: u8 = 8;

fn rules(full_board: FullBoardOutcome) -> RuleSet {
    RuleSet::custom("six", &Overrides { stones: Some(STONES), full_board: Some(full_board), ..Default::default() })
        .expect("custom rule set")
}

/// The reference's sets carried to the database's bits by point names.
struct Convert(Vec<u32>, RuleSet);

impl Convert {
    fn new(game: &RefGame, rules: &RuleSet) -> Convert {
        Convert(game.points.iter().map(|&n| 1u32 << rules.board().point(n).expect("point")).collect(), rules.clone())
    }
    fn set(&self, set: u32) -> u32 {
        (0..self.0.len()).filter(|&i| set & (1 << i) != 0).fold(0, |a, i| a | self.0[i])
    }
    /// The database position of `p` with `side` to move.
    fn position(&self, p: RefPos, side: Color) -> Position {
        let setup = Setup::from_relative(self.set(p.us), self.set(p.them), side, p.us_hand, p.them_hand);
        setup.validate(&self.1).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// Every pair of disjoint sets of `u` and `t` of the reference's points.
fn boards(game: &RefGame, u: u32, t: u32) -> Vec<(u32, u32)> {
    let sets: Vec<u32> = (0..=game.all()).filter(|s: &u32| s.count_ones() == u || s.count_ones() == t).collect();
    let mut out = Vec::new();
    for &us in sets.iter().filter(|s| s.count_ones() == u) {
        for &them in sets.iter().filter(|s| s.count_ones() == t) {
            if us & them == 0 {
                out.push((us, them));
            }
        }
    }
    out
}

/// The value of `p` for its side to move (`White` when the hands are
/// equal) by minimax over the reference's moves: a full board without a
/// move by the rule, children that removed a stone from the database.
fn reference_value(
    game: &RefGame,
    full_board: FullBoardOutcome,
    db: &Database,
    convert: &Convert,
    memo: &HashMap<RefPos, Value>,
    p: RefPos,
) -> Value {
    let white = p.us_hand == p.them_hand;
    let children = game.children(p);
    if children.is_empty() {
        assert_eq!(p.us | p.them, game.all(), "only a full board has no move here");
        return match full_board {
            FullBoardOutcome::Draw => Value::Draw,
            // White is to move on the full board (Black placed last).
            FullBoardOutcome::WhiteLoses => {
                assert!(white);
                Value::LOST
            }
        };
    }
    let stones = |q: RefPos| q.us.count_ones() + q.them.count_ones() + q.us_hand as u32 + q.them_hand as u32;
    let child_side = if white { Color::Black } else { Color::White };
    let mut best: Option<Value> = None;
    for c in children {
        let v = if stones(c) == stones(p) {
            memo[&c]
        } else {
            db.value(&convert.position(c, child_side)).expect("a leaf in the database")
        };
        let mine = v.back();
        best = Some(match best {
            None => mine,
            Some(b) if Value::best_first(&mine, &b).is_lt() => mine,
            Some(b) => b,
        });
    }
    best.unwrap()
}

/// Solves the game for `full_board`, computes the end of placement by the
/// reference and compares every position; returns the database's values of
/// the positions of the last placement by Black.
fn agree(full_board: FullBoardOutcome) -> Vec<Value> {
    let rules = rules(full_board);
    let game = RefGame::sixteen(STONES, false);
    let convert = Convert::new(&game, &rules);
    let dir = tempfile::tempdir().unwrap();
    solve_all(&rules, dir.path(), false).expect("real solver");
    let db = Database::open(dir.path(), rules.clone()).unwrap();

    // Hands (0,0): full boards; (1,0): Black places the last stone; (1,1):
    // White places its last stone. No stone removed: 16 in all.
    let mut memo: HashMap<RefPos, Value> = HashMap::default();
    let mut compared = 0;
    let mut last_placements = Vec::new();
    for (us_hand, them_hand) in [(0u8, 0u8), (1, 0), (1, 1)] {
        let u = (STONES - us_hand) as u32;
        let t = (STONES - them_hand) as u32;
        let layer: Vec<(RefPos, Value, Value)> = boards(&game, u, t)
            .into_par_iter()
            .map(|(us, them)| {
                let p = RefPos { us, them, us_hand, them_hand };
                let expected = reference_value(&game, full_board, &db, &convert, &memo, p);
                let side = if us_hand == them_hand { Color::White } else { Color::Black };
                let got = db.value(&convert.position(p, side)).expect("probe");
                (p, expected, got)
            })
            .collect();
        for (p, expected, got) in layer {
            assert_eq!(
                got,
                expected,
                "{}: {}",
                rules.name(),
                convert
                    .position(p, if p.us_hand == p.them_hand { Color::White } else { Color::Black })
                    .to_text(rules.board())
            );
            if (us_hand, them_hand) == (0, 0) {
                // Both colours: a full board is the rule's, whoever is to move.
                let black = db.value(&convert.position(p, Color::Black)).unwrap();
                assert_eq!(black, expected, "{}: full board, Black to move", rules.name());
            }
            if (us_hand, them_hand) == (1, 0) {
                last_placements.push(got);
            }
            memo.insert(p, expected);
            compared += 1;
        }
    }
    eprintln!("{}: {compared} positions agree", rules.name());
    assert!(compared > 500_000, "{compared}");
    last_placements
}

#[test]
fn a_full_board_is_a_draw_or_lost_by_white_as_the_rule_says() {
    let draw = agree(FullBoardOutcome::Draw);
    let white_loses = agree(FullBoardOutcome::WhiteLoses);
    // The rule decides games: Black's last placement that fills the board
    // draws under one rule and wins under the other.
    assert_eq!(draw.len(), white_loses.len());
    let decided =
        draw.iter().zip(&white_loses).filter(|(d, w)| **d == Value::Draw && **w == Value::win(1).unwrap()).count();
    assert!(decided > 1000, "{decided} positions decided by the rule");
}
