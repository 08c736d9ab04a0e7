//! The symmetries of a board, derived from its data: every permutation of the
//! points that maps adjacent points to adjacent points and mills to mills.
//! For the 24- and 16-point boards these are the 8 rotations and reflections
//! of the square times the exchange of the inner and outer rings (16); for
//! the 9-point board and the 17-point board (whose centre is joined to the
//! inner square only) the 8 of the square.

use crate::board::{Bitboard, Board, Point, Points};

/// One symmetry: a permutation of a board's points, with byte tables that
/// apply it to a whole bitboard in three lookups (four when the set holds
/// the 25th point of the 25-point board).
#[derive(Clone)]
pub struct Symmetry {
    image: Vec<Point>,
    /// In place, not boxed: a board's symmetries lie in one array, so that
    /// finding a symmetry's tables is an offset from the array, not one
    /// more pointer to load on the way to the look-ups.
    bytes: [[Bitboard; 256]; 4],
}

impl std::fmt::Debug for Symmetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Symmetry").field("image", &self.image).finish()
    }
}

impl Symmetry {
    fn new(image: Vec<Point>) -> Symmetry {
        let mut bytes = [[0; 256]; 4];
        for (chunk, table) in bytes.iter_mut().enumerate() {
            for (byte, slot) in table.iter_mut().enumerate() {
                *slot = Points(byte as Bitboard)
                    .map(|bit| 8 * chunk + bit as usize)
                    .filter(|&p| p < image.len())
                    .fold(0, |acc, p| acc | (1 << image[p]));
            }
        }
        Symmetry { image, bytes }
    }

    /// The image of point `p`.
    #[inline]
    pub fn point(&self, p: Point) -> Point {
        self.image[p as usize]
    }

    /// The image of a set of points.
    #[inline]
    pub fn apply(&self, set: Bitboard) -> Bitboard {
        let low = self.bytes[0][(set & 0xff) as usize]
            | self.bytes[1][((set >> 8) & 0xff) as usize]
            | self.bytes[2][((set >> 16) & 0xff) as usize];
        // Points 24 and up exist only on the 25-point board: boards of at
        // most 24 points never take this branch, so they pay no fourth
        // look-up.
        let high = set >> 24;
        if high == 0 {
            low
        } else {
            low | self.bytes[3][(high & 0xff) as usize]
        }
    }

    /// The permutation as a slice: `image()[p]` is the image of point `p`.
    pub fn image(&self) -> &[Point] {
        &self.image
    }
}

/// The group structure of a board's symmetries, by their indices in
/// [`Board::symmetries`]: which symmetry is the composition of two, and
/// which undoes one (for searches that track the symmetry a position was
/// mapped by).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SymmetryGroup {
    n: usize,
    /// `compose[a * n + b]`: the symmetry applying `b`, then `a`.
    compose: Vec<u8>,
    inverse: Vec<u8>,
}

impl SymmetryGroup {
    /// The composition table of `syms` (index 0 the identity); `None` when
    /// they are not closed under composition (never for the automorphisms
    /// of a board, which form a group).
    pub(crate) fn of(syms: &[Symmetry]) -> Option<SymmetryGroup> {
        let n = syms.len();
        let mut compose = Vec::with_capacity(n * n);
        for a in syms {
            for b in syms {
                let img: Vec<Point> = b.image().iter().map(|&p| a.point(p)).collect();
                compose.push(syms.iter().position(|c| c.image() == img.as_slice())? as u8);
            }
        }
        let inverse =
            (0..n).map(|a| (0..n).find(|&b| compose[a * n + b] == 0).map(|b| b as u8)).collect::<Option<Vec<u8>>>()?;
        Some(SymmetryGroup { n, compose, inverse })
    }

    /// The index of the symmetry that applies `b`, then `a`.
    #[inline]
    pub fn compose(&self, a: usize, b: usize) -> u8 {
        self.compose[a * self.n + b]
    }

    /// The index of the symmetry that undoes `a`.
    #[inline]
    pub fn inverse(&self, a: usize) -> u8 {
        self.inverse[a]
    }
}

/// Finds every automorphism of the board (adjacency and mills), by
/// backtracking over point images with adjacency pruning. The identity comes
/// first because images are tried in increasing order.
pub(crate) fn derive_symmetries(board: &Board) -> Vec<Symmetry> {
    let n = board.len();
    let adjacent = |a: usize, b: usize| board.adjacent(a as Point) & (1 << b) != 0;
    let mut found = Vec::new();
    let mut image = vec![usize::MAX; n];
    let mut used = vec![false; n];
    fn extend(
        i: usize,
        n: usize,
        image: &mut Vec<usize>,
        used: &mut Vec<bool>,
        adjacent: &dyn Fn(usize, usize) -> bool,
        board: &Board,
        found: &mut Vec<Vec<Point>>,
    ) {
        if i == n {
            let perm: Vec<Point> = image.iter().map(|&p| p as Point).collect();
            let maps_mills = board.mills().iter().all(|&m| {
                let img = Points(m).fold(0 as Bitboard, |acc, p| acc | (1 << perm[p as usize]));
                board.mills().contains(&img)
            });
            if maps_mills {
                found.push(perm);
            }
            return;
        }
        for j in 0..n {
            if used[j] || board.adjacent(i as Point).count_ones() != board.adjacent(j as Point).count_ones() {
                continue;
            }
            if (0..i).any(|p| adjacent(i, p) != adjacent(j, image[p])) {
                continue;
            }
            image[i] = j;
            used[j] = true;
            extend(i + 1, n, image, used, adjacent, board, found);
            used[j] = false;
            image[i] = usize::MAX;
        }
    }
    extend(0, n, &mut image, &mut used, &adjacent, board, &mut found);
    found.into_iter().map(Symmetry::new).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetry_group_sizes_match_rules_md() {
        assert_eq!(Board::twenty_four(false).symmetries().len(), 16);
        assert_eq!(Board::twenty_four(true).symmetries().len(), 16);
        assert_eq!(Board::sixteen().symmetries().len(), 16);
        assert_eq!(Board::seventeen().symmetries().len(), 8);
        assert_eq!(Board::sesotho().symmetries().len(), 8);
        assert_eq!(Board::nine_point(true).symmetries().len(), 8);
        assert_eq!(Board::nine_point(false).symmetries().len(), 8);
    }

    /// One board of each kind the rule sets use.
    fn every_board() -> [Board; 7] {
        [
            Board::twenty_four(false),
            Board::twenty_four(true),
            Board::sixteen(),
            Board::seventeen(),
            Board::sesotho(),
            Board::nine_point(true),
            Board::nine_point(false),
        ]
    }

    /// Every board's symmetries are closed under composition and each has
    /// an inverse: [`SymmetryGroup::of`] relies on this (checked here by
    /// hand, and through the table every board builds).
    #[test]
    fn symmetries_form_a_group_on_every_board() {
        for board in every_board() {
            let syms = board.symmetries();
            for a in syms {
                let mut has_inverse = false;
                for b in syms {
                    let img: Vec<_> = b.image().iter().map(|&p| a.point(p)).collect();
                    assert!(syms.iter().any(|c| c.image() == img.as_slice()), "composition outside the group");
                    has_inverse |= img.iter().enumerate().all(|(i, &p)| p as usize == i);
                }
                assert!(has_inverse, "a symmetry without an inverse");
            }
        }
    }

    #[test]
    fn group_table_composes_and_inverts() {
        for board in [Board::twenty_four(false), Board::sixteen(), Board::nine_point(true)] {
            let syms = board.symmetries();
            let g = board.symmetry_group();
            for (a, sa) in syms.iter().enumerate() {
                for (b, sb) in syms.iter().enumerate() {
                    let c = &syms[g.compose(a, b) as usize];
                    assert!((0..board.len() as Point).all(|p| c.point(p) == sa.point(sb.point(p))));
                }
                let inv = &syms[g.inverse(a) as usize];
                assert!((0..board.len() as Point).all(|p| inv.point(sa.point(p)) == p));
            }
        }
    }

    /// Each symmetry of every board maps the adjacent pairs onto the
    /// adjacent pairs and the mills onto the mills (as sets, so nothing is
    /// lost or gained).
    #[test]
    fn symmetries_map_lines_to_lines_and_adjacency_to_adjacency() {
        for board in every_board() {
            let n = board.len() as Point;
            let pairs: Vec<(Point, Point)> = (0..n)
                .flat_map(|a| (0..n).map(move |b| (a, b)))
                .filter(|&(a, b)| board.adjacent(a) & (1 << b) != 0)
                .collect();
            let mut mills = board.mills().to_vec();
            mills.sort_unstable();
            for s in board.symmetries() {
                let mut images: Vec<(Point, Point)> = pairs.iter().map(|&(a, b)| (s.point(a), s.point(b))).collect();
                images.sort_unstable();
                assert_eq!(images, pairs, "{}: adjacency", board.name());
                let mut mapped: Vec<Bitboard> = mills.iter().map(|&m| s.apply(m)).collect();
                mapped.sort_unstable();
                assert_eq!(mapped, mills, "{}: mills", board.name());
            }
        }
    }

    /// The 17-point board as GamesmanOne's Seven Men's Morris has it: 24
    /// lines between adjacent points (the 16 square sides, 4 spokes, 4 to
    /// the centre), 14 mills, 6 of them through the centre d4, which every
    /// symmetry fixes; no symmetry exchanges the squares.
    #[test]
    fn seventeen_point_board() {
        let b = Board::seventeen();
        let edges: u32 = (0..17).map(|p| b.adjacent(p).count_ones()).sum::<u32>() / 2;
        assert_eq!((b.len(), edges, b.mills().len()), (17, 24, 14));
        let d4 = b.point("d4").unwrap();
        let names = |set: Bitboard| {
            let mut v: Vec<&str> = Points(set).map(|p| b.point_name(p)).collect();
            v.sort_unstable();
            v.join(",")
        };
        assert_eq!(names(b.adjacent(d4)), "c4,d3,d5,e4");
        assert_eq!(b.mills_through(d4).len(), 6);
        assert!(b.mills().iter().any(|&m| names(m) == "b4,c4,d4"));
        assert!(b.mills().iter().any(|&m| names(m) == "d2,d3,d4"));
        let (b6, c5) = (b.point("b6").unwrap(), b.point("c5").unwrap());
        for s in b.symmetries() {
            assert_eq!(s.point(d4), d4);
            assert_ne!(s.point(b6), c5);
        }
    }

    /// The 25-point board as GamesmanOne's Sesotho Morabaraba has it
    /// (`masks.h`): 22 mills (the 12 square sides, and the three-in-a-rows
    /// of the middle row a4..g4 and the middle column d7..d1, 5 each), the
    /// centre d4 joined to c4, d5, e4, d3, and four diagonal lines between
    /// the outer and the middle squares' corners that join points but make
    /// no mill (b6 is not joined to c5).
    #[test]
    fn sesotho_board() {
        let b = Board::sesotho();
        let edges: u32 = (0..25).map(|p| b.adjacent(p).count_ones()).sum::<u32>() / 2;
        // 24 square sides, 2 x 6 along the middle row and column, 4 diagonals.
        assert_eq!((b.len(), edges, b.mills().len()), (25, 40, 22));
        let at = |n: &str| b.point(n).unwrap();
        let joined = |x: &str, y: &str| b.adjacent(at(x)) & (1 << at(y)) != 0;
        assert!(joined("a7", "b6") && joined("g1", "f2") && !joined("b6", "c5") && joined("d4", "c4"));
        assert_eq!(b.mills_through(at("d4")).len(), 6);
        assert!(!b.mills().iter().any(|&m| m & (1 << at("a7")) != 0 && m & (1 << at("b6")) != 0));
        // The 25th point goes through the fourth byte table.
        let d4 = at("d4");
        for s in b.symmetries() {
            assert_eq!(s.point(d4), d4);
            assert_eq!(s.apply(1 << d4 | 1 << at("a7")), 1 << d4 | 1 << s.point(at("a7")));
        }
    }

    #[test]
    fn identity_first_and_ring_swap_present() {
        let b = Board::twenty_four(false);
        let id = &b.symmetries()[0];
        assert!((0..24).all(|p| id.point(p) == p));
        let a7 = b.point("a7").unwrap();
        let c5 = b.point("c5").unwrap();
        assert!(b.symmetries().iter().any(|s| s.point(a7) == c5));
    }
}
