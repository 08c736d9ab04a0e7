//! The symmetry-reduced index of a sector (DESIGN.md, "Index").
//!
//! A position of sector `w-b` is indexed as
//! `orbit(us) * C(n - w, b) + colex(them')`, where `orbit(us)` ranks the side
//! to move's stone set among the orbits of `w`-sets under the board's
//! symmetries, and `them'` is the opponent's set mapped by the symmetry that
//! takes `us` to its orbit representative, minimised over that
//! representative's stabiliser, and ranked with the combinatorial number
//! system among the `n - w` points the representative leaves empty (Gasser
//! 1996; the same layout as Malom's files, Gévay and Danner 2016).
//!
//! Slots whose opponent set is not minimal under the stabiliser are padding
//! (not canonical positions); [`SectorIndex::position`] returns `None` for
//! them. `morris stats` reports the slots per canonical position.

use std::sync::{Arc, OnceLock};

use crate::board::{Bitboard, Board, Points};
use crate::sector::Sector;

/// Binomial coefficients `C(n, k)` for `n, k <= 32`.
pub const BINOMIAL: [[u64; 33]; 33] = {
    let mut t = [[0u64; 33]; 33];
    let mut n = 0;
    while n < 33 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// Colex rank of a set among the sets of the same size: `sum C(p_i, i + 1)`
/// over its points `p_0 < p_1 < ...`. Equals the set's position when all
/// sets of its size are listed in increasing numeric order.
#[inline]
pub fn colex_rank(set: Bitboard) -> u64 {
    let mut r = 0;
    for (i, p) in Points(set).enumerate() {
        r += BINOMIAL[p as usize][i + 1];
    }
    r
}

/// The set of size `k` whose colex rank is `rank` (inverse of [`colex_rank`]).
pub fn colex_unrank(mut rank: u64, k: usize) -> Bitboard {
    let mut set = 0;
    let mut top = 32usize;
    for i in (1..=k).rev() {
        let mut q = i - 1;
        while q + 1 < top && BINOMIAL[q + 1][i] <= rank {
            q += 1;
        }
        rank -= BINOMIAL[q][i];
        set |= 1 << q;
        top = q;
    }
    set
}

/// Orbits of the `w`-point sets of a board under its symmetries.
#[derive(Debug)]
pub struct OrbitTable {
    /// Per set, by colex rank: `orbit << 5 | symmetry taking the set to the
    /// orbit's representative`.
    by_colex: Vec<u32>,
    /// Orbit representatives (the numerically smallest image), ascending.
    representatives: Vec<Bitboard>,
    /// `stabiliser_start[o]..stabiliser_start[o + 1]` indexes
    /// `stabiliser_syms`: the non-identity symmetries fixing representative o.
    stabiliser_start: Vec<u32>,
    stabiliser_syms: Vec<u8>,
}

impl OrbitTable {
    fn build(board: &Board, w: usize) -> OrbitTable {
        let n = board.len();
        let syms = board.symmetries();
        let count = BINOMIAL[n][w] as usize;
        let mut by_colex = Vec::with_capacity(count);
        let mut representatives = Vec::new();
        let mut stabiliser_start = vec![0u32];
        let mut stabiliser_syms = Vec::new();
        let mut set: Bitboard = if w == 0 { 0 } else { (1 << w) - 1 };
        for _ in 0..count {
            let (mut best, mut best_sym) = (set, 0u32);
            for (s, sym) in syms.iter().enumerate().skip(1) {
                let img = sym.apply(set);
                if img < best {
                    best = img;
                    best_sym = s as u32;
                }
            }
            let orbit = if best == set {
                representatives.push(set);
                for (s, sym) in syms.iter().enumerate().skip(1) {
                    if sym.apply(set) == set {
                        stabiliser_syms.push(s as u8);
                    }
                }
                stabiliser_start.push(stabiliser_syms.len() as u32);
                (representatives.len() - 1) as u32
            } else {
                by_colex[colex_rank(best) as usize] >> 5
            };
            by_colex.push(orbit << 5 | best_sym);
            // Next set of the same size in increasing order (Gosper's hack).
            if set != 0 {
                let c = set & set.wrapping_neg();
                let r = set.wrapping_add(c);
                set = (((r ^ set) >> 2) / c) | r;
            }
        }
        OrbitTable { by_colex, representatives, stabiliser_start, stabiliser_syms }
    }

    /// Number of orbits.
    pub fn len(&self) -> usize {
        self.representatives.len()
    }

    /// Whether there are no orbits (never: the empty set has one).
    pub fn is_empty(&self) -> bool {
        self.representatives.is_empty()
    }

    /// The representative of orbit `o`.
    pub fn representative(&self, o: usize) -> Bitboard {
        self.representatives[o]
    }

    /// Orbit number and the symmetry taking `set` to its representative.
    #[inline]
    pub fn orbit_of(&self, set: Bitboard) -> (usize, usize) {
        let packed = self.by_colex[colex_rank(set) as usize];
        ((packed >> 5) as usize, (packed & 31) as usize)
    }

    /// The non-identity symmetries that fix representative `o`.
    #[inline]
    pub fn stabiliser(&self, o: usize) -> &[u8] {
        &self.stabiliser_syms[self.stabiliser_start[o] as usize..self.stabiliser_start[o + 1] as usize]
    }
}

/// Per board, the orbit tables of every stone count, built on first use.
#[derive(Debug)]
pub struct Indexer {
    board: Arc<Board>,
    orbits: Vec<OnceLock<Arc<OrbitTable>>>,
}

impl Indexer {
    /// An indexer for `board`; builds nothing yet.
    pub fn new(board: Arc<Board>) -> Indexer {
        let orbits = (0..=board.len()).map(|_| OnceLock::new()).collect();
        Indexer { board, orbits }
    }

    /// The orbit table of `w`-point sets (built on first call; about 30 ms
    /// for w = 9 on the 24-point board).
    ///
    /// # Panics
    /// If `w` exceeds the number of points.
    pub fn orbits(&self, w: usize) -> &Arc<OrbitTable> {
        self.orbits[w].get_or_init(|| Arc::new(OrbitTable::build(&self.board, w)))
    }

    /// The slot of a position in its sector (`w = |us|`, `b = |them|`),
    /// without building a [`SectorIndex`]: no reference counts are touched,
    /// so probes from many threads do not contend. The caller guarantees
    /// `us` and `them` are disjoint sets of the board's points.
    #[inline]
    pub fn slot(&self, us: Bitboard, them: Bitboard) -> u64 {
        let (w, b) = (us.count_ones() as usize, them.count_ones() as usize);
        let orbits = self.orbits(w);
        let (orbit, rep, them) = canonicalise(&self.board, orbits, us, them);
        orbit as u64 * BINOMIAL[self.board.len() - w][b] + rank_among_empty(rep, them)
    }

    /// The index of sector `s`: the side to move has `s.w` stones on the
    /// board and the opponent `s.b` (the hands do not change the index).
    /// [`RuleSet::sector_index`](crate::RuleSet::sector_index) is the checked
    /// way for a sector named by a user or a file name.
    ///
    /// # Panics
    /// If `s.w + s.b` exceeds the number of points.
    pub fn sector(&self, s: Sector) -> SectorIndex {
        let (w, b, n) = (s.w as usize, s.b as usize, self.board.len());
        assert!(w + b <= n, "sector {w}-{b} does not fit on {n} points");
        self.build_sector(w, b)
    }

    fn build_sector(&self, w: usize, b: usize) -> SectorIndex {
        let n = self.board.len();
        SectorIndex {
            board: self.board.clone(),
            orbits: self.orbits(w).clone(),
            w,
            b,
            opponent_sets: BINOMIAL[n - w][b],
        }
    }
}

/// The index of one sector: a map from positions (side to move's stones
/// `us`, opponent's `them`) to slots `0..len()`, equal for all positions of
/// one symmetry class and distinct between classes.
#[derive(Debug, Clone)]
pub struct SectorIndex {
    board: Arc<Board>,
    orbits: Arc<OrbitTable>,
    w: usize,
    b: usize,
    opponent_sets: u64,
}

impl SectorIndex {
    /// Number of slots (canonical positions plus padding).
    pub fn len(&self) -> u64 {
        self.orbits.len() as u64 * self.opponent_sets
    }

    /// Whether the sector has no slots.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stones of the side to move.
    pub fn w(&self) -> usize {
        self.w
    }

    /// Stones of the opponent.
    pub fn b(&self) -> usize {
        self.b
    }

    /// The canonical form of a position: the orbit representative of `us`
    /// and the smallest image of `them` under the symmetries that take `us`
    /// there. The caller guarantees `us` has `w` stones, `them` has `b`, and
    /// they are disjoint.
    #[inline]
    pub fn canonical(&self, us: Bitboard, them: Bitboard) -> (usize, Bitboard, Bitboard) {
        canonicalise(&self.board, &self.orbits, us, them)
    }

    /// The slot of a position (see [`SectorIndex::canonical`] for what the
    /// caller guarantees).
    #[inline]
    pub fn index(&self, us: Bitboard, them: Bitboard) -> u64 {
        let (orbit, rep, them) = self.canonical(us, them);
        orbit as u64 * self.opponent_sets + rank_among_empty(rep, them)
    }

    /// The slot of a position whose `us` is already known to be in orbit
    /// `orbit` via symmetry `sym` (lets callers reuse one orbit lookup for
    /// many opponent sets).
    #[inline]
    pub fn index_with_orbit(&self, orbit: usize, sym: usize, them: Bitboard) -> u64 {
        let syms = self.board.symmetries();
        let mapped = syms[sym].apply(them);
        let mut best = mapped;
        for &g in self.orbits.stabiliser(orbit) {
            best = best.min(syms[g as usize].apply(mapped));
        }
        orbit as u64 * self.opponent_sets + rank_among_empty(self.orbits.representative(orbit), best)
    }

    /// Slots per orbit of the side to move's stone set: `C(n - w, b)`.
    pub fn opponent_sets(&self) -> u64 {
        self.opponent_sets
    }

    /// Calls `f(slot, us, them)` for every canonical position of orbit
    /// `orbit` (padding slots are skipped), in slot order. Faster than
    /// [`SectorIndex::position`] slot by slot: opponent sets are enumerated
    /// incrementally.
    pub fn for_each_in_orbit(&self, orbit: usize, mut f: impl FnMut(u64, Bitboard, Bitboard)) {
        let rep = self.orbits.representative(orbit);
        let stabiliser = self.orbits.stabiliser(orbit);
        let syms = self.board.symmetries();
        let mut free = [0u8; 32];
        for (i, p) in Points(self.board.all() & !rep).enumerate() {
            free[i] = p;
        }
        let base = orbit as u64 * self.opponent_sets;
        let mut compressed: Bitboard = if self.b == 0 { 0 } else { (1 << self.b) - 1 };
        for r in 0..self.opponent_sets {
            let them = Points(compressed).fold(0, |acc, i| acc | 1 << free[i as usize]);
            if stabiliser.iter().all(|&g| syms[g as usize].apply(them) >= them) {
                f(base + r, rep, them);
            }
            if compressed != 0 {
                let c = compressed & compressed.wrapping_neg();
                let next = compressed.wrapping_add(c);
                compressed = (((next ^ compressed) >> 2) / c) | next;
            }
        }
    }

    /// The orbit table of the side to move's stone sets.
    pub fn orbit_table(&self) -> &OrbitTable {
        &self.orbits
    }

    /// The block of orbit `o` (its representative to move), for ranking
    /// opponent sets quickly; `None` when the representative has a
    /// non-trivial stabiliser (then opponent sets must be minimised, and
    /// [`SectorIndex::index_with_orbit`] does that).
    pub fn orbit_block(&self, o: usize) -> Option<OrbitBlock> {
        if o >= self.orbits.len() || !self.orbits.stabiliser(o).is_empty() {
            return None;
        }
        let rep = self.orbits.representative(o);
        let mut compressed = [u8::MAX; 32];
        for (i, p) in Points(self.board.all() & !rep).enumerate() {
            compressed[p as usize] = i as u8;
        }
        Some(OrbitBlock { base: o as u64 * self.opponent_sets, compressed })
    }

    /// The canonical position at `slot`, or `None` when the slot is padding
    /// (its opponent set is not minimal under the stabiliser) or out of range.
    pub fn position(&self, slot: u64) -> Option<(Bitboard, Bitboard)> {
        if slot >= self.len() {
            return None;
        }
        let orbit = (slot / self.opponent_sets) as usize;
        let rank = slot % self.opponent_sets;
        let rep = self.orbits.representative(orbit);
        let them = expand_into_empty(rep, colex_unrank(rank, self.b), self.board.len());
        let syms = self.board.symmetries();
        for &g in self.orbits.stabiliser(orbit) {
            if syms[g as usize].apply(them) < them {
                return None;
            }
        }
        Some((rep, them))
    }
}

/// Orbit, representative and smallest mapped opponent set of a position.
#[inline]
fn canonicalise(board: &Board, orbits: &OrbitTable, us: Bitboard, them: Bitboard) -> (usize, Bitboard, Bitboard) {
    let syms = board.symmetries();
    let (orbit, s) = orbits.orbit_of(us);
    let mapped = syms[s].apply(them);
    let mut best = mapped;
    for &g in orbits.stabiliser(orbit) {
        best = best.min(syms[g as usize].apply(mapped));
    }
    (orbit, orbits.representative(orbit), best)
}

/// Colex rank of `them` after squeezing out the points of `occupied` (the
/// opponent part of a slot; Malom's files use the same).
#[inline]
pub fn rank_among_empty(occupied: Bitboard, them: Bitboard) -> u64 {
    let mut r = 0;
    for (i, p) in Points(them).enumerate() {
        let below = occupied & ((1u32 << p) - 1);
        r += BINOMIAL[p as usize - below.count_ones() as usize][i + 1];
    }
    r
}

/// Places the bits of `compressed` onto the points not in `occupied`, in
/// order (inverse of [`rank_among_empty`] after [`colex_unrank`]); `n` is the
/// number of points of the board.
pub fn expand_into_empty(occupied: Bitboard, mut compressed: Bitboard, n: usize) -> Bitboard {
    let mut out = 0;
    let mut free = !occupied & if n >= 32 { u32::MAX } else { (1 << n) - 1 };
    while compressed != 0 && free != 0 {
        let p = free.trailing_zeros();
        if compressed & 1 != 0 {
            out |= 1 << p;
        }
        compressed >>= 1;
        free &= free - 1;
    }
    out
}

/// The slots of one orbit block of a sector whose representative has a
/// trivial stabiliser: the opponent set is then ranked as it stands, with no
/// symmetry to apply (see [`SectorIndex::orbit_block`]).
#[derive(Debug, Clone)]
pub struct OrbitBlock {
    /// Slot of the block's first opponent set.
    base: u64,
    /// Per point, its position among the points the representative leaves
    /// empty (`u8::MAX` for the representative's own points).
    compressed: [u8; 32],
}

impl OrbitBlock {
    /// The slot of opponent set `them` (disjoint from the representative,
    /// of the sector's opponent stone count).
    #[inline]
    pub fn slot(&self, them: Bitboard) -> u64 {
        let mut r = 0;
        for (i, p) in Points(them).enumerate() {
            r += BINOMIAL[self.compressed[p as usize] as usize][i + 1];
        }
        self.base + r
    }

    /// Prepares the slots of `set` plus one more point, for every point:
    /// O(|set|) once, then O(1) per point ([`Extensions::slot`]). The
    /// sector's opponent stone count must be `|set| + 1`; `set` is disjoint
    /// from the representative.
    #[inline(always)]
    pub fn extensions(&self, set: Bitboard) -> Extensions<'_> {
        // For set points e_0 < e_1 < ... (compressed), a new point q with k
        // points below it ranks as sum_{i<k} C(e_i, i+1) + C(q, k+1) +
        // sum_{i>=k} C(e_i, i+2): prefix and suffix sums by k.
        let mut e = [0u8; 32];
        let mut bits = 0u32;
        let mut m = 0;
        for p in Points(set) {
            let q = self.compressed[p as usize];
            bits |= 1 << q;
            e[m] = q;
            m += 1;
        }
        // Ranks within one block are below C(32, 16) < 2^32.
        let mut rank_by_below = [0u32; 32];
        let mut prefix = 0;
        for k in 0..=m.min(31) {
            rank_by_below[k] = prefix;
            if k < m {
                prefix += BINOMIAL[e[k] as usize][k + 1] as u32;
            }
        }
        let mut suffix = 0;
        for k in (0..=m.min(31)).rev() {
            if k < m {
                suffix += BINOMIAL[e[k] as usize][k + 2] as u32;
            }
            rank_by_below[k] += suffix;
        }
        Extensions { block: self, bits, rank_by_below }
    }
}

/// The slots of one set plus one point in an [`OrbitBlock`].
#[derive(Debug, Clone)]
pub struct Extensions<'a> {
    block: &'a OrbitBlock,
    /// The set, in compressed positions.
    bits: u32,
    /// Rank in the block, less `C(q, k + 1)`, of the set plus a point `q`
    /// with `k` of the set's points below it.
    rank_by_below: [u32; 32],
}

impl Extensions<'_> {
    /// The slot of the set plus point `p` (empty: neither in the set nor in
    /// the representative).
    #[inline]
    pub fn slot(&self, p: u8) -> u64 {
        let q = self.block.compressed[p as usize] as usize;
        let k = (self.bits & ((1u32 << q) - 1)).count_ones() as usize;
        self.block.base + self.rank_by_below[k] as u64 + BINOMIAL[q][k + 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`OrbitBlock`] and its [`Extensions`] give the slots of
    /// [`SectorIndex::index_with_orbit`] for every point added, on sectors
    /// of two boards, for every orbit with a trivial stabiliser.
    #[test]
    fn orbit_block_extensions_match_index() {
        for (preset, w, b) in [("nine", 3, 4), ("nine", 5, 2), ("six", 4, 3), ("nine", 2, 3)] {
            let rules = crate::RuleSet::preset(preset).unwrap();
            let index = rules.indexer().sector(crate::Sector::sliding(w as u8, b as u8));
            let all = rules.board().all();
            let mut checked = 0;
            for o in 0..index.orbit_table().len() {
                let Some(block) = index.orbit_block(o) else { continue };
                let rep = index.orbit_table().representative(o);
                for r in (0..BINOMIAL[rules.board().len() - w][b - 1]).step_by(3) {
                    let set = expand_into_empty(rep, colex_unrank(r, b - 1), rules.board().len());
                    let ext = block.extensions(set);
                    for p in Points(all & !rep & !set) {
                        let them = set | 1 << p;
                        assert_eq!(ext.slot(p), index.index_with_orbit(o, 0, them), "{preset} {w}-{b}");
                        assert_eq!(block.slot(them), index.index(rep, them), "{preset} {w}-{b}");
                        checked += 1;
                    }
                }
            }
            assert!(checked > 100, "{preset} {w}-{b}: {checked}");
        }
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn colex_round_trip() {
        for k in 0..6 {
            for r in 0..BINOMIAL[12][k] {
                let s = colex_unrank(r, k);
                assert_eq!(s.count_ones() as usize, k);
                assert_eq!(colex_rank(s), r);
            }
        }
    }

    #[test]
    fn orbit_counts_match_published_figures() {
        // DESIGN.md and the oracle: orbits of w-sets for w = 3..9.
        let idx = Indexer::new(Arc::new(Board::twenty_four(false)));
        let expected = [158, 757, 2830, 8774, 22188, 46879, 82880];
        for (w, &e) in (3..=9).zip(expected.iter()) {
            assert_eq!(idx.orbits(w).len(), e, "w = {w}");
        }
    }
}
