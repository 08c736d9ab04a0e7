//! The symmetry-reduced index of a sector (docs/design.md, "Index").
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

/// Row offsets into [`COLEX_BYTES`]: byte `c` of a set (points `8c..8c+8`)
/// has rows `k = 0..=8c` (the number of the set's points below that byte).
const COLEX_ROW: [usize; 4] = [0, 1, 10, 27];

/// `COLEX_BYTES[(COLEX_ROW[c] + k) * 256 + byte]`: what the points of byte
/// `c` of a set add to its [`colex_rank`] when `k` points of the set lie
/// below that byte, `sum C(8c + j, k + i + 1)` over the byte's bits `j` in
/// increasing order, `i` counting from 0. Four lookups rank any 32-point set
/// (a rank is below `C(32, 16) < 2^32`, and so is every partial sum).
static COLEX_BYTES: [u32; 52 * 256] = {
    let mut t = [0u32; 52 * 256];
    let mut c = 0;
    while c < 4 {
        let mut k = 0;
        while k <= 8 * c {
            let mut byte = 0;
            while byte < 256 {
                let (mut sum, mut i, mut j) = (0u64, 0, 0);
                while j < 8 {
                    if byte >> j & 1 == 1 {
                        sum += BINOMIAL[8 * c + j][k + i + 1];
                        i += 1;
                    }
                    j += 1;
                }
                assert!(sum <= u32::MAX as u64);
                t[(COLEX_ROW[c] + k) * 256 + byte] = sum as u32;
                byte += 1;
            }
            k += 1;
        }
        c += 1;
    }
    t
};

/// A byte-wide parallel bit extract (`deposit` false) or deposit (true),
/// tabled by `mask * 256 + value`: extract packs the bits of `value` at the
/// points of `mask` to the low end in order; deposit places the low bits of
/// `value`, one per point of `mask`, on those points in order (its inverse).
const fn byte_bit_table(deposit: bool) -> [u8; 256 * 256] {
    let mut t = [0u8; 256 * 256];
    let mut mask = 0;
    while mask < 256 {
        let mut value = 0;
        while value < 256 {
            let (mut out, mut n, mut j) = (0u32, 0, 0);
            while j < 8 {
                if mask >> j & 1 == 1 {
                    let (from, to) = if deposit { (n, j) } else { (j, n) };
                    out |= ((value >> from & 1) as u32) << to;
                    n += 1;
                }
                j += 1;
            }
            t[mask * 256 + value] = out as u8;
            value += 1;
        }
        mask += 1;
    }
    t
}

/// Parallel bit extract of one byte ([`byte_bit_table`]), 64 KB.
static PEXT_BYTES: [u8; 256 * 256] = byte_bit_table(false);

/// Parallel bit deposit of one byte ([`byte_bit_table`]), 64 KB.
static PDEP_BYTES: [u8; 256 * 256] = byte_bit_table(true);

/// Colex rank of a set among the sets of the same size: `sum C(p_i, i + 1)`
/// over its points `p_0 < p_1 < ...`. Equals the set's position when all
/// sets of its size are listed in increasing numeric order. Computed a byte
/// at a time from `COLEX_BYTES`.
#[inline]
pub fn colex_rank(set: Bitboard) -> u64 {
    let b = set.to_le_bytes();
    let k1 = b[0].count_ones() as usize;
    let k2 = k1 + b[1].count_ones() as usize;
    let low = COLEX_BYTES[b[0] as usize] as u64
        + COLEX_BYTES[(COLEX_ROW[1] + k1) * 256 + b[1] as usize] as u64
        + COLEX_BYTES[(COLEX_ROW[2] + k2) * 256 + b[2] as usize] as u64;
    // Boards of at most 24 points never take this branch: they pay no
    // fourth look-up.
    if b[3] == 0 {
        return low;
    }
    let k3 = k2 + b[2].count_ones() as usize;
    low + COLEX_BYTES[(COLEX_ROW[3] + k3) * 256 + b[3] as usize] as u64
}

/// The set of size `k` whose colex rank is `rank` (inverse of [`colex_rank`]).
/// Each point is found by scanning down from the one above it, so the whole
/// set takes at most 32 + `k` steps.
pub fn colex_unrank(mut rank: u64, k: usize) -> Bitboard {
    let mut set = 0;
    let mut q = 32usize;
    for i in (1..=k).rev() {
        // The largest q with C(q, i) <= rank (C(i - 1, i) = 0 ends the scan).
        q -= 1;
        while BINOMIAL[q][i] > rank {
            q -= 1;
        }
        rank -= BINOMIAL[q][i];
        set |= 1 << q;
    }
    set
}

/// The bit of an [`OrbitTable`] entry that marks a set whose orbit's
/// representative some non-identity symmetry fixes.
const SYMMETRIC: u32 = 1 << 5;

/// The next set after `set` with as many points, in increasing (colex)
/// order (Gosper's hack); the empty set stays empty.
#[inline]
fn next_of_same_size(set: Bitboard) -> Bitboard {
    if set == 0 {
        return 0;
    }
    let c = set & set.wrapping_neg();
    let r = set.wrapping_add(c);
    (((r ^ set) >> 2) >> c.trailing_zeros()) | r
}

/// Orbits of the `w`-point sets of a board under its symmetries.
#[derive(Debug)]
pub struct OrbitTable {
    /// Per set, by colex rank: `orbit << 6 | SYMMETRIC | symmetry taking the
    /// set to the orbit's representative`, where the [`SYMMETRIC`] bit says
    /// that the representative's stabiliser is not trivial (so the common
    /// case needs neither the stabiliser nor the representatives' list).
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
                let before = stabiliser_syms.len();
                for (s, sym) in syms.iter().enumerate().skip(1) {
                    if sym.apply(set) == set {
                        stabiliser_syms.push(s as u8);
                    }
                }
                let symmetric = if stabiliser_syms.len() > before { SYMMETRIC } else { 0 };
                stabiliser_start.push(stabiliser_syms.len() as u32);
                ((representatives.len() - 1) as u32) << 6 | symmetric
            } else {
                by_colex[colex_rank(best) as usize] & !31
            };
            by_colex.push(orbit | best_sym);
            set = next_of_same_size(set);
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
        let (orbit, sym, _) = self.orbit_info(set);
        (orbit, sym)
    }

    /// [`OrbitTable::orbit_of`], and whether the orbit's representative has
    /// a non-trivial stabiliser; one memory read.
    #[inline]
    fn orbit_info(&self, set: Bitboard) -> (usize, usize, bool) {
        let packed = self.by_colex[colex_rank(set) as usize];
        ((packed >> 6) as usize, (packed & 31) as usize, packed & SYMMETRIC != 0)
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

    /// The board this index is of.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The board this index is of, shared: a rule set holds this one, so
    /// that move generation and the index read one copy of its tables.
    pub fn shared_board(&self) -> Arc<Board> {
        self.board.clone()
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
        self.index_at(self.locate(us), them)
    }

    /// Where the side to move's set `us` (`w` stones) lies in this index:
    /// one read of the orbit table. [`SectorIndex::index_at`] then ranks any
    /// opponent set against it, so a caller can look many sets up first
    /// (their reads overlap) and rank afterwards, or rank many opponent sets
    /// against one `us`.
    #[inline]
    pub fn locate(&self, us: Bitboard) -> Located {
        locate(&self.board, &self.orbits, us)
    }

    /// The slot of the position `(us, them)` where `at` is
    /// [`SectorIndex::locate`]`(us)` (same guarantees as
    /// [`SectorIndex::index`]). Reads the orbit's stabiliser only when its
    /// representative has a symmetry.
    #[inline]
    pub fn index_at(&self, at: Located, them: Bitboard) -> u64 {
        let best = smallest_image(&self.board, &self.orbits, at, them);
        at.orbit as u64 * self.opponent_sets + rank_among_empty(at.rep, best)
    }

    /// The slot of a position whose `us` is already known to be in orbit
    /// `orbit` via symmetry `sym` (lets callers reuse one orbit lookup for
    /// many opponent sets).
    #[inline]
    pub fn index_with_orbit(&self, orbit: usize, sym: usize, them: Bitboard) -> u64 {
        let symmetric = !self.orbits.stabiliser(orbit).is_empty();
        self.index_at(Located { orbit, sym, symmetric, rep: self.orbits.representative(orbit) }, them)
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
        let free = Deposit::new(self.board.all() & !rep);
        let base = orbit as u64 * self.opponent_sets;
        let mut compressed: Bitboard = if self.b == 0 { 0 } else { (1 << self.b) - 1 };
        for r in 0..self.opponent_sets {
            let them = free.apply(compressed);
            if stabiliser.iter().all(|&g| syms[g as usize].apply(them) >= them) {
                f(base + r, rep, them);
            }
            compressed = next_of_same_size(compressed);
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
        Some(OrbitBlock { base: o as u64 * self.opponent_sets, rep, compressed })
    }

    /// Whether `slot` (below [`SectorIndex::len`]) is padding: its opponent
    /// set is not the minimal one under the stabiliser of its orbit's
    /// representative. A division and two reads when the representative
    /// has no symmetry (most orbits), [`SectorIndex::position`] otherwise.
    #[inline]
    pub fn is_padding(&self, slot: u64) -> bool {
        let orbit = (slot / self.opponent_sets) as usize;
        !self.orbits.stabiliser(orbit).is_empty() && self.position(slot).is_none()
    }

    /// Calls `f(slot)` for every padding slot among `slots` (those past
    /// [`SectorIndex::len`] are ignored), in slot order: the slots where
    /// [`SectorIndex::position`] is `None`. Orbits whose representative has
    /// no symmetry are skipped whole; in the others the opponent sets are
    /// enumerated incrementally from the range's start, so a range costs
    /// a few nanoseconds a slot (for readers and writers of whole blocks).
    pub fn for_each_padding(&self, slots: std::ops::Range<u64>, mut f: impl FnMut(u64)) {
        let end = slots.end.min(self.len());
        let syms = self.board.symmetries();
        let mut slot = slots.start;
        while slot < end {
            let orbit = (slot / self.opponent_sets) as usize;
            let orbit_end = ((orbit as u64 + 1) * self.opponent_sets).min(end);
            let stabiliser = self.orbits.stabiliser(orbit);
            if !stabiliser.is_empty() {
                let free = Deposit::new(self.board.all() & !self.orbits.representative(orbit));
                let mut compressed = colex_unrank(slot % self.opponent_sets, self.b);
                for s in slot..orbit_end {
                    let them = free.apply(compressed);
                    if stabiliser.iter().any(|&g| syms[g as usize].apply(them) < them) {
                        f(s);
                    }
                    compressed = next_of_same_size(compressed);
                }
            }
            slot = orbit_end;
        }
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

/// The orbit of a side to move's set in a [`SectorIndex`], found by
/// [`SectorIndex::locate`]: the orbit's number (`0..` the orbits of `w`-point
/// sets), the symmetry taking the set to the orbit's representative, whether
/// that representative has a symmetry of its own, and the representative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Located {
    orbit: usize,
    sym: usize,
    symmetric: bool,
    rep: Bitboard,
}

impl Located {
    /// The orbit's number.
    pub fn orbit(self) -> usize {
        self.orbit
    }

    /// The symmetry (index in [`Board::symmetries`]) taking the located set
    /// to its orbit's representative; 0 is the identity.
    pub fn sym(self) -> usize {
        self.sym
    }

    /// Whether a symmetry other than the identity fixes the orbit's
    /// representative (then two opponent sets can give one position).
    pub fn symmetric(self) -> bool {
        self.symmetric
    }
}

/// Orbit, representative and smallest mapped opponent set of a position.
#[inline]
fn canonicalise(board: &Board, orbits: &OrbitTable, us: Bitboard, them: Bitboard) -> (usize, Bitboard, Bitboard) {
    let at = locate(board, orbits, us);
    (at.orbit, at.rep, smallest_image(board, orbits, at, them))
}

/// [`SectorIndex::locate`] with the board and the orbit table of `us`'s
/// stone count. When the representative has no symmetry but the identity
/// (most orbits), it is `us` mapped, and no list is read but the orbit's
/// entry.
#[inline]
fn locate(board: &Board, orbits: &OrbitTable, us: Bitboard) -> Located {
    let (orbit, sym, symmetric) = orbits.orbit_info(us);
    Located { orbit, sym, symmetric, rep: board.symmetries()[sym].apply(us) }
}

/// The smallest image of `them` under the symmetries that take the set
/// located at `at` to its representative.
#[inline]
fn smallest_image(board: &Board, orbits: &OrbitTable, at: Located, them: Bitboard) -> Bitboard {
    let syms = board.symmetries();
    let mapped = syms[at.sym].apply(them);
    if !at.symmetric {
        return mapped;
    }
    let mut best = mapped;
    for &g in orbits.stabiliser(at.orbit) {
        best = best.min(syms[g as usize].apply(mapped));
    }
    best
}

/// Colex rank of `them` after squeezing out the points of `occupied` (the
/// opponent part of a slot; Malom's files use the same): the points of
/// `them` are renumbered among the points not in `occupied`, a byte at a
/// time through `PEXT_BYTES`.
#[inline]
pub fn rank_among_empty(occupied: Bitboard, them: Bitboard) -> u64 {
    let (free, them) = ((!occupied).to_le_bytes(), them.to_le_bytes());
    let mut packed = 0u32;
    let mut shift = 0;
    for c in 0..3 {
        packed |= (PEXT_BYTES[free[c] as usize * 256 + them[c] as usize] as u32) << shift;
        shift += free[c].count_ones();
    }
    // Boards of at most 24 points never take this branch.
    if them[3] != 0 {
        packed |= (PEXT_BYTES[free[3] as usize * 256 + them[3] as usize] as u32) << shift;
    }
    colex_rank(packed)
}

/// Places the bits of `compressed` onto the points not in `occupied`, in
/// order (inverse of [`rank_among_empty`] after [`colex_unrank`]); `n` is the
/// number of points of the board (bits beyond the board's points are lost).
pub fn expand_into_empty(occupied: Bitboard, compressed: Bitboard, n: usize) -> Bitboard {
    let board = if n >= 32 { u32::MAX } else { (1 << n) - 1 };
    Deposit::new(!occupied & board).apply(compressed)
}

/// A parallel bit deposit onto a fixed set of points (`mask`): the low bits
/// of a compressed set, one per point of the mask, placed on those points
/// in order, a byte of the mask at a time through `PDEP_BYTES`. Set up once
/// per mask (the empty points of an orbit's representative), then four
/// table reads a set, with no loop over its points.
#[derive(Debug, Clone, Copy)]
struct Deposit {
    /// Per byte `c` of the mask, its row in `PDEP_BYTES` (`mask byte * 256`).
    rows: [usize; 4],
    /// Per byte, how many of the compressed set's bits the lower bytes of
    /// the mask take (at most 24, so a shift of a `u32` never overflows).
    shifts: [u32; 4],
}

impl Deposit {
    fn new(mask: Bitboard) -> Deposit {
        let bytes = mask.to_le_bytes();
        let (mut rows, mut shifts, mut below) = ([0; 4], [0; 4], 0);
        for c in 0..4 {
            rows[c] = bytes[c] as usize * 256;
            shifts[c] = below;
            below += bytes[c].count_ones();
        }
        Deposit { rows, shifts }
    }

    #[inline(always)]
    fn apply(&self, compressed: Bitboard) -> Bitboard {
        let mut out = 0u32;
        for c in 0..4 {
            let byte = (compressed >> self.shifts[c]) & 0xff;
            out |= (PDEP_BYTES[self.rows[c] + byte as usize] as u32) << (8 * c);
        }
        out
    }
}

/// The slots of one orbit block of a sector whose representative has a
/// trivial stabiliser: the opponent set is then ranked as it stands, with no
/// symmetry to apply (see [`SectorIndex::orbit_block`]).
#[derive(Debug, Clone)]
pub struct OrbitBlock {
    /// Slot of the block's first opponent set.
    base: u64,
    /// The representative: the points the opponent sets are ranked without.
    rep: Bitboard,
    /// Per point, its position among the points the representative leaves
    /// empty (`u8::MAX` for the representative's own points).
    compressed: [u8; 32],
}

impl OrbitBlock {
    /// The slot of the block's first opponent set: the block's slots are
    /// this one and the [`SectorIndex::opponent_sets`] after it, in the
    /// colex order of the opponent sets.
    #[inline]
    pub fn first(&self) -> u64 {
        self.base
    }

    /// The slot of opponent set `them` (disjoint from the representative,
    /// of the sector's opponent stone count).
    #[inline]
    pub fn slot(&self, them: Bitboard) -> u64 {
        self.base + rank_among_empty(self.rep, them)
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

    /// Prepares the slots of `set` with one of its points moved to another
    /// point (a slide or flight of the opponent, un-done): O(|set|) once,
    /// then O(1) per move ([`Exchanges::slot`]). `set` is disjoint from the
    /// representative and of the sector's opponent stone count (at most 30
    /// points, which every board of at most 32 points meets with a stone to
    /// move).
    #[inline(always)]
    pub fn exchanges(&self, set: Bitboard) -> Exchanges<'_> {
        // For set points e_0 < e_1 < ... (compressed), prefix sums of the
        // terms each point adds to the colex rank at its own place, one
        // place higher and one place lower (Exchanges::slot). Ranks in a
        // block are below 2^32, so sums taken modulo 2^32 give them exactly.
        let (mut at, mut shifted) = ([0u32; 32], [[0u32; 32]; 2]);
        let (mut bits, mut i) = (0u32, 0usize);
        let (mut here, mut up, mut down) = (0u32, 0u32, 0u32);
        for p in Points(set) {
            let q = self.compressed[p as usize & 31] as usize & 31;
            bits |= 1 << q;
            let row = &BINOMIAL[q];
            here = here.wrapping_add(row[(i + 1) & 31] as u32);
            down = down.wrapping_add(row[i & 31] as u32);
            up = up.wrapping_add(row[(i + 2).min(32)] as u32);
            i = (i + 1).min(31);
            (at[i], shifted[0][i], shifted[1][i]) = (here, up, down);
        }
        Exchanges { block: self, bits, points: i, at, shifted }
    }
}

/// The slots of one set with one point moved, in an [`OrbitBlock`]
/// ([`OrbitBlock::exchanges`]).
#[derive(Debug, Clone)]
pub struct Exchanges<'a> {
    block: &'a OrbitBlock,
    /// The set, in compressed positions.
    bits: u32,
    /// The number of its points.
    points: usize,
    /// `at[i]`: the sum of `C(e_t, t + 1)` over the set's `i` lowest
    /// points `e_t` (compressed): their part of the set's colex rank
    /// (modulo 2^32).
    at: [u32; 32],
    /// The same with each point one place higher, `C(e_t, t + 2)`
    /// (`shifted[0]`), and one place lower, `C(e_t, t)` (`shifted[1]`).
    shifted: [[u32; 32]; 2],
}

impl Exchanges<'_> {
    /// The slot of the set with its point `from` moved to point `to`
    /// (`to` empty: neither in the set nor in the representative).
    #[inline(always)]
    pub fn slot(&self, from: u8, to: u8) -> u64 {
        let compressed = &self.block.compressed;
        let (f, t) = (compressed[from as usize & 31] as u32 & 31, compressed[to as usize & 31] as u32 & 31);
        // j: the place of the point leaving; k: the set's points below the
        // point arriving.
        let j = (self.bits & ((1u32 << f) - 1)).count_ones() as usize;
        let k = (self.bits & ((1u32 << t) - 1)).count_ones() as usize;
        // Arriving below the leaving point (`later` 0), the set's points
        // k..j move one place up to make room; above it (1), points
        // j+1..k move one place down into the leaving point's. Chosen
        // without a branch: either is as likely.
        let later = usize::from(t > f);
        let (head, rest, moved_to, moved_from) = if later == 1 { (j, k, k, j + 1) } else { (k, j + 1, j, k) };
        let moved = &self.shifted[later];
        let at = &self.at;
        let rank = at[head & 31]
            .wrapping_add(moved[moved_to & 31].wrapping_sub(moved[moved_from & 31]))
            .wrapping_add(BINOMIAL[t as usize][(k + 1 - later) & 31] as u32)
            .wrapping_add(at[self.points & 31].wrapping_sub(at[rest & 31]));
        self.block.base + u64::from(rank)
    }
}

/// 32-bit values kept per opponent set of one [`OrbitBlock`], by the set's
/// rank in the block (its slot less [`OrbitBlock::first`]): for work that
/// the positions of one orbit walk share, found the first time a position
/// asks and read back by the others (the verifier's and the placement
/// solver's captures after a mill). Emptied with [`BlockMemo::reset`] for
/// each block; a value is the caller's own encoding, and
/// [`BlockMemo::UNKNOWN`] is never kept.
#[derive(Debug, Clone, Default)]
pub struct BlockMemo {
    cells: Vec<u32>,
}

impl BlockMemo {
    /// A cell not found yet: a value equal to it is returned but not kept.
    pub const UNKNOWN: u32 = u32::MAX;

    /// Empties the memo for a block of `len` sets (its sector's
    /// [`SectorIndex::opponent_sets`]).
    pub fn reset(&mut self, len: usize) {
        self.cells.clear();
        self.cells.resize(len, Self::UNKNOWN);
    }

    /// The value of the set of rank `at`, found by `find` the first time
    /// and kept; `None` when `at` lies outside the block or `find` fails
    /// (nothing is kept then).
    #[inline(always)]
    pub fn get(&mut self, at: u64, find: impl FnOnce() -> Option<u32>) -> Option<u32> {
        let cell = self.cells.get_mut(usize::try_from(at).ok()?)?;
        if *cell == Self::UNKNOWN {
            // A value found equal to `UNKNOWN` leaves the cell unknown.
            *cell = find()?;
        }
        Some(*cell)
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
    #[inline(always)]
    pub fn slot(&self, p: u8) -> u64 {
        let q = self.block.compressed[p as usize] as usize;
        let k = (self.bits & ((1u32 << q) - 1)).count_ones() as usize;
        self.block.base + self.rank_by_below[k] as u64 + BINOMIAL[q][k + 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`SectorIndex::for_each_in_orbit`] visits exactly the slots that
    /// [`SectorIndex::position`] decodes, in slot order, with the same
    /// stones: orbits with and without symmetric representatives, on the
    /// 24-point board with and without diagonals, the 17-point and the
    /// 25-point board (a side to move with no stone: 25 free points).
    #[test]
    fn orbit_walk_visits_the_positions_that_slots_decode_to() {
        for (preset, sectors) in [
            ("nine", vec![(3, 3), (4, 2), (2, 9), (8, 1), (0, 5)]),
            ("nine-diagonal", vec![(3, 4)]),
            ("seven", vec![(4, 5), (2, 3)]),
            ("sesotho", vec![(2, 3), (1, 12), (0, 3)]),
        ] {
            let rules = crate::RuleSet::preset(preset).unwrap();
            for (w, b) in sectors {
                let index = rules.indexer().sector(crate::Sector { w, b, wh: 0, bh: 0 });
                let (mut walked, mut decoded) = (0u64, 0u64);
                for orbit in 0..index.orbit_table().len() {
                    let mut seen = Vec::new();
                    index.for_each_in_orbit(orbit, |slot, us, them| seen.push((slot, us, them)));
                    assert!(seen.windows(2).all(|p| p[0].0 < p[1].0), "{preset} {w}-{b}: in slot order");
                    let base = orbit as u64 * index.opponent_sets();
                    let expected: Vec<_> = (base..base + index.opponent_sets())
                        .filter_map(|slot| index.position(slot).map(|(us, them)| (slot, us, them)))
                        .collect();
                    assert_eq!(seen, expected, "{preset} {w}-{b}: orbit {orbit}");
                    walked += seen.len() as u64;
                    decoded += expected.len() as u64;
                }
                assert!(walked > 0 && walked == decoded, "{preset} {w}-{b}");
            }
        }
    }

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

    /// [`Exchanges`] gives the slot that [`OrbitBlock::slot`] ranks for
    /// every point of a set moved to every empty point, on sectors of three
    /// boards (a sparse and a dense opponent), for every orbit with a
    /// trivial stabiliser.
    #[test]
    fn orbit_block_exchanges_match_the_rank() {
        for (preset, w, b) in [("nine", 3, 4), ("nine", 7, 9), ("nine", 4, 3), ("six", 4, 3), ("sesotho", 2, 12)] {
            let rules = crate::RuleSet::preset(preset).unwrap();
            let index = rules.indexer().sector(crate::Sector::sliding(w as u8, b as u8));
            let all = rules.board().all();
            let mut checked = 0;
            for o in (0..index.orbit_table().len()).step_by(7) {
                let Some(block) = index.orbit_block(o) else { continue };
                let rep = index.orbit_table().representative(o);
                for r in (0..BINOMIAL[rules.board().len() - w][b]).step_by(97) {
                    let set = expand_into_empty(rep, colex_unrank(r, b), rules.board().len());
                    let exchanges = block.exchanges(set);
                    for from in Points(set) {
                        for to in Points(all & !rep & !set) {
                            let moved = set ^ 1 << from ^ 1 << to;
                            assert_eq!(exchanges.slot(from, to), block.slot(moved), "{preset} {w}-{b} {set:#x}");
                            checked += 1;
                        }
                    }
                }
            }
            assert!(checked > 1000, "{preset} {w}-{b}: {checked}");
        }
    }

    /// The byte tables agree with the definitions point by point: the colex
    /// rank `sum C(p_i, i + 1)`, the rank among the empty points with each
    /// point renumbered by the occupied points below it, and its inverse, on
    /// sets of every size spread over all 32 bits.
    #[test]
    fn byte_tables_match_the_definitions() {
        let slow_rank = |set: Bitboard| Points(set).enumerate().map(|(i, p)| BINOMIAL[p as usize][i + 1]).sum::<u64>();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for round in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Sparse and dense sets alike: AND or OR of two random words.
            let (a, b) = (x as u32, (x >> 32) as u32);
            let set = if round % 2 == 0 { a & b } else { a | b };
            assert_eq!(colex_rank(set), slow_rank(set), "{set:#x}");
            assert_eq!(colex_unrank(slow_rank(set), set.count_ones() as usize), set, "{set:#x}");
            let occupied = (x >> 16) as u32 & (x >> 40) as u32 & !set;
            let slow = Points(set)
                .enumerate()
                .map(|(i, p)| BINOMIAL[p as usize - (occupied & ((1u32 << p) - 1)).count_ones() as usize][i + 1])
                .sum::<u64>();
            assert_eq!(rank_among_empty(occupied, set), slow, "{occupied:#x} {set:#x}");
            let compressed = colex_unrank(slow, set.count_ones() as usize);
            assert_eq!(expand_into_empty(occupied, compressed, 32), set, "{occupied:#x} {set:#x}");
            let board = set | occupied;
            let n = 32 - board.leading_zeros() as usize;
            assert_eq!(expand_into_empty(occupied, compressed, n), set, "{occupied:#x} {set:#x} on {n} points");
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
        // docs/design.md and the oracle: orbits of w-sets for w = 3..9.
        let idx = Indexer::new(Arc::new(Board::twenty_four(false)));
        let expected = [158, 757, 2830, 8774, 22188, 46879, 82880];
        for (w, &e) in (3..=9).zip(expected.iter()) {
            assert_eq!(idx.orbits(w).len(), e, "w = {w}");
        }
    }

    /// `for_each_padding` names exactly the slots `position` calls padding,
    /// over whole sectors and over ranges that start and end inside orbits.
    #[test]
    fn for_each_padding_agrees_with_position() {
        let idx = Indexer::new(Arc::new(Board::twenty_four(false)));
        for (w, b) in [(3, 3), (4, 2), (2, 5), (8, 1), (0, 3), (3, 0)] {
            let s = idx.sector(crate::Sector::sliding(w, b));
            let expected: Vec<u64> = (0..s.len()).filter(|&slot| s.position(slot).is_none()).collect();
            let mut found = Vec::new();
            s.for_each_padding(0..s.len() + 5, |slot| found.push(slot));
            assert_eq!(found, expected, "{w}-{b}");
            assert!(b == 0 || !expected.is_empty(), "{w}-{b}");
            let (from, to) = (s.opponent_sets() / 2 + 1, s.len() - s.opponent_sets() / 3);
            let mut part = Vec::new();
            s.for_each_padding(from..to, |slot| part.push(slot));
            let within: Vec<u64> = expected.iter().copied().filter(|x| (from..to).contains(x)).collect();
            assert_eq!(part, within, "{w}-{b} from {from} to {to}");
            assert!(found.iter().all(|&slot| s.is_padding(slot)));
        }
    }
}
