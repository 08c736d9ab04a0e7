//! Property tests of `morris-db` (docs/design.md, "Testing"): symmetries keep
//! legality and the index, the index is a bijection between canonical
//! positions and its non-padding slots, un-moves invert moves without
//! removal, and the position notation round-trips. Random positions are in
//! the sliding phase (no stones in hand) unless said otherwise; exhaustive
//! checks cover the small sectors, against orbit counts computed here by
//! brute force and against the published counts of
//! `docs/testing.md, "The oracle"`.

use std::collections::HashSet;
use std::sync::LazyLock;

use morris_db::board::{Bitboard, Point, Points};
use morris_db::index::{colex_unrank, BINOMIAL};
use morris_db::moves::{apply_move, generate_moves, sliding_unmoves};
use morris_db::{Color, Move, Position, RuleSet, Sector, Setup};
use morris_tests::reference_game::{RefGame, RefPos};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

static NINE: LazyLock<RuleSet> = LazyLock::new(|| RuleSet::preset("nine").unwrap());
static NINE_NOFLYING: LazyLock<RuleSet> = LazyLock::new(|| RuleSet::preset("nine-noflying").unwrap());
static NINE_DIAGONAL: LazyLock<RuleSet> = LazyLock::new(|| RuleSet::preset("nine-diagonal").unwrap());
static SIX: LazyLock<RuleSet> = LazyLock::new(|| RuleSet::preset("six").unwrap());

// ---------------------------------------------------------------------------
// Helpers

/// A random sliding-phase position `(us, them)` on a board of `n` points:
/// disjoint stone sets of `3..=max` stones each.
fn sliding_position(n: usize, max: usize) -> impl Strategy<Value = (Bitboard, Bitboard)> {
    let points: Vec<Point> = (0..n as Point).collect();
    (3..=max, 3..=max, Just(points).prop_shuffle()).prop_map(|(w, b, pts)| {
        let us = pts[..w].iter().fold(0, |s, &p| s | 1 << p);
        let them = pts[w..w + b].iter().fold(0, |s, &p| s | 1 << p);
        (us, them)
    })
}

fn bits(set: Bitboard) -> String {
    Points(set).map(|p| p.to_string()).collect::<Vec<_>>().join(",")
}

/// `(us, them)` in notation, White to move, for failure messages.
fn show(rules: &RuleSet, us: Bitboard, them: Bitboard) -> String {
    Setup::from_relative(us, them, Color::White, 0, 0).to_text(rules.board())
}

fn moves_of(rules: &RuleSet, us: Bitboard, them: Bitboard) -> Vec<Move> {
    let mut v = Vec::new();
    generate_moves(rules, us, them, 0, &mut v);
    v
}

/// The orbit's smallest image of a pair, ordered by `(us, them)`: equal for
/// two pairs exactly when a symmetry maps one to the other. Uses nothing of
/// the index.
fn brute_canonical(rules: &RuleSet, us: Bitboard, them: Bitboard) -> u64 {
    rules.board().symmetries().iter().map(|s| (s.apply(us) as u64) << 32 | s.apply(them) as u64).min().unwrap()
}

/// Calls `f` on every set of `k` points of `0..n`.
fn for_each_set(n: usize, k: usize, mut f: impl FnMut(Bitboard)) {
    for r in 0..BINOMIAL[n][k] {
        f(colex_unrank(r, k));
    }
}

// ---------------------------------------------------------------------------
// The properties, as functions of one position

/// 1. The moves of s(P) are the s-images of the moves of P, for every
///    symmetry s; no move is listed twice.
fn check_symmetry_maps_moves(rules: &RuleSet, us: Bitboard, them: Bitboard) -> Result<(), TestCaseError> {
    let moves = moves_of(rules, us, them);
    let set: HashSet<Move> = moves.iter().copied().collect();
    prop_assert_eq!(set.len(), moves.len(), "duplicate moves in {}", show(rules, us, them));
    for (i, s) in rules.board().symmetries().iter().enumerate() {
        let (su, st) = (s.apply(us), s.apply(them));
        let mapped: HashSet<Move> = moves
            .iter()
            .map(|m| Move {
                from: m.from.map(|p| s.point(p)),
                to: s.point(m.to),
                removal: m.removal.map(|p| s.point(p)),
                extra_removals: s.apply(m.extra_removals),
            })
            .collect();
        let of_image: HashSet<Move> = moves_of(rules, su, st).into_iter().collect();
        prop_assert!(
            mapped == of_image,
            "symmetry {} on {}: image {} has {} moves, the images of the moves are {}",
            i,
            show(rules, us, them),
            show(rules, su, st),
            of_image.len(),
            mapped.len()
        );
    }
    Ok(())
}

/// 2. Every symmetry keeps the index, and the index is in range.
fn check_symmetry_keeps_index(rules: &RuleSet, us: Bitboard, them: Bitboard) -> Result<(), TestCaseError> {
    let idx = rules.indexer().sector(Sector::sliding(us.count_ones() as u8, them.count_ones() as u8));
    let i = idx.index(us, them);
    prop_assert!(i < idx.len(), "index {} >= len {}", i, idx.len());
    for (k, s) in rules.board().symmetries().iter().enumerate() {
        let j = idx.index(s.apply(us), s.apply(them));
        prop_assert_eq!(i, j, "symmetry {} changes the index of {}", k, show(rules, us, them));
    }
    Ok(())
}

/// 3. `position(index(P))` is a position of P's orbit, with the same index.
fn check_index_round_trip(rules: &RuleSet, us: Bitboard, them: Bitboard) -> Result<(), TestCaseError> {
    let idx = rules.indexer().sector(Sector::sliding(us.count_ones() as u8, them.count_ones() as u8));
    let i = idx.index(us, them);
    let back = idx.position(i);
    prop_assert!(back.is_some(), "slot {} of {} is padding", i, show(rules, us, them));
    let (u2, t2) = back.unwrap();
    prop_assert!(
        rules.board().symmetries().iter().any(|s| s.apply(us) == u2 && s.apply(them) == t2),
        "{} has slot {}, whose position {} is not in its orbit",
        show(rules, us, them),
        i,
        show(rules, u2, t2)
    );
    prop_assert_eq!(idx.index(u2, t2), i);
    Ok(())
}

/// 4. Un-moves are exactly the inverse of moves without removal.
fn check_unmoves_invert_moves(rules: &RuleSet, us: Bitboard, them: Bitboard) -> Result<(), TestCaseError> {
    let board = rules.board();
    let mut preds = Vec::new();
    for m in moves_of(rules, us, them) {
        let (us2, them2) = apply_move(us, them, m);
        // In the sliding phase the opponent has >= 3 stones, so a move
        // without removal is one that closes no mill.
        let closes = board.closes_mill(us2, m.to);
        prop_assert_eq!(closes, m.removal.is_some());
        if m.removal.is_some() {
            continue;
        }
        prop_assert_eq!(them2, them);
        // Child C = (them, us2), the opponent to move.
        preds.clear();
        sliding_unmoves(rules, them, us2, &mut preds);
        prop_assert!(
            preds.contains(&(us, them)),
            "{} is not among the un-moves of {} (after {})",
            show(rules, us, them),
            show(rules, them, us2),
            m.notation(board)
        );
        // Conversely: every predecessor of C reaches C by a move without removal.
        let distinct: HashSet<_> = preds.iter().copied().collect();
        prop_assert_eq!(distinct.len(), preds.len(), "duplicate un-moves");
        for &(p_us, p_them) in &preds {
            prop_assert_eq!(p_them, them);
            prop_assert_eq!(p_us & p_them, 0);
            prop_assert_eq!(p_us & !board.all(), 0);
            prop_assert_eq!(p_us.count_ones(), us2.count_ones());
            let reaches = moves_of(rules, p_us, p_them)
                .into_iter()
                .any(|m2| m2.removal.is_none() && apply_move(p_us, p_them, m2) == (us2, them));
            prop_assert!(
                reaches,
                "un-move of {} gives {}, which has no move without removal to it",
                show(rules, them, us2),
                show(rules, p_us, p_them)
            );
        }
    }
    Ok(())
}

/// 5. The position is valid, and `to_text` then `parse` gives it back.
fn check_notation_round_trip(rules: &RuleSet, p: Setup) -> Result<(), TestCaseError> {
    let text = p.to_text(rules.board());
    let p = p.validate(rules).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    let back = Position::parse(&text, rules);
    prop_assert_eq!(back, Ok(p), "{}", text);
    Ok(())
}

/// A random position of `rules` for the notation test: stones on the board
/// in the sliding range, either side to move, and (half the time) stones in
/// hand that keep each side within the rule set's stones and that a game
/// reaches with that side to move (equal hands with White to move, one more
/// for Black with Black to move).
fn any_position(n: usize, max: usize, stones: u8) -> impl Strategy<Value = Setup> {
    (sliding_position(n, max), any::<bool>(), any::<bool>(), 0..=stones).prop_map(
        move |((us, them), white, hands, h)| {
            let side = if white { Color::White } else { Color::Black };
            let p = Setup::from_relative(us, them, side, 0, 0);
            let (room_w, room_b) = (stones - p.white.count_ones() as u8, stones - p.black.count_ones() as u8);
            let (wh, bh) = match (hands, side) {
                (false, _) => (0, 0),
                (true, Color::White) => {
                    let h = h.min(room_w).min(room_b);
                    (h, h)
                }
                (true, Color::Black) if room_b == 0 => (0, 0),
                (true, Color::Black) => {
                    let h = h.min(room_w).min(room_b - 1);
                    (h, h + 1)
                }
            };
            Setup { white_in_hand: wh, black_in_hand: bh, ..p }
        },
    )
}

// ---------------------------------------------------------------------------
// Random positions

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn nine_symmetries_map_moves_to_moves((us, them) in sliding_position(24, 9)) {
        check_symmetry_maps_moves(&NINE, us, them)?;
    }

    #[test]
    fn nine_noflying_symmetries_map_moves_to_moves((us, them) in sliding_position(24, 9)) {
        check_symmetry_maps_moves(&NINE_NOFLYING, us, them)?;
    }

    #[test]
    fn nine_diagonal_symmetries_map_moves_to_moves((us, them) in sliding_position(24, 9)) {
        check_symmetry_maps_moves(&NINE_DIAGONAL, us, them)?;
    }

    #[test]
    fn six_symmetries_map_moves_to_moves((us, them) in sliding_position(16, 6)) {
        check_symmetry_maps_moves(&SIX, us, them)?;
    }

    #[test]
    fn nine_symmetries_keep_the_index((us, them) in sliding_position(24, 9)) {
        check_symmetry_keeps_index(&NINE, us, them)?;
    }

    #[test]
    fn nine_diagonal_symmetries_keep_the_index((us, them) in sliding_position(24, 9)) {
        check_symmetry_keeps_index(&NINE_DIAGONAL, us, them)?;
    }

    #[test]
    fn six_symmetries_keep_the_index((us, them) in sliding_position(16, 6)) {
        check_symmetry_keeps_index(&SIX, us, them)?;
    }

    #[test]
    fn nine_index_round_trips_within_the_orbit((us, them) in sliding_position(24, 9)) {
        check_index_round_trip(&NINE, us, them)?;
    }

    #[test]
    fn nine_diagonal_index_round_trips_within_the_orbit((us, them) in sliding_position(24, 9)) {
        check_index_round_trip(&NINE_DIAGONAL, us, them)?;
    }

    #[test]
    fn six_index_round_trips_within_the_orbit((us, them) in sliding_position(16, 6)) {
        check_index_round_trip(&SIX, us, them)?;
    }

    #[test]
    fn nine_unmoves_invert_moves_without_removal((us, them) in sliding_position(24, 9)) {
        check_unmoves_invert_moves(&NINE, us, them)?;
    }

    #[test]
    fn nine_noflying_unmoves_invert_moves_without_removal((us, them) in sliding_position(24, 9)) {
        check_unmoves_invert_moves(&NINE_NOFLYING, us, them)?;
    }

    #[test]
    fn nine_diagonal_unmoves_invert_moves_without_removal((us, them) in sliding_position(24, 9)) {
        check_unmoves_invert_moves(&NINE_DIAGONAL, us, them)?;
    }

    #[test]
    fn six_unmoves_invert_moves_without_removal((us, them) in sliding_position(16, 6)) {
        check_unmoves_invert_moves(&SIX, us, them)?;
    }

    #[test]
    fn nine_notation_round_trips(p in any_position(24, 9, 9)) {
        check_notation_round_trip(&NINE, p)?;
    }

    #[test]
    fn six_notation_round_trips(p in any_position(16, 6, 6)) {
        check_notation_round_trip(&SIX, p)?;
    }
}

// ---------------------------------------------------------------------------
// Exhaustive checks of small sectors

/// Checks sector `w-b` of `rules` exhaustively and returns its number of
/// canonical positions:
/// - every slot is padding or a position whose index is that slot;
/// - every position's slot holds a position of its orbit;
/// - the non-padding slots are as many as the orbits, counted by brute force
///   (pairs that are the smallest of their 16 images).
fn check_sector_exhaustively(rules: &RuleSet, w: usize, b: usize) -> u64 {
    let n = rules.board().len();
    let idx = rules.indexer().sector(Sector::sliding(w as u8, b as u8));
    let mut filled = 0u64;
    for slot in 0..idx.len() {
        if let Some((us, them)) = idx.position(slot) {
            assert_eq!(us.count_ones() as usize, w, "slot {slot}");
            assert_eq!(them.count_ones() as usize, b, "slot {slot}");
            assert_eq!(us & them, 0, "slot {slot}");
            assert_eq!(
                idx.index(us, them),
                slot,
                "{} {w}-{b}: slot {slot} holds {}, whose index differs",
                rules.name(),
                show(rules, us, them)
            );
            filled += 1;
        }
    }
    let mut orbits = 0u64;
    for_each_set(n, w, |us| {
        for_each_set(n - w, b, |compressed| {
            // Spread the compressed opponent set over the points `us` leaves.
            let mut them = 0;
            let mut free = rules.board().all() & !us;
            let mut c = compressed;
            while free != 0 {
                let p = free.trailing_zeros();
                if c & 1 != 0 {
                    them |= 1 << p;
                }
                c >>= 1;
                free &= free - 1;
            }
            let canon = brute_canonical(rules, us, them);
            if canon == (us as u64) << 32 | them as u64 {
                orbits += 1;
            }
            let (u2, t2) = idx
                .position(idx.index(us, them))
                .unwrap_or_else(|| panic!("slot of {} is padding", show(rules, us, them)));
            assert_eq!(
                brute_canonical(rules, u2, t2),
                canon,
                "{} {w}-{b}: {} is indexed as {}, another orbit",
                rules.name(),
                show(rules, us, them),
                show(rules, u2, t2)
            );
        });
    });
    assert_eq!(filled, orbits, "{} {w}-{b}: {filled} non-padding slots, {orbits} orbits", rules.name());
    filled
}

#[test]
fn nine_3_3_index_is_a_bijection_onto_169_626_canonical_positions() {
    // Oracle: 28,736 losses + 140,621 wins + 269 draws.
    assert_eq!(check_sector_exhaustively(&NINE, 3, 3), 169_626);
}

#[test]
fn nine_3_4_index_is_a_bijection_onto_760_398_canonical_positions() {
    // Oracle: 102,281 wins + 658,117 draws.
    assert_eq!(check_sector_exhaustively(&NINE, 3, 4), 760_398);
}

#[test]
fn nine_4_3_index_is_a_bijection_onto_760_398_canonical_positions() {
    // Oracle: 75,397 wins + 3,095 losses + 681,906 draws.
    assert_eq!(check_sector_exhaustively(&NINE, 4, 3), 760_398);
}

#[test]
fn nine_diagonal_3_3_index_is_a_bijection() {
    // Same symmetry group as the plain board, hence the same orbits.
    assert_eq!(check_sector_exhaustively(&NINE_DIAGONAL, 3, 3), 169_626);
}

#[test]
fn six_small_sectors_index_is_a_bijection() {
    let a = check_sector_exhaustively(&SIX, 3, 3);
    let b = check_sector_exhaustively(&SIX, 4, 3);
    let c = check_sector_exhaustively(&SIX, 3, 4);
    assert_eq!(b, c, "w-b and b-w have the same orbits");
    assert!(a > 0 && b > 0);
}

#[test]
fn exhaustive_unmoves_of_six_3_3() {
    // Every position of six 3-3 (not just canonical ones), both directions.
    let rules = &*SIX;
    for_each_set(16, 3, |us| {
        for_each_set(16, 3, |them| {
            if us & them == 0 {
                check_unmoves_invert_moves(rules, us, them).unwrap();
            }
        });
    });
}

// ---------------------------------------------------------------------------
// Hand-checked positions

fn pos(rules: &RuleSet, text: &str) -> Position {
    Position::parse(text, rules).unwrap()
}

fn notations(rules: &RuleSet, p: &Position) -> Vec<String> {
    p.legal_move_names(rules)
}

#[test]
fn double_mill_removes_exactly_one_stone() {
    // On the 24-point board every line between adjacent points lies on a
    // mill through both, so a slide onto a point leaves one of that point's
    // mills open (the stone came from it), and with 3 stones no two mills
    // fit: a double mill happens only by placement. White a7,g7 and d6,d5
    // wait for d7, which closes a7-d7-g7 and d7-d6-d5 at once. Black's
    // a1,d1,g1 is a mill, so only b2 and f2 may go; each placement on d7
    // removes exactly one of them. (Hands 2 and 2: with White to move a
    // game has equal hands, `Setup::validate`.)
    let rules = &*NINE;
    let p = pos(rules, "W:a7,g7,d6,d5 B:a1,d1,g1,b2,f2 w 2 2");
    let on_d7: Vec<String> = notations(rules, &p).into_iter().filter(|m| m.starts_with("d7")).collect();
    assert_eq!(on_d7, ["d7xb2", "d7xf2"]);
    for m in p.legal_moves(rules) {
        let q = p.play_unchecked(m);
        let removed = p.black().count_ones() - q.black().count_ones();
        assert_eq!(removed, u32::from(m.removal.is_some()), "{}", m.notation(rules.board()));
    }
    let after = p.play_unchecked(p.parse_move(rules, "d7xf2").unwrap());
    assert_eq!(after.to_text(rules.board()), "W:a7,d5,d6,d7,g7 B:a1,b2,d1,g1 b 1 2");
}

#[test]
fn blocked_side_has_no_move_and_loses() {
    // White a1,a4,a7,b4: a1's neighbours are a4 (White) and d1 (Black); a4's
    // are a1, a7, b4 (all White); a7's are a4 (White) and d7 (Black); b4's
    // are a4 (White), c4, b6, b2 (Black). Four stones do not fly, so White
    // cannot move and loses.
    let rules = &*NINE;
    let p = pos(rules, "W:a1,a4,a7,b4 B:d1,d7,c4,b6,b2 w");
    assert!(p.legal_moves(rules).is_empty());
    assert_eq!(p.loser(rules), Some(Color::White));
    // Black to move in the same position is not blocked.
    let q = Setup { side_to_move: Color::Black, ..p.to_setup() }.validate(rules).unwrap();
    assert!(!q.legal_moves(rules).is_empty());
    assert_eq!(q.loser(rules), None);
}

#[test]
fn three_stones_are_blocked_only_without_flying() {
    // White a1,a4,a7 walled in by Black d1,b4,d7 (a1: a4 White, d1 Black;
    // a4: a1, a7 White, b4 Black; a7: a4 White, d7 Black). With flying White
    // flies to any of the 18 empty points; without, White is blocked.
    let text = "W:a1,a4,a7 B:d1,b4,d7 w";
    let p = pos(&NINE, text);
    let flights = p.legal_moves(&NINE);
    assert_eq!(flights.len(), 3 * 18);
    // No flight closes a mill: the only mill holding two of White's stones
    // is a1-a4-a7 itself, whose third point is the one just left.
    assert!(flights.iter().all(|m| m.removal.is_none()));
    let p = pos(&NINE_NOFLYING, text);
    assert!(p.legal_moves(&NINE_NOFLYING).is_empty());
    assert_eq!(p.loser(&NINE_NOFLYING), Some(Color::White));
}

#[test]
fn six_three_stones_blocked() {
    // Six Men's Morris has no flying. White b2,b4,b6 (a mill on the middle
    // ring's left side): b2's neighbours b4 (White), d2; b4's b2, b6 (White),
    // c4; b6's b4 (White), d6. Black d2,c4,d6 blocks them all.
    let rules = &*SIX;
    let p = pos(rules, "W:b2,b4,b6 B:d2,c4,d6 w");
    assert!(p.legal_moves(rules).is_empty());
    assert_eq!(p.loser(rules), Some(Color::White));
}

#[test]
fn moving_out_of_a_mill_and_back_closes_it_again() {
    // docs/rules.md: moving a stone away and back is legal, and the mill it
    // re-forms was not there before the move, so it removes.
    let rules = &*NINE;
    let p = pos(rules, "W:a7,d7,g7,a1 B:b6,f6,d2,b2 w");
    let away = p.parse_move(rules, "d7-d6").unwrap();
    assert_eq!(away.removal, None);
    let p = p.play_unchecked(away);
    let p = p.play_unchecked(p.parse_move(rules, "b2-b4").unwrap());
    let back = notations(rules, &p);
    assert!(back.contains(&"d6-d7xb4".to_string()), "{back:?}");
    assert!(!back.contains(&"d6-d7".to_string()), "{back:?}");
}

#[test]
fn diagonal_board_mills_and_symmetries() {
    // nine-diagonal: a7-b6-c5 is a line and a mill, so b6 reaches a7 and c5,
    // and sliding c4-c5 next to b6,a7 closes it.
    let rules = &*NINE_DIAGONAL;
    assert_eq!(rules.board().mills().len(), 20);
    let p = pos(rules, "W:a7,b6,c4,g1 B:d2,f4,e3,a1 w");
    let moves = notations(rules, &p);
    assert!(moves.contains(&"b6-c5".to_string()), "{moves:?}");
    assert!(moves.contains(&"c4-c5xa1".to_string()), "{moves:?}");
    assert!(!moves.contains(&"c4-c5".to_string()), "{moves:?}");
    let plain = notations(&NINE, &p);
    assert!(!plain.contains(&"b6-c5".to_string()), "{plain:?}");
    assert!(plain.contains(&"c4-c5".to_string()), "{plain:?}");
}

#[test]
fn symmetry_group_acts_as_a_group() {
    // The symmetries are permutations that keep adjacency and mills, the
    // identity first, closed under composition.
    for rules in [&*NINE, &*NINE_DIAGONAL, &*SIX] {
        let board = rules.board();
        let syms = board.symmetries();
        let images: HashSet<Vec<Point>> = syms.iter().map(|s| s.image().to_vec()).collect();
        assert_eq!(images.len(), syms.len());
        assert!(syms[0].image().iter().enumerate().all(|(i, &p)| i == p as usize));
        for s in syms {
            for p in 0..board.len() as Point {
                assert_eq!(s.apply(board.adjacent(p)), board.adjacent(s.point(p)));
                assert_eq!(s.apply(1 << p), 1 << s.point(p), "{}", bits(1 << p));
            }
            for &m in board.mills() {
                assert!(board.mills().contains(&s.apply(m)));
            }
            for t in syms {
                let composed: Vec<Point> = (0..board.len() as Point).map(|p| t.point(s.point(p))).collect();
                assert!(images.contains(&composed));
            }
        }
    }
}

/// Placement positions generated around a double mill: White, with stones
/// in hand, holds the other four points of two mills that meet at `p`
/// (empty); Black's stones are random, or (half the time) whole mills, so
/// that every Black stone stands in a mill. Placing on `p` closes both
/// mills and removes exactly one Black stone (docs/rules.md: a double mill
/// removes one), one not in a mill unless every Black stone is in one.
fn double_mill_placement() -> impl Strategy<Value = (Position, Point)> {
    let rules = &*NINE;
    let mills: Vec<Bitboard> = rules.board().mills().to_vec();
    let mut pairs = Vec::new();
    for (i, &a) in mills.iter().enumerate() {
        for &b in &mills[i + 1..] {
            if (a & b).count_ones() == 1 {
                pairs.push((a, b));
            }
        }
    }
    let points: Vec<Point> = (0..24).collect();
    (
        proptest::sample::select(pairs),
        any::<bool>(),
        3usize..=5,
        Just(points).prop_shuffle(),
        proptest::sample::subsequence(mills, 2),
        1u8..=4,
    )
        .prop_filter_map("no room", move |((a, b), in_mills, k, order, black_mills, hand)| {
            let p = (a & b).trailing_zeros() as Point;
            let white = (a | b) & !(1 << p);
            let black = if in_mills {
                let m = black_mills[0] | black_mills[1];
                if m & (a | b) != 0 || black_mills[0] & black_mills[1] != 0 {
                    return None;
                }
                m
            } else {
                order.iter().filter(|&&q| (a | b) & (1 << q) == 0).take(k).fold(0, |s, &q| s | 1 << q)
            };
            // White to move: 4 on the board and `hand` in hand, Black as many.
            let bh = hand.min(9 - black.count_ones() as u8);
            if bh != hand {
                return None;
            }
            let setup = Setup::from_relative(white, black, Color::White, hand, hand);
            Some((setup.validate(rules).expect("White to move with equal hands"), p))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_double_mill_by_placement_removes_one_stone((position, p) in double_mill_placement()) {
        let rules = &*NINE;
        let black = position.them();
        let in_mills = rules.board().mills().iter().filter(|&&m| black & m == m).fold(0, |s, &m| s | m);
        let free = black & !in_mills;
        let expected = if free != 0 { free } else { black };
        let mut removed = 0;
        for m in position.legal_moves(rules).into_iter().filter(|m| m.from.is_none() && m.to == p) {
            let r = m.removal.expect("a mill removes a stone");
            prop_assert!(expected & (1 << r) != 0, "{}: {}", position.to_text(rules.board()), m.notation(rules.board()));
            prop_assert_eq!(m.extra_removals, 0);
            let after = position.play_unchecked(m);
            prop_assert_eq!(after.white().count_ones(), 5);
            prop_assert_eq!(after.black(), black & !(1 << r));
            removed |= 1 << r;
        }
        prop_assert_eq!(removed, expected, "{}", position.to_text(rules.board()));
    }
}

// ---------------------------------------------------------------------------
// Move generation with stones in hand against the reference

/// A rule set and the reference's reading of it (its own board data and
/// move generation: `morris_tests::reference_game`).
struct Pair {
    rules: RuleSet,
    game: RefGame,
    /// Reference bit `i` as the database's point bit.
    to_db: Vec<Bitboard>,
}

impl Pair {
    fn new(preset: &str, game: RefGame) -> Pair {
        let rules = RuleSet::preset(preset).unwrap();
        let to_db = game.points.iter().map(|&n| 1 << rules.board().point(n).expect("point")).collect();
        Pair { rules, game, to_db }
    }

    fn to_db(&self, set: u32) -> Bitboard {
        (0..self.to_db.len()).filter(|&i| set & (1 << i) != 0).fold(0, |a, i| a | self.to_db[i])
    }
}

static PAIRS: LazyLock<Vec<Pair>> = LazyLock::new(|| {
    vec![
        Pair::new("nine", RefGame::twentyfour(9, true, false)),
        Pair::new("nine-noflying", RefGame::twentyfour(9, false, false)),
        Pair::new("nine-diagonal", RefGame::twentyfour(9, true, true)),
        Pair::new("lasker", RefGame::twentyfour(10, true, false).with_lasker()),
        Pair::new("six", RefGame::sixteen(6, false)),
        Pair::new("six-flying", RefGame::sixteen(6, true)),
    ]
});

/// A position of one of [`PAIRS`] in the reference's terms (relative to
/// the side to move), with stones in hand: the hands of a game in
/// progress (White to move: equal hands; Black: one more for Black; under
/// the Lasker rule any), both sides with at least 3 stones on the board
/// and in hand. Built to meet the rules about mills often: `shape` 1 and 3
/// make the opponent's stones whole mills (every one in a mill), 2 and 3
/// give the side to move the other four points of two mills that meet on
/// an empty point (a placement or a move there closes both).
fn ref_position_in_hand() -> impl Strategy<Value = (usize, RefPos)> {
    (0..PAIRS.len(), any::<u64>(), 0u8..4, 0u8..=10, 0u8..=10, any::<bool>(), 0u32..=10, 0u32..=10).prop_filter_map(
        "not a position of the game",
        |(which, seed, shape, hand_a, hand_b, black, u, t)| {
            let game = &PAIRS[which].game;
            let n = game.points.len();
            let stones = game.stones;
            let (us_hand, them_hand) = if game.lasker {
                (hand_a % (stones + 1), hand_b % (stones + 1))
            } else {
                let k = hand_a % stones;
                if black {
                    (k + 1, k)
                } else {
                    (k.max(1), k.max(1))
                }
            };
            // A fixed shuffle of the points from the seed.
            let mut order: Vec<usize> = (0..n).collect();
            let mut s = seed | 1;
            for i in (1..n).rev() {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                order.swap(i, (s % (i as u64 + 1)) as usize);
            }
            let mills = game.mills();
            let (mut us, mut them) = (0u32, 0u32);
            if shape & 2 != 0 {
                // Two mills meeting on one point, that point left empty.
                let a = mills[(s % mills.len() as u64) as usize];
                let b = *mills.iter().find(|&&m| (m & a).count_ones() == 1 && m != a)?;
                us = (a | b) & !(a & b);
                order.retain(|&i| (a & b) & (1 << i) == 0);
            }
            if shape & 1 != 0 {
                for k in 0..3 {
                    let m = mills[((s >> (8 * k)) % mills.len() as u64) as usize];
                    if m & us == 0 && them.count_ones() + 3 + them_hand as u32 <= stones as u32 {
                        them |= m;
                    }
                }
                if them == 0 {
                    return None;
                }
            }
            for &i in &order {
                let bit = 1u32 << i;
                if (us | them) & bit != 0 {
                    continue;
                }
                if us.count_ones() < u.min((stones - us_hand) as u32) {
                    us |= bit;
                } else if shape & 1 == 0 && them.count_ones() < t.min((stones - them_hand) as u32) {
                    them |= bit;
                }
            }
            let fits = |set: u32, hand: u8| {
                set.count_ones() + hand as u32 <= stones as u32 && set.count_ones() + hand as u32 >= 3
            };
            if !fits(us, us_hand) || !fits(them, them_hand) || (us | them).count_ones() as usize >= n {
                return None;
            }
            if us_hand == 0 && them_hand == 0 {
                return None; // the sliding phase is covered above
            }
            Some((which, RefPos { us, them, us_hand, them_hand }))
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Every position after a legal move, as the database's move generation
    /// gives it, is one the reference's move generation gives, and no other:
    /// placements, moves and flights with stones in hand (the Lasker rule),
    /// mills closed while placing, one removal for a double mill, removal
    /// from mills only when every opponent stone is in one.
    #[test]
    fn moves_with_stones_in_hand_agree_with_the_reference((which, p) in ref_position_in_hand()) {
        let pair = &PAIRS[which];
        let rules = &pair.rules;
        let side = if p.white_to_move() { Color::White } else { Color::Black };
        let setup = Setup::from_relative(pair.to_db(p.us), pair.to_db(p.them), side, p.us_hand, p.them_hand);
        let pos = setup.validate(rules).unwrap_or_else(|e| panic!("{e}"));
        let mut ours: Vec<(Bitboard, Bitboard, u8, u8)> = pos
            .legal_moves(rules)
            .into_iter()
            .map(|m| {
                let c = pos.play_unchecked(m);
                (c.us(), c.them(), c.us_in_hand(), c.them_in_hand())
            })
            .collect();
        let mut reference: Vec<(Bitboard, Bitboard, u8, u8)> = pair
            .game
            .children(p)
            .into_iter()
            .map(|c| (pair.to_db(c.us), pair.to_db(c.them), c.us_hand, c.them_hand))
            .collect();
        ours.sort_unstable();
        reference.sort_unstable();
        prop_assert_eq!(ours, reference, "{}: {}", rules.name(), pos.to_text(rules.board()));
    }
}

/// The positions [`ref_position_in_hand`] generates meet what the property
/// above is for, often: the Lasker rule with both placements and moves to
/// choose from, a double mill closed, a removal from a mill because every
/// opponent stone stands in one, both colours to move, every rule set.
#[test]
fn positions_with_stones_in_hand_cover_the_rules_about_mills() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = ref_position_in_hand();
    let (mut lasker_both, mut double, mut from_mills, mut black) = (0, 0, 0, 0);
    let mut rule_sets = HashSet::new();
    for _ in 0..2000 {
        let (which, p) = strategy.new_tree(&mut runner).unwrap().current();
        let pair = &PAIRS[which];
        let rules = &pair.rules;
        rule_sets.insert(rules.name().to_string());
        let side = if p.white_to_move() { Color::White } else { Color::Black };
        black += (side == Color::Black) as u32;
        let setup = Setup::from_relative(pair.to_db(p.us), pair.to_db(p.them), side, p.us_hand, p.them_hand);
        let pos = setup.validate(rules).unwrap_or_else(|e| panic!("{e}"));
        let moves = pos.legal_moves(rules);
        if rules.lasker() && moves.iter().any(|m| m.from.is_none()) && moves.iter().any(|m| m.from.is_some()) {
            lasker_both += 1;
        }
        let mills = rules.board().mills();
        let in_mills = |set: Bitboard| mills.iter().filter(|&&m| set & m == m).fold(0, |a, &m| a | m);
        let them = pos.them();
        let mut d = false;
        let mut f = false;
        for m in moves.iter().filter(|m| m.removal.is_some()) {
            let after = pos.play_unchecked(*m).them();
            d |= mills.iter().filter(|&&mill| mill & (1 << m.to) != 0 && after & mill == mill).count() >= 2;
            f |= them != 0 && in_mills(them) == them;
        }
        double += d as u32;
        from_mills += f as u32;
    }
    eprintln!(
        "2000 positions: {lasker_both} Lasker with placements and moves, {double} with a double mill to close, \
         {from_mills} with every opponent stone in a mill and a mill to close, {black} Black to move"
    );
    assert_eq!(rule_sets.len(), PAIRS.len(), "{rule_sets:?}");
    assert!(lasker_both >= 50 && double >= 100 && from_mills >= 100 && black >= 200);
}
