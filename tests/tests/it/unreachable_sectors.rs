//! Sectors that cannot occur (issue 14): a forward search from the start
//! position with the reference's own move code (`morris_tests::reference_game`,
//! which shares no code with `morris-db`) never reaches a position whose
//! side to move faces an opponent with no stone on the board, except the
//! start itself. That is the argument of `RuleSet::sector_occurs`: the
//! player who just moved keeps the stone it placed or moved. The test also
//! checks the other direction, which matters more to a user: every sector
//! the search does reach is one the solver solves (`placement_sectors` and
//! the sliding sectors), so skipping the others loses no position.

use morris_db::{Overrides, RuleSet, Sector};
use morris_solver::placement::placement_sectors;
use morris_tests::reference_game::RefGame;
use rustc_hash::FxHashSet as HashSet;

/// Every sector reached from the start by legal play, as `w-b-wh-bh` from
/// the side to move's point of view.
fn reached_sectors(game: &RefGame) -> (HashSet<Sector>, usize) {
    let seen = game.reachable();
    let sectors = seen
        .iter()
        .map(|p| Sector { w: p.us.count_ones() as u8, b: p.them.count_ones() as u8, wh: p.us_hand, bh: p.them_hand })
        .collect();
    (sectors, seen.len())
}

fn check(rules: RuleSet, game: RefGame) {
    let (reached, positions) = reached_sectors(&game);
    let n = rules.stones();
    let start = Sector { w: 0, b: 0, wh: n, bh: n };
    assert!(reached.contains(&start), "{}: the start is reached", rules.name());
    for s in &reached {
        assert!(s.b > 0 || *s == start, "{}: sector {s} reached with an empty opponent", rules.name());
        assert!(rules.sector_occurs(*s), "{}: sector {s} is reached but said not to occur", rules.name());
    }
    // Every reached sector where the game is not over is solved.
    let solved: HashSet<Sector> = placement_sectors(&rules).into_iter().collect();
    for s in &reached {
        let over = s.w + s.wh < 3 || s.b + s.bh < 3;
        if s.wh + s.bh > 0 && !over && !rules.line_wins() {
            assert!(solved.contains(s), "{}: reached sector {s} is not solved", rules.name());
        }
    }
    // And the solver skips some sectors, all of them unreached.
    let skipped = all_placement_sectors(&rules).filter(|s| !solved.contains(s)).count();
    eprintln!("{}: {positions} positions reached, {} sectors, {skipped} skipped", rules.name(), reached.len());
}

/// Every placement sector by counts alone (the list before skipping).
fn all_placement_sectors(rules: &RuleSet) -> impl Iterator<Item = Sector> + '_ {
    let n = rules.stones();
    let points = rules.board().len() as u8;
    (0..=n).flat_map(move |wh| {
        (0..=n).flat_map(move |bh| {
            (0..=n - wh).flat_map(move |w| {
                (0..=n - bh).map(move |b| Sector { w, b, wh, bh }).filter(move |s| {
                    let hands_fit = rules.lasker() || s.wh == s.bh || s.wh == s.bh + 1;
                    s.wh + s.bh > 0 && hands_fit && s.w + s.wh >= 3 && s.b + s.bh >= 3 && s.w + s.b <= points
                })
            })
        })
    })
}

fn custom(preset: &str, stones: u8, lasker: bool) -> RuleSet {
    RuleSet::custom(preset, &Overrides { stones: Some(stones), lasker: Some(lasker), ..Default::default() })
        .expect("custom rule set")
}

#[test]
fn three_mens_morris_never_reaches_an_empty_opponent() {
    check(RuleSet::preset("three").unwrap(), RefGame::three(true));
    check(RuleSet::preset("three-nodiagonal").unwrap(), RefGame::three(false));
}

#[test]
fn the_sixteen_point_board_never_reaches_an_empty_opponent() {
    check(custom("six", 4, false), RefGame::sixteen(4, false));
    check(custom("six-flying", 4, false), RefGame::sixteen(4, true));
}

#[test]
fn the_lasker_rule_never_reaches_an_empty_opponent() {
    check(custom("six", 3, true), RefGame::sixteen(3, false).with_lasker());
    check(custom("six-flying", 3, true), RefGame::sixteen(3, true).with_lasker());
}

/// The nine-stone count of the issue: 48 of the 497 placement sectors by
/// counts have an empty opponent after a move, the same 48 that Malom's
/// standard database leaves out (449 placement sectors, docs/malom.md).
#[test]
fn nine_skips_the_48_sectors_malom_leaves_out() {
    let rules = RuleSet::preset("nine").unwrap();
    let all: Vec<Sector> = all_placement_sectors(&rules).collect();
    assert_eq!(all.len(), 497);
    assert_eq!(placement_sectors(&rules).len(), 449);
}
