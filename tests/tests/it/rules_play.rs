//! The rules of every preset on hand-checked positions (issue 3): a double
//! mill, all opponent stones in mills, flying with 3 but not 4, a blocked
//! side, the full board in `twelve` and `morabaraba`, a line in `three`,
//! Lasker's choice of placing or moving, removals per mill; and perft from
//! the start.

use morris_db::moves::Outcome;
use morris_db::rules::{NoMoveOutcome, Overrides, Removal, PRESETS};
use morris_db::{Color, Position, RuleSet, Setup, Value};

fn rules(name: &str) -> RuleSet {
    RuleSet::preset(name).unwrap()
}

fn pos(rules: &RuleSet, text: &str) -> Position {
    Position::read_for(text, rules).unwrap().0
}

/// The legal moves in notation, sorted.
fn moves(rules: &RuleSet, p: &Position) -> Vec<String> {
    p.legal_move_names(rules)
}

fn per_mill(preset: &str) -> RuleSet {
    RuleSet::custom(preset, &Overrides { remove_per_mill: Some(true), ..Overrides::default() }).unwrap()
}

#[test]
fn perft_from_the_start_of_nine() {
    let r = rules("nine");
    let start = Position::start(&r);
    let got: Vec<u64> = (0..=5).map(|d| start.perft(&r, d)).collect();
    // Depth 5: 24*23*22*21*20 sequences, plus one more for each whose fifth
    // move closes a White mill (16 mills, 3! orders of White's stones, 21*20
    // placements of Black's two), which may take either Black stone.
    assert_eq!(got, vec![1, 24, 552, 12_144, 255_024, 5_100_480 + 16 * 6 * 420]);
}

#[test]
fn perft_of_the_new_boards_to_depth_five() {
    // As for `nine`: n(n-1)(n-2)(n-3)(n-4) placements, plus one for each
    // sequence whose fifth move closes a White mill (mills x 3! orders x
    // (n-3)(n-4) placements of Black's two stones, either of which may go).
    // Points and mills from docs/rules.md.
    for (preset, n, mills) in [("five", 16u64, 8u64), ("seven", 17, 14), ("eleven", 24, 20), ("sesotho", 25, 22)] {
        let r = rules(preset);
        let start = Position::start(&r);
        let got: Vec<u64> = (1..=5).map(|d| start.perft(&r, d)).collect();
        let falling = |k: u64| (0..k).map(|i| n - i).product::<u64>();
        let want = vec![n, falling(2), falling(3), falling(4), falling(5) + mills * 6 * (n - 3) * (n - 4)];
        assert_eq!(got, want, "{preset}");
    }
}

#[test]
fn perft_of_three_stops_at_a_line() {
    // Five placements: 9*8*7*6*5. A line of White's three stones ends the
    // game (8 lines with diagonals, 6 without; 3! orders; 6*5 placements of
    // Black's two stones), the others continue with Black's last stone on
    // one of 4 empty points.
    for (preset, lines) in [("three", 8), ("three-nodiagonal", 6)] {
        let r = rules(preset);
        let start = Position::start(&r);
        assert_eq!(start.perft(&r, 5), 15_120, "{preset}");
        assert_eq!(start.perft(&r, 6), (15_120 - lines * 6 * 30) * 4, "{preset}");
    }
}

#[test]
fn perft_of_lasker_counts_moves_while_stones_are_in_hand() {
    // Ply 3: White places (22 points) or slides its one stone to an empty
    // neighbour: the sum of degrees is 64, each neighbour empty for 22 of
    // Black's 23 placements.
    let r = rules("lasker");
    let start = Position::start(&r);
    assert_eq!(start.perft(&r, 2), 24 * 23);
    assert_eq!(start.perft(&r, 3), 24 * 23 * 22 + 64 * 22);
}

#[test]
fn double_mill_removes_one_stone_or_one_per_mill() {
    // White places d7, closing a7-d7-g7 and d7-d6-d5. Black's a1, d1, g1 is
    // a mill, so the first removal must take f4; under one removal per mill
    // the second may then take any of the mill's stones.
    let text = "W:a7,g7,d6,d5 B:a1,d1,g1,f4 w 5 5";
    let nine = rules("nine");
    let p = pos(&nine, text);
    let m = moves(&nine, &p);
    assert_eq!(m.len(), 16, "{m:?}");
    assert_eq!(m.iter().filter(|m| m.starts_with("d7")).collect::<Vec<_>>(), ["d7xf4"]);

    let pm = per_mill("nine");
    let m = moves(&pm, &pos(&pm, text));
    assert_eq!(m.len(), 18, "{m:?}");
    let d7: Vec<&String> = m.iter().filter(|m| m.starts_with("d7")).collect();
    assert_eq!(d7, ["d7xf4xa1", "d7xf4xd1", "d7xf4xg1"]);
    // Removals may be written in any legal order; the move removes both.
    let p = pos(&pm, text);
    let mv = p.parse_move(&pm, "d7xa1xf4").unwrap();
    let after = p.play_unchecked(mv);
    assert_eq!(after.to_text(pm.board()), "W:a7,d5,d6,d7,g7 B:d1,g1 b 4 5");
    // One removal is not enough, and a stone in a mill cannot go first.
    let e = p.parse_move(&pm, "d7xf4").unwrap_err().to_string();
    assert!(e.contains("removes 2 stones"), "{e}");
    let e = p.parse_move(&pm, "d7xa1xd1").unwrap_err().to_string();
    assert!(e.contains("no legal order"), "{e}");
}

#[test]
fn triple_mill_on_the_diagonal_board() {
    // b6 closes b6-d6-f6, b2-b4-b6 and a7-b6-c5: one stone, or under one
    // removal per mill three of Black's four free stones.
    let text = "W:d6,f6,b2,b4,a7,c5 B:g1,e3,d2,f4 w 3 3";
    let diag = rules("nine-diagonal");
    let m = moves(&diag, &pos(&diag, text));
    assert_eq!(m.iter().filter(|m| m.starts_with("b6")).count(), 4);
    let pm = per_mill("nine-diagonal");
    let p = pos(&pm, text);
    let b6: Vec<_> =
        p.legal_moves(&pm).into_iter().filter(|m| m.from.is_none() && pm.board().point_name(m.to) == "b6").collect();
    assert_eq!(b6.len(), 4);
    assert!(b6.iter().all(|m| m.removals().count_ones() == 3));
    // A line wins only in Three Men's Morris: nothing special here.
    assert_eq!(p.outcome(&pm), None);
}

#[test]
fn all_opponent_stones_in_mills_may_be_removed() {
    // g7 closes a7-d7-g7; Black's only stones form the mill b6-d6-f6.
    for preset in ["nine", "nine-diagonal", "twelve", "lasker"] {
        let r = rules(preset);
        let p = pos(&r, "W:a7,d7 B:b6,d6,f6 w 6 6");
        let m = moves(&r, &p);
        for s in ["b6", "d6", "f6"] {
            assert!(m.contains(&format!("g7x{s}")), "{preset}: {m:?}");
        }
    }
    // With one free stone, only it goes; unless the rule set says stones in
    // mills may always be removed.
    let text = "W:a7,d7 B:b6,d6,f6,d2 w 5 5";
    let nine = rules("nine");
    let m = moves(&nine, &pos(&nine, text));
    assert!(m.contains(&"g7xd2".to_string()) && !m.contains(&"g7xb6".to_string()));
    let always =
        RuleSet::custom("nine", &Overrides { removal: Some(Removal::Lenient), ..Overrides::default() }).unwrap();
    let m = moves(&always, &pos(&always, text));
    assert!(m.contains(&"g7xd2".to_string()) && m.contains(&"g7xb6".to_string()));
}

#[test]
fn flying_with_three_stones_not_four() {
    let nine = rules("nine");
    // Three stones on the board: 3 stones times 24 - 7 empty points.
    let three = pos(&nine, "W:a1,d7,g4 B:b6,d6,f6,d2 w");
    assert_eq!(three.legal_moves(&nine).len(), 3 * 17);
    let four = pos(&nine, "W:a1,d7,g4,c3 B:b6,d6,f6,d2 w");
    assert!(!moves(&nine, &four).contains(&"a1-e4".to_string()));
    for preset in ["nine-noflying", "six", "three"] {
        let r = rules(preset);
        assert!(!r.flies(3), "{preset}");
    }
    let e = four.parse_move(&nine, "a1-e4").unwrap_err().to_string();
    assert!(e.contains("not adjacent") && e.contains("flies only with 3"), "{e}");
    // Under the Lasker rule stones in hand count: two on the board and one
    // in hand fly (placements on 18 empty points, flights of 2 stones).
    let lasker = rules("lasker");
    let p = pos(&lasker, "W:a1,d7 B:b6,d6,f6,d2 w 1 0");
    assert_eq!(p.legal_moves(&lasker).len(), 18 + 2 * 18);
}

#[test]
fn a_blocked_side_loses() {
    // a1: a4 White, d1 Black; a4: a1, a7, b4 White; a7: a4 White, d7
    // Black; b4: a4 White, c4, b6, b2 Black.
    let nine = rules("nine");
    let p = pos(&nine, "W:a1,a4,a7,b4 B:d1,d7,c4,b6,b2 w");
    assert!(p.legal_moves(&nine).is_empty());
    assert_eq!(p.outcome(&nine), Some(Outcome::Loss(Color::White)));
    assert_eq!(p.perft(&nine, 1), 0);
    assert_eq!(nine.no_move_value(p.us(), p.them()), Value::LOST);
    // Blocked in Three Men's Morris too: without diagonals White a1, a2, b1
    // has only b2, a3 and c1 to go to, all Black.
    let nodiag = rules("three-nodiagonal");
    let p = pos(&nodiag, "W:a1,a2,b1 B:b2,a3,c1 w");
    assert!(p.legal_moves(&nodiag).is_empty());
    assert_eq!(p.outcome(&nodiag), Some(Outcome::Loss(Color::White)));
    // With diagonals c1-b2-a3 is Black's line: the game was over already.
    let three = rules("three");
    let p = pos(&three, "W:a1,a2,b1 B:b2,a3,c1 w");
    assert_eq!(p.outcome(&three), Some(Outcome::Loss(Color::White)));
    assert_eq!(p.perft(&three, 1), 0);
}

/// Twelve White stones and eleven Black ones without a mill; Black places
/// its last stone on the last empty point, a4, closing no mill.
const BEFORE_FULL: &str = "W:a1,a7,b2,b4,c5,d2,d6,e3,f4,f6,g4,g7 B:b6,c3,c4,d1,d3,d5,d7,e4,e5,f2,g1 b 0 1";

#[test]
fn full_board_in_twelve_and_morabaraba() {
    for (preset, outcome) in [("twelve", Outcome::Loss(Color::White)), ("morabaraba", Outcome::Draw)] {
        let r = rules(preset);
        let p = pos(&r, BEFORE_FULL);
        assert_eq!(moves(&r, &p), ["a4"], "{preset}");
        let full = p.play_unchecked(p.legal_moves(&r)[0]);
        assert_eq!(full.white() | full.black(), r.board().all());
        assert_eq!(full.side_to_move(), Color::White);
        assert!(full.legal_moves(&r).is_empty());
        assert_eq!(full.outcome(&r), Some(outcome), "{preset}");
        assert_eq!(p.perft(&r, 1), 1);
        assert_eq!(p.perft(&r, 2), 0);
        let expected = match outcome {
            Outcome::Draw => (NoMoveOutcome::Draw, Value::Draw, None),
            Outcome::Loss(_) => (NoMoveOutcome::WhiteLoses, Value::LOST, Some(Color::White)),
        };
        assert_eq!(
            (r.no_move_outcome(full.us(), full.them()), r.no_move_value(full.us(), full.them()), full.loser(&r)),
            expected,
            "{preset}"
        );
    }
    // White loses a full board even with Black to move (a position of the
    // Lasker rule, where the board may fill on White's placement).
    let twelve = rules("twelve");
    let full = pos(&twelve, "W:a1,a7,b2,b4,c5,d2,d6,e3,f4,f6,g4,g7 B:a4,b6,c3,c4,d1,d3,d5,d7,e4,e5,f2,g1 b");
    assert_eq!(full.outcome(&twelve), Some(Outcome::Loss(Color::White)));
}

#[test]
fn a_line_wins_in_three() {
    let three = rules("three");
    // Placement: c3 completes the diagonal a1-b2-c3.
    let p = pos(&three, "W:a1,b2 B:a2,b1 w 1 1");
    let m = moves(&three, &p);
    assert_eq!(m.len(), 5);
    assert!(m.iter().all(|m| !m.contains('x')), "nothing is removed: {m:?}");
    let won = p.play_unchecked(p.parse_move(&three, "c3").unwrap());
    assert_eq!(won.outcome(&three), Some(Outcome::Loss(Color::Black)));
    assert!(won.legal_moves(&three).is_empty());
    assert_eq!(won.loser(&three), Some(Color::Black));
    // Without diagonals it is no line and Black places next.
    let nodiag = rules("three-nodiagonal");
    let after = p.play_unchecked(p.parse_move(&nodiag, "c3").unwrap());
    assert_eq!(after.outcome(&nodiag), None);
    assert_eq!(after.legal_moves(&nodiag).len(), 4);
    // Sliding: c2-c1 completes the bottom row a1-b1-c1.
    let p = pos(&three, "W:a1,b1,c2 B:a2,b3,c3 w");
    let after = p.play_unchecked(p.parse_move(&three, "c2-c1").unwrap());
    assert_eq!(after.outcome(&three), Some(Outcome::Loss(Color::Black)));
    let e = p.parse_move(&three, "c2-c1xa2").unwrap_err().to_string();
    assert!(e.contains("removes no stones"), "{e}");
}

#[test]
fn lasker_places_or_moves() {
    // White d6 with 9 in hand: 22 placements, or d6 to b6, f6, d7, d5.
    let lasker = rules("lasker");
    let p = pos(&lasker, "W:d6 B:d2 w 9 9");
    let m = moves(&lasker, &p);
    assert_eq!(m.len(), 22 + 4);
    for s in ["d6-b6", "d6-f6", "d6-d7", "d6-d5", "a1", "g7"] {
        assert!(m.contains(&s.to_string()), "{s}: {m:?}");
    }
    // A move keeps the stones in hand; a placement spends one.
    let moved = p.play_unchecked(p.parse_move(&lasker, "d6-d5").unwrap());
    assert_eq!(moved.white_in_hand(), 9);
    let placed = p.play_unchecked(p.parse_move(&lasker, "a1").unwrap());
    assert_eq!(placed.white_in_hand(), 8);
    // Without the Lasker rule a player with stones in hand must place.
    let nine = rules("nine");
    let p9 = pos(&nine, "W:d6 B:d2 w 8 8");
    assert_eq!(p9.legal_moves(&nine).len(), 22);
    let e = p9.parse_move(&nine, "d6-d5").unwrap_err().to_string();
    assert!(e.contains("must place"), "{e}");
    assert!(!lasker.sliding_phase_supported());
}

#[test]
fn fewer_than_three_stones_lose() {
    let nine = rules("nine");
    // g4-g7 closes a7-d7-g7 and takes one of Black's three: Black is left
    // with two and has lost.
    let p = pos(&nine, "W:a7,d7,g4 B:b6,d2,f4 w");
    let mv = p.parse_move(&nine, "g4-g7xd2").unwrap();
    let after = p.play_unchecked(mv);
    assert_eq!(after.outcome(&nine), Some(Outcome::Loss(Color::Black)));
    assert!(after.legal_moves(&nine).is_empty());
    // Stones in hand count: two on the board and one in hand play on.
    let q = pos(&nine, "W:a7,d7 B:b6,d2 w 1 1");
    assert_eq!(q.outcome(&nine), None);
}

#[test]
fn symmetries_of_every_board_keep_moves() {
    // Sixteen symmetries for the 24- and 16-point boards, the square's eight
    // for the 9-, 17- and 25-point boards (docs/rules.md): on the 9-point
    // board those keep the centre and the corners.
    for preset in PRESETS {
        let r = rules(preset);
        let n = r.board().symmetries().len();
        let expected = if matches!(r.board().len(), 9 | 17 | 25) { 8 } else { 16 };
        assert_eq!(n, expected, "{preset}");
        if r.board().len() == 9 {
            let b = r.board();
            let corners: u32 = ["a1", "c1", "a3", "c3"].iter().map(|c| 1u32 << b.point(c).unwrap()).sum();
            let centre = b.point("b2").unwrap();
            for s in b.symmetries() {
                assert_eq!(s.point(centre), centre, "{preset}");
                assert_eq!(s.apply(corners), corners, "{preset}");
            }
        }
    }
    // Move counts are invariant on a placement position with mills.
    for preset in ["nine-diagonal", "twelve", "lasker", "six"] {
        let r = rules(preset);
        let b = r.board();
        let p = if b.len() == 24 {
            pos(&r, "W:a7,d7,b6,d6 B:d2,f4,c3 w 5 5")
        } else {
            pos(&r, "W:b6,d6,c5 B:d2,f4,c3 w 3 3")
        };
        let n = p.legal_moves(&r).len();
        for s in b.symmetries() {
            let q =
                Setup { white: s.apply(p.white()), black: s.apply(p.black()), ..p.to_setup() }.validate(&r).unwrap();
            assert_eq!(q.legal_moves(&r).len(), n, "{preset}");
        }
    }
}
