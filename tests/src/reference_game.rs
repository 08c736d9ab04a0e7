//! A deliberately simple reference solver for complete games (placement and
//! sliding phases) of small rule sets, written from docs/rules.md alone: its own
//! board data (points by name, lines and mills), its own move generation, no
//! symmetry, no index. Every position is explicit, values come from a
//! ply-by-ply fixpoint of the Bellman equations.
//!
//! Positions are relative to the side to move: `(us, them, us_hand,
//! them_hand)`. White places first and a player with stones in hand must
//! place, so the hands are `(k, k)` (White to move) or `(k + 1, k)` (Black to
//! move); `(0, 0)` is the sliding phase. Under the Lasker rule a player with
//! stones in hand may also move, so every pair of hands from `0` to the
//! stones per player occurs (and either player may be to move). The solver
//! takes every position of these hand combinations in which the opponent
//! has at least 3 stones (board plus hand) and the side to move at least 2
//! (fewer cannot arise: a move removes at most one stone), and, when a line
//! wins, in which the side to move has no line (the game would have ended
//! before). The set is closed under moves.
//!
//! Rules: a placement puts a stone from hand on an empty point; without
//! stones in hand (or with them, under the Lasker rule) a stone slides to an
//! adjacent empty point, or flies to any empty point when the player has
//! at most the game's flying threshold of stones (on the board plus in
//! hand: 3 where a game flies as `nine` does, 4, or any number for
//! "always"; 0 for no flying). A move that makes a new mill (a line of
//! three through the point the stone went to) wins at once when a line
//! wins (Three Men's Morris); otherwise it removes one opponent stone on the
//! board (nothing when the opponent has none there): under the standard
//! removal rule one that is not in a mill, or any when all are in mills;
//! under the strict rule one that is not in a mill, and nothing when all
//! are in mills (the move then stands without removal); under the lenient
//! rule any. A side to move with fewer than 3 stones, facing an
//! opponent's line (when a line wins), or without a move has lost:
//! `Loss(0)`; in misère play (GamesmanOne's "Misere" option of its mills
//! games: the player who would win loses) such a side to move has won
//! instead: `Win(0)`. DTM counts plies to the end of the game; a move with
//! its removal is one ply. (So under misère a win's DTM is even and a
//! loss's odd; the database stores each one ply longer, docs/rules.md.)
//!
//! At ply `k` an unresolved position becomes `Win(k)` if some child is
//! `Loss(k-1)`, and `Loss(k)` if every child is a win (of at most `k-1`
//! plies, as all wins found so far are). The first ply that resolves
//! nothing ends the iteration; what is left is drawn.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

pub use crate::reference::RefValue;

/// A small rule set as the reference sees it: board data and parameters.
#[derive(Debug, Clone)]
pub struct RefGame {
    /// A name for messages.
    pub name: &'static str,
    /// Point names; bit `i` of a set is `points[i]`.
    pub points: Vec<&'static str>,
    /// Points adjacent to each point.
    adj: Vec<u32>,
    /// Every mill as a mask of three points.
    mills: Vec<u32>,
    /// Stones each player starts with in hand.
    pub stones: u8,
    /// A player with at most this many stones (board plus hand) flies; 0:
    /// nobody flies.
    pub fly_max: u32,
    /// Which stones a mill removes.
    pub removal: RefRemoval,
    /// Whether a line of three wins at once (nothing is removed).
    pub line_wins: bool,
    /// The Lasker rule: a player with stones in hand may place or move.
    pub lasker: bool,
    /// Misère play: a game that ends against the side to move is its win.
    pub misere: bool,
}

impl RefGame {
    /// Builds a game from point names and lines (consecutive points of a
    /// line are adjacent; every line here has three points and is a mill).
    fn new(
        name: &'static str,
        points: &[&'static str],
        lines: &[[&str; 3]],
        stones: u8,
        flying: bool,
        line_wins: bool,
    ) -> RefGame {
        let bit = |n: &str| 1u32 << points.iter().position(|&p| p == n).unwrap_or_else(|| panic!("point {n}"));
        let mut adj = vec![0u32; points.len()];
        let mut mills = Vec::new();
        for line in lines {
            for pair in line.windows(2) {
                let (a, b) = (bit(pair[0]), bit(pair[1]));
                adj[a.trailing_zeros() as usize] |= b;
                adj[b.trailing_zeros() as usize] |= a;
            }
            mills.push(line.iter().fold(0, |m, n| m | bit(n)));
        }
        assert!(
            2 * stones as usize <= points.len(),
            "the reference does not handle a full board ({stones} stones on {} points)",
            points.len()
        );
        let fly_max = if flying { 3 } else { 0 };
        RefGame {
            name,
            points: points.to_vec(),
            adj,
            mills,
            stones,
            fly_max,
            removal: RefRemoval::Standard,
            line_wins,
            lasker: false,
            misere: false,
        }
    }

    /// Three Men's Morris: the 3x3 grid, rows and columns (and the two
    /// diagonals), 3 stones, a line wins, no flying.
    pub fn three(diagonals: bool) -> RefGame {
        let points = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"];
        let mut lines = vec![
            ["a1", "b1", "c1"],
            ["a2", "b2", "c2"],
            ["a3", "b3", "c3"],
            ["a1", "a2", "a3"],
            ["b1", "b2", "b3"],
            ["c1", "c2", "c3"],
        ];
        if diagonals {
            lines.push(["a1", "b2", "c3"]);
            lines.push(["a3", "b2", "c1"]);
        }
        let name = if diagonals { "three" } else { "three-nodiagonal" };
        RefGame::new(name, &points, &lines, 3, false, true)
    }

    /// The mills of the 16-point board: the 8 sides of its two squares
    /// (the 17-point board has them too).
    const SQUARE_SIDES: [[&str; 3]; 8] = [
        ["b6", "d6", "f6"],
        ["f6", "f4", "f2"],
        ["f2", "d2", "b2"],
        ["b2", "b4", "b6"],
        ["c5", "d5", "e5"],
        ["e5", "e4", "e3"],
        ["e3", "d3", "c3"],
        ["c3", "c4", "c5"],
    ];

    /// The 16-point board (Six Men's Morris) with `stones` stones per
    /// player, with or without flying.
    pub fn sixteen(stones: u8, flying: bool) -> RefGame {
        let points = ["b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4", "c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4"];
        let mut game = RefGame::new("sixteen", &points, &Self::SQUARE_SIDES, stones, flying, false);
        // The short spokes join the rings; they are no mills.
        for (a, b) in [("b4", "c4"), ("d6", "d5"), ("f4", "e4"), ("d2", "d3")] {
            let i = points.iter().position(|&p| p == a).unwrap();
            let j = points.iter().position(|&p| p == b).unwrap();
            game.adj[i] |= 1 << j;
            game.adj[j] |= 1 << i;
        }
        game
    }

    /// The 17-point board (Seven Men's Morris) with `stones` stones per
    /// player, with or without flying, from GamesmanOne's description of
    /// it (branch `rs/mills`, `masks.h`): the 16-point board and a centre
    /// d4 joined to c4, d5, e4 and d3; the mills are the 8 sides of the two
    /// squares and the three-in-a-rows of the middle row b4..f4 and of the
    /// middle column d6..d2.
    pub fn seventeen(stones: u8, flying: bool) -> RefGame {
        let points =
            ["b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4", "c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4", "d4"];
        let mut lines = Self::SQUARE_SIDES.to_vec();
        let row = ["b4", "c4", "d4", "e4", "f4"];
        let column = ["d6", "d5", "d4", "d3", "d2"];
        for run in [row, column] {
            for i in 0..3 {
                lines.push([run[i], run[i + 1], run[i + 2]]);
            }
        }
        RefGame::new("seventeen", &points, &lines, stones, flying, false)
    }

    /// The 24-point board (Nine Men's Morris) with `stones` stones per
    /// player, with or without flying, with or without the 4 diagonal
    /// lines (each both an adjacency and a mill), from docs/rules.md's board
    /// description: three rings of 8 points, each ring side a mill, and the
    /// 4 spokes joining the rings at their midpoints, each a mill.
    pub fn twentyfour(stones: u8, flying: bool, diagonals: bool) -> RefGame {
        let rings = [
            ["a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4"],
            ["b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4"],
            ["c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4"],
        ];
        let points: Vec<&'static str> = rings.iter().flatten().copied().collect();
        let mut lines: Vec<[&str; 3]> = Vec::new();
        for ring in &rings {
            // Corners at even positions of the cycle; a side runs corner,
            // midpoint, corner.
            for side in 0..4 {
                lines.push([ring[2 * side], ring[2 * side + 1], ring[(2 * side + 2) % 8]]);
            }
        }
        for i in [1, 3, 5, 7] {
            lines.push([rings[0][i], rings[1][i], rings[2][i]]);
        }
        if diagonals {
            for i in [0, 2, 4, 6] {
                lines.push([rings[0][i], rings[1][i], rings[2][i]]);
            }
        }
        let name = match (diagonals, flying) {
            (false, true) => "twentyfour",
            (false, false) => "twentyfour-noflying",
            (true, true) => "twentyfour-diagonal",
            (true, false) => "twentyfour-diagonal-noflying",
        };
        RefGame::new(name, &points, &lines, stones, flying, false)
    }

    /// The same game under the Lasker rule: a player with stones in hand
    /// may also move a stone (slide, or fly with 3 stones on the board plus
    /// in hand where the game flies).
    pub fn with_lasker(mut self) -> RefGame {
        self.lasker = true;
        self
    }

    /// The same game where a player with at most `n` stones (board plus
    /// hand) flies (`u32::MAX`: always; 0: never).
    pub fn with_fly_max(mut self, n: u32) -> RefGame {
        self.fly_max = n;
        self
    }

    /// The same game in misère play: the player who would win loses.
    pub fn with_misere(mut self) -> RefGame {
        self.misere = true;
        self
    }

    /// The same game under the removal rule `removal`.
    pub fn with_removal(mut self, removal: RefRemoval) -> RefGame {
        self.removal = removal;
        self
    }

    /// The points adjacent to point `i`.
    pub fn adjacent(&self, i: usize) -> u32 {
        self.adj[i]
    }

    /// Every mill as a mask of three points.
    pub fn mills(&self) -> &[u32] {
        &self.mills
    }

    /// The set of all points.
    pub fn all(&self) -> u32 {
        (1u32 << self.points.len()) - 1
    }

    /// The bit of the point `name`.
    pub fn bit(&self, name: &str) -> u32 {
        1 << self.points.iter().position(|&p| p == name).unwrap_or_else(|| panic!("point {name}"))
    }

    /// The names of the points of `set`, comma-separated.
    pub fn names(&self, set: u32) -> String {
        (0..self.points.len()).filter(|&i| set & (1 << i) != 0).map(|i| self.points[i]).collect::<Vec<_>>().join(",")
    }

    /// Whether `set` holds a complete line.
    pub fn has_line(&self, set: u32) -> bool {
        self.in_mills(set) != 0
    }

    /// The stones of `set` that stand in a complete mill.
    fn in_mills(&self, set: u32) -> u32 {
        self.mills.iter().filter(|&&m| set & m == m).fold(0, |a, &m| a | m)
    }

    /// Whether `set` (after a stone arrived on `to`) has a mill through `to`.
    fn new_mill(&self, set: u32, to: u32) -> bool {
        self.mills.iter().any(|&m| m & to != 0 && set & m == m)
    }

    /// Whether the position is over (the side to move has lost): fewer than
    /// 3 stones, or the opponent has a line where a line wins. A blocked
    /// position is over too, which [`RefGame::children`] tells by returning
    /// nothing.
    pub fn is_over(&self, p: RefPos) -> bool {
        p.us.count_ones() + (p.us_hand as u32) < 3 || (self.line_wins && self.has_line(p.them))
    }

    /// The positions after each legal move of the side to move (from the
    /// opponent's point of view). Empty when the game is over or the side to
    /// move is blocked.
    pub fn children(&self, p: RefPos) -> Vec<RefPos> {
        let mut out = Vec::new();
        if self.is_over(p) {
            return out;
        }
        let empty = self.all() & !(p.us | p.them);
        // (stones after the move, the point the stone went to, hand after).
        let mut moves: Vec<(u32, u32, u8)> = Vec::new();
        if p.us_hand > 0 {
            for i in 0..self.points.len() {
                let to = 1u32 << i;
                if empty & to != 0 {
                    moves.push((p.us | to, to, p.us_hand - 1));
                }
            }
        }
        if p.us_hand == 0 || self.lasker {
            let flies = p.us.count_ones() + p.us_hand as u32 <= self.fly_max;
            for i in 0..self.points.len() {
                let from = 1u32 << i;
                if p.us & from == 0 {
                    continue;
                }
                let targets = if flies { empty } else { self.adj[i] & empty };
                for j in 0..self.points.len() {
                    let to = 1u32 << j;
                    if targets & to != 0 {
                        moves.push((p.us & !from | to, to, p.us_hand));
                    }
                }
            }
        }
        for (us, to, hand) in moves {
            let child = |them: u32| RefPos { us: them, them: us, us_hand: p.them_hand, them_hand: hand };
            if self.line_wins || !self.new_mill(us, to) || p.them == 0 {
                out.push(child(p.them));
                continue;
            }
            let free = p.them & !self.in_mills(p.them);
            let removable = match self.removal {
                RefRemoval::Standard if free == 0 => p.them,
                RefRemoval::Standard | RefRemoval::Strict => free,
                RefRemoval::Lenient => p.them,
            };
            if removable == 0 {
                // Strict: every opposing stone stands in a mill.
                out.push(child(p.them));
                continue;
            }
            for i in 0..self.points.len() {
                let r = 1u32 << i;
                if removable & r != 0 {
                    out.push(child(p.them & !r));
                }
            }
        }
        out
    }

    /// Every position the reference solves (see the module documentation),
    /// in a fixed order.
    pub fn positions(&self) -> Vec<RefPos> {
        let n = self.stones;
        let size = self.points.len();
        let mut by_count: Vec<Vec<u32>> = vec![Vec::new(); n as usize + 1];
        for set in 0..=self.all() {
            let c = set.count_ones() as usize;
            if c <= n as usize {
                by_count[c].push(set);
            }
        }
        let mut hands: Vec<(u8, u8)> = (0..=n).map(|k| (k, k)).collect();
        if self.lasker {
            hands.extend((0..=n).flat_map(|a| (0..=n).filter(move |&b| b != a).map(move |b| (a, b))));
        } else {
            hands.extend((0..n).map(|k| (k + 1, k)));
        }
        let mut out = Vec::new();
        for (us_hand, them_hand) in hands {
            for u in 0..=(n - us_hand) {
                if u + us_hand < 2 {
                    continue;
                }
                for t in 0..=(n - them_hand) {
                    if t + them_hand < 3 || (u + t) as usize > size {
                        continue;
                    }
                    for &us in &by_count[u as usize] {
                        if self.line_wins && self.has_line(us) {
                            continue;
                        }
                        for &them in &by_count[t as usize] {
                            if us & them == 0 {
                                out.push(RefPos { us, them, us_hand, them_hand });
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The start position: empty board, White to move, both hands full.
    pub fn start(&self) -> RefPos {
        RefPos { us: 0, them: 0, us_hand: self.stones, them_hand: self.stones }
    }

    /// Every position reached from the start with the reference's moves,
    /// by a depth-first search (terminal positions included: a position is
    /// reached when a move leads to it).
    pub fn reachable(&self) -> FxHashSet<RefPos> {
        let start = self.start();
        let mut seen = FxHashSet::default();
        seen.insert(start);
        let mut frontier = vec![start];
        while let Some(p) = frontier.pop() {
            for c in self.children(p) {
                if seen.insert(c) {
                    frontier.push(c);
                }
            }
        }
        seen
    }
}

/// Which opposing stones a mill removes (the reference's own copy of the
/// rule, from docs/rules.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefRemoval {
    /// Stones in no mill; any when all stand in mills.
    Standard,
    /// Stones in no mill; nothing when all stand in mills.
    Strict,
    /// Any stone.
    Lenient,
}

/// A position relative to the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RefPos {
    /// The side to move's stones on the board.
    pub us: u32,
    /// The opponent's stones on the board.
    pub them: u32,
    /// The side to move's stones in hand.
    pub us_hand: u8,
    /// The opponent's stones in hand.
    pub them_hand: u8,
}

impl RefPos {
    fn key(self) -> u64 {
        self.us as u64 | (self.them as u64) << 24 | (self.us_hand as u64) << 48 | (self.them_hand as u64) << 56
    }

    /// Whether White is to move (hands equal), else Black (one more in the
    /// hand of the side to move). In the sliding phase either may be, and
    /// under the Lasker rule either may be in any position.
    pub fn white_to_move(self) -> bool {
        self.us_hand == self.them_hand
    }
}

/// Every position of a game with its value.
pub struct RefSolution {
    /// The positions, as [`RefGame::positions`] lists them.
    pub positions: Vec<RefPos>,
    /// The value of each position for its side to move.
    pub values: Vec<RefValue>,
    index: FxHashMap<u64, u32>,
    /// Plies iterated.
    pub plies: u16,
}

impl RefSolution {
    /// The value of `p`, if the reference has the position.
    pub fn get(&self, p: RefPos) -> Option<RefValue> {
        self.index.get(&p.key()).map(|&i| self.values[i as usize])
    }
}

const UNKNOWN: u16 = u16::MAX;

/// Solves every position of `game` (see the module documentation).
pub fn solve_game(game: &RefGame) -> RefSolution {
    let positions = game.positions();
    let index: FxHashMap<u64, u32> = positions.iter().enumerate().map(|(i, p)| (p.key(), i as u32)).collect();
    assert_eq!(index.len(), positions.len(), "positions are distinct");
    // Every position's children as indices, in chunks of positions: per
    // chunk, the children of all its positions in one array and where each
    // position's begin (one allocation per chunk, not per position).
    const CHUNK: usize = 1 << 14;
    let chunks: Vec<(Vec<u32>, Vec<u32>)> = positions
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut starts = Vec::with_capacity(chunk.len() + 1);
            let mut edges = Vec::new();
            starts.push(0);
            for &p in chunk {
                edges.extend(game.children(p).into_iter().map(|c| {
                    *index
                        .get(&c.key())
                        .unwrap_or_else(|| panic!("{}: child {c:?} of {p:?} is not among the positions", game.name))
                }));
                starts.push(edges.len() as u32);
            }
            edges.shrink_to_fit();
            (starts, edges)
        })
        .collect();
    let children = |i: u32| {
        let (starts, edges) = &chunks[i as usize / CHUNK];
        let j = i as usize % CHUNK;
        &edges[starts[j] as usize..starts[j + 1] as usize]
    };
    // DTM in plies, or UNKNOWN; and whether the side to move wins.
    let mut dtm: Vec<u16> =
        (0..positions.len() as u32).map(|i| if children(i).is_empty() { 0 } else { UNKNOWN }).collect();
    // A game over is lost for the side to move, won in misère play.
    let mut wins: Vec<bool> = vec![game.misere; positions.len()];
    let mut open: Vec<u32> = (0..positions.len() as u32).filter(|&i| dtm[i as usize] == UNKNOWN).collect();
    let mut ply: u16 = 0;
    loop {
        ply += 1;
        let k = ply;
        // (position, whether it is won)
        let resolved: Vec<(u32, bool)> = {
            let (dtm, wins) = (&dtm, &wins);
            let known = |j: u32| dtm[j as usize] != UNKNOWN;
            open.par_iter()
                .copied()
                .filter_map(|i| {
                    let c = children(i);
                    if c.iter().any(|&j| known(j) && !wins[j as usize] && dtm[j as usize] == k - 1) {
                        Some((i, true))
                    } else if c.iter().all(|&j| known(j) && wins[j as usize]) {
                        Some((i, false))
                    } else {
                        None
                    }
                })
                .collect()
        };
        if resolved.is_empty() {
            break;
        }
        for &(i, won) in &resolved {
            dtm[i as usize] = k;
            wins[i as usize] = won;
        }
        open.retain(|&i| dtm[i as usize] == UNKNOWN);
    }
    let values = dtm
        .into_iter()
        .zip(wins)
        .map(|(d, won)| match d {
            UNKNOWN => RefValue::Draw,
            d if won => RefValue::Win(d),
            d => RefValue::Loss(d),
        })
        .collect();
    RefSolution { positions, values, index, plies: ply }
}
