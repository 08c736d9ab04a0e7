//! The placement phase (docs/design.md, "Solving"): sectors `w-b-wh-bh` with
//! stones in hand. Without the Lasker rule every turn places a stone, so the
//! stones in hand fall by one each ply and the sectors form a directed
//! acyclic graph; each sector is computed in one pass from the tables of the
//! sectors its moves lead to (already solved), down to the start `0-0-N-N`.
//! DTM stays exact through the change of phase: a child's distance plus one.
//! Under the Lasker rule a player with stones in hand may also move, so a
//! sector and its mirror lead into each other: [`lasker_pairs`] lists them,
//! and they are solved by retrograde analysis like the sliding pairs.

use std::path::Path;

use morris_db::index::BlockMemo;
use morris_db::mapped::HugeCells;
use morris_db::moves::{for_each_move, mill_removes, removable};
use morris_db::store::sector_order;
use morris_db::table::Entries;
use morris_db::value::{Value, PADDING_ENTRY};
use morris_db::{Bitboard, Point, Points, RuleSet, Sector, SectorIndex, Table};
use rayon::prelude::*;

use crate::SolveError;

/// The placement sectors of a rule set, in solving order (fewest stones in
/// hand first). Without the Lasker rule the side to move places, so it has
/// stones in hand; White places first, so hands are `(k, k)` with White to
/// move or `(k + 1, k)` with Black to move. Under the Lasker rule every
/// sector of [`lasker_pairs`] with its mirror (pair by pair, in that
/// order). Sectors where a player has fewer than 3 stones in all are left
/// out (the game is over there), and so are those where the opponent has
/// no stone on the board after a move ([`RuleSet::sector_occurs`]: no
/// position in them can arise, and no move leads into them).
pub fn placement_sectors(rules: &RuleSet) -> Vec<Sector> {
    if rules.lasker() {
        let mut sectors = Vec::new();
        for s in lasker_pairs(rules) {
            sectors.push(s);
            if s.mirrored() != s {
                sectors.push(s.mirrored());
            }
        }
        return sectors;
    }
    let n = rules.stones();
    let points = rules.board().len() as u8;
    let mut hands: Vec<(u8, u8)> = (1..=n).map(|k| (k, k)).chain((0..n).map(|k| (k + 1, k))).collect();
    hands.sort_by_key(|&(wh, bh)| (wh + bh, wh));
    let mut sectors = Vec::new();
    for (wh, bh) in hands {
        for w in 0..=(n - wh) {
            for b in 0..=(n - bh) {
                let s = Sector { w, b, wh, bh };
                if w + wh >= 3 && b + bh >= 3 && w + b <= points && rules.sector_occurs(s) {
                    sectors.push(s);
                }
            }
        }
    }
    sectors
}

/// The placement pairs of a rule set under the Lasker rule, one sector per
/// pair `{w-b-wh-bh, b-w-bh-wh}` (the one with `(w, wh) <= (b, bh)`), in
/// solving order. A player with stones in hand may place or move, so any
/// hands `wh, bh <= N` with `wh + bh > 0` occur, with `w + wh <= N`,
/// `b + bh <= N`, each player with at least 3 stones on the board plus in
/// hand, and `w + b` at most the board's points, leaving out the pairs
/// whose two sectors both cannot occur ([`RuleSet::sector_occurs`]: the
/// empty board with stones already placed). A slide or flight stays
/// in the pair; a placement lowers the stones in hand by one, a capture
/// the stones on the board: pairs come by stones in hand `wh + bh`, then
/// by stones on the board `w + b`, fewest first, after the sliding pairs
/// (hands `0 0`), so every move leaving a pair lands in one solved before.
/// Empty without the Lasker rule.
pub fn lasker_pairs(rules: &RuleSet) -> Vec<Sector> {
    if !rules.lasker() {
        return Vec::new();
    }
    let n = rules.stones();
    let points = rules.board().len() as u32;
    let mut pairs = Vec::new();
    for wh in 0..=n {
        for bh in 0..=n {
            for w in 0..=(n - wh) {
                for b in 0..=(n - bh) {
                    let s = Sector { w, b, wh, bh };
                    if wh + bh > 0
                        && w + wh >= 3
                        && b + bh >= 3
                        && w as u32 + b as u32 <= points
                        && (w, wh) <= (b, bh)
                        && (rules.sector_occurs(s) || rules.sector_occurs(s.mirrored()))
                    {
                        pairs.push(s);
                    }
                }
            }
        }
    }
    pairs.sort_by_key(sector_order);
    pairs
}

/// A solved table with its index, for child look-ups.
struct Child {
    sector: Sector,
    index: SectorIndex,
    table: Table,
}

/// The sectors a placement sector's moves lead to that have tables: a
/// placement removing 0, 1 or 2 stones (2 only with one removal per mill:
/// the last is optional, [`is_double_removal`]), leaving out those where
/// the opponent keeps fewer than 3 stones or that do not fit the board.
pub(crate) fn child_sectors(rules: &RuleSet, sector: Sector) -> Vec<Sector> {
    let placed = sector.wh.saturating_sub(1);
    (0..=2u8)
        .filter(|&removed| removed <= sector.b)
        .map(|removed| Sector { w: sector.b - removed, b: sector.w + 1, wh: sector.bh, bh: placed })
        .filter(|s| s.w + s.wh >= 3 && s.w + s.b <= rules.board().len() as u8)
        .collect()
}

/// Whether `child` of `sector` ([`child_sectors`]) is reached only by a
/// placement removing two stones, which exists only with one removal per
/// mill: such a table may be missing.
pub(crate) fn is_double_removal(sector: Sector, child: Sector) -> bool {
    child.w + 2 == sector.b
}

/// Opens (and checksums) the tables a sector's moves lead to.
fn open_children(rules: &RuleSet, dir: &Path, sector: Sector) -> Result<Vec<Child>, SolveError> {
    let mut children = Vec::new();
    for s in child_sectors(rules, sector) {
        let index = rules.indexer().sector(s);
        match Table::open(dir, rules, s, index.len()) {
            Ok(table) => {
                table.verify_checksum()?;
                children.push(Child { sector: s, index, table });
            }
            // Two removals at once only exist with one removal per mill.
            Err(morris_db::TableError::Missing { .. }) if is_double_removal(sector, s) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(children)
}

/// The value of one position with the side to move placing, as a table
/// entry; `None` when a child's table holds no value there. `quiet` looks up
/// the placements without removal: their children all have `them` to move,
/// in one orbit block of the same table, which the caller keeps at hand.
/// `capture(r, after)` looks up a placement that removes the one stone `r`:
/// its child has `them` less `r` to move, in an orbit block that depends on
/// `them` and `r` only.
fn position_value(
    rules: &RuleSet,
    children: &[Child],
    sector: Sector,
    us: Bitboard,
    them: Bitboard,
    quiet: impl Fn(Bitboard) -> Option<Value>,
    capture: impl Fn(Point, Bitboard) -> Option<Value>,
) -> Option<u16> {
    if rules.line_wins() {
        if rules.has_line(us) {
            return Some(PADDING_ENTRY);
        }
        if rules.has_line(them) {
            return Some(Value::LOST.to_entry());
        }
    }
    let mut best_win: Option<morris_db::Odd> = None;
    let mut draw = false;
    let mut longest_loss: Option<morris_db::Even> = None;
    let mut any = false;
    let mut missing = false;
    for_each_move(rules, us, them, sector.wh, |mv, after| {
        any = true;
        let victims = them & !mv.removals();
        let child = if victims.count_ones() + sector.bh as u32 >= 3 && !(rules.line_wins() && rules.has_line(after)) {
            if mv.removal.is_none() {
                quiet(after)
            } else if let (Some(r), 0) = (mv.removal, mv.extra_removals) {
                capture(r, after)
            } else {
                let s = Sector {
                    w: victims.count_ones() as u8,
                    b: after.count_ones() as u8,
                    wh: sector.bh,
                    bh: sector.wh - 1,
                };
                match children.iter().find(|c| c.sector == s) {
                    Some(c) => c.table.value(c.index.index(victims, after)),
                    None => None,
                }
            }
        } else {
            // The opponent is down to two stones (or faces a line).
            Some(rules.decided_value())
        };
        match child.map(Value::back) {
            Some(Value::Win(n)) => best_win = Some(best_win.map_or(n, |b| b.min(n))),
            Some(Value::Draw) => draw = true,
            Some(Value::Loss(n)) => longest_loss = Some(longest_loss.map_or(n, |m| m.max(n))),
            None => missing = true,
        }
    });
    if missing {
        return None;
    }
    let value = if !any {
        rules.no_move_value(us, them)
    } else if let Some(n) = best_win {
        Value::Win(n)
    } else if draw {
        Value::Draw
    } else {
        longest_loss.map_or(Value::LOST, Value::Loss)
    };
    Some(value.to_entry())
}

/// How one child entry ranks for the side to move of its parent, higher
/// better: a loss for the child's side to move (odd entry, `Loss(e - 1)`),
/// the shortest first, above a draw (entry 0), above a win for it (even
/// entry), the longest first. Branch-free, so that the best child is a
/// running maximum ([`entry_of_best`] turns it back into an entry).
#[inline(always)]
fn child_rank(entry: u16) -> u32 {
    let e = entry as u32;
    let win = if e == 0 { 0x1_0000 } else { e };
    if e & 1 == 1 {
        0x3_0000 - e
    } else {
        win
    }
}

/// The parent's table entry for the best child rank of [`child_rank`]: a
/// child's `Loss(n)` (entry `n + 1`) makes `Win(n + 1)` (entry `n + 2`), a
/// child's `Win(n)` makes `Loss(n + 1)`, a draw a draw ([`Value::back`] on
/// entries).
#[inline(always)]
fn entry_of_best(best: u32) -> u16 {
    if best >= 0x2_0000 {
        (0x3_0000 - best + 1) as u16
    } else if best == 0x1_0000 {
        0
    } else {
        (best + 1) as u16
    }
}

/// The rank of [`placement_entry`]'s quiet children that tells a child
/// without a value (a padding entry, or a slot past the table's end): above
/// every [`child_rank`], so that it is the best when it is there.
const FAULT_RANK: u32 = u32::MAX;

/// [`child_rank`] of a child's table entry, [`FAULT_RANK`] for padding.
#[inline(always)]
fn fault_rank(entry: u16) -> u32 {
    if entry == PADDING_ENTRY {
        FAULT_RANK
    } else {
        child_rank(entry)
    }
}

/// The [`fault_rank`]s of the quiet child's orbit block that one orbit of
/// the walk by `them` reads (every quiet placement from a position of
/// orbit `them` leads there): read from the table once per orbit, a block
/// at a time, rather than once per placement, and kept in `ranks` (indexed
/// by slot less the block's first). A block that cannot be read (a
/// damaged compressed child) ranks as faults throughout.
fn quiet_ranks(table: &Table, first: u64, len: u64, entries: &mut Vec<u16>, ranks: &mut Vec<u32>) {
    entries.resize(len as usize, PADDING_ENTRY);
    ranks.clear();
    if table.entries_into(first, entries).is_ok() {
        ranks.extend(entries.iter().map(|&e| fault_rank(e)));
    } else {
        ranks.resize(len as usize, FAULT_RANK);
    }
}

/// What [`placement_entry`] needs of the opponent's stones `them`, which are
/// the same for every position of one orbit block of the walk by `them`.
struct Opponent {
    them: Bitboard,
    /// A mill closed against `them` removes a stone ([`mill_removes`]).
    removes: bool,
    /// The stones a mill may remove ([`removable`]).
    removable: Bitboard,
    /// The entry of every child of a quiet placement when the opponent has
    /// fewer than 3 stones on the board and in hand
    /// ([`RuleSet::decided_value`]); `None` when it has 3 or more.
    quiet_decided: Option<u16>,
    /// The same for the children of a capture, one stone fewer.
    capture_decided: Option<u16>,
}

/// [`position_value`] for the rule sets of [`fast_placement`]: the same
/// entry, from the same children, found without generating moves one by
/// one. The points where a placement closes a mill come from the mills
/// with two of `us`'s stones and an empty third point; every other empty
/// point is a quiet placement, whose child's [`fault_rank`] is
/// `quiet(point)`, and each closing point `p` a mill whose captures (one
/// per removable stone) give `captures(p, us after the placement)`: the
/// best of their [`Captured`]. `None` when a child's table holds no value
/// there (a padding slot or one past its end).
#[inline(always)]
fn placement_entry(
    rules: &RuleSet,
    opponent: &Opponent,
    us: Bitboard,
    quiet: impl Fn(Point) -> u32,
    mut captures: impl FnMut(Point, Bitboard) -> Option<Captured>,
) -> Option<u16> {
    let board = rules.board();
    let empty = board.all() & !us & !opponent.them;
    let closing = if opponent.removes { board.completing_points(us, empty) } else { 0 };
    let quiet_points = empty & !closing;
    let mut any = quiet_points != 0;
    let mut best = 0u32;
    if let (Some(e), true) = (opponent.quiet_decided, any) {
        best = child_rank(e);
    } else {
        for p in Points(quiet_points) {
            best = best.max(quiet(p));
        }
    }
    // A child without a value ranks above every value.
    let mut padding = best == FAULT_RANK;
    if closing != 0 && opponent.removable != 0 {
        any = true;
        if let Some(e) = opponent.capture_decided {
            best = best.max(child_rank(e));
        } else {
            for p in Points(closing) {
                let c = captures(p, us | 1 << p)?;
                padding |= c.padding;
                best = best.max(c.rank);
            }
        }
    }
    if padding {
        return None;
    }
    if !any {
        return Some(rules.no_move_value(us, opponent.them).to_entry());
    }
    Some(entry_of_best(best))
}

/// The best of the captures after one mill ([`placement_entry`]): the
/// highest [`child_rank`] of their children's entries (0 for none), and
/// whether one of them held padding.
#[derive(Debug, Clone, Copy, Default)]
struct Captured {
    rank: u32,
    padding: bool,
}

impl Captured {
    /// Takes one capture's child entry into account.
    #[inline(always)]
    fn add(&mut self, entry: u16) {
        self.padding |= entry == PADDING_ENTRY;
        self.rank = self.rank.max(child_rank(entry));
    }

    /// In 32 bits, for a [`BlockMemo`]: the rank, with bit 31 for padding
    /// (ranks stay below 2^18, so never [`BlockMemo::UNKNOWN`]).
    #[inline(always)]
    fn pack(self) -> u32 {
        self.rank | u32::from(self.padding) << 31
    }

    /// The inverse of [`Captured::pack`].
    #[inline(always)]
    fn unpack(packed: u32) -> Captured {
        Captured { rank: packed & !(1 << 31), padding: packed >> 31 == 1 }
    }
}

/// The entry of `slot` in a child's table, through `view` (the table's
/// [`Table::entries_view`]) when it is not compressed.
#[inline(always)]
fn entry(table: &Table, view: Option<Entries>, slot: u64) -> Option<u16> {
    match view {
        Some(v) => v.get(slot),
        None => table.entry(slot),
    }
}

/// Whether a rule set's placement sectors take [`placement_entry`]: every
/// placement is one stone placed and at most one removed, and a line does
/// not end the game. Else [`position_value`], which generates the moves.
fn fast_placement(rules: &RuleSet) -> bool {
    !rules.line_wins() && !rules.remove_per_mill() && !rules.lasker()
}

/// Solves one placement sector `w-b-wh-bh` from its children's tables.
///
/// Positions are visited by the orbit of the opponent's stones (`them`,
/// `b` stones) rather than in slot order: every placement without removal
/// from `(us, them)` leads to `them` to move in the sector `b-(w+1)`, whose
/// slots for one orbit of `them` form one block of `C(n - b, w + 1)`
/// entries. Visiting all of `us` for one orbit of `them` in a row keeps that
/// block in the cache; in slot order each position touched a different
/// block of a table far larger than the cache. Every canonical position is
/// visited once: `them` is its orbit's representative and `us` the smallest
/// image under that representative's stabiliser, exactly the positions of
/// the mirrored sector's index `b-w`. The result is written to its slot in
/// this sector's index, and a last pass checks that no canonical slot was
/// left without a value.
pub(crate) fn solve_placement_sector(rules: &RuleSet, dir: &Path, sector: Sector) -> Result<Vec<u16>, SolveError> {
    let children = open_children(rules, dir, sector)?;
    let index = rules.indexer().sector(sector);
    let by_them = rules.indexer().sector(sector.mirrored());
    let quiet_sector = Sector { w: sector.b, b: sector.w + 1, wh: sector.bh, bh: sector.wh.saturating_sub(1) };
    let quiet_child = children.iter().find(|c| c.sector == quiet_sector);
    let capture_sector = Sector { w: sector.b.saturating_sub(1), ..quiet_sector };
    let capture_child = children.iter().find(|c| c.sector == capture_sector && sector.b > 0);
    let fast_placement = fast_placement(rules);
    // Pass 1, by the orbit of `them`: values in the mirrored index's slot
    // order, so every write is sequential.
    let mirror_block = by_them.opponent_sets().max(1) as usize;
    // In huge pages: pass 2 reads it at random, and a read that misses the
    // TLB waits for a page walk (on `nine-diagonal-noflying` 6-7-1-0, huge
    // pages alone took the sector to 0.94 of its time, with pass 2's
    // prefetch to 0.67, medians of 3 alternated rounds).
    let mut by_them_entries = HugeCells::filled(by_them.len() as usize, PADDING_ENTRY)
        .map_err(|error| SolveError::Io { path: dir.to_path_buf(), error })?;
    let faults: usize = by_them_entries
        .par_chunks_mut(mirror_block)
        .enumerate()
        .map_init(
            || (BlockMemo::default(), Vec::new(), Vec::new()),
            |(memo, entries, ranks), (orbit, chunk)| {
                let mut faults = 0;
                let base = (orbit * mirror_block) as u64;
                // `them` is this orbit's representative, in the quiet child's
                // orbit table too (both index sets of `b` stones first).
                let block =
                    quiet_child.map(|c| c.index.orbit_table().orbit_of(by_them.orbit_table().representative(orbit)));
                // With a trivial stabiliser, the slots of `us` plus one point
                // come from one set-up per position.
                let fast =
                    quiet_child.zip(block).filter(|(_, (_, g))| *g == 0).and_then(|(c, (o, _))| c.index.orbit_block(o));
                // Captures of one stone: per removed point `r`, the orbit of
                // `them` less `r` in the capture child's index, and the
                // symmetry taking it there.
                let rep = by_them.orbit_table().representative(orbit);
                let mut removed = [(0usize, 0usize); 32];
                if let Some(c) = capture_child {
                    for r in Points(rep) {
                        removed[r as usize] = c.index.orbit_table().orbit_of(rep & !(1 << r));
                    }
                }
                let capture_view = capture_child.and_then(|c| c.table.entries_view());
                let capture_entry = |r: Point, after: Bitboard| {
                    let c = capture_child?;
                    let (o, g) = removed[r as usize];
                    entry(&c.table, capture_view, c.index.index_with_orbit(o, g, after))
                };
                if fast_placement {
                    // The opponent keeps `b + bh` stones after a quiet placement,
                    // one fewer after a capture.
                    let decided = |left: u8| (left < 3).then(|| rules.decided_value().to_entry());
                    let opponent = Opponent {
                        them: rep,
                        removes: mill_removes(rules, rep),
                        removable: removable(rules, rep),
                        quiet_decided: decided(sector.b + sector.bh),
                        capture_decided: decided((sector.b + sector.bh).saturating_sub(1)),
                    };
                    // The quiet child's block, ranked, unless no quiet
                    // placement reads it.
                    if let (Some(c), Some((o, _)), None) = (quiet_child, block, opponent.quiet_decided) {
                        let len = c.index.opponent_sets();
                        quiet_ranks(&c.table, o as u64 * len, len, entries, ranks);
                    }
                    let ranks = &ranks[..];
                    let rank_at = |first: u64, slot: u64| {
                        slot.checked_sub(first)
                            .and_then(|i| usize::try_from(i).ok())
                            .and_then(|i| ranks.get(i))
                            .copied()
                            .unwrap_or(FAULT_RANK)
                    };
                    // The captures after a mill that leaves the mover's stones
                    // `after`: one per removable stone.
                    let captures_of = |after: Bitboard| {
                        let mut c = Captured::default();
                        for r in Points(opponent.removable) {
                            c.add(capture_entry(r, after)?);
                        }
                        Some(c)
                    };
                    if let (Some(c), Some(_)) = (quiet_child, &fast) {
                        memo.reset(c.index.opponent_sets() as usize);
                    }
                    by_them.for_each_in_orbit(orbit, |slot, _, us| {
                        let entry = match (quiet_child, &fast) {
                            (Some(_), Some(f)) => {
                                let extensions = f.extensions(us);
                                let quiet = |p: Point| rank_at(f.first(), extensions.slot(p));
                                // A mill's captures depend only on the stones the
                                // mover leaves, and a set with a mill is left by a
                                // placement onto any point of it: each set's are
                                // kept by the rank it has in the quiet child's
                                // block, as a quiet placement's child.
                                let captures = |p: Point, after: Bitboard| {
                                    let at = extensions.slot(p) - f.first();
                                    memo.get(at, || captures_of(after).map(Captured::pack)).map(Captured::unpack)
                                };
                                placement_entry(rules, &opponent, us, quiet, captures)
                            }
                            (Some(c), None) => {
                                let (o, g) = block.unwrap_or_default();
                                let first = o as u64 * c.index.opponent_sets();
                                let quiet = |p: Point| rank_at(first, c.index.index_with_orbit(o, g, us | 1 << p));
                                placement_entry(rules, &opponent, us, quiet, |_, after| captures_of(after))
                            }
                            (None, _) => {
                                placement_entry(rules, &opponent, us, |_| FAULT_RANK, |_, after| captures_of(after))
                            }
                        };
                        match entry {
                            Some(e) => chunk[(slot - base) as usize] = e,
                            None => faults += 1,
                        }
                    });
                    return faults;
                }
                let capture = |r: Point, after: Bitboard| capture_entry(r, after).and_then(Value::from_entry);
                by_them.for_each_in_orbit(orbit, |slot, them, us| {
                    let extensions = fast.as_ref().map(|f| f.extensions(us));
                    let quiet = |after: Bitboard| {
                        let (c, (o, g)) = quiet_child.zip(block)?;
                        let slot = match &extensions {
                            Some(e) => e.slot((after & !us).trailing_zeros() as u8),
                            None => c.index.index_with_orbit(o, g, after),
                        };
                        c.table.value(slot)
                    };
                    match position_value(rules, &children, sector, us, them, quiet, capture) {
                        Some(e) => chunk[(slot - base) as usize] = e,
                        None => faults += 1,
                    }
                });
                faults
            },
        )
        .sum();
    if faults > 0 {
        return Err(SolveError::Internal {
            sector,
            detail: format!("{faults} positions lead to a table that is missing or holds no value there"),
        });
    }
    // Pass 2, in this sector's slot order: each canonical position reads its
    // value from the mirrored slot, and a canonical position that pass 1
    // left without a value is a fault.
    let padding = |us: Bitboard| rules.line_wins() && rules.has_line(us);
    let (entries, unvisited) = crate::gather::gather(&index, &by_them, &by_them_entries, |&e| e, padding);
    if unvisited > 0 {
        return Err(SolveError::Internal {
            sector,
            detail: format!("{unvisited} canonical positions were never visited"),
        });
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use morris_db::Overrides;

    /// The ranks of child entries order them as [`Value::best_first`] orders
    /// the parent's values through [`Value::back`], and the best rank gives
    /// back the parent's entry: every entry alone, and every pair among a
    /// spread of short and long distances, draws included.
    #[test]
    fn child_ranks_pick_the_best_move_as_values_do() {
        let parent = |e: u16| Value::from_entry(e).unwrap().back();
        for e in 0..=morris_db::value::MAX_DTM + 1 {
            assert_eq!(entry_of_best(child_rank(e)), parent(e).to_entry(), "entry {e}");
        }
        let spread: Vec<u16> = (0..=40).chain([254, 255, 256, 257, 4000, 65533, 65534]).collect();
        for &a in &spread {
            for &b in &spread {
                let by_values = Value::best_first(&parent(a), &parent(b));
                // Best first: the higher rank.
                assert_eq!(child_rank(b).cmp(&child_rank(a)), by_values, "entries {a} and {b}");
            }
        }
    }

    /// Every move leaving a Lasker pair (a placement, a capture) lands in a
    /// sliding sector or in a pair listed before; every sector with stones
    /// in hand is in exactly one pair.
    #[test]
    fn lasker_pairs_come_after_every_sector_they_lead_to() {
        for (preset, stones) in [("six", 4), ("nine", 5), ("three", 3)] {
            let rules = RuleSet::custom(
                preset,
                &Overrides { stones: Some(stones), lasker: Some(true), ..Overrides::default() },
            )
            .unwrap();
            let pairs = lasker_pairs(&rules);
            let mut done: Vec<Sector> = Vec::new();
            // Sectors no move reaches (`RuleSet::sector_occurs`) are not read.
            let exists = |s: Sector| s.w + s.wh >= 3 && s.b + s.bh >= 3 && rules.sector_occurs(s);
            for &p in &pairs {
                for s in [p, p.mirrored()] {
                    let Sector { w, b, wh, bh } = s;
                    let mut targets = Vec::new();
                    if b > 0 {
                        targets.push(Sector { w: b - 1, b: w, wh: bh, bh: wh });
                    }
                    if wh > 0 && (w + b) < rules.board().len() as u8 {
                        targets.push(Sector { w: b, b: w + 1, wh: bh, bh: wh - 1 });
                        if b > 0 {
                            targets.push(Sector { w: b - 1, b: w + 1, wh: bh, bh: wh - 1 });
                        }
                    }
                    for t in targets.into_iter().filter(|&t| exists(t)) {
                        assert!(t.is_sliding() || done.contains(&t), "{preset}: {s} leads to {t}, not solved before");
                    }
                }
                done.push(p);
                done.push(p.mirrored());
            }
            let sectors = placement_sectors(&rules);
            let mut unique = sectors.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), sectors.len(), "{preset}");
            assert!(sectors.iter().all(|s| !s.is_sliding() && rules.sector_fits(*s)), "{preset}");
            let start = Sector { w: 0, b: 0, wh: stones, bh: stones };
            assert_eq!(pairs.last(), Some(&start), "{preset}");
        }
    }
}
