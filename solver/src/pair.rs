//! Retrograde analysis of one sliding pair: sectors `w-b` and `b-w` (one
//! sector when `w == b`), whose moves without removal lead into each other.
//!
//! Phases, named as in the Syzygy generator:
//! 1. *initialise*: every slot gets padding or unknown; every position
//!    counts its distinct in-pair children (its successor counter) and
//!    looks up its capture children in the solved tables. Captures give
//!    claims: `Win(k + 1)` for a capture into `Loss(k)`; `Loss(1 + max)` for
//!    a position whose every move is a capture into a win. A capture into a
//!    draw or a loss also adds a phantom child that never resolves, so the
//!    position can never be counted down to a loss.
//! 2. *iterate* ply by ply, d = 0, 1, 2, ...: claims for ply d that still
//!    find their slot unknown take it; every position resolved at ply d
//!    visits its predecessors through un-moves: a `Loss(d)` makes them
//!    `Win(d + 1)`, a `Win(d)` counts their counter down, and a counter
//!    reaching zero makes a loss at `max(d + 1, 1 + deepest capture win)`,
//!    claimed at that ply (DESIGN.md: "a loss whose last unresolved child was
//!    resolved early still waits for its deepest capture child").
//! 3. what is still unknown is a draw.
//!
//! Children and predecessors are canonical slots, de-duplicated per
//! position on both sides, so counters count distinct canonical children.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU8, Ordering::Relaxed};
use std::time::Instant;

use indicatif::ProgressBar;
use morris_db::moves::{for_each_move, sliding_unmoves};
use morris_db::value::{Value, MAX_DTM, PADDING_ENTRY};
use morris_db::{Bitboard, Move, RuleSet, Sector, SectorIndex, Table};
use rayon::prelude::*;

use crate::{PairTiming, SolveError};

/// A position of the pair: the slot, with bit 31 set for the second sector.
type Item = u32;
const SIDE_BIT: Item = 1 << 31;

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

/// One sector of the pair while it is being solved.
struct Side {
    sector: Sector,
    index: SectorIndex,
    values: Vec<AtomicU16>,
    counters: Vec<AtomicU8>,
    /// Where captures from this sector land: `None` when they leave the
    /// opponent with two stones (an immediate win).
    captures: Option<(SectorIndex, Table)>,
}

struct Pair<'a> {
    rules: &'a RuleSet,
    sides: Vec<Side>,
    fault: AtomicBool,
}

#[derive(Default)]
struct Scratch {
    slots: Vec<u64>,
    preds: Vec<(Bitboard, Bitboard)>,
    next: Vec<Item>,
    claims: Claims,
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

    /// Looks up a capture child's value; flags a fault for a slot that the
    /// solved table does not hold.
    fn capture_value(&self, side: usize, us: Bitboard, them: Bitboard, mv: Move) -> Value {
        let (mover, victim) = morris_db::moves::apply_move(us, them, mv);
        match &self.sides[side].captures {
            None => Value::Loss(0),
            Some((index, table)) => match table.value(index.index(victim, mover)) {
                Some(v) => v,
                None => {
                    self.fault.store(true, Relaxed);
                    Value::Draw
                }
            },
        }
    }

    /// Phase 1a for one orbit of the side to move's stones: padding slots
    /// get the padding entry; when the opponent has exactly three stones,
    /// positions with a mill-closing move win at once and get `Win(1)`.
    /// These are final and never enter the frontier: phase 1b leaves them
    /// out of their predecessors' counters instead (a pull, which reads
    /// children in one orbit block, is far cheaper than pushing each win to
    /// its scattered predecessors).
    fn mark_immediate_wins(&self, side: usize, orbit: usize) {
        let me = &self.sides[side];
        let base = orbit as u64 * me.index.opponent_sets();
        for slot in base..base + me.index.opponent_sets() {
            me.values[slot as usize].store(PADDING_ENTRY, Relaxed);
        }
        let rules = self.rules;
        let all = rules.board().all();
        me.index.for_each_in_orbit(orbit, |slot, us, them| {
            let entry = if rules.line_wins {
                // Three Men's Morris: a line decides the game. A position
                // where the side to move already has one is not a position
                // of a game (padding); where the opponent has one, the side
                // to move has lost (its predecessors all win at once, so it
                // needs no propagation).
                if rules.has_line(us) {
                    PADDING_ENTRY
                } else if rules.has_line(them) {
                    Value::Loss(0).to_entry()
                } else if mill_targets(rules, us) & !us & !them & all != 0 {
                    Value::Win(1).to_entry()
                } else {
                    0
                }
            } else if me.sector.b == 3 && mill_targets(rules, us) & !us & !them & all != 0 {
                // A mill now takes the opponent down to two stones.
                Value::Win(1).to_entry()
            } else {
                0
            };
            me.values[slot as usize].store(entry, Relaxed);
        });
    }

    /// Phase 1b for one orbit: every position not marked in phase 1a.
    fn initialise_orbit(&self, side: usize, orbit: usize, s: &mut Scratch) {
        let me = &self.sides[side];
        me.index.for_each_in_orbit(orbit, |slot, us, them| {
            if me.values[slot as usize].load(Relaxed) == 0 {
                self.initialise(side, slot, us, them, s);
            }
        });
    }

    /// Phase 1 for one canonical position.
    fn initialise(&self, side: usize, slot: u64, us: Bitboard, them: Bitboard, s: &mut Scratch) {
        let me = &self.sides[side];
        let other = &self.sides[self.other(side)];
        // Every child without removal has `them` to move; two of them are the
        // same canonical position only through a symmetry fixing `them`, so
        // children need de-duplicating only when `them` has one.
        let (orbit, sym) = other.index.orbit_table().orbit_of(them);
        let dedupe = !other.index.orbit_table().stabiliser(orbit).is_empty();
        // Children already marked `Win(1)` in phase 1a are left out of the
        // counter; they only raise the loss floor to 2.
        let threats = if other.sector.b == 3 || self.rules.line_wins { mill_targets(self.rules, them) } else { 0 };
        let all = self.rules.board().all();
        s.slots.clear();
        let mut quiet = 0usize;
        let mut any = false;
        let mut best_win: Option<u16> = None;
        let mut blocks_loss = false;
        let mut deepest_win = 0u16;
        for_each_move(self.rules, us, them, 0, |mv, mover| {
            any = true;
            if mv.removal.is_none() {
                if threats & all & !them & !mover != 0 {
                    // The child closes a mill at once: marked `Win(1)` in phase 1a.
                    deepest_win = deepest_win.max(1);
                    return;
                }
                if dedupe {
                    s.slots.push(other.index.index_with_orbit(orbit, sym, mover));
                }
                quiet += 1;
            } else {
                match self.capture_value(side, us, them, mv) {
                    Value::Loss(k) => best_win = Some(best_win.map_or(k + 1, |b| b.min(k + 1))),
                    Value::Draw => blocks_loss = true,
                    Value::Win(k) => deepest_win = deepest_win.max(k),
                }
            }
        });
        if !any {
            // Blocked: lost, unless a full board is a draw under the rule set.
            if self.rules.no_move_value(us, them) == Value::Loss(0) {
                s.claims.push(0, Self::item(side, slot));
            }
            return;
        }
        let mut counter = if dedupe {
            s.slots.sort_unstable();
            s.slots.dedup();
            s.slots.len()
        } else {
            quiet
        };
        if let Some(n) = best_win {
            s.claims.push(n, Self::item(side, slot));
            counter += 1;
        } else if blocks_loss {
            counter += 1;
        } else if counter == 0 {
            s.claims.push(deepest_win + 1, Self::item(side, slot));
        }
        if counter > u8::MAX as usize {
            self.fault.store(true, Relaxed);
        }
        me.counters[slot as usize].store(counter as u8, Relaxed);
    }

    /// The ply at which a position whose in-pair children are all won for
    /// the opponent is lost: one more than its deepest capture child.
    fn capture_loss_floor(&self, side: usize, slot: u64) -> u16 {
        let Some((us, them)) = self.sides[side].index.position(slot) else {
            self.fault.store(true, Relaxed);
            return 0;
        };
        let mut floor = 0;
        for_each_move(self.rules, us, them, 0, |mv, _| {
            if mv.removal.is_some() {
                match self.capture_value(side, us, them, mv) {
                    Value::Win(k) => floor = floor.max(k + 1),
                    _ => self.fault.store(true, Relaxed),
                }
            }
        });
        floor
    }

    /// Phase 2 for one position resolved at ply `d`.
    fn propagate(&self, item: Item, d: u16, s: &mut Scratch) {
        let (side, slot) = Self::split(item);
        let me = &self.sides[side];
        let value = Value::from_entry(me.values[slot as usize].load(Relaxed));
        let Some((us, them)) = me.index.position(slot) else {
            self.fault.store(true, Relaxed);
            return;
        };
        let pred_side = self.other(side);
        let pred = &self.sides[pred_side];
        s.preds.clear();
        sliding_unmoves(self.rules, us, them, &mut s.preds);
        s.slots.clear();
        s.slots.extend(s.preds.iter().map(|&(pu, pt)| pred.index.index(pu, pt)));
        s.slots.sort_unstable();
        s.slots.dedup();
        for i in 0..s.slots.len() {
            let q = s.slots[i];
            let cell = &pred.values[q as usize];
            match value {
                Some(Value::Loss(_)) => {
                    if cell.compare_exchange(0, Value::Win(d + 1).to_entry(), Relaxed, Relaxed).is_ok() {
                        s.next.push(Self::item(pred_side, q));
                    }
                }
                Some(Value::Win(_)) => {
                    if cell.load(Relaxed) != 0 {
                        continue;
                    }
                    let before = pred.counters[q as usize].fetch_sub(1, Relaxed);
                    if before == 0 {
                        self.fault.store(true, Relaxed);
                    } else if before == 1 {
                        let ply = (d + 1).max(self.capture_loss_floor(pred_side, q));
                        if ply == d + 1 {
                            if cell.compare_exchange(0, Value::Loss(ply).to_entry(), Relaxed, Relaxed).is_ok() {
                                s.next.push(Self::item(pred_side, q));
                            }
                        } else {
                            s.claims.push(ply, Self::item(pred_side, q));
                        }
                    }
                }
                _ => self.fault.store(true, Relaxed),
            }
        }
    }
}

/// The points where a stone of `stones` could arrive and close a mill: the
/// third point of a mill whose other two points hold `stones`, reachable by
/// another stone of `stones` (adjacent, or any when the player flies). A
/// position where that player is to move, with one of these points empty and
/// an opponent with three stones, wins at once.
fn mill_targets(rules: &RuleSet, stones: Bitboard) -> Bitboard {
    let board = rules.board();
    let flying = rules.flies(stones.count_ones());
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

/// Each sector of a solved pair with its entries, and where the time went.
pub(crate) type SolvedPair = (Vec<(Sector, Vec<u16>)>, PairTiming);

/// Solves the pair `w-b`/`b-w` and returns each sector with its entries.
pub(crate) fn solve_pair(
    rules: &RuleSet,
    dir: &Path,
    w: u8,
    b: u8,
    progress: &ProgressBar,
) -> Result<SolvedPair, SolveError> {
    let sectors = if w == b { vec![Sector::sliding(w, b)] } else { vec![Sector::sliding(w, b), Sector::sliding(b, w)] };
    let mut sides = Vec::new();
    for &sector in &sectors {
        let index = rules.indexer().sector(sector.w as usize, sector.b as usize);
        let len = index.len() as usize;
        if index.len() >= SIDE_BIT as u64 {
            return Err(SolveError::Internal {
                sector,
                detail: format!("{} slots exceed this solver's 2^31 per sector", index.len()),
            });
        }
        let captures = if sector.b > 3 {
            let target = Sector::sliding(sector.b - 1, sector.w);
            let target_index = rules.indexer().sector(target.w as usize, target.b as usize);
            let table = Table::open(dir, rules, target, target_index.len())?;
            table.verify_checksum()?;
            Some((target_index, table))
        } else {
            None
        };
        sides.push(Side {
            sector,
            index,
            values: (0..len).map(|_| AtomicU16::new(0)).collect(),
            counters: (0..len).map(|_| AtomicU8::new(0)).collect(),
            captures,
        });
    }
    let pair = Pair { rules, sides, fault: AtomicBool::new(false) };
    let name = sectors.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("/");

    progress.set_message(format!("pair {name}: initialising"));
    let t0 = Instant::now();
    for side in 0..pair.sides.len() {
        let orbits = pair.sides[side].index.orbit_table().len();
        (0..orbits).into_par_iter().for_each(|orbit| pair.mark_immediate_wins(side, orbit));
    }
    let mut claims = Claims::default();
    for side in 0..pair.sides.len() {
        let orbits = pair.sides[side].index.orbit_table().len();
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
    let mut frontier: Vec<Item> = Vec::new();
    let mut d: u16 = 0;
    loop {
        if let Some(due) = claims.0.get_mut(d as usize) {
            let entry = Value::from_ply(d).to_entry();
            let taken: Vec<Item> = std::mem::take(due)
                .into_par_iter()
                .filter(|&item| {
                    let (side, slot) = Pair::split(item);
                    pair.sides[side].values[slot as usize].compare_exchange(0, entry, Relaxed, Relaxed).is_ok()
                })
                .collect();
            frontier.extend(taken);
        }
        if frontier.is_empty() && claims.0.len() <= d as usize + 1 {
            break;
        }
        progress.set_message(format!("pair {name}: ply {d}, {} positions resolved at this ply", frontier.len()));
        let per_thread: Vec<(Vec<Item>, Claims)> = frontier
            .par_iter()
            .with_min_len(256)
            .fold(Scratch::default, |mut s, &item| {
                pair.propagate(item, d, &mut s);
                s
            })
            .map(|s| (s.next, s.claims))
            .collect();
        frontier = Vec::new();
        for (next, c) in per_thread {
            frontier.extend(next);
            claims.append(c);
        }
        d = d.checked_add(1).filter(|&d| d <= MAX_DTM).ok_or_else(|| SolveError::Internal {
            sector: sectors[0],
            detail: format!("DTM beyond {MAX_DTM} plies"),
        })?;
    }
    let timing = PairTiming {
        name,
        initialise_seconds: (t1 - t0).as_secs_f64(),
        iterate_seconds: t1.elapsed().as_secs_f64(),
        plies: d as u32,
    };
    if pair.fault.load(Relaxed) {
        return Err(SolveError::Internal {
            sector: sectors[0],
            detail: "a successor counter or a solved table was inconsistent".to_string(),
        });
    }
    let tables = pair
        .sides
        .into_iter()
        .map(|side| (side.sector, side.values.into_iter().map(AtomicU16::into_inner).collect()))
        .collect();
    Ok((tables, timing))
}
