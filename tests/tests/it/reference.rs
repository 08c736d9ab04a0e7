//! The reference solver (`morris_tests::solve_nine_small`) against the
//! published figures of docs/testing.md, "The oracle", and against its own
//! Bellman equations.
//!
//! The published counts are of canonical positions under the 16 symmetries
//! of the board; the symmetries are built here from the point names alone
//! (the 8 symmetries of the square times the exchange of the inner and outer
//! rings), independently of `morris-db`.
//!
//! The real solver (`morris-solver`, probed through `morris-probe`) agrees
//! with the independent reference solver (`morris_tests::solve_nine_small`)
//! on every position of the sliding sectors 3-3, 3-4 and 4-3 of rule sets
//! `nine`, `nine-noflying`, `nine-diagonal` and `nine-diagonal-noflying`:
//! win, loss or draw, and the DTM of every win and loss.
//!
//! Positions are carried from the reference's bit order to the database's
//! by point names. The side to move is White or Black, alternating
//! pseudo-randomly, so both colours are probed.

use std::time::Instant;

use std::sync::OnceLock;

use morris_db::{Color, RuleSet, Setup};
use morris_probe::Database;
use morris_solver::{solve_sliding, SolveOptions};
use morris_tests::{assert_no_mismatches, ref_children_in, solve_small, Game, RefValue, REF_POINTS};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// The reference solution of `nine`, `nine-noflying` or `nine-diagonal`
/// ([`Game`]), computed once per game for all tests of this file.
fn reference(game: Game) -> &'static FxHashMap<(u32, u32), RefValue> {
    static CELLS: [OnceLock<FxHashMap<(u32, u32), RefValue>>; 4] = [const { OnceLock::new() }; 4];
    CELLS[game.flying as usize | (game.diagonals as usize) << 1].get_or_init(|| {
        let start = Instant::now();
        let map = solve_small(game);
        eprintln!("solve_small({game:?}): {:.1} s", start.elapsed().as_secs_f64());
        map
    })
}

fn set(names: &str) -> u32 {
    names
        .split_whitespace()
        .map(|n| 1u32 << REF_POINTS.iter().position(|&p| p == n).expect("point"))
        .fold(0, |a, b| a | b)
}

/// The 16 symmetries as permutations of REF_POINTS indices.
fn symmetries() -> Vec<[usize; 24]> {
    let coord = |name: &str| {
        let b = name.as_bytes();
        (b[0] as i32 - b'a' as i32 - 3, b[1] as i32 - b'1' as i32 - 3)
    };
    let index = |x: i32, y: i32| REF_POINTS.iter().position(|&n| coord(n) == (x, y)).expect("image is a point");
    let mut out = Vec::new();
    for swap in [false, true] {
        for t in 0..8 {
            let mut perm = [0; 24];
            for (i, name) in REF_POINTS.iter().enumerate() {
                let (mut x, mut y) = coord(name);
                if swap {
                    // Ring 3 (outer) <-> ring 1 (inner); ring 2 stays.
                    match x.abs().max(y.abs()) {
                        3 => (x, y) = (x / 3, y / 3),
                        1 => (x, y) = (x * 3, y * 3),
                        _ => {}
                    }
                }
                if t & 1 != 0 {
                    x = -x;
                }
                if t & 2 != 0 {
                    y = -y;
                }
                if t & 4 != 0 {
                    (x, y) = (y, x);
                }
                perm[i] = index(x, y);
            }
            out.push(perm);
        }
    }
    out
}

/// The image of the set `s` under `perm`, one stone at a time.
fn apply(perm: &[usize; 24], s: u32) -> u32 {
    let (mut rest, mut image) = (s, 0);
    while rest != 0 {
        image |= 1 << perm[rest.trailing_zeros() as usize];
        rest &= rest - 1;
    }
    image
}

#[derive(Default, Debug, Clone, Copy, PartialEq)]
struct Counts {
    wins: u64,
    losses: u64,
    draws: u64,
    longest_win: u16,
    longest_loss: u16,
}

impl Counts {
    fn add(&mut self, v: RefValue) {
        match v {
            RefValue::Win(n) => {
                self.wins += 1;
                self.longest_win = self.longest_win.max(n);
            }
            RefValue::Loss(n) => {
                self.losses += 1;
                self.longest_loss = self.longest_loss.max(n);
            }
            RefValue::Draw => self.draws += 1,
        }
    }
}

/// A pseudo-random number in 0..64 for sampling positions.
fn sample(key: (u32, u32)) -> u64 {
    ((key.0 as u64) << 32 | key.1 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58
}

fn sector(key: (u32, u32)) -> (u32, u32) {
    (key.0.count_ones(), key.1.count_ones())
}

/// Checks the Bellman equations at one position; `None` if they hold.
fn bellman_error(game: Game, map: &FxHashMap<(u32, u32), RefValue>, key: (u32, u32)) -> Option<String> {
    let v = map[&key];
    let children: Vec<RefValue> =
        ref_children_in(game, key.0, key.1).into_iter().map(|c| c.map_or(RefValue::Loss(0), |k| map[&k])).collect();
    let min_loss = children
        .iter()
        .filter_map(|c| match c {
            RefValue::Loss(n) => Some(*n),
            _ => None,
        })
        .min();
    let all_wins = children.iter().all(|c| matches!(c, RefValue::Win(_)));
    let max_win = children
        .iter()
        .filter_map(|c| match c {
            RefValue::Win(n) => Some(*n),
            _ => None,
        })
        .max();
    let expected = if let Some(m) = min_loss {
        RefValue::Win(m + 1)
    } else if children.is_empty() {
        RefValue::Loss(0)
    } else if all_wins {
        RefValue::Loss(max_win.unwrap() + 1)
    } else {
        RefValue::Draw
    };
    (v != expected).then(|| format!("{key:?}: {v:?}, children say {expected:?}"))
}

/// The reference's values satisfy its own Bellman equations (with or
/// without flying): at every 3-3 position; in 3-4 and 4-3 at one decided
/// position in 4 and one drawn position in 64.
fn check_bellman(game: Game, map: &FxHashMap<(u32, u32), RefValue>) {
    let t = Instant::now();
    let errors: Vec<String> = map
        .par_iter()
        .filter(|&(&key, &v)| match (sector(key), v) {
            ((3, 3), _) => true,
            (_, RefValue::Draw) => sample(key) == 0,
            _ => sample(key) < 16,
        })
        .filter_map(|(&key, _)| bellman_error(game, map, key))
        .collect();
    assert!(errors.is_empty(), "{} errors, e.g. {:?}", errors.len(), &errors[..errors.len().min(5)]);
    eprintln!("Bellman check: {:.1} s", t.elapsed().as_secs_f64());
}

/// The sectors of the reference, in the order of [`counts`].
const SECTORS: [(u32, u32); 3] = [(3, 3), (3, 4), (4, 3)];

/// Counts of the reference's values per sector of [`SECTORS`]: over all
/// positions, and over canonical ones (the least of its orbit under the
/// symmetries `syms`).
fn counts(map: &FxHashMap<(u32, u32), RefValue>, syms: &[[usize; 24]]) -> ([Counts; 3], [Counts; 3]) {
    let t = Instant::now();
    let sectors = SECTORS;
    let (all, canonical) = map
        .par_iter()
        .fold(
            || ([Counts::default(); 3], [Counts::default(); 3]),
            |(mut all, mut canon), (&key, &v)| {
                let s = sectors.iter().position(|&s| s == sector(key)).expect("sector");
                all[s].add(v);
                let is_canonical = syms[1..].iter().all(|p| key <= (apply(p, key.0), apply(p, key.1)));
                if is_canonical {
                    canon[s].add(v);
                }
                (all, canon)
            },
        )
        .reduce(
            || ([Counts::default(); 3], [Counts::default(); 3]),
            |(mut a1, mut c1), (a2, c2)| {
                for s in 0..3 {
                    for (x, y) in [(&mut a1[s], a2[s]), (&mut c1[s], c2[s])] {
                        x.wins += y.wins;
                        x.losses += y.losses;
                        x.draws += y.draws;
                        x.longest_win = x.longest_win.max(y.longest_win);
                        x.longest_loss = x.longest_loss.max(y.longest_loss);
                    }
                }
                (a1, c1)
            },
        );
    eprintln!("counting: {:.1} s", t.elapsed().as_secs_f64());
    (all, canonical)
}

#[test]
fn reference_matches_published_figures() {
    let map = reference(Game::NINE);

    // Every position of the three sectors, and nothing else.
    let c = |n: u64, k: u64| (0..k).fold(1u64, |a, i| a * (n - i) / (i + 1));
    let total = c(24, 3) * c(21, 3) + 2 * c(24, 3) * c(21, 4);
    assert_eq!(map.len() as u64, total);

    // Counts over all positions, and over canonical ones.
    let syms = symmetries();
    assert_eq!(syms[0], std::array::from_fn(|i| i), "first symmetry is the identity");
    let (all, canonical) = counts(map, &syms);
    for s in 0..3 {
        eprintln!("{:?} all:       {:?}", SECTORS[s], all[s]);
        eprintln!("{:?} canonical: {:?}", SECTORS[s], canonical[s]);
    }
    let published =
        |wins, losses, draws, longest_win, longest_loss| Counts { wins, losses, draws, longest_win, longest_loss };
    assert_eq!(canonical[0], published(140_621, 28_736, 269, 25, 26), "3-3");
    assert_eq!(canonical[1], published(102_281, 0, 658_117, 33, 0), "3-4");
    assert_eq!(canonical[2], published(75_397, 3_095, 681_906, 1, 32), "4-3");

    // Values are invariant under the symmetries (checked on the generators,
    // at one position in 8).
    let t = Instant::now();
    let gens = [&syms[1], &syms[4], &syms[8]];
    let asymmetric = map
        .par_iter()
        .filter(|&(&key, _)| sample(key) < 8)
        .filter(|&(&key, &v)| gens.iter().any(|p| map[&(apply(p, key.0), apply(p, key.1))] != v))
        .count();
    assert_eq!(asymmetric, 0, "positions whose value differs from a symmetric one");
    eprintln!("symmetry check: {:.1} s", t.elapsed().as_secs_f64());

    // The drawn 3-3 positions published by Malom's authors (White to move).
    for (white, black) in [("a4 a1 d3", "a7 d1 c4"), ("a1 d3 c3", "d1 c4 e3"), ("a4 a1 b2", "a7 d1 b4")] {
        assert_eq!(map[&(set(white), set(black))], RefValue::Draw, "W:{white} B:{black}");
    }

    // The Bellman equations hold: at every 3-3 position; in 3-4 and 4-3 at
    // one decided position in 4 and one drawn position in 64.
    check_bellman(Game::NINE, map);
}

fn names(set: u32) -> String {
    (0..24).filter(|&i| set & (1 << i) != 0).map(|i| REF_POINTS[i]).collect::<Vec<_>>().join(",")
}

#[test]
fn real_solver_agrees_with_reference() {
    real_solver_agrees("nine", Game::NINE);
}

#[test]
fn real_solver_agrees_with_reference_without_flying() {
    real_solver_agrees("nine-noflying", Game::NOFLYING);
}

/// The real solver of preset `preset` against the reference of `game`,
/// on every position of 3-3, 3-4 and 4-3.
fn real_solver_agrees(preset: &str, game: Game) {
    let rules = RuleSet::preset(preset).expect("preset");
    let dir = tempfile::tempdir().expect("temp dir");

    let start = Instant::now();
    #[allow(clippy::needless_update)]
    let options = SolveOptions { max_stones: 7, progress: false, ..Default::default() };
    solve_sliding(&rules, dir.path(), &options).expect("real solver");
    eprintln!("real solver: {:.1} s", start.elapsed().as_secs_f64());

    let reference = reference(game);

    // Reference bit i is the database point named REF_POINTS[i].
    let to_db: Vec<u32> = REF_POINTS
        .iter()
        .map(|&name| 1u32 << rules.board().point(name).unwrap_or_else(|| panic!("point {name}")))
        .collect();
    let convert = |set: u32| (0..24).filter(|&i| set & (1 << i) != 0).fold(0, |a, i| a | to_db[i]);

    let db = Database::open(dir.path(), rules.clone()).expect("open database");
    let start = Instant::now();
    // One prober per thread: 27 M probes, each faster than through
    // `Database::value` (no shared map, no clock).
    let mismatches: Vec<String> = reference
        .par_iter()
        .map_init(
            || db.prober(),
            |prober, (&(us, them), &expected)| {
                let (us_db, them_db) = (convert(us), convert(them));
                let black = ((us as u64) << 32 | them as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 63 == 1;
                let (side, (white, black_set)) =
                    if black { (Color::Black, (them_db, us_db)) } else { (Color::White, (us_db, them_db)) };
                let setup = Setup { white, black: black_set, side_to_move: side, white_in_hand: 0, black_in_hand: 0 };
                let pos = setup.validate(db.rules()).expect("a sliding position of the reference");
                let got = prober.value(&pos);
                let agrees = crate::common::agrees(expected, &got);
                (!agrees).then(|| {
                    let (w, b) = if black { (them, us) } else { (us, them) };
                    let side = if black { 'b' } else { 'w' };
                    format!("W:{} B:{} {side}: reference {expected:?}, solver {got:?}", names(w), names(b))
                })
            },
        )
        .flatten()
        .collect();
    eprintln!("compared {} positions in {:.1} s", reference.len(), start.elapsed().as_secs_f64());
    assert_no_mismatches(mismatches, &format!("{} positions", reference.len()), 10);
    assert_eq!(reference.len(), 26_919_200);
}

/// Issue 14: the committed counts of `nine-noflying`'s smallest sectors
/// (`results/nine-noflying-sliding.csv`, `morris stats` of the solved
/// tables) are those of the reference without flying, which shares no code
/// with the solver: canonical wins, losses, draws and longest DTMs of 3-3,
/// 3-4 and 4-3. Also the reference's own Bellman equations, as for `nine`.
#[test]
fn reference_without_flying_matches_the_committed_results() {
    reference_matches_committed(Game::NOFLYING, "nine-noflying-sliding.csv");
}

/// Issue 14: the same for the board with diagonals
/// (`results/nine-diagonal-sliding.csv`).
#[test]
fn reference_on_the_diagonal_board_matches_the_committed_results() {
    reference_matches_committed(Game::DIAGONAL, "nine-diagonal-sliding.csv");
}

#[test]
fn real_solver_agrees_with_reference_on_the_diagonal_board() {
    real_solver_agrees("nine-diagonal", Game::DIAGONAL);
}

/// Issue 14: the same for the board with diagonals without flying
/// (`results/nine-diagonal-noflying-sliding.csv`).
#[test]
fn reference_on_the_diagonal_board_without_flying_matches_the_committed_results() {
    reference_matches_committed(Game::DIAGONAL_NOFLYING, "nine-diagonal-noflying-sliding.csv");
}

#[test]
fn real_solver_agrees_with_reference_on_the_diagonal_board_without_flying() {
    real_solver_agrees("nine-diagonal-noflying", Game::DIAGONAL_NOFLYING);
}

/// The rows 3-3, 3-4 and 4-3 of `results/<file>` against the reference of
/// `game`, counted by canonical position; then the reference's Bellman
/// equations.
fn reference_matches_committed(game: Game, file: &str) {
    let map = reference(game);
    let c = |n: u64, k: u64| (0..k).fold(1u64, |a, i| a * (n - i) / (i + 1));
    assert_eq!(map.len() as u64, c(24, 3) * c(21, 3) + 2 * c(24, 3) * c(21, 4));
    let (_, canonical) = counts(map, &symmetries());
    let path = format!("{}/../results/{file}", env!("CARGO_MANIFEST_DIR"));
    let csv = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |name: &str| header.iter().position(|&h| h == name).unwrap_or_else(|| panic!("column {name}"));
    for (i, (w, b)) in SECTORS.iter().enumerate() {
        let name = format!("{w}-{b}");
        let row: Vec<&str> = lines
            .clone()
            .map(|l| l.split(',').collect::<Vec<_>>())
            .find(|f| f[col("sector")] == name)
            .unwrap_or_else(|| panic!("row {name}"));
        let num = |c: &str| row[col(c)].parse::<u64>().unwrap_or(0);
        let committed = Counts {
            wins: num("wins"),
            losses: num("losses"),
            draws: num("draws"),
            longest_win: num("max_win") as u16,
            longest_loss: num("max_loss") as u16,
        };
        assert_eq!(canonical[i], committed, "{name}");
        let r = canonical[i];
        assert_eq!(num("positions"), r.wins + r.losses + r.draws, "{name}");
    }
    check_bellman(game, map);
}
