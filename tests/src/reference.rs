//! A deliberately simple reference solver for the small sliding sectors of
//! rule set `nine`, of `nine-noflying` (the same game without flying), of
//! `nine-diagonal` (the board with four diagonal lines) and of
//! `nine-diagonal-noflying` (that board without flying; [`Game`]),
//! written from docs/rules.md alone (it shares no code with
//! `morris-db`): no symmetry, every position of the board explicit (one
//! byte each in an array, found by ranking each side's set among the sets
//! of its size), values from a ply-by-ply fixpoint of the Bellman
//! equations.
//!
//! At ply `k` an unresolved position becomes `Win(k)` if some child is
//! `Loss(k-1)`, and `Loss(k)` if every child is a win. Only positions that
//! may have changed are re-evaluated: the predecessors of the positions
//! resolved at ply `k-1` (found by un-moves, and by un-captures for the
//! captures from 3-4 into 3-3); each is re-evaluated by forward move
//! generation and lookups, so the values never come from counters.
//!
//! Covers the 26,919,200 positions of 3-3, 3-4 and 4-3 (47 M cells with the
//! ones whose sets overlap, never read).

use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Reference value for the side to move, DTM in plies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefValue {
    /// The side to move wins in this many plies (odd; even in misère play).
    Win(u16),
    /// The side to move loses in this many plies (even; odd in misère play).
    Loss(u16),
    /// Neither side can force a win.
    Draw,
}

/// The 24 point names in the reference's own bit order (bit `i` is `REF_POINTS[i]`).
pub const REF_POINTS: [&str; 24] = [
    "a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3", "d5", "d6", "d7", "e3", "e4", "e5", "f2",
    "f4", "f6", "g1", "g4", "g7",
];

/// The 16 mills of the 24-point board (docs/rules.md), each a line of three
/// points in order: the middle point is adjacent to both ends, and these
/// 32 pairs are all the lines of the board.
const MILLS: [[&str; 3]; 16] = [
    ["a7", "d7", "g7"],
    ["b6", "d6", "f6"],
    ["c5", "d5", "e5"],
    ["a4", "b4", "c4"],
    ["e4", "f4", "g4"],
    ["c3", "d3", "e3"],
    ["b2", "d2", "f2"],
    ["a1", "d1", "g1"],
    ["a7", "a4", "a1"],
    ["b6", "b4", "b2"],
    ["c5", "c4", "c3"],
    ["d7", "d6", "d5"],
    ["d3", "d2", "d1"],
    ["e5", "e4", "e3"],
    ["f6", "f4", "f2"],
    ["g7", "g4", "g1"],
];

/// The four diagonal lines of the board with diagonals (docs/rules.md: they
/// join the corners of the three squares).
const DIAGONALS: [[&str; 3]; 4] = [["a7", "b6", "c5"], ["g7", "f6", "e5"], ["a1", "b2", "c3"], ["g1", "f2", "e3"]];

/// Which game of the 24-point board with 9 stones a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Game {
    /// A player with exactly 3 stones flies (`nine`); else slides like
    /// everyone else (`nine-noflying`).
    pub flying: bool,
    /// The board has the four diagonal lines (`nine-diagonal`).
    pub diagonals: bool,
}

impl Game {
    /// `nine`.
    pub const NINE: Game = Game { flying: true, diagonals: false };
    /// `nine-noflying`.
    pub const NOFLYING: Game = Game { flying: false, diagonals: false };
    /// `nine-diagonal`.
    pub const DIAGONAL: Game = Game { flying: true, diagonals: true };
    /// `nine-diagonal-noflying`.
    pub const DIAGONAL_NOFLYING: Game = Game { flying: false, diagonals: true };
}

const ALL: u32 = (1 << 24) - 1;

type Key = (u32, u32);

/// `C(n, k)` for the 24 points and sets of up to 4.
const fn choose(n: u32, k: u32) -> u32 {
    if k > n {
        return 0;
    }
    let mut r = 1u64;
    let mut i = 0;
    while i < k {
        r = r * (n - i) as u64 / (i + 1) as u64;
        i += 1;
    }
    r as u32
}

/// The values of the positions of 3-3, 3-4 and 4-3, one byte each: the DTM
/// (odd for a win, even for a loss, as [`RefValue`] says) or [`Map::DRAW`],
/// which also means "not resolved yet" while a system is solved. A
/// position's cell: its sector's base, plus the rank of the mover's set
/// among the sets of its size times the number of the opponent's sets,
/// plus the rank of the opponent's set. Ranks count the smaller sets
/// first: the sum of `C(p, i + 1)` over the set's points `p`, the `i`-th
/// lowest at `i`. Cells of overlapping sets are never read.
struct Map {
    cells: Vec<u8>,
}

impl Map {
    const DRAW: u8 = u8::MAX;
    const THREES: u32 = choose(24, 3);
    const FOURS: u32 = choose(24, 4);

    fn new() -> Map {
        let len = Self::THREES * Self::THREES + 2 * Self::THREES * Self::FOURS;
        Map { cells: vec![Self::DRAW; len as usize] }
    }

    /// `C(p, i)` for points `p < 24` and `i <= 4`, computed at compile time.
    const BINOMIAL: [[u32; 5]; 24] = {
        let mut table = [[0; 5]; 24];
        let mut p = 0;
        while p < 24 {
            let mut i = 0;
            while i < 5 {
                table[p][i] = choose(p as u32, i as u32);
                i += 1;
            }
            p += 1;
        }
        table
    };

    fn rank(set: u32) -> u32 {
        let mut rest = set;
        let mut rank = 0;
        let mut i = 1;
        while rest != 0 {
            rank += Self::BINOMIAL[rest.trailing_zeros() as usize][i];
            rest &= rest - 1;
            i += 1;
        }
        rank
    }

    fn cell(&(us, them): &Key) -> usize {
        let base = match (us.count_ones(), them.count_ones()) {
            (3, 3) => 0,
            (3, 4) => Self::THREES * Self::THREES,
            (4, 3) => Self::THREES * Self::THREES + Self::THREES * Self::FOURS,
            sizes => panic!("reference: no cell for a position of sizes {sizes:?}"),
        };
        let opponents = if them.count_ones() == 3 { Self::THREES } else { Self::FOURS };
        (base + Self::rank(us) * opponents + Self::rank(them)) as usize
    }

    fn get(&self, key: &Key) -> RefValue {
        match self.cells[Self::cell(key)] {
            Self::DRAW => RefValue::Draw,
            n if n % 2 == 1 => RefValue::Win(n as u16),
            n => RefValue::Loss(n as u16),
        }
    }

    fn set(&mut self, key: Key, v: RefValue) {
        let byte = match v {
            RefValue::Draw => Self::DRAW,
            RefValue::Win(n) | RefValue::Loss(n) => {
                let byte = u8::try_from(n).ok().filter(|&b| b != Self::DRAW).expect("reference: DTM beyond 254");
                assert_eq!(byte % 2 == 1, matches!(v, RefValue::Win(_)), "reference: {v:?} of the wrong parity");
                byte
            }
        };
        self.cells[Self::cell(&key)] = byte;
    }
}

struct Board {
    /// Bitmask of each mill.
    mills: Vec<u32>,
    /// The mills through each point.
    mills_at: [Vec<u32>; 24],
    /// Points adjacent to each point.
    adj: [u32; 24],
    /// Whether a player with exactly 3 stones flies (`nine`), or slides
    /// like everyone else (`nine-noflying`).
    flying: bool,
}

fn bit(name: &str) -> u32 {
    let i = REF_POINTS.iter().position(|&p| p == name).expect("point name");
    1 << i
}

fn board(game: Game) -> &'static Board {
    static BOARDS: [std::sync::OnceLock<Board>; 4] = [const { std::sync::OnceLock::new() }; 4];
    BOARDS[game.flying as usize | (game.diagonals as usize) << 1].get_or_init(|| make_board(game))
}

fn make_board(game: Game) -> Board {
    let mut adj = [0u32; 24];
    let mut mills = Vec::new();
    let mut mills_at: [Vec<u32>; 24] = Default::default();
    let diagonals: &[[&str; 3]] = if game.diagonals { &DIAGONALS } else { &[] };
    for &[a, b, c] in MILLS.iter().chain(diagonals) {
        let (a, b, c) = (bit(a), bit(b), bit(c));
        mills.push(a | b | c);
        for p in [a, b, c] {
            mills_at[p.trailing_zeros() as usize].push(a | b | c);
        }
        for (x, y) in [(a, b), (b, c)] {
            adj[x.trailing_zeros() as usize] |= y;
            adj[y.trailing_zeros() as usize] |= x;
        }
    }
    Board { mills, mills_at, adj, flying: game.flying }
}

/// Iterates over the set bits of a mask as point indices.
fn points(mut set: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let p = set.trailing_zeros() as usize;
            set &= set - 1;
            p
        })
    })
}

impl Board {
    /// Does `set` have a mill through point `p`?
    fn mill_at(&self, set: u32, p: usize) -> bool {
        self.mills_at[p].iter().copied().any(|m| set & m == m)
    }

    /// The stones of `set` that may be removed: those in no mill, or all of
    /// them if every stone is in a mill.
    fn removable(&self, set: u32) -> u32 {
        let in_mills = self.mills.iter().filter(|&&m| set & m == m).fold(0, |a, &m| a | m);
        let free = set & !in_mills;
        if free == 0 {
            set
        } else {
            free
        }
    }

    /// Calls `f` for each child of the position (`me` to move, `opp`), in
    /// the sliding phase: `None` for a capture leaving `opp` with 2 stones
    /// (a lost position for the opponent, `Loss(0)`), else the child's key
    /// (opponent to move). Stops as soon as `f` returns false.
    fn for_each_child(&self, me: u32, opp: u32, mut f: impl FnMut(Option<Key>) -> bool) {
        let empty = ALL & !(me | opp);
        let flying = self.flying && me.count_ones() == 3;
        let removable = self.removable(opp);
        for from in points(me) {
            let dests = if flying { empty } else { self.adj[from] & empty };
            for to in points(dests) {
                let me2 = (me & !(1 << from)) | (1 << to);
                if self.mill_at(me2, to) {
                    for r in points(removable) {
                        let opp2 = opp & !(1 << r);
                        let child = (opp2.count_ones() >= 3).then_some((opp2, me2));
                        if !f(child) {
                            return;
                        }
                    }
                } else if !f(Some((opp, me2))) {
                    return;
                }
            }
        }
    }

    /// Positions (keys) from which a move without capture leads to `key`:
    /// the previous mover (`key.1`) moves one stone back from `to` to an
    /// empty point `from` (adjacent, or any if it has 3 stones), provided
    /// the forward move `from`-`to` closed no mill.
    fn unmoves(&self, key: Key, out: &mut Vec<Key>) {
        let (stm, prev) = key;
        let empty = ALL & !(stm | prev);
        let flying = self.flying && prev.count_ones() == 3;
        for to in points(prev) {
            if self.mill_at(prev, to) {
                continue;
            }
            let froms = if flying { empty } else { self.adj[to] & empty };
            for from in points(froms) {
                out.push(((prev & !(1 << to)) | (1 << from), stm));
            }
        }
    }

    /// 3-4 positions from which a capture leads to the 3-3 position `key`:
    /// the previous mover (3 stones: flying, or sliding without flying)
    /// moved a stone back from a point of a mill it now has, and a stone of
    /// the side to move is put back on an empty point. A superset is
    /// harmless (re-evaluation is by forward generation).
    fn uncaptures(&self, key: Key, out: &mut Vec<Key>) {
        let (stm, prev) = key;
        let empty = ALL & !(stm | prev);
        for to in points(prev) {
            if !self.mill_at(prev, to) {
                continue;
            }
            let froms = if self.flying { empty } else { self.adj[to] & empty };
            for from in points(froms) {
                let prev2 = (prev & !(1 << to)) | (1 << from);
                for r in points(empty & !(1 << from)) {
                    out.push((prev2, stm | (1 << r)));
                }
            }
        }
    }
}

fn value(map: &Map, child: Option<Key>) -> RefValue {
    match child {
        None => RefValue::Loss(0),
        Some(key) => map.get(&key),
    }
}

/// Re-evaluates an unresolved position at ply `k` (k >= 1).
fn evaluate(b: &Board, map: &Map, key: Key, k: u16) -> Option<RefValue> {
    if map.get(&key) != RefValue::Draw {
        return None;
    }
    if k % 2 == 1 {
        let mut win = false;
        b.for_each_child(key.0, key.1, |c| {
            win = value(map, c) == RefValue::Loss(k - 1);
            !win
        });
        win.then_some(RefValue::Win(k))
    } else {
        let (mut all_wins, mut longest) = (true, 0);
        b.for_each_child(key.0, key.1, |c| match value(map, c) {
            RefValue::Win(n) => {
                longest = longest.max(n);
                true
            }
            _ => {
                all_wins = false;
                false
            }
        });
        // Every position has a move here (blocked ones were resolved at ply
        // 0), and a position whose children all became wins before ply k-1
        // would have been resolved earlier. A child outside the system (a
        // capture into 3-3) may be a longer win than k-1: then the position
        // is `Loss(longest + 1)`, resolved at that ply, when the un-captures
        // of that child make it dirty again (this happens without flying).
        if !all_wins || longest + 1 > k {
            return None;
        }
        assert_eq!(longest + 1, k, "reference: inconsistent ply at {key:?}");
        Some(RefValue::Loss(k))
    }
}

/// All sets of `n` points.
fn sets(n: u32) -> Vec<u32> {
    (0..=ALL).filter(|s| s.count_ones() == n).collect()
}

/// Solves a closed system of positions (all present in `map` as `Draw`,
/// meaning unresolved). Its children outside the system must already be
/// solved in `map`; `external(k)` gives the positions of the system with
/// such a child resolved at ply `k-1` (DTM `k-1`), up to ply `last_external`.
fn solve_system(b: &Board, map: &mut Map, system: &[Key], external: impl Fn(u16) -> Vec<Key>, last_external: u16) {
    // Ply 0: blocked positions are lost; positions with a capture leaving
    // the opponent 2 stones are the first candidates for ply 1.
    let first: Vec<(Key, bool, bool)> = system
        .par_iter()
        .map(|&key| {
            let (mut any, mut terminal) = (false, false);
            b.for_each_child(key.0, key.1, |c| {
                any = true;
                terminal = c.is_none();
                !terminal
            });
            (key, !any, terminal)
        })
        .filter(|&(_, blocked, terminal)| blocked || terminal)
        .collect();
    let mut resolved: Vec<Key> = Vec::new();
    let mut dirty: Vec<Key> = Vec::new();
    for (key, blocked, _) in first {
        if blocked {
            map.set(key, RefValue::Loss(0));
            resolved.push(key);
        } else {
            dirty.push(key);
        }
    }
    let mut k: u16 = 1;
    while !resolved.is_empty() || k <= last_external + 1 {
        let preds: Vec<Key> = resolved
            .par_chunks(4096)
            .flat_map_iter(|chunk| {
                let mut out = Vec::new();
                for &key in chunk {
                    b.unmoves(key, &mut out);
                }
                out
            })
            .collect();
        dirty.extend(preds);
        dirty.extend(external(k));
        dirty.par_sort_unstable_by_key(|&(x, y)| (x as u64) << 32 | y as u64);
        dirty.dedup();
        let map_ref: &Map = map;
        let new: Vec<(Key, RefValue)> =
            dirty.par_iter().filter_map(|&key| evaluate(b, map_ref, key, k).map(|v| (key, v))).collect();
        resolved = new.iter().map(|&(key, _)| key).collect();
        for (key, v) in new {
            map.set(key, v);
        }
        dirty = Vec::new();
        k += 1;
    }
}

fn dtm(v: RefValue) -> Option<u16> {
    match v {
        RefValue::Win(n) | RefValue::Loss(n) => Some(n),
        RefValue::Draw => None,
    }
}

/// Solves rule set `nine` (flying with exactly 3 stones, a mill removes one
/// opponent stone not in a mill unless all are in mills, one removal even
/// for a double mill, a blocked player loses, a player reduced to 2 stones
/// loses) in the sliding phase (no stones in hand) for every position where
/// each side has 3 or 4 stones, EXCEPT positions with 4 vs 4,
/// i.e. sectors 3-3, 3-4 and 4-3 (side to move's stones - opponent's stones).
/// Keys: (side to move's stones, opponent's stones) as bitmasks over REF_POINTS.
pub fn solve_nine_small() -> FxHashMap<(u32, u32), RefValue> {
    solve_small(Game::NINE)
}

/// As [`solve_nine_small`], for any [`Game`]: `nine-noflying` (a player
/// with 3 stones slides to adjacent points only), `nine-diagonal` (four
/// more lines, hence more mills and adjacencies).
pub fn solve_small(game: Game) -> FxHashMap<(u32, u32), RefValue> {
    let b = board(game);
    let (threes, fours) = (sets(3), sets(4));
    let pairs = |xs: &[u32], ys: &[u32]| -> Vec<Key> {
        xs.par_iter().flat_map_iter(|&x| ys.iter().filter(move |&&y| x & y == 0).map(move |&y| (x, y))).collect()
    };
    let s33 = pairs(&threes, &threes);
    let mut s34_43 = pairs(&threes, &fours);
    s34_43.extend(pairs(&fours, &threes));

    let mut map = Map::new();

    // 3-3: captures win at once, so the sector is closed.
    solve_system(b, &mut map, &s33, |_| Vec::new(), 0);

    // 3-4 and 4-3 together; captures from 3-4 lead into 3-3, whose
    // positions reached by a capture are those where the previous mover
    // (3 stones) stands in a mill.
    let mill_33: Vec<(Key, u16)> = s33
        .iter()
        .filter(|&&(_, prev)| b.mills.contains(&prev))
        .filter_map(|&key| dtm(map.get(&key)).map(|d| (key, d)))
        .collect();
    let last = mill_33.iter().map(|&(_, d)| d).max().unwrap_or(0);
    let external = |k: u16| {
        let mut out = Vec::new();
        for &(key, d) in &mill_33 {
            if d + 1 == k {
                b.uncaptures(key, &mut out);
            }
        }
        out
    };
    solve_system(b, &mut map, &s34_43, external, last);
    let mut out = FxHashMap::with_capacity_and_hasher(s33.len() + s34_43.len(), Default::default());
    out.extend(s33.iter().chain(&s34_43).map(|&key| (key, map.get(&key))));
    out
}

/// The children of a sliding position (`me` to move, `opp`) under the
/// reference's own move generation: `None` for a capture that leaves the
/// opponent 2 stones, else the child's key (opponent to move). For checks
/// of the reference's values against its own Bellman equations.
pub fn ref_children(me: u32, opp: u32) -> Vec<Option<(u32, u32)>> {
    ref_children_in(Game::NINE, me, opp)
}

/// As [`ref_children`], in any [`Game`].
pub fn ref_children_in(game: Game, me: u32, opp: u32) -> Vec<Option<(u32, u32)>> {
    let mut out = Vec::new();
    board(game).for_each_child(me, opp, |c| {
        out.push(c);
        true
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ranks number the sets of each size 0, 1, 2, ... without a gap
    /// or a repeat, so no two positions share a cell.
    #[test]
    fn ranks_number_the_sets_of_each_size() {
        for (k, count) in [(3, Map::THREES), (4, Map::FOURS)] {
            let mut ranks: Vec<u32> = sets(k).into_iter().map(Map::rank).collect();
            ranks.sort_unstable();
            assert_eq!(ranks, (0..count).collect::<Vec<_>>(), "sets of {k}");
        }
        assert_eq!((Map::THREES, Map::FOURS), (2024, 10626));
    }
}
