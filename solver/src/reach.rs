//! Reachability (`morris reach`): which canonical positions of each table
//! can arise in a game, from the start position (White to move on the empty
//! board, both hands full) by legal play, written as one bitmap per sector
//! beside the tables ([`morris_db::reach`]), with the values of the
//! reachable positions counted from the DTM tables.
//!
//! A forward search, sector by sector in the order play goes. Every move
//! lowers the stones in hand (a placement) or keeps them (a slide, a
//! flight, and under the Lasker rule a move with stones in hand), and a
//! move that keeps them lowers the stones on the board (a capture) or keeps
//! them too. So the sectors fall into *groups* of equal stones in hand and
//! equal stones on the board (both sides together), and a move leads from
//! a group into itself or into a group with fewer stones in hand, or as
//! many and fewer on the board. The groups are visited in that order:
//! most stones in hand first, then most on the board. Within a group moves
//! that keep both counts lead from `w-b-wh-bh` to its mirror `b-w-bh-wh`
//! (a sliding pair, or a Lasker placement pair), so each group is searched
//! to a fixed point: its positions reached from earlier groups are expanded,
//! and every position found in the group itself is expanded once in turn.
//! Positions found in later groups are only marked, and expanded when their
//! group's turn comes. A group's bitmaps are complete when it is done, and
//! are then counted and written.
//!
//! The search of a group runs in passes, on every thread: a pass expands
//! the group's frontier (at first, what earlier groups reached there; then
//! what the previous pass newly found in the group), setting bits with
//! atomic operations, so that the result is the same set whatever the
//! threads' order. The bitmaps of every sector are held from the start
//! (one bit per slot: 3.3 GB for `nine`), and dropped as their group is
//! written.
//!
//! The bitmaps mark canonical positions (the slot of the sector's index,
//! [`morris_db::SectorIndex::index`], of any image): the start is symmetric
//! and moves commute with the board's symmetries, so the reachable positions
//! are whole symmetry classes, and expanding any one image of a class finds
//! the classes of all its images' children. Positions are relative to the
//! side to move, as the tables are: a bit says that the position arises
//! with that side to move, whichever colour it is.
//!
//! A game ends in a position where the side to move has fewer than 3
//! stones (board plus hand), where a line has been made (Three Men's
//! Morris), or where the side to move cannot move; such positions are
//! marked where they have a table but not expanded, and positions where the
//! side to move has fewer than 3 stones have no table and are not counted.
//!
//! A rerun keeps every bitmap already written whose header and checksum
//! are sound and whose counts were read from the table now on disk (the
//! same payload checksum); it still reads a kept group's bitmaps and
//! expands their positions while a later group has no bitmap yet, since
//! those positions lead there; once every later group is done, nothing is
//! expanded.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use bitvec::prelude::*;
use morris_db::moves::{decided_before_moving, for_each_move};
use morris_db::reach::{write_reach, BoardCounts, ReachFields, ReachHeader, ReachMap, ENCODING_REACH_BITS};
use morris_db::store::{sector_order, Store};
use morris_db::{Bitboard, Located, RuleSet, Sector, SectorIndex, Table, TableError};
use rayon::prelude::*;

use crate::unit::units;

/// A bitmap of one sector in memory: bit `s` for slot `s`.
type Bits = BitVec<u64, Lsb0>;

/// Why reachability could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum ReachError {
    /// Some sectors of the game have no DTM table in the directory: the
    /// search enters every sector of the game, and counts the values of
    /// the positions it reaches from the tables.
    #[error("{} lacks the tables of {} sector{} of rule set `{rules}`: {}; reachability needs the whole game: solve it first with `morris solve --phase all` (and the rule-set options of this run) into {}", .dir.display(), .missing.len(), if .missing.len() == 1 { "" } else { "s" }, sector_list(.missing), .dir.display())]
    MissingTables {
        /// The database directory.
        dir: PathBuf,
        /// The rule set's name.
        rules: String,
        /// The sectors without a table, in [`sector_order`].
        missing: Vec<Sector>,
    },
    /// A table could not be read, or a bitmap not written.
    #[error(transparent)]
    Table(#[from] TableError),
    /// An internal consistency check failed (a bug; nothing more was
    /// written).
    #[error("internal error in the reachability of sector {sector}: {detail}")]
    Internal {
        /// The sector.
        sector: Sector,
        /// What failed.
        detail: String,
    },
}

/// At most the first 12 sectors of `sectors`, then how many more.
fn sector_list(sectors: &[Sector]) -> String {
    let mut names: Vec<String> = sectors.iter().take(12).map(Sector::to_string).collect();
    if sectors.len() > 12 {
        names.push(format!("and {} more", sectors.len() - 12));
    }
    names.join(", ")
}

/// The reachability of one sector: its counts, as the bitmap's header and
/// board counts hold them.
#[derive(Debug, Clone)]
pub struct SectorReach {
    /// The sector.
    pub sector: Sector,
    /// Canonical positions in its table (reachable or not); 0 when counted
    /// without the tables ([`reach_counts`]).
    pub positions: u64,
    /// The bitmap's header: `canonical_positions` are the reachable
    /// canonical positions, `wins`, `losses`, `draws` their values for the
    /// side to move (0 when counted without the tables).
    pub header: ReachHeader,
    /// Whether the values were counted (the tables were read).
    pub values: bool,
    /// The same on the board (each position counted once per distinct
    /// symmetric image).
    pub board: BoardCounts,
    /// Whether the bitmap was already on disk and kept.
    pub kept: bool,
}

/// The start sector of `rules`: nothing on the board, both hands full.
pub fn start_sector(rules: &RuleSet) -> Sector {
    Sector { w: 0, b: 0, wh: rules.stones(), bh: rules.stones() }
}

/// A group (stones in hand, stones on the board, most first) and a
/// sector's place in it.
type GroupKey = (std::cmp::Reverse<(u8, u8)>, (u8, u8, u8, u8));

/// The order of the groups (see the module documentation): most stones in
/// hand first, then most stones on the board; within a group, the sectors
/// in [`sector_order`].
fn group_key(s: &Sector) -> GroupKey {
    (std::cmp::Reverse((s.wh + s.bh, s.w + s.b)), sector_order(s))
}

/// Calls `visit(child sector, child's us, child's them)` for each legal move
/// of the position `(us, them)` of `sector`, from the side to move there:
/// nothing when the game is over before the move; nothing for a move that
/// leaves the opponent with fewer than 3 stones (the game ends, and no table
/// holds that position).
pub fn children(
    rules: &RuleSet,
    sector: Sector,
    us: Bitboard,
    them: Bitboard,
    mut visit: impl FnMut(Sector, Bitboard, Bitboard),
) {
    if decided_before_moving(rules, us, them, sector.wh, sector.bh).is_some() {
        return;
    }
    for_each_move(rules, us, them, sector.wh, |mv, after| {
        let them_after = them & !mv.removals();
        let child = Sector {
            w: them_after.count_ones() as u8,
            b: after.count_ones() as u8,
            wh: sector.bh,
            bh: sector.wh - u8::from(mv.from.is_none()),
        };
        if child.w + child.wh >= 3 {
            visit(child, them_after, after);
        }
    });
}

/// A bitmap the threads of a search share: bit `s` for slot `s`, set with
/// atomic operations.
struct SharedBits {
    words: Vec<AtomicU64>,
    len: usize,
}

impl SharedBits {
    /// `len` clear bits.
    fn new(len: usize) -> SharedBits {
        SharedBits { words: (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(), len }
    }

    /// Sets bit `slot`; `true` when it was clear (and this call set it).
    ///
    /// Reads the word first and writes only when the bit is clear: most
    /// positions are reached from many parents, and a locked
    /// read-modify-write on a word that misses the cache stalls the thread
    /// until it arrives, where plain loads of several words overlap.
    #[inline]
    fn set(&self, slot: usize) -> bool {
        let mask = 1u64 << (slot % 64);
        let word = &self.words[slot / 64];
        if word.load(Ordering::Relaxed) & mask != 0 {
            return false;
        }
        word.fetch_or(mask, Ordering::Relaxed) & mask == 0
    }

    /// Sets every bit set in `words` (a bitmap of the same length).
    fn set_all(&self, words: &[u64]) {
        for (w, &x) in self.words.iter().zip(words) {
            w.fetch_or(x, Ordering::Relaxed);
        }
    }

    /// The words as they stand (between passes, when no thread writes).
    fn snapshot(&self) -> Vec<u64> {
        self.words.iter().map(|w| w.load(Ordering::Relaxed)).collect()
    }

    /// Whether no bit is set.
    fn is_clear(&self) -> bool {
        self.words.iter().all(|w| w.load(Ordering::Relaxed) == 0)
    }

    /// The bitmap, for counting and writing.
    fn into_bits(self) -> Bits {
        let mut bits = Bits::from_vec(self.words.into_iter().map(AtomicU64::into_inner).collect());
        bits.truncate(self.len);
        bits
    }
}

/// One sector in the search: its index, group and (until its group is
/// written) bitmap.
struct SectorState {
    sector: Sector,
    index: SectorIndex,
    group: usize,
    bits: Option<SharedBits>,
}

/// The search's state: every sector of the game, numbered.
struct Search<'a> {
    rules: &'a RuleSet,
    sectors: Vec<SectorState>,
    id_of: HashMap<Sector, usize>,
}

/// Slots of the frontier expanded by one task of a pass (whole orbits of
/// the side to move's sets; at least one), in 64-slot words when counting.
const WORDS_PER_TASK: usize = 1024;

/// Slots of the frontier one task of a pass expands, about (whole orbits).
const SLOTS_PER_TASK: usize = WORDS_PER_TASK * 64;

/// A frontier sector with at least one slot in this many marked is walked
/// by the orbit of the opponent's set ([`Search::search_group`]).
const BY_THEM_DENSITY: u64 = 8;

/// The set bits of `words` (bit `s` of word `s / 64`) in `range`.
fn ones_in(words: &[u64], range: std::ops::Range<usize>) -> impl Iterator<Item = usize> + '_ {
    let (start, end) = (range.start, range.end);
    (start / 64..end.div_ceil(64)).flat_map(move |w| {
        let mut word = words[w];
        if w == start / 64 {
            word &= u64::MAX << (start % 64);
        }
        if w == end / 64 && end % 64 != 0 {
            word &= (1u64 << (end % 64)) - 1;
        }
        std::iter::from_fn(move || {
            (word != 0).then(|| {
                let b = word.trailing_zeros() as usize;
                word &= word - 1;
                w * 64 + b
            })
        })
    })
}

impl Search<'_> {
    /// Marks slot `slot` of sector number `id` reachable; a position newly
    /// marked in group `group` (the one being searched) is also marked in
    /// `next`, the frontier of the next pass.
    #[inline]
    fn mark(&self, id: usize, slot: usize, group: usize, next: &[Option<SharedBits>]) -> Result<(), ReachError> {
        let state = &self.sectors[id];
        let internal = |detail: String| ReachError::Internal { sector: state.sector, detail };
        if state.group < group {
            return Err(internal(format!("a move leads back into group {} from group {group}", state.group)));
        }
        let Some(bits) = &state.bits else {
            return Err(internal("a move leads into a sector whose bitmap is written".into()));
        };
        if bits.set(slot) && state.group == group {
            if let Some(Some(next)) = next.get(id) {
                next.set(slot);
            }
        }
        Ok(())
    }

    /// The number of `sector`, looked up first in `cache` (the few sectors
    /// one task's moves lead to).
    #[inline]
    fn id(&self, sector: Sector, cache: &mut Vec<(Sector, usize)>) -> Result<usize, ReachError> {
        if let Some(&(_, id)) = cache.iter().find(|(s, _)| *s == sector) {
            return Ok(id);
        }
        let id = *self.id_of.get(&sector).ok_or_else(|| ReachError::Internal {
            sector,
            detail: "a move leads into this sector, which the game's tables do not list".into(),
        })?;
        cache.push((sector, id));
        Ok(id)
    }

    /// Searches group `group` (the sectors numbered `members`) to its fixed
    /// point: expands what is marked there now, then, pass after pass, what
    /// the previous pass newly marked there, on every thread.
    ///
    /// A frontier sector with at least one slot in [`BY_THEM_DENSITY`]
    /// marked is walked by the orbit of the opponent's set (`them`), all of
    /// the side to move's sets for one `them` in a row, as the placement
    /// solver walks its positions: every move without a capture leads to
    /// `them` to move, so the bits those moves set lie in one orbit block of
    /// the child's bitmap, which stays in the cache, where in slot order
    /// each position's children set bits in a block of their own. Each
    /// position's own slot is then looked up to see whether it is marked. A
    /// sparser frontier is walked in slot order, decoding only the marked
    /// slots (dense orbits enumerated).
    fn search_group(&self, group: usize, members: &[usize]) -> Result<(), ReachError> {
        let mut frontier: Vec<(usize, Vec<u64>)> =
            members.iter().filter_map(|&id| self.sectors[id].bits.as_ref().map(|b| (id, b.snapshot()))).collect();
        loop {
            let mut next: Vec<Option<SharedBits>> = (0..self.sectors.len()).map(|_| None).collect();
            for &id in members {
                next[id] = Some(SharedBits::new(self.sectors[id].index.len() as usize));
            }
            // The mirrored index of each dense frontier sector: its orbits
            // are those of `them`.
            let by_them: Vec<Option<SectorIndex>> = frontier
                .iter()
                .map(|(id, words)| {
                    let state = &self.sectors[*id];
                    let marked: u64 = words.iter().map(|w| u64::from(w.count_ones())).sum();
                    (marked * BY_THEM_DENSITY >= state.index.len())
                        .then(|| self.rules.indexer().sector(state.sector.mirrored()))
                })
                .collect();
            // Tasks of whole orbits (of `them` for a dense sector, else of
            // the side to move's sets), about `SLOTS_PER_TASK` slots each.
            let tasks: Vec<(usize, usize, usize)> = frontier
                .iter()
                .enumerate()
                .flat_map(|(f, (id, _))| {
                    let index = by_them[f].as_ref().unwrap_or(&self.sectors[*id].index);
                    let orbits = index.orbit_table().len();
                    let per = (SLOTS_PER_TASK / index.opponent_sets().max(1) as usize).max(1);
                    (0..orbits).step_by(per).map(move |o| (f, o, (o + per).min(orbits)))
                })
                .collect();
            tasks.into_par_iter().try_for_each(|(f, first, end)| {
                let (id, words) = &frontier[f];
                let state = &self.sectors[*id];
                let index = &state.index;
                let marked = |slot: u64| words[slot as usize / 64] >> (slot % 64) & 1 == 1;
                let mut cache = Vec::with_capacity(8);
                let mut found = Vec::with_capacity(64);
                // Where the last quiet child's side to move lies: moves
                // without a capture lead to one sector where `them` is to
                // move, located there once for all of them (and for the
                // next positions with the same `them`).
                let mut quiet: Option<(usize, Bitboard, Located)> = None;
                let mut expand = |us: Bitboard, them: Bitboard| -> Result<(), ReachError> {
                    found.clear();
                    children(self.rules, state.sector, us, them, |c, u, t| found.push((c, u, t)));
                    for &(c, u, t) in &found {
                        let child = self.id(c, &mut cache)?;
                        let cindex = &self.sectors[child].index;
                        let slot = if u == them {
                            let at = match quiet {
                                Some((id, set, at)) if id == child && set == u => at,
                                _ => {
                                    let at = cindex.locate(u);
                                    quiet = Some((child, u, at));
                                    at
                                }
                            };
                            cindex.index_at(at, t)
                        } else {
                            cindex.index(u, t)
                        };
                        self.mark(child, slot as usize, group, &next)?;
                    }
                    Ok(())
                };
                let mut failed = None;
                if let Some(by_them) = &by_them[f] {
                    for orbit in first..end {
                        by_them.for_each_in_orbit(orbit, |_, them, us| {
                            if failed.is_none() && marked(index.index(us, them)) {
                                failed = expand(us, them).err();
                            }
                        });
                    }
                    return failed.map_or(Ok(()), Err);
                }
                let os = index.opponent_sets() as usize;
                for orbit in first..end {
                    let range = orbit * os..(orbit + 1) * os;
                    let count = ones_in(words, range.clone()).count();
                    if count == 0 {
                        continue;
                    }
                    if count * 8 >= os {
                        // Dense: enumerate the orbit's positions in order
                        // (cheaper than decoding each slot).
                        index.for_each_in_orbit(orbit, |slot, us, them| {
                            if failed.is_none() && marked(slot) {
                                failed = expand(us, them).err();
                            }
                        });
                        if let Some(e) = failed {
                            return Err(e);
                        }
                    } else {
                        for slot in ones_in(words, range) {
                            let (us, them) = index.position(slot as u64).ok_or_else(|| ReachError::Internal {
                                sector: state.sector,
                                detail: format!("slot {slot} is marked reachable but is padding"),
                            })?;
                            expand(us, them)?;
                        }
                    }
                }
                Ok::<(), ReachError>(())
            })?;
            frontier = next
                .into_iter()
                .enumerate()
                .filter_map(|(id, b)| b.filter(|b| !b.is_clear()).map(|b| (id, b.into_bits().into_vec())))
                .collect();
            if frontier.is_empty() {
                return Ok(());
            }
        }
    }
}

/// A bitmap read from a reachability file.
fn bits_of(map: &ReachMap) -> Bits {
    let slots = map.header().entry_count as usize;
    let words: Vec<u64> =
        map.bitmap_bytes().chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]))).collect();
    let mut bits = Bits::from_vec(words);
    bits.truncate(slots);
    bits
}

/// Counts the reachable positions of `bits` in `sector`: canonical
/// positions with their values from `table` (without one, no values), and
/// positions on the board
/// (each canonical position counted `|G| / |stabiliser|` times, `G` the
/// board's symmetries, the orbit-stabiliser theorem).
///
/// # Errors
/// [`ReachError::Internal`] when a reachable slot is padding.
fn count(
    rules: &RuleSet,
    sector: Sector,
    index: &SectorIndex,
    table: Option<&Table>,
    bits: &Bits,
) -> Result<(ReachHeader, BoardCounts), ReachError> {
    let syms = rules.board().symmetries();
    let group = syms.len() as u64;
    let mut header = ReachHeader {
        rules_fingerprint: rules.fingerprint(),
        rules_name: rules.header_name().to_string(),
        sector,
        encoding: ENCODING_REACH_BITS,
        entry_count: index.len(),
        canonical_positions: 0,
        wins: 0,
        losses: 0,
        draws: 0,
        own: ReachFields { source_checksum: table.map_or(0, |t| t.header().payload_checksum) },
        payload_checksum: 0,
    };
    // Per value (win, loss, draw): canonical positions, then positions on
    // the board; then canonical positions and positions on the board
    // whatever their value; counted on every thread.
    let counts = bits
        .as_raw_slice()
        .par_chunks(WORDS_PER_TASK)
        .enumerate()
        .try_fold(
            || [0u64; 8],
            |mut c, (k, chunk)| {
                for (i, &word) in chunk.iter().enumerate() {
                    let mut word = word;
                    while word != 0 {
                        let slot = (((k * WORDS_PER_TASK + i) * 64) + word.trailing_zeros() as usize) as u64;
                        word &= word - 1;
                        let padding =
                            || ReachError::Internal { sector, detail: format!("reachable slot {slot} is padding") };
                        let (_, them) = index.position(slot).ok_or_else(padding)?;
                        let orbit = (slot / index.opponent_sets()) as usize;
                        let fixed = 1 + index
                            .orbit_table()
                            .stabiliser(orbit)
                            .iter()
                            .filter(|&&g| syms[g as usize].apply(them) == them)
                            .count();
                        let images = group / fixed as u64;
                        if let Some(table) = table {
                            let kind = match table.value(slot).ok_or_else(padding)? {
                                morris_db::Value::Win(_) => 0,
                                morris_db::Value::Loss(_) => 1,
                                morris_db::Value::Draw => 2,
                            };
                            c[kind] += 1;
                            c[3 + kind] += images;
                        }
                        c[6] += 1;
                        c[7] += images;
                    }
                }
                Ok::<[u64; 8], ReachError>(c)
            },
        )
        .try_reduce(|| [0u64; 8], |a, b| Ok(std::array::from_fn(|i| a[i] + b[i])))?;
    header.wins = counts[0];
    header.losses = counts[1];
    header.draws = counts[2];
    header.canonical_positions = counts[6];
    let board = BoardCounts { wins: counts[3], losses: counts[4], draws: counts[5], positions: counts[7] };
    Ok((header, board))
}

/// Computes (or keeps) the reachability bitmap of every sector of `rules`
/// in `dir` (see the module documentation), calling `done` for each sector
/// as its bitmap is written or kept, and returns them all in
/// [`sector_order`].
///
/// # Errors
/// [`ReachError::MissingTables`] (before any work) when a sector of the
/// game has no table in `dir`; [`ReachError::Table`] when a table cannot
/// be read, is damaged, or a bitmap cannot be written; the bitmaps written
/// before stay and are kept by the next run.
pub fn reach_all(
    rules: &RuleSet,
    dir: &Path,
    mut done: impl FnMut(&SectorReach),
) -> Result<Vec<SectorReach>, ReachError> {
    reach(rules, Some(dir), &mut done)
}

/// The reachable positions of every sector of `rules`, counted without the
/// tables and without writing anything: [`reach_all`]'s search, with each
/// [`SectorReach`]'s canonical positions and positions on the board, but
/// no values and no table sizes (`values` false, those counts 0). Every
/// bitmap is held in memory until its group is counted (one bit per slot
/// of the game: 3.3 GB for `nine`); nothing is kept for a rerun. Calls
/// `done` for each sector as it is counted; returns them in
/// [`sector_order`].
///
/// # Errors
/// [`ReachError::Internal`] only (a bug).
pub fn reach_counts(rules: &RuleSet, mut done: impl FnMut(&SectorReach)) -> Result<Vec<SectorReach>, ReachError> {
    reach(rules, None, &mut done)
}

/// [`reach_all`] with the tables of `dir`, [`reach_counts`] without.
fn reach(
    rules: &RuleSet,
    dir: Option<&Path>,
    done: &mut dyn FnMut(&SectorReach),
) -> Result<Vec<SectorReach>, ReachError> {
    let store = dir.map(Store::new);
    let mut sectors: Vec<Sector> = units(rules, u32::MAX, true).into_iter().flat_map(|u| u.sectors).collect();
    if let (Some(dir), Some(store)) = (dir, &store) {
        let mut missing: Vec<Sector> =
            sectors.iter().copied().filter(|&s| store.dtm_file(rules, s).is_none()).collect();
        if !missing.is_empty() {
            morris_db::store::sort_sectors(&mut missing);
            return Err(ReachError::MissingTables { dir: dir.to_path_buf(), rules: rules.name().to_string(), missing });
        }
    }
    sectors.sort_by_key(group_key);
    let mut groups: Vec<Vec<Sector>> = Vec::new();
    for s in sectors {
        match groups.last_mut() {
            Some(g) if group_key(&g[0]).0 == group_key(&s).0 => g.push(s),
            _ => groups.push(vec![s]),
        }
    }
    let mut search = Search { rules, sectors: Vec::new(), id_of: HashMap::new() };
    let mut members: Vec<Vec<usize>> = Vec::new();
    // The tables (checked once), and the bitmaps a rerun keeps.
    let mut tables: HashMap<Sector, Table> = HashMap::new();
    let mut kept: HashMap<Sector, ReachMap> = HashMap::new();
    for (g, group) in groups.iter().enumerate() {
        let mut ids = Vec::new();
        for &s in group {
            let index = rules.sector_index(s).map_err(|e| ReachError::Internal { sector: s, detail: e.to_string() })?;
            if let Some(dir) = dir {
                let table = Table::open(dir, rules, s, index.len())?;
                table.verify_checksum()?;
                let sound = ReachMap::open(dir, rules, s, index.len())
                    .ok()
                    .filter(|m| m.header().own.source_checksum == table.header().payload_checksum)
                    .filter(|m| m.verify_checksum().is_ok());
                if let Some(map) = sound {
                    kept.insert(s, map);
                }
                tables.insert(s, table);
            }
            search.id_of.insert(s, search.sectors.len());
            ids.push(search.sectors.len());
            let bits = Some(SharedBits::new(index.len() as usize));
            search.sectors.push(SectorState { sector: s, index, group: g, bits });
        }
        members.push(ids);
    }
    let start = start_sector(rules);
    let Some(&start_id) = search.id_of.get(&start) else {
        return Err(ReachError::Internal { sector: start, detail: "the start sector has no table".into() });
    };
    let start_slot = search.sectors[start_id].index.index(0, 0) as usize;
    search.mark(start_id, start_slot, search.sectors[start_id].group, &[])?;
    // After the last group with a bitmap to write, nothing is expanded.
    let last_needed = groups.iter().rposition(|g| g.iter().any(|s| !kept.contains_key(s)));
    let mut out = Vec::new();
    for (g, ids) in members.iter().enumerate() {
        if last_needed.is_some_and(|last| g <= last) {
            for &id in ids {
                let state = &search.sectors[id];
                if let (Some(map), Some(bits)) = (kept.get(&state.sector), &state.bits) {
                    bits.set_all(bits_of(map).as_raw_slice());
                }
            }
            search.search_group(g, ids)?;
        }
        for &id in ids {
            let state = &mut search.sectors[id];
            let (s, bits) = (state.sector, state.bits.take());
            let report = match kept.get(&s) {
                Some(map) => SectorReach {
                    sector: s,
                    positions: tables.get(&s).map_or(0, |t| t.header().canonical_positions),
                    header: map.header().clone(),
                    board: map.board_counts(),
                    values: true,
                    kept: true,
                },
                None => {
                    let index = &state.index;
                    let bits = bits.map_or_else(|| Bits::repeat(false, index.len() as usize), SharedBits::into_bits);
                    let table = tables.get(&s);
                    let (mut header, board) = count(rules, s, index, table, &bits)?;
                    if let Some(store) = &store {
                        header = write_reach(&store.reach_path(rules, s), header, board, bits.as_raw_slice())?;
                    }
                    let positions = table.map_or(0, |t| t.header().canonical_positions);
                    SectorReach { sector: s, positions, header, board, values: table.is_some(), kept: false }
                }
            };
            done(&report);
            out.push(report);
        }
    }
    out.sort_by_key(|r| sector_order(&r.sector));
    Ok(out)
}
