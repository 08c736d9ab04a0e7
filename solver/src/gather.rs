//! Entries kept in the mirrored sector's slot order, gathered into a
//! sector's own slot order for its table.
//!
//! The placement solver and the pair solver visit a sector `w-b` by the
//! orbit of the opponent's stones: in the order of the mirrored sector's
//! index `b-w`, where the slot of `(us, them)` is that of `(them, us)`.
//! There the look-ups of one orbit's positions share blocks of the tables
//! they read, and a position's predecessors share one block of the cells
//! (docs/design.md, "Solving"). A table is written in its own order, so
//! each sector's entries are gathered once at the end: in its own slot
//! order, each read at random from the mirrored order.

use morris_db::mapped::prefetch;
use morris_db::value::PADDING_ENTRY;
use morris_db::{Bitboard, SectorIndex};
use rayon::prelude::*;

/// How many positions after it is asked for (a prefetch) a mirrored cell is
/// read: the reads are at random, so asking ahead overlaps their cache
/// misses (read at once, each waited for the last, the ranking between
/// them filling the processor's window).
const GATHER_AHEAD: usize = 16;

/// The entries of `index`'s sector in its own slot order, from `cells`
/// kept in the order of `by_them`, the index of the mirrored sector (the
/// cell of `(us, them)` at `by_them.index(them, us)`): each canonical
/// position gets `entry(cell)`, each padding slot [`PADDING_ENTRY`]. With
/// them, the number of canonical positions whose cell gave the padding
/// entry although `padding(us)` is false: positions never given a value,
/// which the caller reports as a fault. (`padding(us)` is true where a
/// canonical position is stored as padding: under a rule set where a line
/// wins, the side to move already having one.)
///
/// `cells` has `by_them.len()` cells; on all of rayon's threads, one orbit
/// block of `index` at a time.
pub(crate) fn gather<T: Sync>(
    index: &SectorIndex,
    by_them: &SectorIndex,
    cells: &[T],
    entry: impl Fn(&T) -> u16 + Sync,
    padding: impl Fn(Bitboard) -> bool + Sync,
) -> (Vec<u16>, usize) {
    let block = index.opponent_sets().max(1) as usize;
    let mut entries = vec![PADDING_ENTRY; index.len() as usize];
    let unvisited = entries
        .par_chunks_mut(block)
        .enumerate()
        .map(|(orbit, chunk)| {
            let mut unvisited = 0;
            let base = (orbit * block) as u64;
            // (slot in the chunk, mirrored slot, may be padding)
            let mut ahead = [(0usize, 0usize, false); GATHER_AHEAD];
            let mut seen = 0;
            let mut settle = |(at, from, padding): (usize, usize, bool), chunk: &mut [u16]| {
                let e = entry(&cells[from]);
                unvisited += (e == PADDING_ENTRY && !padding) as usize;
                chunk[at] = e;
            };
            index.for_each_in_orbit(orbit, |slot, us, them| {
                let from = by_them.index(them, us) as usize;
                prefetch(&cells[from]);
                let k = seen % GATHER_AHEAD;
                if seen >= GATHER_AHEAD {
                    settle(ahead[k], chunk);
                }
                ahead[k] = ((slot - base) as usize, from, padding(us));
                seen += 1;
            });
            for i in seen.saturating_sub(GATHER_AHEAD)..seen {
                settle(ahead[i % GATHER_AHEAD], chunk);
            }
            unvisited
        })
        .sum();
    (entries, unvisited)
}
