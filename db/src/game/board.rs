//! Boards as data: named points, the lines between adjacent points, the mills
//! and the symmetries derived from them (docs/rules.md, "Boards").
//!
//! A board is described by its point names and its *lines*: each line is a
//! sequence of points in which consecutive points are adjacent, and a line of
//! exactly three points is a mill. Everything else (adjacency masks, mills
//! through each point, the symmetry group) is computed from that data, so no
//! rule code assumes a particular board.

use crate::symmetry::{derive_symmetries, Symmetry, SymmetryGroup};

/// A set of points as a bitboard: bit `i` is the board's point `i`.
pub type Bitboard = u32;

/// A point's number on its board, `0..board.len()`.
pub type Point = u8;

/// The most points a board may have: 25, the Sesotho board (bitboards
/// are `u32`; the symmetry tables work on three bytes and a fourth for
/// the 25th point).
pub const MAX_POINTS: usize = 25;

/// The most mills through one point on any board: the centre of the
/// 17-point board (three in a row along the middle row and the middle
/// column, three each).
const MAX_MILLS_THROUGH: usize = 6;

/// A board: points, adjacency, mills and symmetries.
#[derive(Debug, Clone)]
pub struct Board {
    name: &'static str,
    names: Vec<&'static str>,
    adjacency: Vec<Bitboard>,
    mills: Vec<Bitboard>,
    mills_through: Vec<Vec<Bitboard>>,
    /// Per point, the other two points of each mill through it, padded with
    /// `Bitboard::MAX` (which no set of points contains) to
    /// [`MAX_MILLS_THROUGH`]: [`Board::closes_mill`] tests them all without
    /// a branch or a pointer to follow.
    mill_partners: Vec<[Bitboard; MAX_MILLS_THROUGH]>,
    symmetries: Vec<Symmetry>,
    group: SymmetryGroup,
}

impl Board {
    /// Builds a board from its point names (in the board's own point order)
    /// and its lines (sequences of names; consecutive names are adjacent; a
    /// line of three names is a mill).
    ///
    /// # Panics
    /// Only on inconsistent built-in data (an unknown name in a line, more
    /// than [`MAX_POINTS`] points, more than six mills through a point;
    /// symmetries that do not form a group,
    /// which the automorphisms of any board do): boards are compiled in,
    /// never read from user input.
    pub fn from_lines(name: &'static str, names: &[&'static str], lines: &[&[&str]]) -> Board {
        assert!(names.len() <= MAX_POINTS, "board {name}: too many points");
        let find = |n: &str| -> usize {
            names.iter().position(|&p| p == n).unwrap_or_else(|| panic!("board {name}: unknown point {n} in a line"))
        };
        let mut adjacency = vec![0 as Bitboard; names.len()];
        let mut mills = Vec::new();
        for line in lines {
            let pts: Vec<usize> = line.iter().map(|n| find(n)).collect();
            for pair in pts.windows(2) {
                adjacency[pair[0]] |= 1 << pair[1];
                adjacency[pair[1]] |= 1 << pair[0];
            }
            if pts.len() == 3 {
                mills.push(pts.iter().fold(0, |m, &p| m | (1 << p)));
            }
        }
        let mills_through: Vec<Vec<Bitboard>> =
            (0..names.len()).map(|p| mills.iter().copied().filter(|m| m & (1 << p) != 0).collect()).collect();
        let mill_partners = mills_through
            .iter()
            .enumerate()
            .map(|(p, through)| {
                assert!(
                    through.len() <= MAX_MILLS_THROUGH,
                    "board {name}: more than {MAX_MILLS_THROUGH} mills through a point"
                );
                let mut partners = [Bitboard::MAX; MAX_MILLS_THROUGH];
                for (slot, &m) in partners.iter_mut().zip(through) {
                    *slot = m & !(1 << p);
                }
                partners
            })
            .collect();
        let mut board = Board {
            name,
            names: names.to_vec(),
            adjacency,
            mills,
            mills_through,
            mill_partners,
            symmetries: Vec::new(),
            group: SymmetryGroup::default(),
        };
        board.symmetries = derive_symmetries(&board);
        board.group = SymmetryGroup::of(&board.symmetries)
            .unwrap_or_else(|| panic!("board {name}: its automorphisms are not closed under composition"));
        board
    }

    /// The board of `rings` concentric squares (3: the 24-point board, 2:
    /// the 16-point board), with the 24-point board's names, outermost
    /// square first; each square is named from the middle of its left side
    /// clockwise (as a4 a7 d7 g7 g4 g1 d1 a1). Each square's four sides are
    /// lines, then the four spokes that join the middles of the sides across
    /// the squares (mills on three squares, lines that are not mills on
    /// two), then with `diagonals` the four lines that join the corners.
    fn squares(name: &'static str, rings: usize, diagonals: bool) -> Board {
        const NAMES: [&str; 24] = [
            "a4", "a7", "d7", "g7", "g4", "g1", "d1", "a1", "b4", "b6", "d6", "f6", "f4", "f2", "d2", "b2", "c4", "c5",
            "d5", "e5", "e4", "e3", "d3", "c3",
        ];
        let names = &NAMES[(3 - rings) * 8..];
        let at = |ring: usize, i: usize| names[ring * 8 + i % 8];
        let mut lines: Vec<Vec<&str>> = Vec::new();
        for ring in 0..rings {
            lines.extend((0..4).map(|side| (1..4).map(|i| at(ring, 2 * side + i)).collect()));
        }
        let across = |i: usize| (0..rings).map(|ring| at(ring, i)).collect::<Vec<_>>();
        lines.extend([0, 2, 4, 6].map(across));
        if diagonals {
            lines.extend([1, 3, 5, 7].map(across));
        }
        let lines: Vec<&[&str]> = lines.iter().map(Vec::as_slice).collect();
        Board::from_lines(name, names, &lines)
    }

    /// The 24-point board of Nine Men's Morris, optionally with the four
    /// diagonal lines of Twelve Men's Morris and Morabaraba (docs/rules.md).
    ///
    /// Point order is Malom's square order: the outer ring from a4 clockwise
    /// (a4 a7 d7 g7 g4 g1 d1 a1), then the middle ring from b4, then the inner
    /// ring from c4.
    pub fn twenty_four(diagonals: bool) -> Board {
        let name = if diagonals { "24-point board with diagonals" } else { "24-point board" };
        Board::squares(name, 3, diagonals)
    }

    /// The 16-point board of Six Men's Morris: the 24-point board without its
    /// outer ring; spokes of two points are lines but not mills.
    pub fn sixteen() -> Board {
        Board::squares("16-point board", 2, false)
    }

    /// The 17-point board of Seven Men's Morris: the 16-point board and a
    /// centre point d4, joined to the four middle points of the inner
    /// square (c4, d5, e4, d3). Its 14 mills are the 8 sides of the two
    /// squares and every three in a row along the middle row b4-c4-d4-e4-f4
    /// and the middle column d6-d5-d4-d3-d2 (3 each, all through d4), as
    /// GamesmanOne's mills games (branch `rs/mills`, `masks.h`) define it.
    /// No symmetry exchanges the squares (the centre is joined to the inner
    /// one only): 8 symmetries.
    pub fn seventeen() -> Board {
        const NAMES: [&str; 17] =
            ["b4", "b6", "d6", "f6", "f4", "f2", "d2", "b2", "c4", "c5", "d5", "e5", "e4", "e3", "d3", "c3", "d4"];
        let lines: [&[&str]; 14] = [
            &["b6", "d6", "f6"],
            &["f6", "f4", "f2"],
            &["f2", "d2", "b2"],
            &["b2", "b4", "b6"],
            &["c5", "d5", "e5"],
            &["e5", "e4", "e3"],
            &["e3", "d3", "c3"],
            &["c3", "c4", "c5"],
            &["b4", "c4", "d4"],
            &["c4", "d4", "e4"],
            &["d4", "e4", "f4"],
            &["d6", "d5", "d4"],
            &["d5", "d4", "d3"],
            &["d4", "d3", "d2"],
        ];
        Board::from_lines("17-point board", &NAMES, &lines)
    }

    /// The 25-point board of Sesotho Morabaraba, as GamesmanOne's mills
    /// games (branch `rs/mills`, `masks.h` and `boards.h`) define it: the
    /// 24-point board's three squares and a centre d4; the middle row
    /// a4..g4 and the middle column d7..d1 are lines of seven points (each
    /// three in a row a mill, 5 a line), and four short diagonals join the
    /// corners of the outer square to those of the middle square (a7-b6,
    /// g7-f6, g1-f2, a1-b2), paths for sliding but no mills. 22 mills; 8
    /// symmetries (the centre and the diagonals keep the squares apart).
    /// Point order: the 24-point board's, then d4.
    pub fn sesotho() -> Board {
        const NAMES: [&str; 25] = [
            "a4", "a7", "d7", "g7", "g4", "g1", "d1", "a1", "b4", "b6", "d6", "f6", "f4", "f2", "d2", "b2", "c4", "c5",
            "d5", "e5", "e4", "e3", "d3", "c3", "d4",
        ];
        let mut lines: Vec<Vec<&str>> = Vec::new();
        for ring in [
            ["a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4"],
            ["b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4"],
            ["c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4"],
        ] {
            for side in 0..4 {
                lines.push(vec![ring[2 * side], ring[2 * side + 1], ring[(2 * side + 2) % 8]]);
            }
        }
        for run in [["a4", "b4", "c4", "d4", "e4", "f4", "g4"], ["d7", "d6", "d5", "d4", "d3", "d2", "d1"]] {
            lines.extend(run.windows(3).map(<[&str]>::to_vec));
        }
        lines.extend([["a7", "b6"], ["g7", "f6"], ["g1", "f2"], ["a1", "b2"]].map(|d| d.to_vec()));
        let lines: Vec<&[&str]> = lines.iter().map(Vec::as_slice).collect();
        Board::from_lines("25-point Sesotho board", &NAMES, &lines)
    }

    /// The 9-point board of Three Men's Morris (a 3x3 grid a1..c3), with or
    /// without its two diagonals.
    pub fn nine_point(diagonals: bool) -> Board {
        const NAMES: [&str; 9] = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"];
        let mut lines: Vec<&[&str]> = vec![
            &["a1", "b1", "c1"],
            &["a2", "b2", "c2"],
            &["a3", "b3", "c3"],
            &["a1", "a2", "a3"],
            &["b1", "b2", "b3"],
            &["c1", "c2", "c3"],
        ];
        if diagonals {
            lines.extend_from_slice(&[&["a1", "b2", "c3"], &["c1", "b2", "a3"]]);
        }
        let name = if diagonals { "9-point board with diagonals" } else { "9-point board" };
        Board::from_lines(name, &NAMES, &lines)
    }

    /// A short description of the board, e.g. "24-point board".
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the board has no points (never true for built-in boards).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The mask of all points.
    pub fn all(&self) -> Bitboard {
        if self.len() == 32 {
            u32::MAX
        } else {
            (1u32 << self.len()) - 1
        }
    }

    /// The name of point `p` (`a1`..`g7`).
    pub fn point_name(&self, p: Point) -> &'static str {
        self.names[p as usize]
    }

    /// Point names in the board's point order.
    pub fn point_names(&self) -> &[&'static str] {
        &self.names
    }

    /// The point with this name, if any.
    pub fn point(&self, name: &str) -> Option<Point> {
        self.names.iter().position(|&n| n == name).map(|p| p as Point)
    }

    /// The points adjacent to `p`.
    #[inline]
    pub fn adjacent(&self, p: Point) -> Bitboard {
        self.adjacency[p as usize]
    }

    /// The points adjacent to at least one point of `stones`: where a
    /// stone of `stones` can slide to, if empty.
    #[inline]
    pub fn neighbours(&self, stones: Bitboard) -> Bitboard {
        Points(stones).fold(0, |acc, p| acc | self.adjacency[p as usize])
    }

    /// All mills, as masks of three points.
    pub fn mills(&self) -> &[Bitboard] {
        &self.mills
    }

    /// The mills through point `p`.
    #[inline]
    pub fn mills_through(&self, p: Point) -> &[Bitboard] {
        &self.mills_through[p as usize]
    }

    /// Whether a stone of the set `stones` on point `p` closes a mill, i.e.
    /// some mill through `p` has its other points all in `stones`.
    #[inline]
    pub fn closes_mill(&self, stones: Bitboard, p: Point) -> bool {
        // Hot in move and un-move generation: six tests and no branch.
        let [a, b, c, d, e, f] = self.mill_partners[p as usize];
        (a & !stones == 0)
            | (b & !stones == 0)
            | (c & !stones == 0)
            | (d & !stones == 0)
            | (e & !stones == 0)
            | (f & !stones == 0)
    }

    /// The points of `free` where one more stone of `stones` would close a
    /// mill: the third point of every mill holding two of `stones`, if it is
    /// in `free`. The points [`Board::closes_mill`] accepts, for a whole
    /// placement at once (one pass over the mills, no branch); the solver
    /// splits a position's placements into quiet ones and captures with it.
    #[inline]
    pub fn completing_points(&self, stones: Bitboard, free: Bitboard) -> Bitboard {
        let mut points = 0;
        for &mill in &self.mills {
            let two = ((mill & stones).count_ones() == 2) as Bitboard;
            points |= mill & free & two.wrapping_neg();
        }
        points
    }

    /// The stones of `movers` (some of `stones`) whose move to the point
    /// `to` (not in `stones`) closes a mill: a mill through `to` whose
    /// other two points are in `stones` and do not include the moving
    /// stone. What [`Board::closes_mill`] says of each move from `movers`
    /// to `to`, for all of them at once (no branch).
    #[inline]
    pub fn closing_movers(&self, stones: Bitboard, to: Point, movers: Bitboard) -> Bitboard {
        let mut closing = 0;
        for &partners in &self.mill_partners[to as usize] {
            let full = ((partners & !stones) == 0) as Bitboard;
            closing |= !partners & full.wrapping_neg();
        }
        movers & closing
    }

    /// The stones of `stones` that stand in at least one complete mill.
    pub fn stones_in_mills(&self, stones: Bitboard) -> Bitboard {
        self.mills.iter().filter(|&&m| stones & m == m).fold(0, |acc, &m| acc | m)
    }

    /// The board's symmetries (permutations of the points that keep adjacency
    /// and mills), derived from the data; index 0 is the identity.
    pub fn symmetries(&self) -> &[Symmetry] {
        &self.symmetries
    }

    /// How the symmetries compose and invert, by their indices in
    /// [`Board::symmetries`].
    pub fn symmetry_group(&self) -> &SymmetryGroup {
        &self.group
    }
}

/// Iterates over the points of a bitboard, lowest first.
#[derive(Debug, Clone, Copy)]
pub struct Points(pub Bitboard);

impl Iterator for Points {
    type Item = Point;
    #[inline]
    fn next(&mut self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            let p = self.0.trailing_zeros() as Point;
            self.0 &= self.0 - 1;
            Some(p)
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::rules::{RuleSet, PRESETS};

    proptest! {
        /// On every preset's board, the completing points of a set are
        /// exactly the free points where [`Board::closes_mill`] says a
        /// stone of the set closes a mill.
        #[test]
        fn completing_points_are_where_a_stone_closes_a_mill(
            preset in 0..PRESETS.len(),
            stones in any::<u32>(),
            free in any::<u32>(),
            density in 1u32..4,
        ) {
            let rules = RuleSet::preset(PRESETS[preset]).unwrap();
            let board = rules.board();
            // Thin the random set out so that sets of 3 to 12 stones, where
            // mills are neither certain nor impossible, come up often.
            let stones = (0..density).fold(stones, |s, i| s & stones.rotate_left(7 * i + 3)) & board.all();
            let free = free & board.all() & !stones;
            let by_point = (0..board.len() as u8)
                .filter(|&p| free & (1 << p) != 0 && board.closes_mill(stones, p))
                .fold(0, |acc, p| acc | 1 << p);
            prop_assert_eq!(board.completing_points(stones, free), by_point);
        }

        /// On every preset's board, the neighbours of a set are exactly the
        /// points one of its stones is adjacent to, by the adjacency read
        /// point by point (symmetric, so also the points adjacent to one).
        #[test]
        fn neighbours_are_the_points_next_to_a_stone(preset in 0..PRESETS.len(), stones in any::<u32>()) {
            let rules = RuleSet::preset(PRESETS[preset]).unwrap();
            let board = rules.board();
            let stones = stones & board.all();
            let by_point = (0..board.len() as u8)
                .filter(|&p| (0..board.len() as u8).any(|s| stones & (1 << s) != 0 && board.adjacent(p) & (1 << s) != 0))
                .fold(0, |acc, p| acc | 1 << p);
            prop_assert_eq!(board.neighbours(stones), by_point);
        }

        /// On every preset's board, the closing movers to an empty point are
        /// exactly the stones whose move there [`Board::closes_mill`]
        /// accepts, with the moving stone taken away.
        #[test]
        fn closing_movers_are_the_stones_whose_move_closes_a_mill(
            preset in 0..PRESETS.len(),
            stones in any::<u32>(),
            density in 1u32..4,
            to in 0u8..32,
        ) {
            let rules = RuleSet::preset(PRESETS[preset]).unwrap();
            let board = rules.board();
            let stones = (0..density).fold(stones, |s, i| s & stones.rotate_left(7 * i + 3)) & board.all();
            let to = to % board.len() as u8;
            let stones = stones & !(1 << to);
            let by_move = (0..board.len() as u8)
                .filter(|&s| stones & (1 << s) != 0 && board.closes_mill(stones & !(1 << s) | 1 << to, to))
                .fold(0, |acc, s| acc | 1 << s);
            prop_assert_eq!(board.closing_movers(stones, to, stones), by_move);
        }
    }
}
