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

use bitvec::prelude::*;
use morris_db::moves::{decided_before_moving, for_each_move};
use morris_db::reach::{write_reach, BoardCounts, ReachFields, ReachHeader, ReachMap, ENCODING_REACH_BITS};
use morris_db::store::{sector_order, Store};
use morris_db::{Bitboard, RuleSet, Sector, SectorIndex, Table, TableError};

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
    /// Canonical positions in its table (reachable or not).
    pub positions: u64,
    /// The bitmap's header: `canonical_positions` are the reachable
    /// canonical positions, `wins`, `losses`, `draws` their values for the
    /// side to move.
    pub header: ReachHeader,
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

/// The search's state: every sector's index, group and (once reached)
/// bitmap.
struct Search<'a> {
    rules: &'a RuleSet,
    indexes: HashMap<Sector, SectorIndex>,
    group_of: HashMap<Sector, usize>,
    bits: HashMap<Sector, Bits>,
    /// Positions found in the group being searched, still to expand.
    work: Vec<(Sector, Bitboard, Bitboard)>,
}

impl Search<'_> {
    /// Marks `(us, them)` of `sector` reachable; a position newly marked in
    /// group `group` (the one being searched) is queued for expansion.
    fn mark(&mut self, sector: Sector, us: Bitboard, them: Bitboard, group: usize) -> Result<(), ReachError> {
        let internal = |detail: String| ReachError::Internal { sector, detail };
        let (Some(index), Some(&g)) = (self.indexes.get(&sector), self.group_of.get(&sector)) else {
            return Err(internal("a move leads into this sector, which the game's tables do not list".into()));
        };
        if g < group {
            return Err(internal(format!("a move leads back into group {g} from group {group}")));
        }
        let slot = index.index(us, them) as usize;
        let len = index.len() as usize;
        let bits = self.bits.entry(sector).or_insert_with(|| Bits::repeat(false, len));
        if !bits.replace(slot, true) && g == group {
            self.work.push((sector, us, them));
        }
        Ok(())
    }

    /// Expands one position of group `group`: marks its children.
    fn expand(&mut self, sector: Sector, us: Bitboard, them: Bitboard, group: usize) -> Result<(), ReachError> {
        let mut found = Vec::with_capacity(64);
        children(self.rules, sector, us, them, |c, u, t| found.push((c, u, t)));
        for (c, u, t) in found {
            self.mark(c, u, t, group)?;
        }
        Ok(())
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
/// positions with their values from `table`, and positions on the board
/// (each canonical position counted `|G| / |stabiliser|` times, `G` the
/// board's symmetries, the orbit-stabiliser theorem).
///
/// # Errors
/// [`ReachError::Internal`] when a reachable slot is padding.
fn count(
    rules: &RuleSet,
    sector: Sector,
    index: &SectorIndex,
    table: &Table,
    bits: &BitSlice<u64, Lsb0>,
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
        own: ReachFields { source_checksum: table.header().payload_checksum },
        payload_checksum: 0,
    };
    let mut board = BoardCounts::default();
    for slot in bits.iter_ones() {
        let slot = slot as u64;
        let padding = || ReachError::Internal { sector, detail: format!("reachable slot {slot} is padding") };
        let value = table.value(slot).ok_or_else(padding)?;
        let (_, them) = index.position(slot).ok_or_else(padding)?;
        let orbit = (slot / index.opponent_sets()) as usize;
        let fixed =
            1 + index.orbit_table().stabiliser(orbit).iter().filter(|&&g| syms[g as usize].apply(them) == them).count();
        let images = group / fixed as u64;
        header.canonical_positions += 1;
        board.positions += images;
        match value {
            morris_db::Value::Win(_) => {
                header.wins += 1;
                board.wins += images;
            }
            morris_db::Value::Loss(_) => {
                header.losses += 1;
                board.losses += images;
            }
            morris_db::Value::Draw => {
                header.draws += 1;
                board.draws += images;
            }
        }
    }
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
    let store = Store::new(dir);
    let mut sectors: Vec<Sector> = units(rules, u32::MAX, true).into_iter().flat_map(|u| u.sectors).collect();
    let mut missing: Vec<Sector> = sectors.iter().copied().filter(|&s| store.dtm_file(rules, s).is_none()).collect();
    if !missing.is_empty() {
        morris_db::store::sort_sectors(&mut missing);
        return Err(ReachError::MissingTables { dir: dir.to_path_buf(), rules: rules.name().to_string(), missing });
    }
    sectors.sort_by_key(group_key);
    let mut groups: Vec<Vec<Sector>> = Vec::new();
    for s in sectors {
        match groups.last_mut() {
            Some(g) if group_key(&g[0]).0 == group_key(&s).0 => g.push(s),
            _ => groups.push(vec![s]),
        }
    }
    let mut search =
        Search { rules, indexes: HashMap::new(), group_of: HashMap::new(), bits: HashMap::new(), work: Vec::new() };
    // The tables (checked once), and the bitmaps a rerun keeps.
    let mut tables: HashMap<Sector, Table> = HashMap::new();
    let mut kept: HashMap<Sector, ReachMap> = HashMap::new();
    for (g, group) in groups.iter().enumerate() {
        for &s in group {
            let index = rules.sector_index(s).map_err(|e| ReachError::Internal { sector: s, detail: e.to_string() })?;
            let table = Table::open(dir, rules, s, index.len())?;
            table.verify_checksum()?;
            let sound = ReachMap::open(dir, rules, s, index.len())
                .ok()
                .filter(|m| m.header().own.source_checksum == table.header().payload_checksum)
                .filter(|m| m.verify_checksum().is_ok());
            if let Some(map) = sound {
                kept.insert(s, map);
            }
            search.indexes.insert(s, index);
            search.group_of.insert(s, g);
            tables.insert(s, table);
        }
    }
    let start = start_sector(rules);
    if !search.group_of.contains_key(&start) {
        return Err(ReachError::Internal { sector: start, detail: "the start sector has no table".into() });
    }
    let start_group = search.group_of[&start];
    search.mark(start, 0, 0, start_group)?;
    search.work.clear();
    // After the last group with a bitmap to write, nothing is expanded.
    let last_needed = groups.iter().rposition(|g| g.iter().any(|s| !kept.contains_key(s)));
    let mut out = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        if last_needed.is_some_and(|last| g <= last) {
            for &s in group {
                if let Some(map) = kept.get(&s) {
                    search.bits.insert(s, bits_of(map));
                }
            }
            // What earlier groups reached here, as it stood before this
            // group's own search (new finds are queued by `mark`).
            let reached: Vec<(Sector, Bits)> =
                group.iter().filter_map(|s| search.bits.get(s).map(|b| (*s, b.clone()))).collect();
            for (s, bits) in reached {
                for slot in bits.iter_ones() {
                    let (us, them) = search.indexes[&s].position(slot as u64).ok_or_else(|| ReachError::Internal {
                        sector: s,
                        detail: format!("slot {slot} is marked reachable but is padding"),
                    })?;
                    search.expand(s, us, them, g)?;
                }
            }
            while let Some((s, us, them)) = search.work.pop() {
                search.expand(s, us, them, g)?;
            }
        }
        for &s in group {
            let bits = search.bits.remove(&s);
            let report = match kept.get(&s) {
                Some(map) => SectorReach {
                    sector: s,
                    positions: tables[&s].header().canonical_positions,
                    header: map.header().clone(),
                    board: map.board_counts(),
                    kept: true,
                },
                None => {
                    let index = &search.indexes[&s];
                    let bits = bits.unwrap_or_else(|| Bits::repeat(false, index.len() as usize));
                    let table = &tables[&s];
                    let (header, board) = count(rules, s, index, table, &bits)?;
                    let header = write_reach(&store.reach_path(rules, s), header, board, bits.as_raw_slice())?;
                    SectorReach { sector: s, positions: table.header().canonical_positions, header, board, kept: false }
                }
            };
            done(&report);
            out.push(report);
        }
    }
    out.sort_by_key(|r| sector_order(&r.sector));
    Ok(out)
}
