//! The N positions (`morris stats --longest N`) of a database with the
//! longest win (the largest DTM of a won position), over every table of
//! the directory, sliding and placement alike.
//!
//! Each table's header holds its longest win, so the tables are visited
//! from the longest win down and a table whose longest win cannot enter
//! the list found so far is never read (with `three` and a list of 10,
//! 5 of its 7 tables are read; with a big database, only the few tables
//! with the longest wins). A table that is read is streamed from
//! its mapping (compressed `.mtz` tables block by block), in chunks of
//! slots on all cores (rayon), each chunk keeping its own best N; only N
//! entries per chunk are ever held.
//!
//! **Ties** (equal DTM) are broken by the rule set's name, then the sector
//! in the order every command lists sectors
//! ([`morris_db::store::sector_order`]: stones in hand, stones on the
//! board, the side to move's stones on the board and in hand), then the
//! slot in the table (the index order): the same list on every run and
//! any thread count.
//!
//! **The positions** are the canonical representatives of their symmetry
//! classes (the slot's position as the index stores it: the orbit
//! representative of the side to move's stones, the smallest image of the
//! opponent's). The side to move is White, unless the hands say Black
//! (outside Lasker Morris, Black is to move when Black holds one more
//! stone in hand than White).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use morris_db::reach::ReachMap;
use morris_db::store::{sector_order, StoredTable};
use morris_db::{Color, Position, RuleSet, Sector, Table, Value};
use rayon::prelude::*;

/// Slots per chunk of a parallel scan (a multiple of the compressed
/// tables' block size, so that a block is decompressed by one thread).
const CHUNK_SLOTS: u64 = 1 << 20;

/// The order of the list, best first: longest win, then rule set, sector
/// and slot (see the module documentation).
type Key = (Reverse<u16>, String, (u8, u8, u8, u8), u64);

/// One position of the list.
#[derive(Debug, Clone)]
pub struct LongWin {
    /// The rule set's name as the table files have it.
    pub rules_name: String,
    /// The sector of its table.
    pub sector: Sector,
    /// The slot in the table.
    pub slot: u64,
    /// Plies to the win (odd).
    pub dtm: u16,
    /// The canonical position of the slot, with the side to move of
    /// [`side_to_move`].
    pub position: Position,
}

impl LongWin {
    fn key(&self) -> Key {
        (Reverse(self.dtm), self.rules_name.clone(), sector_order(&self.sector), self.slot)
    }
}

impl PartialEq for LongWin {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for LongWin {}
impl PartialOrd for LongWin {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for LongWin {
    /// Better (earlier in the list) is smaller.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

/// The side to move in a position of `sector`: White, unless the hands say
/// Black (outside Lasker Morris White places first, so Black is to move
/// exactly when the side to move holds one stone more than the other).
pub fn side_to_move(rules: &RuleSet, sector: Sector) -> Color {
    if !rules.lasker() && sector.wh == sector.bh + 1 {
        Color::Black
    } else {
        Color::White
    }
}

/// The best `n` of a set of candidates, kept as a max-heap of the worst.
struct TopN {
    n: usize,
    heap: BinaryHeap<LongWin>,
}

impl TopN {
    fn new(n: usize) -> TopN {
        TopN { n, heap: BinaryHeap::with_capacity(n + 1) }
    }

    /// The DTM a candidate needs at least to enter (0 while not full).
    fn threshold(&self) -> u16 {
        if self.heap.len() < self.n {
            0
        } else {
            self.heap.peek().map_or(0, |w| w.dtm)
        }
    }

    fn push(&mut self, w: LongWin) {
        if self.heap.len() < self.n {
            self.heap.push(w);
        } else if self.heap.peek().is_some_and(|worst| w < *worst) {
            self.heap.pop();
            self.heap.push(w);
        }
    }

    /// Whether a table whose longest win is `max_win` can add anything:
    /// not when the list is full and its worst entry is longer, or as long
    /// and earlier in the order than anything the table holds.
    fn wants(&self, rules_name: &str, sector: Sector, max_win: u16) -> bool {
        if self.n == 0 {
            return false;
        }
        match self.heap.peek() {
            Some(worst) if self.heap.len() >= self.n => {
                (Reverse(max_win), rules_name, sector_order(&sector))
                    < (Reverse(worst.dtm), &*worst.rules_name, sector_order(&worst.sector))
                    || (max_win == worst.dtm && rules_name == worst.rules_name && sector == worst.sector)
            }
            _ => true,
        }
    }

    fn into_sorted(self) -> Vec<LongWin> {
        self.heap.into_sorted_vec()
    }
}

/// A table to scan: where it is, its rule set (the preset of its name: the
/// board and the hands' rule) and its header's longest win.
pub struct Candidate<'a> {
    /// The table's files.
    pub stored: &'a StoredTable,
    /// The opened table (header already checked).
    pub table: Table,
    /// The rule set the positions are written under.
    pub rules: RuleSet,
    /// The sector's reachability bitmap (`morris reach`): when given, only
    /// positions that can arise in a game are listed. The table's longest
    /// win still bounds what it can add, so tables are skipped as before.
    pub reach: Option<ReachMap>,
}

/// What [`longest_wins`] found: the list, best first, and how many tables
/// it read.
pub struct Longest {
    /// The positions, best first.
    pub wins: Vec<LongWin>,
    /// Tables whose entries were read.
    pub scanned: Vec<Sector>,
}

/// The `n` positions with the longest wins among `tables` (see the module
/// documentation for the order and the positions). `check` is called on
/// each table before it is read (the payload checksum); its error ends the
/// search.
///
/// # Errors
/// What `check` returns.
pub fn longest_wins<E>(
    mut tables: Vec<Candidate<'_>>,
    n: usize,
    check: impl Fn(&Table) -> Result<(), E>,
) -> Result<Longest, E> {
    tables.retain(|c| c.table.header().wins > 0);
    tables.sort_by_key(|c| {
        let h = c.table.header();
        (Reverse(h.own.max_win), c.stored.rules_name.clone(), sector_order(&c.stored.sector))
    });
    let mut top = TopN::new(n);
    let mut scanned = Vec::new();
    for c in &tables {
        let h = c.table.header();
        let max_win = u16::try_from(h.own.max_win).unwrap_or(u16::MAX);
        if !top.wants(&c.stored.rules_name, c.stored.sector, max_win) {
            continue;
        }
        check(&c.table)?;
        scanned.push(c.stored.sector);
        for w in scan(c, n, top.threshold()) {
            top.push(w);
        }
    }
    Ok(Longest { wins: top.into_sorted(), scanned })
}

/// The best `n` wins of one table with DTM at least `floor`, on all cores.
fn scan(c: &Candidate<'_>, n: usize, floor: u16) -> Vec<LongWin> {
    let sector = c.stored.sector;
    let index = c.rules.indexer().sector(sector);
    let slots = c.table.header().entry_count;
    let side = side_to_move(&c.rules, sector);
    let chunks = slots.div_ceil(CHUNK_SLOTS);
    let partial: Vec<TopN> = (0..chunks)
        .into_par_iter()
        .map(|k| {
            let mut top = TopN::new(n);
            let end = ((k + 1) * CHUNK_SLOTS).min(slots);
            for slot in k * CHUNK_SLOTS..end {
                let Some(Value::Win(dtm)) = c.table.value(slot) else { continue };
                if c.reach.as_ref().is_some_and(|r| !r.contains(slot)) {
                    continue;
                }
                let dtm = dtm.get();
                if dtm < floor.max(top.threshold()) {
                    continue;
                }
                let Some((us, them)) = index.position(slot) else { continue };
                top.push(LongWin {
                    rules_name: c.stored.rules_name.clone(),
                    sector,
                    slot,
                    dtm,
                    // Decoded from the table's own index, the side as its sector
                    // gives it: a trusted position.
                    position: Position::from_sector(sector, side, us, them),
                });
            }
            top
        })
        .collect();
    let mut top = TopN::new(n);
    for w in partial.into_iter().flat_map(|t| t.heap.into_vec()) {
        top.push(w);
    }
    top.into_sorted()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(dtm: u16, rules: &str, sector: Sector, slot: u64) -> LongWin {
        LongWin {
            rules_name: rules.to_string(),
            sector,
            slot,
            dtm,
            position: Position::start(&RuleSet::preset("nine").unwrap()),
        }
    }

    #[test]
    fn keeps_the_best_n_in_order_with_ties_by_rules_sector_and_slot() {
        let (a, b) = (Sector::sliding(3, 3), Sector { w: 2, b: 3, wh: 1, bh: 1 });
        let mut top = TopN::new(3);
        for w in
            [win(5, "six", a, 9), win(7, "six", b, 2), win(7, "six", a, 4), win(7, "six", a, 1), win(9, "three", a, 0)]
        {
            top.push(w);
        }
        let got: Vec<_> = top.into_sorted().into_iter().map(|w| (w.dtm, w.rules_name, w.sector, w.slot)).collect();
        assert_eq!(got, [(9, "three".to_string(), a, 0), (7, "six".to_string(), a, 1), (7, "six".to_string(), a, 4)]);
    }

    #[test]
    fn a_table_that_cannot_enter_is_not_wanted() {
        let (a, b) = (Sector::sliding(3, 3), Sector::sliding(3, 4));
        let mut top = TopN::new(1);
        assert!(top.wants("six", b, 1));
        top.push(win(7, "six", a, 1));
        assert!(!top.wants("six", b, 5));
        assert!(!top.wants("six", b, 7), "3-4 comes after 3-3 at equal DTM");
        assert!(top.wants("six", a, 7), "the same table may hold an earlier slot");
        assert!(top.wants("six", b, 9));
        assert!(!TopN::new(0).wants("six", a, 99));
    }

    #[test]
    fn black_is_to_move_when_the_hands_say_so() {
        let nine = RuleSet::preset("nine").unwrap();
        let lasker = RuleSet::preset("lasker").unwrap();
        assert_eq!(side_to_move(&nine, Sector::sliding(3, 4)), Color::White);
        assert_eq!(side_to_move(&nine, Sector { w: 2, b: 3, wh: 4, bh: 3 }), Color::Black);
        assert_eq!(side_to_move(&nine, Sector { w: 3, b: 3, wh: 3, bh: 3 }), Color::White);
        assert_eq!(side_to_move(&lasker, Sector { w: 2, b: 3, wh: 4, bh: 3 }), Color::White);
    }
}
