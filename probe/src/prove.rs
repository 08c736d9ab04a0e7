//! A second, independent way to the value of a position with stones in
//! hand: alpha-beta search over the placement phase with the sliding
//! tables at its leaves (Gasser 1996 proved Nine Men's Morris a draw this
//! way, with an 18-ply search from the empty board). It proves win, loss or
//! draw (no DTM), and needs no placement tables.
//!
//! The leaves come from the DTM tables of a [`Database`] or, much lighter
//! on memory, from the WDL files of a [`WdlDatabase`]
//! ([`SearchOptions::wdl`]): the leaves of an 18-ply search touch all 49
//! sliding sectors at random, and their WDL files (1.9 GB for Nine Men's
//! Morris) stay in the page cache where the DTM tables (19 GB) do not.
//!
//! The transposition table ([`TranspositionTable`]) is keyed by canonical
//! position (sector and index), so symmetric positions share one entry; it
//! stores bounds, since alpha-beta cut-offs give only bounds, and the best
//! move found (in the canonical position's coordinates), which is tried
//! first when the position comes again. It has a fixed size: when full,
//! entries near the leaves give way to entries nearer the root; values stay
//! exact, only work grows. Several threads may share one table
//! ([`prove_parallel`]); they then spread over the tree by deferring moves
//! another thread is searching (ABDADA, Weill 1996).
//!
//! Move order (the move of the transposition table, then mills, then blocks
//! of the opponent's open mills, each by a history of cut-offs) and enhanced
//! transposition cut-offs change the work, never the value.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use morris_db::index::rank_among_empty;
use morris_db::moves::{apply_move, for_each_move};
use morris_db::symmetry::SymmetryGroup;
use morris_db::wdl::Wdl;
use morris_db::{Bitboard, Color, Move, Position, RuleSet, Sector, SectorIndex};

use crate::tables::{read_wdl, Answer, WdlSlots};
use crate::wdl::WdlDatabase;
use crate::{Database, ProbeError};

/// Win (+1), draw (0) or loss (-1) for the side to move: the search's
/// own scale (alpha-beta bounds); the public answer is a [`Wdl`].
type Score = i8;

/// The [`Wdl`] of a search score.
fn to_wdl(s: Score) -> Wdl {
    match s.signum() {
        1 => Wdl::Win,
        -1 => Wdl::Loss,
        _ => Wdl::Draw,
    }
}

/// Size of the transposition table a [`Prover`] makes for itself when
/// [`SearchOptions::transpositions`] gives none, in MiB.
pub const DEFAULT_TABLE_MIB: usize = 16;

/// Nodes with at least this many stones in hand (plies to the leaves) try
/// the transposition table on every child before searching any.
const ETC_DEPTH: u8 = 2;

/// Nodes with at least this many plies to the leaves are shared out among
/// the threads of [`prove_parallel`].
const SHARE_DEPTH: u8 = 5;

/// How to search.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Use placement tables at the leaves where they exist (else only
    /// sliding tables; placement positions are always searched). Reads the
    /// DTM [`Database`] only.
    pub use_placement_tables: bool,
    /// Order moves (the transposition table's move, mills, blocks of the
    /// opponent's open mills, history of cut-offs); off: generation order.
    pub move_ordering: bool,
    /// Counts positions searched as the search goes, for progress display
    /// from another thread (shared by every searcher given the same one).
    pub progress: Option<Arc<AtomicU64>>,
    /// Read the sliding positions at the leaves from these WDL files
    /// instead of the DTM tables (same values, an eighth of the memory).
    pub wdl: Option<Arc<WdlDatabase>>,
    /// The transposition table, possibly shared with other searchers; a
    /// [`Prover`] given none makes its own of [`DEFAULT_TABLE_MIB`].
    pub transpositions: Option<Arc<TranspositionTable>>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            use_placement_tables: false,
            move_ordering: true,
            progress: None,
            wdl: None,
            transpositions: None,
        }
    }
}

/// Work done by a search.
#[derive(Debug, Clone, Default)]
pub struct SearchStats {
    /// Positions searched (interior nodes).
    pub nodes: u64,
    /// Interior nodes by plies to the leaves (stones in hand of both sides
    /// together): `nodes_by_depth[d]`.
    pub nodes_by_depth: Vec<u64>,
    /// Leaves answered by a table.
    pub table_probes: u64,
    /// Entries in the transposition table at the end.
    pub transpositions: usize,
    /// Wall time, seconds.
    pub seconds: f64,
}

impl SearchStats {
    /// Adds the counts of `other` (nodes, probes, nodes by depth).
    pub fn add(&mut self, other: &SearchStats) {
        self.nodes += other.nodes;
        self.table_probes += other.table_probes;
        if self.nodes_by_depth.len() < other.nodes_by_depth.len() {
            self.nodes_by_depth.resize(other.nodes_by_depth.len(), 0);
        }
        for (a, b) in self.nodes_by_depth.iter_mut().zip(&other.nodes_by_depth) {
            *a += b;
        }
    }
}

/// Bits of a table key: 16 for the sector (4 per count), 34 for the index.
const KEY_BITS: u32 = 50;
const INDEX_BITS: u32 = 34;
/// Bits of an entry's data; the rest of the 64-bit word is the key's tag.
const DATA_BITS: u32 = 20;
/// Entries per bucket (one cache line).
const WAYS: usize = 8;
/// Fewest buckets: the tag (key bits above the bucket number) must fit in
/// the 44 bits beside the data.
const MIN_BUCKET_BITS: u32 = KEY_BITS - (64 - DATA_BITS);
const BUSY_BITS: u32 = 16;
const NO_POINT: u8 = 31;

/// A transposition table of fixed size, safe to share between threads:
/// each entry is one atomic 64-bit word holding the position's key (its
/// canonical sector and index; part of it given by the bucket) and its
/// data (bounds on the value, the best move in canonical coordinates, the
/// plies to the leaves), so an entry is never read half written. A full
/// bucket gives the place of its entry nearest the leaves.
pub struct TranspositionTable {
    words: Vec<AtomicU64>,
    bucket_bits: u32,
    /// Keys of the positions threads are searching now (ABDADA), plus one.
    busy: Vec<AtomicU64>,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranspositionTable").field("entries", &self.words.len()).finish()
    }
}

/// What an entry says about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    lower: i8,
    upper: i8,
    /// Best move (point placed, point removed or [`NO_POINT`]) in canonical
    /// coordinates, [`NO_POINT`] as `to` when none.
    to: u8,
    removal: u8,
    depth: u8,
}

impl Entry {
    fn encode(self) -> u64 {
        1 | ((self.lower + 1) as u64) << 1
            | ((self.upper + 1) as u64) << 3
            | (self.to as u64) << 5
            | (self.removal as u64) << 10
            | (self.depth.min(31) as u64) << 15
    }

    fn decode(data: u64) -> Entry {
        Entry {
            lower: ((data >> 1) & 3) as i8 - 1,
            upper: ((data >> 3) & 3) as i8 - 1,
            to: ((data >> 5) & 31) as u8,
            removal: ((data >> 10) & 31) as u8,
            depth: ((data >> 15) & 31) as u8,
        }
    }
}

/// A bijection of the 50-bit keys (multiplications by odd numbers and
/// xor-shifts, modulo 2^50), so that the bucket (low bits) and the tag
/// (high bits) together give back the key.
#[inline]
fn mix(key: u64) -> u64 {
    const MASK: u64 = (1 << KEY_BITS) - 1;
    let mut x = key & MASK;
    x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15) & MASK;
    x ^= x >> 24;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9) & MASK;
    x ^= x >> 27;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB) & MASK;
    x ^ (x >> 25)
}

impl TranspositionTable {
    /// A table of about `mib` MiB (rounded down to a power of two): 8 bytes
    /// per entry.
    ///
    /// # Panics
    /// When the memory cannot be allocated (the process aborts); a size
    /// given by a user goes through [`TranspositionTable::try_new`].
    pub fn new(mib: usize) -> TranspositionTable {
        TranspositionTable::with_entries(mib.saturating_mul(1 << 17))
    }

    /// A table of about `mib` MiB, as [`TranspositionTable::new`].
    ///
    /// # Errors
    /// When the memory cannot be allocated.
    pub fn try_new(mib: usize) -> Result<TranspositionTable, std::collections::TryReserveError> {
        TranspositionTable::try_with_entries(mib.saturating_mul(1 << 17))
    }

    /// A table of about `entries` entries (rounded down to a power of two,
    /// at least 512).
    ///
    /// # Panics
    /// As [`TranspositionTable::new`].
    pub fn with_entries(entries: usize) -> TranspositionTable {
        // Sizes here are fixed in code (DEFAULT_TABLE_MIB, tests); sizes a user gives go through `try_new`.
        let table = TranspositionTable::try_with_entries(entries);
        table.expect("cannot allocate the transposition table") // ok: sizes from code
    }

    fn try_with_entries(entries: usize) -> Result<TranspositionTable, std::collections::TryReserveError> {
        let buckets = entries / WAYS;
        let bucket_bits = (usize::BITS - 1 - buckets.max(1).leading_zeros()).max(MIN_BUCKET_BITS);
        let len = WAYS.checked_shl(bucket_bits).filter(|&n| n >> bucket_bits == WAYS).unwrap_or(usize::MAX);
        // Ask for the memory fallibly first, then build the table as before:
        // a vector of zeros collected from an iterator, which the allocator
        // hands out as zeroed pages that are only touched when used (a 1 GiB
        // table for a small search stays small in memory, and costs no time
        // to clear).
        Vec::<AtomicU64>::new().try_reserve_exact(len)?;
        Ok(TranspositionTable {
            words: (0..len).map(|_| AtomicU64::new(0)).collect(),
            bucket_bits,
            busy: (0..1usize << BUSY_BITS).map(|_| AtomicU64::new(0)).collect(),
        })
    }

    /// Entries the table holds at most.
    pub fn capacity(&self) -> usize {
        self.words.len()
    }

    /// Entries in use (counts the whole table).
    pub fn occupied(&self) -> usize {
        self.words.iter().filter(|w| w.load(Ordering::Relaxed) != 0).count()
    }

    /// Empties the table.
    pub fn clear(&self) {
        for w in &self.words {
            w.store(0, Ordering::Relaxed);
        }
    }

    #[inline]
    fn place(&self, key: u64) -> (usize, u64) {
        let m = mix(key);
        (((m & ((1 << self.bucket_bits) - 1)) as usize) * WAYS, m >> self.bucket_bits)
    }

    #[inline]
    fn probe(&self, key: u64) -> Option<Entry> {
        let (start, tag) = self.place(key);
        self.words[start..start + WAYS].iter().find_map(|w| {
            let w = w.load(Ordering::Relaxed);
            (w != 0 && w >> DATA_BITS == tag).then(|| Entry::decode(w & ((1 << DATA_BITS) - 1)))
        })
    }

    #[inline]
    fn store(&self, key: u64, entry: Entry) {
        let (start, tag) = self.place(key);
        let bucket = &self.words[start..start + WAYS];
        let word = tag << DATA_BITS | entry.encode();
        let mut victim = 0;
        let mut victim_depth = u8::MAX;
        for (i, w) in bucket.iter().enumerate() {
            let old = w.load(Ordering::Relaxed);
            if old == 0 || old >> DATA_BITS == tag {
                victim = i;
                break;
            }
            let d = Entry::decode(old).depth;
            if d < victim_depth {
                victim = i;
                victim_depth = d;
            }
        }
        bucket[victim].store(word, Ordering::Relaxed);
    }

    #[inline]
    fn busy_slot(&self, key: u64) -> &AtomicU64 {
        &self.busy[(mix(key) >> (KEY_BITS - BUSY_BITS)) as usize]
    }

    /// Marks `key` as being searched; false when the mark's place is taken.
    fn mark_busy(&self, key: u64) -> bool {
        self.busy_slot(key).compare_exchange(0, key + 1, Ordering::Relaxed, Ordering::Relaxed).is_ok()
    }

    fn unmark_busy(&self, key: u64) {
        let _ = self.busy_slot(key).compare_exchange(key + 1, 0, Ordering::Relaxed, Ordering::Relaxed);
    }

    fn is_busy(&self, key: u64) -> bool {
        self.busy_slot(key).load(Ordering::Relaxed) == key + 1
    }
}

/// Why a search ended without a value.
enum Abort {
    Probe(ProbeError),
    /// Another thread of [`prove_parallel`] finished first.
    Stopped,
}

impl From<ProbeError> for Abort {
    fn from(e: ProbeError) -> Abort {
        Abort::Probe(e)
    }
}

/// One sector's index (by stones on the board) and, once used, its sliding
/// table.
struct SectorSlot {
    index: SectorIndex,
    leaf: Option<Arc<dyn WdlSlots>>,
}

/// An alpha-beta searcher over one database; keeps its transposition table
/// between calls, so proving many positions shares work.
///
/// ```
/// use morris_db::{Position, RuleSet};
/// use morris_probe::prove::{Prover, SearchOptions};
/// use morris_probe::{Database, Wdl};
///
/// // Three Men's Morris: only its sliding tables, solved here.
/// let rules = RuleSet::preset("three")?;
/// let dir = tempfile::tempdir()?;
/// let options = morris_solver::SolveOptions { max_stones: 6, progress: false };
/// morris_solver::solve_sliding(&rules, dir.path(), &options)?;
///
/// let db = Database::open(dir.path(), rules)?;
/// let mut prover = Prover::new(&db, SearchOptions::default());
/// // The placement phase is searched; the first player wins.
/// assert_eq!(prover.prove(&Position::start(db.rules()))?, Wdl::Win);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Prover<'a> {
    db: &'a Database,
    options: SearchOptions,
    tt: Arc<TranspositionTable>,
    /// By `w * stride + b`.
    sectors: Vec<Option<SectorSlot>>,
    stride: usize,
    placement: HashMap<Sector, Option<Arc<crate::DtmFile>>>,
    /// How the board's symmetries compose and invert.
    group: SymmetryGroup,
    /// Move lists by ply from the root, reused.
    moves: Vec<Vec<(i32, Move)>>,
    /// Cut-offs by (point placed, point removed or 24+).
    history: Vec<u32>,
    stats: SearchStats,
    stop: Option<Arc<AtomicBool>>,
    /// Children's keys of the node being searched, reused.
    keys: Vec<(Option<u64>, usize)>,
    /// Defer moves other threads are searching (set by [`prove_parallel`]).
    share: bool,
}

/// The search's value of an answer of any table: +1, 0 or -1.
#[inline]
pub(crate) fn signed<A: Answer>(v: A) -> Score {
    v.wdl().signum() as Score
}

impl<'a> Prover<'a> {
    /// A searcher reading `db`'s tables (or, with [`SearchOptions::wdl`],
    /// WDL files at the leaves).
    pub fn new(db: &'a Database, options: SearchOptions) -> Prover<'a> {
        let tt = options.transpositions.clone().unwrap_or_else(|| Arc::new(TranspositionTable::new(DEFAULT_TABLE_MIB)));
        let board = db.rules().board();
        let group = board.symmetry_group().clone();
        let stride = board.len() + 1;
        Prover {
            db,
            options,
            tt,
            sectors: (0..stride * stride).map(|_| None).collect(),
            stride,
            placement: HashMap::new(),
            group,
            moves: Vec::new(),
            history: vec![0; 32 * 33],
            stats: SearchStats::default(),
            stop: None,
            keys: Vec::new(),
            share: false,
        }
    }

    /// The work done so far (counts the transposition table's entries).
    pub fn stats(&self) -> SearchStats {
        SearchStats { transpositions: self.tt.occupied(), ..self.stats.clone() }
    }

    /// Proves the value of `pos` (win, draw or loss for the side to move).
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] / [`ProbeError::Unreachable`] as
    /// [`Database::value`]; [`ProbeError::MissingTable`] when a sliding
    /// table the search reaches is missing; [`ProbeError::Table`] for a
    /// damaged one; [`ProbeError::Unsupported`] for the Lasker rule.
    pub fn prove(&mut self, pos: &Position) -> Result<Wdl, ProbeError> {
        match self.prove_inner(pos) {
            Ok(v) => Ok(to_wdl(v)),
            Err(Abort::Probe(e)) => Err(e),
            Err(Abort::Stopped) => Err(ProbeError::Unsupported("a search stopped from outside".to_string())),
        }
    }

    fn prove_inner(&mut self, pos: &Position) -> Result<Score, Abort> {
        let rules = self.db.rules();
        crate::tables::check_board(rules, pos)?;
        if rules.lasker() {
            return Err(ProbeError::Unsupported("search under the Lasker rule".to_string()).into());
        }
        if pos.them().count_ones() + (pos.them_in_hand() as u32) < 3 {
            // Same answer as the tables give.
            return Ok(self.db.value(pos).map(signed)?);
        }
        let start = Instant::now();
        let (us, them, uh, th) = (pos.us(), pos.them(), pos.us_in_hand(), pos.them_in_hand());
        let v = match self.immediate(us, them, uh, th)? {
            Some(v) => v,
            None => {
                let known = self.key(us, them, uh, th);
                self.search(us, them, uh, th, -1, 1, 0, known)?
            }
        };
        self.stats.seconds += start.elapsed().as_secs_f64();
        Ok(v)
    }

    /// The sector slot of `w-b`, its index built on first use.
    #[inline]
    fn slot(&mut self, w: usize, b: usize) -> &mut SectorSlot {
        let i = w * self.stride + b;
        let rules = self.db.rules();
        self.sectors[i].get_or_insert_with(|| SectorSlot {
            index: rules.indexer().sector(Sector::sliding(w as u8, b as u8)),
            leaf: None,
        })
    }

    /// The value of a sliding position from its table.
    #[inline]
    fn leaf(&mut self, us: Bitboard, them: Bitboard) -> Result<Score, ProbeError> {
        let (w, b) = (us.count_ones() as usize, them.count_ones() as usize);
        let (db, wdl_db) = (self.db, self.options.wdl.clone());
        let slot = self.slot(w, b);
        let index = slot.index.index(us, them);
        let leaf = match &mut slot.leaf {
            Some(leaf) => leaf,
            empty => {
                let sector = Sector::sliding(w as u8, b as u8);
                let file: Arc<dyn WdlSlots> = match &wdl_db {
                    Some(wdl) => wdl.table(sector)?,
                    None => db.table(sector)?,
                };
                empty.insert(file)
            }
        };
        if leaf.derived() {
            // A single-sided stub (DTM or WDL): one more ply, into the
            // files kept.
            let pos = Position::from_sector(Sector::sliding(w as u8, b as u8), Color::White, us, them);
            self.stats.table_probes += 1;
            return Ok(match &wdl_db {
                Some(wdl) => signed(wdl.searched_value(&pos)?),
                None => signed(db.searched_value(&pos)?),
            });
        }
        let v = signed(read_wdl(&**leaf, index)?);
        self.stats.table_probes += 1;
        Ok(v)
    }

    /// The value of a position that needs no search: the side to move is
    /// down to two stones, or the opponent has a line (Three Men's Morris),
    /// or both hands are empty (a sliding table answers). `None` otherwise.
    #[inline]
    fn immediate(&mut self, us: Bitboard, them: Bitboard, uh: u8, th: u8) -> Result<Option<Score>, ProbeError> {
        let rules = self.db.rules();
        if us.count_ones() + uh as u32 <= 2 {
            // Decided: lost, or won under misère.
            return Ok(Some(signed(rules.decided_value())));
        }
        if rules.line_wins() && rules.has_line(them) {
            return Ok(Some(-1));
        }
        if uh == 0 && th == 0 {
            return self.leaf(us, them).map(Some);
        }
        Ok(None)
    }

    /// The transposition key of a placement position and the symmetry that
    /// takes it to its canonical form; no key when the counts do not fit.
    #[inline]
    fn key(&mut self, us: Bitboard, them: Bitboard, uh: u8, th: u8) -> (Option<u64>, usize) {
        let (w, b) = (us.count_ones() as usize, them.count_ones() as usize);
        let syms = self.db.rules().board().symmetries();
        let index = &self.slot(w, b).index;
        let orbits = index.orbit_table();
        let (orbit, s) = orbits.orbit_of(us);
        let mapped = syms[s].apply(them);
        let (mut best, mut g_best) = (mapped, 0usize);
        for &g in orbits.stabiliser(orbit) {
            let m = syms[g as usize].apply(mapped);
            if m < best {
                best = m;
                g_best = g as usize;
            }
        }
        let slot = orbit as u64 * index.opponent_sets() + rank_among_empty(orbits.representative(orbit), best);
        debug_assert_eq!(slot, index.index(us, them));
        let sym = self.group.compose(g_best, s) as usize;
        if w > 15 || b > 15 || uh > 15 || th > 15 || slot >= 1 << INDEX_BITS {
            return (None, sym);
        }
        let sector = (w as u64) << 12 | (b as u64) << 8 | (uh as u64) << 4 | th as u64;
        (Some(sector << INDEX_BITS | slot), sym)
    }

    fn count_node(&mut self, depth: u8) -> Result<(), Abort> {
        self.stats.nodes += 1;
        let d = depth as usize;
        if self.stats.nodes_by_depth.len() <= d {
            self.stats.nodes_by_depth.resize(d + 1, 0);
        }
        self.stats.nodes_by_depth[d] += 1;
        if self.stats.nodes & 4095 == 0 {
            if let Some(p) = &self.options.progress {
                p.fetch_add(4096, Ordering::Relaxed);
            }
            if self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Err(Abort::Stopped);
            }
        }
        Ok(())
    }

    fn placement_value(&mut self, sector: Sector, us: Bitboard, them: Bitboard) -> Result<Option<Score>, ProbeError> {
        let table = match self.placement.get(&sector) {
            Some(t) => t.clone(),
            None => {
                let t = match self.db.table(sector) {
                    // A single-sided stub holds no value: searched as if missing.
                    Ok(t) if t.stored().is_none() => None,
                    Ok(t) => Some(t),
                    Err(ProbeError::MissingTable { .. }) => None,
                    Err(e) => return Err(e),
                };
                self.placement.insert(sector, t.clone());
                t
            }
        };
        let Some(table) = table else { return Ok(None) };
        self.stats.table_probes += 1;
        let index = self.slot(sector.w as usize, sector.b as usize).index.index(us, them);
        read_wdl(&*table, index).map(|v| Some(signed(v)))
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        us: Bitboard,
        them: Bitboard,
        uh: u8,
        th: u8,
        mut alpha: Score,
        mut beta: Score,
        ply: usize,
        (key, sym): (Option<u64>, usize),
    ) -> Result<Score, Abort> {
        let rules = self.db.rules();
        let depth = uh + th;
        self.count_node(depth)?;
        if self.options.use_placement_tables {
            let sector = Sector { w: us.count_ones() as u8, b: them.count_ones() as u8, wh: uh, bh: th };
            if let Some(v) = self.placement_value(sector, us, them)? {
                return Ok(v);
            }
        }
        let syms = rules.board().symmetries();
        let mut tt_move = None;
        if let Some(e) = key.and_then(|k| self.tt.probe(k)) {
            if e.lower >= beta || e.lower == e.upper {
                return Ok(e.lower);
            }
            if e.upper <= alpha {
                return Ok(e.upper);
            }
            alpha = alpha.max(e.lower);
            beta = beta.min(e.upper);
            if e.to != NO_POINT {
                let back = &syms[self.group.inverse(sym) as usize];
                let removal = (e.removal != NO_POINT).then(|| back.point(e.removal));
                tt_move = Some((back.point(e.to), removal));
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        if self.moves.len() <= ply {
            self.moves.resize_with(ply + 1, Vec::new);
        }
        let mut moves = std::mem::take(&mut self.moves[ply]);
        moves.clear();
        if self.options.move_ordering {
            let order = MoveOrder::new(rules, us, them);
            let history = &self.history;
            for_each_move(rules, us, them, uh, |mv, after| {
                let score = if tt_move == Some((mv.to, mv.removal)) {
                    i32::MAX
                } else {
                    order.score(rules, &mv, after, history[history_index(&mv)])
                };
                moves.push((score, mv));
            });
            // Stable: ties keep generation order.
            moves.sort_by_key(|m| std::cmp::Reverse(m.0));
        } else {
            for_each_move(rules, us, them, uh, |mv, _| moves.push((0, mv)));
        }
        if moves.is_empty() {
            self.moves[ply] = moves;
            return Ok(signed(rules.no_move_value(us, them)));
        }
        let marked = key.filter(|&k| self.share && depth >= SHARE_DEPTH && self.tt.mark_busy(k));
        let result = self.search_moves(us, them, uh, th, alpha, beta, ply, &moves, depth);
        if let Some(k) = marked {
            self.tt.unmark_busy(k);
        }
        let (best, best_move) = result?;
        if let Some(mv) = best_move.filter(|_| best >= beta && self.options.move_ordering) {
            let h = &mut self.history[history_index(&mv)];
            *h += (depth as u32 + 1) * (depth as u32 + 1);
            if *h > MAX_HISTORY {
                // Keep the history a tie-break below the static terms.
                self.history.iter_mut().for_each(|h| *h /= 2);
            }
        }
        self.moves[ply] = moves;
        if let Some(key) = key {
            let (lower, upper) = if best <= alpha0 {
                (-1, best)
            } else if best >= beta0 {
                (best, 1)
            } else {
                (best, best)
            };
            // Merge with what the table says now (another thread may have
            // stored meanwhile); both are true bounds.
            let (lower, upper, old_move) = match self.tt.probe(key) {
                Some(old) => (lower.max(old.lower), upper.min(old.upper), Some((old.to, old.removal))),
                None => (lower, upper, None),
            };
            let fwd = &syms[sym];
            let (to, removal) = match best_move {
                Some(mv) => (fwd.point(mv.to), mv.removal.map_or(NO_POINT, |r| fwd.point(r))),
                None => old_move.unwrap_or((NO_POINT, NO_POINT)),
            };
            self.tt.store(key, Entry { lower, upper, to, removal, depth });
        }
        Ok(best)
    }

    /// The moves' loop of [`Prover::search`]: the best value found and the
    /// move that gave it (`None` when no move raised alpha, i.e. a fail-low
    /// node where every move is as bad).
    #[allow(clippy::too_many_arguments)]
    fn search_moves(
        &mut self,
        us: Bitboard,
        them: Bitboard,
        uh: u8,
        th: u8,
        alpha: Score,
        beta: Score,
        ply: usize,
        moves: &[(i32, Move)],
        depth: u8,
    ) -> Result<(Score, Option<Move>), Abort> {
        let child = |mv: &Move| {
            let (after, victims) = apply_move(us, them, *mv);
            let placed = mv.from.is_none() as u8;
            (victims, after, th, uh - placed)
        };
        // Children's keys, computed once (for the enhanced transposition
        // cut-off, then for their search).
        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        if depth >= ETC_DEPTH {
            // Enhanced transposition cut-off: a child the table already
            // refutes ends the search here.
            for (_, mv) in moves {
                let (cu, ct, cuh, cth) = child(mv);
                if cu.count_ones() + cuh as u32 <= 2 || (cuh == 0 && cth == 0) {
                    keys.push((None, 0));
                    continue;
                }
                let (k, sym) = self.key(cu, ct, cuh, cth);
                keys.push((k, sym));
                if let Some(e) = k.and_then(|k| self.tt.probe(k)) {
                    if -e.upper >= beta {
                        self.keys = keys;
                        return Ok((-e.upper, Some(*mv)));
                    }
                }
            }
        }
        let result = self.search_children(us, them, uh, th, alpha, beta, ply, moves, depth, &keys);
        self.keys = keys;
        result
    }

    /// The search of every child in order, after [`Prover::search_moves`]'s
    /// checks; `keys` holds the children's keys when they are known.
    #[allow(clippy::too_many_arguments)]
    fn search_children(
        &mut self,
        us: Bitboard,
        them: Bitboard,
        uh: u8,
        th: u8,
        mut alpha: Score,
        beta: Score,
        ply: usize,
        moves: &[(i32, Move)],
        depth: u8,
        keys: &[(Option<u64>, usize)],
    ) -> Result<(Score, Option<Move>), Abort> {
        let child = |mv: &Move| {
            let (after, victims) = apply_move(us, them, *mv);
            let placed = mv.from.is_none() as u8;
            (victims, after, th, uh - placed)
        };
        let mut best = -2;
        let mut best_move = None;
        let share = self.share && depth >= SHARE_DEPTH;
        let mut deferred = Vec::new();
        for (i, (_, mv)) in moves.iter().enumerate() {
            let (cu, ct, cuh, cth) = child(mv);
            let v = match self.immediate(cu, ct, cuh, cth)? {
                Some(v) => -v,
                None => {
                    let known = match keys.get(i) {
                        Some(&k) => k,
                        None => self.key(cu, ct, cuh, cth),
                    };
                    if share && i > 0 && known.0.is_some_and(|k| self.tt.is_busy(k)) {
                        deferred.push((*mv, known));
                        continue;
                    }
                    -self.search(cu, ct, cuh, cth, -beta, -alpha, ply + 1, known)?
                }
            };
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(*mv);
                }
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                return Ok((best, best_move));
            }
        }
        for (mv, known) in deferred {
            let (cu, ct, cuh, cth) = child(&mv);
            let v = -self.search(cu, ct, cuh, cth, -beta, -alpha, ply + 1, known)?;
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(mv);
                }
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        Ok((best, best_move))
    }
}

#[inline]
fn history_index(mv: &Move) -> usize {
    mv.to as usize * 33 + mv.removal.map_or(32, |r| r as usize)
}

/// Proves the value of `pos` with `threads` searchers sharing one
/// transposition table (the one of `options`, or a new one of
/// [`DEFAULT_TABLE_MIB`]): every thread searches the whole tree, skipping
/// for later the moves another thread is searching, so that they spread;
/// the first to finish answers and stops the others. The value is the same
/// as [`Prover::prove`]'s; the statistics add up every thread's work.
///
/// # Errors
/// As [`Prover::prove`].
pub fn prove_parallel(
    db: &Database,
    options: &SearchOptions,
    pos: &Position,
    threads: usize,
) -> Result<(Wdl, SearchStats), ProbeError> {
    let start = Instant::now();
    let tt = options.transpositions.clone().unwrap_or_else(|| Arc::new(TranspositionTable::new(DEFAULT_TABLE_MIB)));
    let options = SearchOptions { transpositions: Some(tt.clone()), ..options.clone() };
    let stop = Arc::new(AtomicBool::new(false));
    let results: Vec<(Result<Score, Abort>, SearchStats)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                let (options, stop) = (options.clone(), stop.clone());
                s.spawn(move || {
                    let mut prover = Prover::new(db, options);
                    prover.share = threads > 1;
                    prover.stop = Some(stop.clone());
                    let r = prover.prove_inner(pos);
                    if !matches!(r, Err(Abort::Stopped)) {
                        stop.store(true, Ordering::Relaxed);
                    }
                    (r, prover.stats)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    let mut total = SearchStats::default();
    let mut value = None;
    for (r, s) in results {
        total.add(&s);
        match r {
            Ok(v) => {
                assert!(value.is_none_or(|w| w == v), "threads disagree on the value");
                value = Some(v);
            }
            Err(Abort::Probe(e)) => return Err(e),
            Err(Abort::Stopped) => {}
        }
    }
    total.transpositions = tt.occupied();
    total.seconds = start.elapsed().as_secs_f64();
    // The first thread to finish stops the others, so one has a value.
    let value = value.ok_or_else(|| ProbeError::Unsupported("every search thread was stopped".to_string()))?;
    Ok((to_wdl(value), total))
}

/// History counts above this halve the whole history, so that it stays a
/// tie-break below one step of the static terms of [`MoveOrder::score`].
const MAX_HISTORY: u32 = 1 << 15;

/// The static move-ordering terms of one node: moves that close a mill
/// first (removing a stone of an open mill of the opponent first), then
/// blocks of the opponent's open mills, then the rest; within each, moves
/// that open mills of the mover's first, then (for mills) removals of
/// stones with more empty neighbours, then points with more neighbours,
/// then the history of cut-offs.
struct MoveOrder {
    /// Empty points completing an opponent's open mill.
    blocks: Bitboard,
    /// Opponent stones in the opponent's open mills.
    threatening: Bitboard,
    them: Bitboard,
}

impl MoveOrder {
    fn new(rules: &RuleSet, us: Bitboard, them: Bitboard) -> MoveOrder {
        let (mut blocks, mut threatening) = (0, 0);
        for &m in rules.board().mills() {
            if (m & them).count_ones() == 2 && m & us == 0 {
                blocks |= m & !them;
                threatening |= m & them;
            }
        }
        MoveOrder { blocks, threatening, them }
    }

    #[inline]
    fn score(&self, rules: &RuleSet, mv: &Move, after: Bitboard, history: u32) -> i32 {
        let board = rules.board();
        let opened =
            board.mills_through(mv.to).iter().filter(|&&m| (after & m).count_ones() == 2 && m & self.them == 0).count();
        let mut s = (opened.min(3) as i32) << 25 | (board.adjacent(mv.to).count_ones() as i32) << 16 | history as i32;
        if mv.removal.is_some() || (rules.line_wins() && rules.has_line(after)) {
            s += 1 << 29;
            if let Some(r) = mv.removal {
                if self.threatening & (1 << r) != 0 {
                    s += 1 << 27;
                }
                // The opponent's stone with the most room to move.
                s += ((board.adjacent(r) & !(after | self.them)).count_ones() as i32) << 20;
            }
        } else if self.blocks & (1 << mv.to) != 0 {
            s += 1 << 28;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_is_a_bijection_on_a_sample() {
        let mut seen = std::collections::HashSet::new();
        for k in 0..100_000u64 {
            assert!(seen.insert(mix(k * 7919 + (k << 40))));
        }
    }

    #[test]
    fn entries_round_trip_and_tables_find_what_they_keep() {
        let tt = TranspositionTable::new(4);
        let e = Entry { lower: 0, upper: 1, to: 23, removal: NO_POINT, depth: 17 };
        assert_eq!(Entry::decode(e.encode()), e);
        for k in 0..1000u64 {
            tt.store(k << 20 | 5, Entry { depth: (k % 18) as u8, ..e });
        }
        for k in 0..1000u64 {
            assert_eq!(tt.probe(k << 20 | 5).map(|e| e.depth), Some((k % 18) as u8));
        }
        assert_eq!(tt.probe(77), None);
        assert_eq!(tt.occupied(), 1000);
    }
}
