//! Retrograde analysis of one pair of sectors whose moves without removal
//! lead into each other: the sliding pair `w-b` and `b-w` (one sector when
//! `w == b`), and under the Lasker rule the placement pair `w-b-wh-bh` and
//! `b-w-bh-wh` (one sector when symmetric), where a player with stones in
//! hand may slide (or fly) instead of placing. Moves that leave the pair
//! (captures, and placements, which lower the stones in hand) land in
//! sectors solved before, so their values are known up front.
//!
//! Phases, named as in the Syzygy generator:
//! 1. *initialise*: every slot gets padding or unknown; every position
//!    counts its distinct in-pair children (its successor counter) and
//!    looks up its leaving children (captures, placements) in the solved
//!    tables. These give claims: `Win(k + 1)` for a leaving move into
//!    `Loss(k)`; `Loss(1 + max)` for a position whose every move leaves the
//!    pair into a win. A leaving move into a draw or a loss also adds a
//!    phantom child that never resolves, so the position can never be
//!    counted down to a loss.
//! 2. *iterate* ply by ply, d = 0, 1, 2, ...: claims for ply d that still
//!    find their slot unknown take it; every position resolved at ply d
//!    visits its predecessors through un-moves: a `Loss(d)` makes them
//!    `Win(d + 1)`, a `Win(d)` counts their counter down, and a counter
//!    reaching zero makes a loss at `max(d + 1, 1 + deepest leaving win)`,
//!    claimed at that ply (docs/design.md: "a loss whose last unresolved child was
//!    resolved early still waits for its deepest capture child").
//! 3. what is still unknown is a draw.
//!
//! Children and predecessors are canonical slots, de-duplicated per
//! position on both sides, so counters count distinct canonical children.
//!
//! Each position has one 16-bit cell (see [`Cell`]): while it is unknown
//! it holds the [`UNKNOWN`] tag, the position's successor counter and its
//! loss floor ([`unknown_cell`]); once resolved, its table entry. A
//! predecessor's update is one load and one store of one cell, and the
//! working memory is 2 bytes per slot. Each ply's
//! frontier is cut into ranges of keys (below), and the task that takes a
//! range is the only one to touch those positions' predecessors, so the
//! updates need no atomic read-modify-write ([`key_ranges`]).
//!
//! The cells of a sector `w-b` are kept in the order of the mirrored
//! sector's index `b-w`, by the orbit of the opponent's stones (the
//! position `(us, them)` at the slot of `(them, us)`: [`Side::layout`]).
//! Every predecessor of a position by an un-move has that position's side
//! to move as its opponent, so all of them lie in one orbit block of this
//! order, ranked against one located set; with the frontier sorted by that
//! set, the updates of consecutive positions stay in a few blocks that the
//! cache holds (in the sector's own order each update met a different
//! block). The initialisation walks the same order, so the positions of
//! one orbit share the blocks of their capture children. The entries are
//! gathered into the sector's own order when the pair is done
//! ([`crate::gather`]).
//!
//! Un-moves inside a Lasker pair: the player who just moved (the opponent
//! of the side to move) slid or flew a stone and kept the same stones in
//! hand; flying counts that player's stones on the board plus in hand
//! ([`RuleSet::flies`]); the stone's arrival closed no mill, unless the side
//! to move has no stone on the board (then a mill removes nothing and the
//! move stays in the pair). Placements and captures come from outside the
//! pair and are never un-done here.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering::Relaxed};
use std::time::Instant;

use morris_db::index::{rank_among_empty, BlockMemo, OrbitBlock};
use morris_db::mapped::HugeCells;
use morris_db::moves::{for_each_move, for_each_sliding_unmove, mill_removes, removable, sliding_unmoves};
use morris_db::rules::Removal;
use morris_db::value::{Value, PADDING_ENTRY};
use morris_db::{Bitboard, Located, Move, Points, RuleSet, Sector, SectorIndex, Table};
use rayon::prelude::*;

use crate::{PairTiming, SolveError};

/// A position of the pair: the slot, with bit 31 set for the second sector.
type Item = u32;
const SIDE_BIT: Item = 1 << 31;
// A sector's slots must leave the side bit free (`Unit::unsolvable`).
const _: () = assert!(SIDE_BIT as u64 == crate::unit::MAX_PAIR_SECTOR_SLOTS);

/// A position of the frontier, 8 bytes: its side of the pair (bit 63) and
/// the position itself, `us` to move (bits 32..63) against `them` (bits
/// 0..32), in the image where `us` is its orbit's representative
/// ([`Pair::resolved`]), so that sorting by the top 32 bits puts the
/// positions whose predecessors share an orbit block together. Carrying
/// the stones rather than the slot saves decoding the slot
/// ([`SectorIndex::position`]) when the position is propagated: ranking its
/// predecessors found them already. Boards have at most [`MAX_POINTS`]
/// points, so `us` fits in 31 bits.
#[derive(Clone, Copy)]
struct Resolved(u64);

/// The most points a board may have for [`Resolved`].
const MAX_POINTS: usize = 31;

impl Resolved {
    fn new(side: usize, us: Bitboard, them: Bitboard) -> Resolved {
        Resolved((side as u64) << 63 | (us as u64) << 32 | them as u64)
    }

    fn side(self) -> usize {
        (self.0 >> 63) as usize
    }

    fn us(self) -> Bitboard {
        (self.0 >> 32) as Bitboard & !(1 << 31)
    }

    fn them(self) -> Bitboard {
        self.0 as Bitboard
    }

    /// The key the frontier is sorted by: the side and `us`.
    fn block_key(self) -> u64 {
        self.0 >> 32
    }
}

/// One slot's state while its pair is solved: the position's table entry
/// once resolved, [`unknown_cell`] while unknown.
type Cell = AtomicU16;

/// The tag of an unknown position's cell ([`unknown_cell`]). Resolved
/// entries stay below it (DTM up to [`MAX_PLY`] + 1, entry DTM + 1) and
/// the padding entry above it, so no stored value reads as unknown.
/// Unknown cells become draws when the pair is done. During the first
/// phase only, `0` marks a slot still to be initialised.
const UNKNOWN: u16 = 0x8000;

/// The low bits of an unknown cell, which hold its successor counter.
const COUNTER_BITS: u32 = 7;

/// The largest successor counter a cell holds. The most distinct in-pair
/// children any position of the presets has is below it (three flying
/// stones onto 22 empty points: 66, plus one for a winning leaving move).
const MAX_COUNTER: usize = (1 << COUNTER_BITS) - 1;

/// The loss floor an unknown cell holds when the real one is this or more:
/// found again from the position's leaving children when it is needed
/// ([`Pair::capture_loss_floor`]).
const FAR_FLOOR: u16 = 254;

/// An unknown position's cell: [`UNKNOWN`], the ply it is lost at, at the
/// earliest, once its counter runs out (one more than its deepest leaving
/// child's win, up to [`FAR_FLOOR`], bits 7..15), and its successor
/// counter: the number of its children not yet known to be won for the
/// opponent (bits 0..7, up to [`MAX_COUNTER`]). The largest,
/// `0x8000 | 254 << 7 | 127`, stays below [`PADDING_ENTRY`]. Keeping the
/// floor spares the iteration reading every leaving child again for each
/// position whose counter runs out.
#[inline]
fn unknown_cell(counter: usize, floor: u16) -> u16 {
    UNKNOWN | floor.min(FAR_FLOOR) << COUNTER_BITS | counter.min(MAX_COUNTER) as u16
}

/// The deepest ply the iteration resolves positions at: a position resolved
/// at ply `d` makes its predecessors `Win(d + 1)`, whose entry `d + 2` must
/// stay below [`UNKNOWN`]. (The longest DTM of any preset is about 200.)
const MAX_PLY: u16 = UNKNOWN - 3;

/// Whether `entry` is an unknown position's cell (not padding, not a value).
#[inline]
fn unknown(entry: u16) -> bool {
    (UNKNOWN..PADDING_ENTRY).contains(&entry)
}

/// Gives `cell` the table entry `entry` if its position is still unknown;
/// whether it did.
#[inline]
fn resolve(cell: &Cell, entry: u16) -> bool {
    let mut now = cell.load(Relaxed);
    while unknown(now) {
        match cell.compare_exchange_weak(now, entry, Relaxed, Relaxed) {
            Ok(_) => return true,
            Err(seen) => now = seen,
        }
    }
    false
}

/// [`resolve`] for a cell that no other thread reads or writes meanwhile
/// (the iteration's, [`key_ranges`]): a plain load and store.
#[inline]
fn resolve_owned(cell: &Cell, entry: u16) -> bool {
    let open = unknown(cell.load(Relaxed));
    if open {
        cell.store(entry, Relaxed);
    }
    open
}

/// The frontier's `pieces`, each sorted by [`Resolved::block_key`], cut
/// into about `parts` ranges of keys: each range holds the sub-slices of
/// every piece whose keys fall in it. Positions with one key (whose
/// predecessors' cells share one orbit block, [`Side::layout`]) fall in one
/// range, so the task that takes a range is the only one to touch those
/// cells during the ply and updates them without atomic read-modify-writes
/// ([`resolve_owned`], [`Pair::count_down`]). The splitters are the keys at
/// the quantiles of every piece, every `pieces`-th of them in order.
fn key_ranges(pieces: &[Vec<Resolved>], parts: usize) -> Vec<Vec<&[Resolved]>> {
    let parts = parts.max(1);
    let pieces: Vec<&Vec<Resolved>> = pieces.iter().filter(|p| !p.is_empty()).collect();
    let mut samples: Vec<u64> =
        pieces.iter().flat_map(|p| (1..parts).map(move |i| p[i * p.len() / parts].block_key())).collect();
    samples.sort_unstable();
    let step = pieces.len().max(1);
    let mut splitters: Vec<u64> = samples.iter().skip(step / 2).step_by(step).copied().collect();
    splitters.dedup();
    let mut ranges: Vec<Vec<&[Resolved]>> = vec![Vec::new(); splitters.len() + 1];
    for p in pieces {
        let mut from = 0;
        for (range, &split) in ranges.iter_mut().zip(&splitters) {
            let to = from + p[from..].partition_point(|r| r.block_key() < split);
            if to > from {
                range.push(&p[from..to]);
            }
            from = to;
        }
        if from < p.len() {
            ranges[splitters.len()].push(&p[from..]);
        }
    }
    ranges
}

/// Claims by ply: `claims[ply]` holds positions that take the value of DTM
/// `ply` (a win when odd, a loss when even) at that ply if still unknown.
#[derive(Default)]
struct Claims(Vec<Vec<Item>>);

impl Claims {
    fn push(&mut self, ply: u16, item: Item) {
        let ply = ply as usize;
        if self.0.len() <= ply {
            self.0.resize_with(ply + 1, Vec::new);
        }
        self.0[ply].push(item);
    }

    fn append(&mut self, other: Claims) {
        if self.0.len() < other.0.len() {
            self.0.resize_with(other.0.len(), Vec::new);
        }
        for (mine, mut theirs) in self.0.iter_mut().zip(other.0) {
            if mine.is_empty() {
                *mine = theirs;
            } else {
                mine.append(&mut theirs);
            }
        }
    }
}

/// Where one kind of move that leaves the pair lands.
// Three per side, read in the hot loop: kept inline rather than boxed.
#[allow(clippy::large_enum_variant)]
enum Exit {
    /// The move leaves the opponent below 3 stones: the mover wins at once
    /// (loses at once under misère, [`RuleSet::decided_value`]).
    Wins,
    /// Into this solved sector's table.
    Table(SectorIndex, Table),
    /// No such move exists in this sector (meeting one is a fault).
    Never,
}

/// One sector of the pair while it is being solved.
struct Side<'a> {
    sector: Sector,
    /// The sector's own index: its table's slot order.
    index: SectorIndex,
    /// The index of the mirrored sector, the order of `values`: the cell
    /// of the position `(us, them)` is at `layout.index(them, us)`, in the
    /// orbit block of `them` (module docs).
    layout: SectorIndex,
    /// One [`Cell`] per slot of `layout`, in memory backed by huge pages
    /// (the updates and the final gather read them at random).
    values: &'a [Cell],
    /// Whether a mill closed by the side to move wins at once: the opponent
    /// has 3 stones (board plus hand), at least one on the board, and the
    /// rule set is not misère (where such a mill loses at once).
    mill_wins: bool,
    /// Where slides and flights with a removal land.
    captures: Exit,
    /// Where placements without removal land (Lasker pairs only).
    placements: Exit,
    /// Where placements with a removal land (Lasker pairs only).
    placement_captures: Exit,
}

struct Pair<'a> {
    rules: &'a RuleSet,
    sides: Vec<Side<'a>>,
    fault: AtomicBool,
    /// Loss floors from this one up are not kept in the cells but read
    /// again when needed ([`FAR_FLOOR`], [`unknown_cell`]).
    far_floor: u16,
}

#[derive(Default)]
struct Scratch {
    slots: Vec<u64>,
    /// Slots of placement children in the placement exit's table.
    exits: Vec<u64>,
    /// Slots of capture children in the capture exit's table, of the
    /// position being initialised.
    captured: Vec<u64>,
    /// The position initialised before it, not settled yet, and its
    /// capture children's slots.
    pending: Option<Pending>,
    pending_captured: Vec<u64>,
    /// What the positions of the orbit being initialised share.
    orbit: OrbitCaptures,
    /// The predecessors of the position propagated last, whose cells are
    /// updated with the next one's (or by [`Pair::update_staged`]).
    staged: Stage,
    /// Buffers for the next stage.
    ahead: Stage,
    /// Where the predecessors of the position propagated last lie: kept
    /// while the frontier's next positions have the same `us`.
    block: Option<UnmoveBlock>,
    next: Vec<Resolved>,
    claims: Claims,
}

/// What a position's leaving children (captures, placements) tell its
/// value, gathered as they are read.
#[derive(Default)]
struct Leaving {
    /// The shortest win: one more than the shortest loss among them.
    best_win: Option<u16>,
    /// One of them is a draw, so the position is not lost.
    blocks_loss: bool,
    /// The longest of their wins (for the opponent), in plies.
    deepest_win: u16,
}

impl Leaving {
    fn add(&mut self, child: Value) {
        match child {
            Value::Loss(k) => self.best_win = Some(self.best_win.map_or(k.get() + 1, |b| b.min(k.get() + 1))),
            Value::Draw => self.blocks_loss = true,
            Value::Win(k) => self.deepest_win = self.deepest_win.max(k.get()),
        }
    }

    /// Adds the value at `slot` of a solved child table; a padding slot or
    /// one past the end is a fault (the child was ranked wrong).
    fn read(&mut self, table: &Table, slot: u64, fault: &AtomicBool) {
        match table.value(slot) {
            Some(v) => self.add(v),
            None => fault.store(true, Relaxed),
        }
    }

    /// Takes what other leaving children gave into account.
    fn merge(&mut self, other: Leaving) {
        if let Some(n) = other.best_win {
            self.best_win = Some(self.best_win.map_or(n, |b| b.min(n)));
        }
        self.blocks_loss |= other.blocks_loss;
        self.deepest_win = self.deepest_win.max(other.deepest_win);
    }

    /// In 32 bits, for a [`BlockMemo`], the part that decides the position
    /// ([`Pair::settle`]): a win (`best_win`, bits 0..16) outweighs a draw
    /// (bit 16), which outweighs the losses' floor (`deepest_win`, bits
    /// 0..16 with bit 17); what it leaves out changes nothing once merged.
    /// Never [`BlockMemo::UNKNOWN`].
    fn pack(&self) -> u32 {
        match (self.best_win, self.blocks_loss) {
            (Some(n), _) => u32::from(n),
            (None, true) => 1 << 16,
            (None, false) => 1 << 17 | u32::from(self.deepest_win),
        }
    }

    /// The inverse of [`Leaving::pack`] (for what it keeps).
    fn unpack(packed: u32) -> Leaving {
        match packed >> 16 {
            0 => Leaving { best_win: Some(packed as u16), ..Leaving::default() },
            1 => Leaving { blocks_loss: true, ..Leaving::default() },
            _ => Leaving { deepest_win: packed as u16, ..Leaving::default() },
        }
    }
}

/// What the positions of one orbit of the opponent's stones `them` share in
/// [`Pair::initialise_sliding`], when slides' captures lead into a table:
/// the stones a mill removes, where `them` less each of them lies in that
/// table's index, and the captures found so far. A mill's captures depend
/// only on `them` and the stones the mover leaves, and one set of those is
/// left by several positions' moves (a slide onto a point of the mill from
/// any neighbour), so each set's captures are read once per orbit (by its
/// rank among the points `them` leaves empty, as [`Leaving::pack`]).
#[derive(Default)]
struct OrbitCaptures {
    /// The orbit's representative, the opponent's stones; `None` while the
    /// orbit does not take this path.
    them: Option<Bitboard>,
    /// The stones a mill may remove ([`removable`]).
    victims: Bitboard,
    /// Per point `r` of `victims`: `them` less `r`, located in the capture
    /// table's index.
    located: [Option<Located>; 32],
    memo: BlockMemo,
}

/// The predecessors of one position resolved in the iteration, ranked.
#[derive(Default)]
struct Stage {
    /// The side (0 or 1) they belong to.
    side: usize,
    preds: Vec<(Bitboard, Bitboard)>,
    /// Their cells: `slot << 32 | i`, `i` indexing `preds`; empty when
    /// nothing is staged.
    pred_slots: Vec<u64>,
}

/// The orbit block that the predecessors of frontier positions with one
/// set of stones `us` to move lie in, on side `side` ([`Pair::propagate`]).
struct UnmoveBlock {
    side: usize,
    us: Bitboard,
    /// `us` located in the predecessors' layout.
    at: Located,
    /// The block, when `us` is its orbit's representative with no other
    /// symmetry (most orbits).
    block: Option<OrbitBlock>,
}

/// A position initialised but not settled: its capture children were
/// asked for (prefetched), and are read one position later.
struct Pending {
    side: usize,
    slot: u64,
    /// Children in the pair to wait for.
    counter: usize,
    /// What its other leaving children gave.
    leaving: Leaving,
}

impl Pair<'_> {
    /// The side (0 or 1) that `side`'s moves without removal lead to.
    fn other(&self, side: usize) -> usize {
        if self.sides.len() == 1 {
            0
        } else {
            1 - side
        }
    }

    fn item(side: usize, slot: u64) -> Item {
        slot as Item | if side == 1 { SIDE_BIT } else { 0 }
    }

    fn split(item: Item) -> (usize, u64) {
        (((item & SIDE_BIT) != 0) as usize, (item & !SIDE_BIT) as u64)
    }

    /// The frontier's form of the position `(us, them)` of `side`, in any
    /// image: mapped by the symmetry that takes `us` to its orbit's
    /// representative.
    #[inline]
    fn resolved(&self, side: usize, us: Bitboard, them: Bitboard) -> Resolved {
        let at = self.sides[side].index.locate(us);
        let g = &self.rules.board().symmetries()[at.sym()];
        Resolved::new(side, g.apply(us), g.apply(them))
    }

    /// Looks up the value of the child of a move that leaves the pair (a
    /// capture or a placement, `mv.from.is_none() || mv.removal.is_some()`);
    /// flags a fault for a slot that the solved table does not hold.
    /// `PLACING` may be false only when the side to move has no stones in
    /// hand (then every move is a slide or flight).
    #[inline]
    fn exit_value<const PLACING: bool>(&self, side: usize, us: Bitboard, them: Bitboard, mv: Move) -> Value {
        let (mover, victim) = morris_db::moves::apply_move(us, them, mv);
        let me = &self.sides[side];
        let exit = if !PLACING || mv.from.is_some() {
            &me.captures
        } else if self.rules.line_wins() && self.rules.has_line(mover) {
            // Three Men's Morris: a placement that makes a line wins.
            return Value::LOST;
        } else if mv.removal.is_none() {
            &me.placements
        } else {
            &me.placement_captures
        };
        match exit {
            // The opponent is down to two stones: decided against it.
            Exit::Wins => self.rules.decided_value(),
            Exit::Table(index, table) => match table.value(index.index(victim, mover)) {
                Some(v) => v,
                None => {
                    self.fault.store(true, Relaxed);
                    Value::Draw
                }
            },
            Exit::Never => {
                self.fault.store(true, Relaxed);
                Value::Draw
            }
        }
    }

    /// Phase 1a for one orbit of the opponent's stones: padding slots
    /// get the padding entry; when the opponent has exactly three stones,
    /// positions with a mill-closing move win at once and get `Win(1)`.
    /// These are final and never enter the frontier: phase 1b leaves them
    /// out of their predecessors' counters instead (a pull, which reads
    /// children in one orbit block, is far cheaper than pushing each win to
    /// its scattered predecessors).
    fn mark_immediate_wins(&self, side: usize, orbit: usize) {
        let me = &self.sides[side];
        let base = orbit as u64 * me.layout.opponent_sets();
        for slot in base..base + me.layout.opponent_sets() {
            me.values[slot as usize].store(PADDING_ENTRY, Relaxed);
        }
        let rules = self.rules;
        let all = rules.board().all();
        me.layout.for_each_in_orbit(orbit, |slot, them, us| {
            let entry = if rules.line_wins() {
                // Three Men's Morris: a line decides the game. A position
                // where the side to move already has one is not a position
                // of a game (padding); where the opponent has one, the side
                // to move has lost (its predecessors all win at once, so it
                // needs no propagation).
                if rules.has_line(us) {
                    PADDING_ENTRY
                } else if rules.has_line(them) {
                    Value::LOST.to_entry()
                } else if mill_targets(rules, us, me.sector.wh) & !us & !them & all != 0 {
                    Value::LOST.back().to_entry()
                } else {
                    0
                }
            } else if me.mill_wins
                && mill_removes(rules, them)
                && mill_targets(rules, us, me.sector.wh) & !us & !them & all != 0
            {
                // A mill now takes the opponent down to two stones (under
                // the strict rule not when its three stones form a mill).
                Value::LOST.back().to_entry()
            } else {
                0
            };
            me.values[slot as usize].store(entry, Relaxed);
        });
    }

    /// Phase 1b for one orbit of the opponent's stones: every position not
    /// marked in phase 1a.
    fn initialise_orbit(&self, side: usize, orbit: usize, s: &mut Scratch) {
        let me = &self.sides[side];
        // Sliding sectors get their own copy of the hot loop, compiled
        // without placements.
        let placing = me.sector.wh > 0;
        let fast = !placing && fast_sliding(self.rules);
        s.orbit.them = None;
        if let (true, Exit::Table(index, _)) = (fast, &me.captures) {
            let them = me.layout.orbit_table().representative(orbit);
            s.orbit.victims = removable(self.rules, them);
            for r in Points(s.orbit.victims) {
                s.orbit.located[r as usize] = Some(index.locate(them & !(1 << r)));
            }
            s.orbit.memo.reset(me.layout.opponent_sets() as usize);
            s.orbit.them = Some(them);
        }
        me.layout.for_each_in_orbit(orbit, |slot, them, us| {
            if me.values[slot as usize].load(Relaxed) == 0 {
                if placing {
                    self.initialise::<true>(side, slot, us, them, s);
                } else if fast {
                    self.initialise_sliding(side, slot, us, them, s);
                } else {
                    self.initialise::<false>(side, slot, us, them, s);
                }
            }
        });
        self.settle_pending(s);
    }

    /// Phase 1 for one canonical position; `PLACING` when the side to move
    /// has stones in hand (a Lasker pair).
    fn initialise<const PLACING: bool>(&self, side: usize, slot: u64, us: Bitboard, them: Bitboard, s: &mut Scratch) {
        let me = &self.sides[side];
        let hand = if PLACING { me.sector.wh } else { 0 };
        let other = &self.sides[self.other(side)];
        // Every child without removal has `them` to move; two of them are the
        // same canonical position only through a symmetry fixing `them`, so
        // children need de-duplicating only when `them` has one.
        let at = other.index.locate(them);
        let dedupe = at.symmetric();
        // Children already marked `Win(1)` in phase 1a are left out of the
        // counter; they only raise the loss floor to 2.
        let threats =
            if other.mill_wins || self.rules.line_wins() { mill_targets(self.rules, them, other.sector.wh) } else { 0 };
        let all = self.rules.board().all();
        // Placements without removal all leave `them` to move in one solved
        // sector: their slots share `them`'s orbit block there, so they are
        // gathered, sorted and read in one sweep after the moves.
        let placed = match &me.placements {
            Exit::Table(index, table) if PLACING => {
                let (o, g) = index.orbit_table().orbit_of(them);
                Some((index, table, o, g))
            }
            _ => None,
        };
        s.slots.clear();
        s.exits.clear();
        s.captured.clear();
        let mut quiet = 0usize;
        let mut any = false;
        let mut leaving = Leaving::default();
        for_each_move(self.rules, us, them, hand, |mv, mover| {
            any = true;
            if mv.removal.is_none() && (!PLACING || mv.from.is_some()) {
                if threats & all & !them & !mover != 0 && (self.rules.line_wins() || mill_removes(self.rules, mover)) {
                    // The child closes a mill at once: marked `Win(1)` in phase 1a.
                    leaving.deepest_win = leaving.deepest_win.max(1);
                    return;
                }
                if dedupe {
                    s.slots.push(other.index.index_at(at, mover));
                }
                quiet += 1;
            } else if let Some((index, _, o, g)) =
                placed.filter(|_| mv.from.is_none() && mv.removal.is_none() && !self.rules.line_wins())
            {
                s.exits.push(index.index_with_orbit(o, g, mover));
            } else if let (true, Exit::Table(index, table)) =
                (mv.removal.is_some() && (!PLACING || mv.from.is_some()), &me.captures)
            {
                // A slide's or flight's capture: its child's entry is
                // asked for now and read one position later (`settle`), so
                // the cache misses overlap this work and the next
                // position's (in the large pairs most of the
                // initialisation waited for them).
                let (mover, victim) = morris_db::moves::apply_move(us, them, mv);
                let q = index.index(victim, mover);
                table.prefetch(q);
                s.captured.push(q);
            } else {
                leaving.add(self.exit_value::<PLACING>(side, us, them, mv));
            }
        });
        if let Some((_, table, _, _)) = placed {
            s.exits.sort_unstable();
            for &q in &s.exits {
                leaving.read(table, q, &self.fault);
            }
        }
        let counter = if dedupe {
            s.slots.sort_unstable();
            s.slots.dedup();
            s.slots.len()
        } else {
            quiet
        };
        self.initialised(side, slot, us, them, any.then_some((counter, leaving)), s);
    }

    /// The end of phase 1 for one position: a blocked one (`moves` is
    /// `None`) is decided at once; any other waits for `counter` children
    /// in the pair, with what its leaving children gave so far in
    /// `leaving` and its capture children's slots asked for in
    /// `s.captured`.
    fn initialised(
        &self,
        side: usize,
        slot: u64,
        us: Bitboard,
        them: Bitboard,
        moves: Option<(usize, Leaving)>,
        s: &mut Scratch,
    ) {
        let Some((counter, leaving)) = moves else {
            // Blocked: decided (lost; won under misère), unless a full board
            // is a draw under the rule set.
            self.sides[side].values[slot as usize].store(UNKNOWN, Relaxed);
            if let Some(ply) = self.rules.no_move_value(us, them).plies() {
                s.claims.push(ply, Self::item(side, slot));
            }
            return;
        };
        // The captures' entries were only asked for: this position is
        // settled after the next one's moves (or at the end of the orbit),
        // when they have arrived.
        let earlier = s.pending.replace(Pending { side, slot, counter, leaving });
        std::mem::swap(&mut s.captured, &mut s.pending_captured);
        if let Some(p) = earlier {
            self.settle(p, &s.captured, &mut s.claims);
        }
    }

    /// [`Pair::initialise`] for a sliding position under the rule sets of
    /// [`fast_sliding`], when its children need no de-duplicating: the same
    /// counter and claims, with the quiet moves counted by bit operations
    /// per empty point ([`Board::closing_movers`] tells the captures apart)
    /// and only the captures enumerated, their children read once per set
    /// the mover leaves in the orbit ([`OrbitCaptures`]).
    ///
    /// A quiet move from `s` to `t` leads to a child already marked
    /// `Win(1)` in phase 1a, left out of the counter, when a point where
    /// the opponent completes a mill ([`mill_targets`]) is empty after it:
    /// one of those empty now other than `t`, or `s` itself.
    ///
    /// [`Board::closing_movers`]: morris_db::Board::closing_movers
    fn initialise_sliding(&self, side: usize, slot: u64, us: Bitboard, them: Bitboard, s: &mut Scratch) {
        let other = &self.sides[self.other(side)];
        if other.index.locate(them).symmetric() {
            return self.initialise::<false>(side, slot, us, them, s);
        }
        let me = &self.sides[side];
        let rules = self.rules;
        let board = rules.board();
        let empty = board.all() & !us & !them;
        let threats = if other.mill_wins { mill_targets(rules, them, other.sector.wh) } else { 0 };
        let open_threats = threats & empty;
        // The points a counted quiet move may go to: any while no threat
        // point is empty, only that one while one is, none while more are.
        let counted_targets = match open_threats.count_ones() {
            0 => Bitboard::MAX,
            1 => open_threats,
            _ => 0,
        };
        let removes = mill_removes(rules, them);
        let flying = rules.flies(us.count_ones());
        let mut removable_stones = None;
        let mut quiet = 0u32;
        let mut counted = 0u32;
        let mut captures = false;
        let mut leaving = Leaving::default();
        s.captured.clear();
        // An empty point next to none of `us` takes no slide: no move to
        // count there, and no capture.
        let targets = if flying { empty } else { empty & board.neighbours(us) };
        for to in Points(targets) {
            let movers = if flying { us } else { board.adjacent(to) & us };
            let closing = if removes { board.closing_movers(us, to, movers) } else { 0 };
            let still = movers & !closing;
            quiet += still.count_ones();
            if counted_targets & (1 << to) != 0 {
                counted += (still & !threats).count_ones();
            }
            for from in Points(closing) {
                captures = true;
                let mover = us ^ (1 << from) ^ (1 << to);
                match (&me.captures, &mut s.orbit) {
                    (Exit::Table(index, table), o) if o.them == Some(them) => {
                        // Read once per set the mover leaves in this orbit.
                        let (victims, located) = (o.victims, &o.located);
                        let found = o.memo.get(rank_among_empty(them, mover), || {
                            let mut c = Leaving::default();
                            for r in Points(victims) {
                                c.read(table, index.index_at(located[r as usize]?, mover), &self.fault);
                            }
                            Some(c.pack())
                        });
                        match found {
                            Some(packed) => leaving.merge(Leaving::unpack(packed)),
                            None => self.fault.store(true, Relaxed),
                        }
                    }
                    _ => {
                        let stones = *removable_stones.get_or_insert_with(|| removable(rules, them));
                        for r in Points(stones) {
                            let mv = Move { from: Some(from), to, removal: Some(r), extra_removals: 0 };
                            leaving.add(self.exit_value::<false>(side, us, them, mv));
                        }
                    }
                }
            }
        }
        if counted < quiet {
            // Some quiet child is won for the opponent at once.
            leaving.deepest_win = leaving.deepest_win.max(1);
        }
        let moves = (quiet > 0 || captures).then_some((counted as usize, leaving));
        self.initialised(side, slot, us, them, moves, s);
    }

    /// Settles the position of `p` initialised earlier once its capture
    /// children's slots `captured` (asked for then) can be read: its
    /// claim, if its value is known already, and its cell (the counter of
    /// children to wait for).
    fn settle(&self, p: Pending, captured: &[u64], claims: &mut Claims) {
        let Pending { side, slot, mut counter, mut leaving } = p;
        let me = &self.sides[side];
        if let Exit::Table(_, table) = &me.captures {
            for &q in captured {
                leaving.read(table, q, &self.fault);
            }
        }
        let Leaving { best_win, blocks_loss, deepest_win } = leaving;
        if let Some(n) = best_win {
            claims.push(n, Self::item(side, slot));
            counter += 1;
        } else if blocks_loss {
            counter += 1;
        } else if counter == 0 {
            claims.push(deepest_win + 1, Self::item(side, slot));
        }
        if counter > MAX_COUNTER {
            self.fault.store(true, Relaxed);
        }
        me.values[slot as usize].store(unknown_cell(counter, (deepest_win + 1).min(self.far_floor)), Relaxed);
    }

    /// Settles the position still pending in `s`, if any (the last one
    /// initialised from an orbit).
    fn settle_pending(&self, s: &mut Scratch) {
        if let Some(p) = s.pending.take() {
            std::mem::swap(&mut s.captured, &mut s.pending_captured);
            self.settle(p, &s.captured, &mut s.claims);
        }
    }

    /// The ply at which a position whose in-pair children are all won for
    /// the opponent is lost: one more than its deepest leaving child
    /// (capture or placement); read again from those children when its
    /// cell holds [`FAR_FLOOR`].
    fn capture_loss_floor(&self, side: usize, us: Bitboard, them: Bitboard) -> u16 {
        let mut floor = 0;
        let hand = self.sides[side].sector.wh;
        for_each_move(self.rules, us, them, hand, |mv, _| {
            if mv.removal.is_some() || mv.from.is_none() {
                match self.exit_value::<true>(side, us, them, mv) {
                    Value::Win(k) => floor = floor.max(k.get() + 1),
                    _ => self.fault.store(true, Relaxed),
                }
            }
        });
        floor
    }

    /// Phase 2 for the predecessor `q` of side `side` (the position
    /// `(us, them)`, an image of it), whose cell is `cell`, of a position
    /// resolved as `Win(d)`: one child fewer to wait for, if it is still
    /// unknown. When that was the last, it is lost: at ply `d + 1` (into the
    /// next frontier) or later, claimed at the ply after its deepest leaving
    /// child (the floor its cell holds, [`unknown_cell`]). The cell is this
    /// thread's alone during the ply
    /// ([`key_ranges`]).
    #[allow(clippy::too_many_arguments)]
    fn count_down(&self, cell: &Cell, side: usize, q: u64, us: Bitboard, them: Bitboard, d: u16, s: &mut Scratch) {
        let now = cell.load(Relaxed);
        if !unknown(now) {
            return;
        }
        match (now - UNKNOWN) & MAX_COUNTER as u16 {
            0 => self.fault.store(true, Relaxed),
            1 => {
                let floor = match (now - UNKNOWN) >> COUNTER_BITS {
                    far if far >= self.far_floor => self.capture_loss_floor(side, us, them),
                    floor => floor,
                };
                // A Win(d) child means d >= 1, so the floor of a child
                // marked Win(1) in phase 1a (2) never exceeds d + 1.
                let ply = (d + 1).max(floor);
                if ply == d + 1 {
                    cell.store(Value::from_ply(ply).to_entry(), Relaxed);
                    s.next.push(self.resolved(side, us, them));
                } else {
                    cell.store(UNKNOWN, Relaxed);
                    s.claims.push(ply, Self::item(side, q));
                }
            }
            _ => cell.store(now - 1, Relaxed),
        }
    }

    /// Phase 2 for one position resolved at ply `d`: its predecessors by
    /// un-moves, each once, take its value into account. All of them have
    /// its `us` as their opponent, so their cells lie in one orbit block of
    /// the predecessors' side ([`Side::layout`]), ranked against `us`
    /// located once. Their cells are asked for now and updated one
    /// position later ([`Pair::update_staged`]), so that the cache misses
    /// overlap this work.
    fn propagate(&self, r: Resolved, d: u16, s: &mut Scratch) {
        let (side, us, them) = (r.side(), r.us(), r.them());
        let me = &self.sides[side];
        let pred_side = self.other(side);
        let pred = &self.sides[pred_side];
        let mut stage = std::mem::take(&mut s.ahead);
        stage.side = pred_side;
        stage.preds.clear();
        stage.pred_slots.clear();
        let UnmoveBlock { at, block, .. } = match &mut s.block {
            Some(kept) if (kept.side, kept.us) == (pred_side, us) => kept,
            kept => {
                let at = pred.layout.locate(us);
                // `us` is its orbit's representative (`Resolved`), so the
                // symmetry is the identity unless another one fixes it.
                let block = (at.sym() == 0 && !at.symmetric()).then(|| pred.layout.orbit_block(at.orbit())).flatten();
                kept.insert(UnmoveBlock { side: pred_side, us, at, block })
            }
        };
        let at = *at;
        match block {
            Some(block) if me.sector.is_sliding() => {
                // Each predecessor is `them` with one stone moved back,
                // ranked in O(1) from what `them` shares with all of them.
                let exchanges = block.exchanges(them);
                for_each_sliding_unmove(self.rules, us, them, |from, to| {
                    stage.pred_slots.push(exchanges.slot(to, from) << 32 | stage.preds.len() as u64);
                    stage.preds.push((them ^ (1 << to) ^ (1 << from), us));
                });
            }
            _ => {
                if me.sector.is_sliding() {
                    sliding_unmoves(self.rules, us, them, &mut stage.preds);
                } else {
                    lasker_unmoves(self.rules, us, them, me.sector.bh, &mut stage.preds);
                }
                stage.pred_slots.extend(
                    stage.preds.iter().enumerate().map(|(i, &(pu, _))| pred.layout.index_at(at, pu) << 32 | i as u64),
                );
            }
        }
        if at.symmetric() {
            // Un-moves reach distinct sets of the mover, but two of them
            // are one canonical position through a symmetry fixing `us`.
            stage.pred_slots.sort_unstable();
            stage.pred_slots.dedup_by_key(|k| *k >> 32);
        }
        // (A prefetch rather than a load: it does not hold up the work
        // until the line arrives.)
        for &k in &stage.pred_slots {
            morris_db::mapped::prefetch(&pred.values[(k >> 32) as usize]);
        }
        s.ahead = std::mem::replace(&mut s.staged, stage);
        self.update_staged(d, s);
    }

    /// Updates the cells of the predecessors staged by the previous
    /// [`Pair::propagate`] (of a position resolved at ply `d`), if any, and
    /// clears the stage. Called by `propagate`, and once after the last
    /// position of a ply.
    fn update_staged(&self, d: u16, s: &mut Scratch) {
        let mut stage = std::mem::take(&mut s.staged);
        let pred = &self.sides[stage.side];
        // Every position of the frontier at ply `d` was resolved with DTM
        // `d` (a claim taken at `d`, or a child of ply `d - 1`), so its value
        // needs no look-up in the value array.
        let value = Value::from_ply(d);
        let next = Value::from_ply(d + 1).to_entry();
        for &k in &stage.pred_slots {
            let (q, i) = (k >> 32, k as u32 as usize);
            let (pu, pt) = stage.preds[i];
            let cell = &pred.values[q as usize];
            match value {
                Value::Loss(_) => {
                    if resolve_owned(cell, next) {
                        s.next.push(self.resolved(stage.side, pu, pt));
                    }
                }
                Value::Win(_) => self.count_down(cell, stage.side, q, pu, pt, d, s),
                Value::Draw => self.fault.store(true, Relaxed),
            }
        }
        stage.pred_slots.clear();
        s.staged = stage;
    }
}

/// Whether sliding positions take [`Pair::initialise_sliding`]: a line
/// does not end the game, every move removes at most one stone, and a mill
/// closed against any set of stones removes one (not so under the strict
/// rule, which the quiet moves' count would have to ask move by move).
fn fast_sliding(rules: &RuleSet) -> bool {
    !rules.line_wins() && !rules.remove_per_mill() && rules.removal() != Removal::Strict
}

/// The points where a stone of `stones` could arrive and close a mill: the
/// third point of a mill whose other two points hold `stones`, reachable by
/// a stone placed from hand (`in_hand > 0`, Lasker pairs) or by another
/// stone of `stones` (adjacent, or any when the player flies, counting the
/// stones in hand). A position where that player is to move, with one of
/// these points empty and an opponent with three stones, wins at once.
fn mill_targets(rules: &RuleSet, stones: Bitboard, in_hand: u8) -> Bitboard {
    let board = rules.board();
    if in_hand > 0 {
        return board.completing_points(stones, board.all() & !stones);
    }
    let flying = rules.flies(stones.count_ones() + in_hand as u32);
    let mut targets = 0;
    for &mill in board.mills() {
        let missing = mill & !stones;
        if missing.count_ones() != 1 {
            continue;
        }
        let p = missing.trailing_zeros() as u8;
        let movers = stones & !mill;
        if (flying && movers != 0) || board.adjacent(p) & movers != 0 {
            targets |= missing;
        }
    }
    targets
}

/// Appends to `out` the predecessors of a position of a Lasker pair by a
/// slide or flight without removal: `(us, them)` with `us` to move; the
/// mover `them` has `them_in_hand` stones in hand, before and after. Each
/// predecessor is `(mover's stones before the move, us)`. The mover's last
/// stone went from an empty point (adjacent, or any when the mover flies,
/// counting its stones on the board plus in hand) to a point of `them`
/// where it closed no mill, or closed one that removed nothing
/// ([`mill_removes`]: `us` has no stone on the board, or under the strict
/// rule all of `us` stand in mills). (Lines that win, Three Men's Morris, end the game:
/// positions after them are never propagated.)
fn lasker_unmoves(
    rules: &RuleSet,
    us: Bitboard,
    them: Bitboard,
    them_in_hand: u8,
    out: &mut Vec<(Bitboard, Bitboard)>,
) {
    let board = rules.board();
    let empty = board.all() & !us & !them;
    let flying = rules.flies(them.count_ones() + them_in_hand as u32);
    let mills_remove = rules.line_wins() || mill_removes(rules, us);
    for to in morris_db::Points(them) {
        if mills_remove && board.closes_mill(them, to) {
            continue;
        }
        let sources = if flying { empty } else { board.adjacent(to) & empty };
        for from in morris_db::Points(sources) {
            out.push((them ^ (1 << to) ^ (1 << from), us));
        }
    }
}

/// Claims and frontiers smaller than this are handled on the calling
/// thread: handing a few positions to the thread pool costs more than
/// they do (small pairs iterate for a hundred plies and more).
const SEQUENTIAL: usize = 1 << 12;

/// Ranges of keys per thread that a ply's frontier is cut into
/// ([`key_ranges`]): enough for the threads to end a ply together.
const KEY_RANGES_PER_THREAD: usize = 32;

/// Each sector of a solved pair with its entries, and where the time went.
pub(crate) type SolvedPair = (Vec<(Sector, Vec<u16>)>, PairTiming);

/// The sectors that moves leaving `sector`'s pair land in, from `sector`:
/// slides and flights with a removal, placements without and with a
/// removal (the last two under the Lasker rule only); `None` where no such
/// move exists. A target where the victim is left with fewer than 3 stones
/// has no table ([`exit_needs_table`]).
pub(crate) fn exit_sectors(rules: &RuleSet, sector: Sector) -> [Option<Sector>; 3] {
    let room = (sector.w as u32 + sector.b as u32) < rules.board().len() as u32;
    let captures = sector.after_move(0, 1);
    let placements = sector.after_move(1, 0).filter(|_| room);
    let placement_captures = sector.after_move(1, 1).filter(|_| room && !rules.line_wins());
    [captures, placements, placement_captures]
}

/// Whether a move into `target` needs its table: not when the victim is
/// left with fewer than 3 stones (board plus hand), which wins at once.
pub(crate) fn exit_needs_table(target: Sector) -> bool {
    target.w as u32 + target.wh as u32 >= 3
}

/// Whether a move into `target` reads its table: [`exit_needs_table`],
/// and `target` can arise ([`RuleSet::sector_occurs`]). [`open_exit`] opens
/// exactly these.
pub(crate) fn exit_reads_table(rules: &RuleSet, target: Sector) -> bool {
    exit_needs_table(target) && rules.sector_occurs(target)
}

/// Exit tables of at least this many bytes are copied into huge-page
/// memory ([`Table::into_resident`]): a gain measured on tables of 64 to
/// 275 MB of `nine-diagonal-noflying` (initialisation 0.87 of its time);
/// copying every small table failed the Slurm runs, whose memory limits
/// count no copies.
const RESIDENT_FROM_BYTES: u64 = 32 << 20;

/// Opens (and checksums) the solved table of `target`, where moves that
/// leave the pair land; [`Exit::Wins`] when the victim is left with fewer
/// than 3 stones (board plus hand); [`Exit::Never`] when no position of
/// `target` can arise ([`RuleSet::sector_occurs`]: the mover would have no
/// stone on the board after its move), which the solver does not solve.
fn open_exit(rules: &RuleSet, dir: &Path, target: Sector) -> Result<Exit, SolveError> {
    if !exit_needs_table(target) {
        return Ok(Exit::Wins);
    }
    if !rules.sector_occurs(target) {
        return Ok(Exit::Never);
    }
    let index = rules.indexer().sector(target);
    let table = Table::open(dir, rules, target, index.len())?;
    // Read at random by every position's captures: in huge pages, most of
    // those look-ups no longer wait for a page walk. Small tables stay
    // mapped: they gain nothing, and each copy would take a whole huge
    // page (a cluster unit's memory limit is sized without them). The
    // checksum is then checked on the copy: one pass over the file, not two.
    let table = if table.file_size() >= RESIDENT_FROM_BYTES { table.into_resident()? } else { table };
    table.verify_checksum()?;
    Ok(Exit::Table(index, table))
}

/// Solves the pair of `sector` and its mirror `sector.mirrored()` (one
/// sector when they are the same) and returns each sector with its
/// entries. A sliding sector's pair is a sliding pair; a sector with stones
/// in hand is a Lasker pair (the rule set must have the Lasker rule). Every
/// sector that captures and placements lead to must be solved in `dir`.
pub(crate) fn solve_pair(
    rules: &RuleSet,
    dir: &Path,
    sector: Sector,
    progress: &dyn crate::Progress,
) -> Result<SolvedPair, SolveError> {
    solve_pair_keeping_floors(rules, dir, sector, progress, FAR_FLOOR)
}

/// [`solve_pair`], with loss floors from `far_floor` up read again from
/// the leaving children rather than kept in the cells (at most
/// [`FAR_FLOOR`]; the tests lower it to take that path everywhere).
fn solve_pair_keeping_floors(
    rules: &RuleSet,
    dir: &Path,
    sector: Sector,
    progress: &dyn crate::Progress,
    far_floor: u16,
) -> Result<SolvedPair, SolveError> {
    let mirrored = sector.mirrored();
    let sectors = if mirrored == sector { vec![sector] } else { vec![sector, mirrored] };
    if !sector.is_sliding() && !rules.lasker() {
        return Err(SolveError::Internal {
            sector,
            detail: "a pair with stones in hand exists only under the Lasker rule".to_string(),
        });
    }
    if rules.board().len() > MAX_POINTS {
        return Err(SolveError::Internal {
            sector,
            detail: format!("a board of {} points exceeds this solver's {MAX_POINTS}", rules.board().len()),
        });
    }
    // Each sector's indices and cells, the cells in the mirrored index's
    // order (module docs).
    let mut indices = Vec::new();
    let mut cells = Vec::new();
    for &sector in &sectors {
        let (index, layout) = (rules.indexer().sector(sector), rules.indexer().sector(sector.mirrored()));
        let slots = index.len().max(layout.len());
        if slots > crate::unit::MAX_PAIR_SECTOR_SLOTS {
            return Err(SolveError::Internal {
                sector,
                detail: format!("{slots} slots exceed this solver's 2^31 per sector"),
            });
        }
        let filled = HugeCells::filled(layout.len() as usize, 0);
        cells.push(filled.map_err(|error| SolveError::Io { path: dir.to_path_buf(), error })?);
        indices.push((sector, index, layout));
    }
    let mut sides = Vec::new();
    for ((sector, index, layout), cells) in indices.into_iter().zip(cells.iter_mut()) {
        let Sector { b, bh, .. } = sector;
        let open = |target: Option<Sector>| target.map_or(Ok(Exit::Never), |t| open_exit(rules, dir, t));
        let [captures, placements, placement_captures] = exit_sectors(rules, sector);
        let (captures, placements, placement_captures) =
            (open(captures)?, open(placements)?, open(placement_captures)?);
        sides.push(Side {
            sector,
            index,
            layout,
            values: cells.atomic(),
            mill_wins: b >= 1 && b as u32 + bh as u32 == 3 && !rules.misere(),
            captures,
            placements,
            placement_captures,
        });
    }
    let pair = Pair { rules, sides, fault: AtomicBool::new(false), far_floor: far_floor.min(FAR_FLOOR) };
    let name = sectors.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("/");

    progress.message(&format!("pair {name}: initialising"));
    let t0 = Instant::now();
    for side in 0..pair.sides.len() {
        let orbits = pair.sides[side].layout.orbit_table().len();
        (0..orbits).into_par_iter().for_each(|orbit| pair.mark_immediate_wins(side, orbit));
    }
    let mut claims = Claims::default();
    for side in 0..pair.sides.len() {
        let orbits = pair.sides[side].layout.orbit_table().len();
        let per_thread: Vec<Claims> = (0..orbits)
            .into_par_iter()
            .fold(Scratch::default, |mut s, orbit| {
                pair.initialise_orbit(side, orbit, &mut s);
                s
            })
            .map(|s| s.claims)
            .collect();
        for c in per_thread {
            claims.append(c);
        }
    }

    let t1 = Instant::now();
    // The frontier in the pieces the threads wrote it in (gathering them
    // into one vector would hold it twice).
    let mut frontier: Vec<Vec<Resolved>> = Vec::new();
    let mut d: u16 = 0;
    loop {
        if let Some(due) = claims.0.get_mut(d as usize) {
            let entry = Value::from_ply(d).to_entry();
            // A claim that takes its slot joins the frontier, with its
            // position decoded from the slot.
            let take = |item: Item| {
                let (side, slot) = Pair::split(item);
                let me = &pair.sides[side];
                if !resolve(&me.values[slot as usize], entry) {
                    return None;
                }
                match me.layout.position(slot) {
                    Some((them, us)) => Some(pair.resolved(side, us, them)),
                    None => {
                        pair.fault.store(true, Relaxed);
                        None
                    }
                }
            };
            let due = std::mem::take(due);
            frontier.push(if due.len() < SEQUENTIAL {
                due.into_iter().filter_map(take).collect()
            } else {
                due.into_par_iter().filter_map(take).collect()
            });
        }
        let resolved: usize = frontier.iter().map(Vec::len).sum();
        if resolved == 0 && claims.0.len() <= d as usize + 1 {
            break;
        }
        // Positions with the same side to move side by side: their
        // predecessors' cells share one orbit block (on this thread when
        // the frontier is small, as below).
        if resolved < SEQUENTIAL {
            frontier.iter_mut().for_each(|piece| piece.sort_unstable_by_key(|r| r.block_key()));
        } else {
            frontier.par_iter_mut().for_each(|piece| piece.par_sort_unstable_by_key(|r| r.block_key()));
        }
        progress.message(&format!("pair {name}: ply {d}, {resolved} positions resolved at this ply"));
        let per_thread: Vec<(Vec<Resolved>, Claims)> = if resolved < SEQUENTIAL {
            let mut s = Scratch::default();
            for &r in frontier.iter().flatten() {
                pair.propagate(r, d, &mut s);
            }
            pair.update_staged(d, &mut s);
            vec![(s.next, s.claims)]
        } else {
            // Each range of keys on one task, which owns its cells.
            key_ranges(&frontier, KEY_RANGES_PER_THREAD * rayon::current_num_threads())
                .par_iter()
                .with_max_len(1)
                .fold(Scratch::default, |mut s, range| {
                    for &r in range.iter().copied().flatten() {
                        pair.propagate(r, d, &mut s);
                    }
                    s
                })
                .map(|mut s| {
                    pair.update_staged(d, &mut s);
                    (s.next, s.claims)
                })
                .collect()
        };
        frontier = Vec::new();
        for (next, c) in per_thread {
            if !next.is_empty() {
                frontier.push(next);
            }
            claims.append(c);
        }
        d = d.checked_add(1).filter(|&d| d <= MAX_PLY).ok_or_else(|| SolveError::Internal {
            sector: sectors[0],
            detail: format!("DTM beyond {MAX_PLY} plies"),
        })?;
    }
    if pair.fault.load(Relaxed) {
        return Err(SolveError::Internal {
            sector: sectors[0],
            detail: "a successor counter or a solved table was inconsistent".to_string(),
        });
    }
    // Each side's entries in its table's order, what is still unknown a
    // draw. The exit tables go first, and each side's cells once gathered.
    let indices: Vec<(Sector, SectorIndex, SectorIndex)> =
        pair.sides.into_iter().map(|side| (side.sector, side.index, side.layout)).collect();
    let padding = |us: Bitboard| rules.line_wins() && rules.has_line(us);
    let mut tables = Vec::new();
    for ((sector, index, layout), cells) in indices.into_iter().zip(cells) {
        let entry = |&e: &u16| if unknown(e) { 0 } else { e };
        let (entries, unvisited) = crate::gather::gather(&index, &layout, &cells, entry, padding);
        drop(cells);
        if unvisited > 0 {
            return Err(SolveError::Internal {
                sector,
                detail: format!("{unvisited} canonical positions were never given a value"),
            });
        }
        tables.push((sector, entries));
    }
    let timing = PairTiming {
        name,
        initialise_seconds: (t1 - t0).as_secs_f64(),
        iterate_seconds: t1.elapsed().as_secs_f64(),
        plies: d as u32,
        store_seconds: 0.0,
    };
    Ok((tables, timing))
}

#[cfg(test)]
mod tests {
    use super::*;
    use morris_db::Overrides;

    /// Loss floors that a cell cannot keep ([`FAR_FLOOR`]) are read again
    /// from the leaving children: pairs of six, with and without flying,
    /// solved with every floor read again give the entries of the pairs
    /// solved keeping them (which the reference tests check).
    #[test]
    fn far_loss_floors_are_read_again_from_the_leaving_children() {
        for (preset, units, pairs) in [
            ("six", vec!["3-3", "3-4", "4-4", "3-5", "4-5"], vec![Sector::sliding(4, 5), Sector::sliding(4, 4)]),
            ("six-flying", vec!["3-3", "3-4", "4-4", "3-5"], vec![Sector::sliding(3, 5), Sector::sliding(3, 3)]),
        ] {
            let rules = RuleSet::preset(preset).unwrap();
            let dir = tempfile::tempdir().unwrap();
            for unit in units {
                crate::solve_only(&rules, dir.path(), unit, &crate::NoProgress).unwrap();
            }
            for sector in pairs {
                let kept = solve_pair(&rules, dir.path(), sector, &crate::NoProgress).unwrap().0;
                let read = solve_pair_keeping_floors(&rules, dir.path(), sector, &crate::NoProgress, 0).unwrap().0;
                assert!(kept == read, "{preset} {sector}: the entries differ");
            }
        }
    }

    /// [`key_ranges`] hands every position of the frontier to exactly one
    /// range, and no key to two ranges (which is what lets a range's task
    /// update its predecessors' cells without atomics), whatever the
    /// pieces: empty ones, one key throughout, keys spread or clustered.
    #[test]
    fn key_ranges_cover_the_frontier_and_never_share_a_key() {
        let piece = |keys: &[(u64, u32)]| -> Vec<Resolved> {
            let mut p: Vec<Resolved> = keys.iter().map(|&(k, t)| Resolved(k << 32 | u64::from(t))).collect();
            p.sort_unstable_by_key(|r| r.block_key());
            p
        };
        let spread: Vec<(u64, u32)> = (0..5000u64).map(|i| ((i * 7919) % 1021, i as u32)).collect();
        let clustered: Vec<(u64, u32)> =
            (0..3000u64).map(|i| (if i % 5 == 0 { 3 } else { 400 + i / 100 }, i as u32)).collect();
        let one: Vec<(u64, u32)> = (0..700u32).map(|i| (1 << 31 | 42, i)).collect();
        let cases = [
            vec![piece(&spread), piece(&clustered), Vec::new(), piece(&one)],
            vec![piece(&one)],
            vec![piece(&spread[..1]), piece(&spread[1..2])],
            vec![Vec::new()],
            vec![piece(&spread[..2500]), piece(&spread[2500..])],
        ];
        for (case, pieces) in cases.iter().enumerate() {
            for parts in [1, 2, 7, 64] {
                let ranges = key_ranges(pieces, parts);
                let mut seen: Vec<u64> = ranges.iter().flatten().flat_map(|s| s.iter()).map(|r| r.0).collect();
                let mut all: Vec<u64> = pieces.iter().flatten().map(|r| r.0).collect();
                seen.sort_unstable();
                all.sort_unstable();
                assert_eq!(seen, all, "case {case}, {parts} parts: every position once");
                let mut owner = std::collections::HashMap::new();
                for (i, range) in ranges.iter().enumerate() {
                    for r in range.iter().flat_map(|s| s.iter()) {
                        assert_eq!(*owner.entry(r.block_key()).or_insert(i), i, "case {case}, {parts} parts");
                    }
                }
                if case == 0 && parts == 64 {
                    assert!(ranges.iter().filter(|r| !r.is_empty()).count() > 16, "the work is spread");
                }
            }
        }
    }

    /// Forward moves and [`lasker_unmoves`] agree: every slide or flight
    /// without removal from a position with stones in hand is undone into
    /// that position, and every un-move, played forward, reaches the
    /// position it came from (on every position of a few Lasker sectors,
    /// with and without flying, with the side to move's board empty).
    #[test]
    fn lasker_unmoves_invert_moves_that_stay_in_the_pair() {
        for (preset, stones) in [("six", 4), ("six-flying", 4), ("nine", 4)] {
            let rules = RuleSet::custom(
                preset,
                &Overrides { stones: Some(stones), lasker: Some(true), ..Overrides::default() },
            )
            .unwrap();
            let (mut checked, mut undone) = (0, 0);
            for sector in [
                Sector { w: 2, b: 3, wh: 1, bh: 1 },
                Sector { w: 0, b: 3, wh: 4, bh: 1 },
                Sector { w: 3, b: 0, wh: 1, bh: 4 },
                Sector { w: 1, b: 2, wh: 3, bh: 2 },
                Sector { w: 3, b: 3, wh: 0, bh: 1 },
            ] {
                let index = rules.indexer().sector(sector);
                for slot in (0..index.len()).step_by(7) {
                    let Some((us, them)) = index.position(slot) else { continue };
                    let mut preds = Vec::new();
                    for_each_move(&rules, us, them, sector.wh, |mv, mover| {
                        if mv.from.is_some() && mv.removal.is_none() {
                            preds.clear();
                            lasker_unmoves(&rules, them, mover, sector.wh, &mut preds);
                            assert!(preds.contains(&(us, them)), "{sector}: {}", mv.notation(rules.board()));
                            checked += 1;
                        }
                    });
                    preds.clear();
                    lasker_unmoves(&rules, us, them, sector.bh, &mut preds);
                    for &(pu, pt) in &preds {
                        let mut found = false;
                        for_each_move(&rules, pu, pt, sector.bh, |mv, mover| {
                            found |= mv.from.is_some() && mv.removal.is_none() && mover == them;
                        });
                        assert!(found, "{sector}: an un-move from slot {slot} that no move undoes");
                        undone += 1;
                    }
                }
            }
            assert!(checked > 1000 && undone > 1000, "{preset}: {checked} moves, {undone} un-moves");
        }
    }
}
