//! The verifier of one table ([`Verifier::verify`]): its file checked,
//! then every stored value re-derived from the stored values of its
//! successors, one ply deep, under the conditions the crate's page states.
//!
//! Positions are visited by the orbit of the opponent's stones (the
//! mirrored sector's index), not in slot order, so that the successors'
//! look-ups of consecutive positions fall into a few blocks of the next
//! tables; a separate pass in slot order checks padding and the statistics.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Instant, SystemTime};

use morris_db::index::{BlockMemo, Located, OrbitBlock};
use morris_db::moves::{apply_move, for_each_move, mill_removes, removable};
use morris_db::rules::FullBoardOutcome;
use morris_db::table::table_path;
use morris_db::value::PADDING_ENTRY;
use morris_db::{
    Bitboard, Color, Even, Move, Odd, Points, RuleSet, Sector, SectorError, SectorIndex, Setup, Store, Table,
    TableError, Tally, Value,
};
use rayon::prelude::*;

/// Something wrong with a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The file cannot be opened or its header, size or payload checksum is
    /// wrong (the message names the file and the field).
    File(String),
    /// The header's statistics do not match the payload.
    Statistics {
        /// The header field.
        field: &'static str,
        /// What the header says.
        header: u64,
        /// What the payload holds.
        payload: u64,
    },
    /// A padding slot holds a value, or a canonical position's slot holds
    /// the padding entry.
    Padding {
        /// The slot.
        slot: u64,
        /// What is wrong.
        detail: String,
    },
    /// A stored value that its successors contradict.
    Value {
        /// The slot.
        slot: u64,
        /// The position (White to move), in `W:.. B:.. w` notation.
        position: String,
        /// The value in the table.
        stored: Value,
        /// The value its successors give.
        derived: Value,
        /// The move that decides the derived value, with the value it leads
        /// to, in words.
        witness: String,
    },
    /// A value cannot be re-derived: a table that a move leads to is missing
    /// or damaged, or holds padding where a canonical position is.
    Successor {
        /// The slot.
        slot: u64,
        /// The position (White to move).
        position: String,
        /// What is wrong with the successor.
        detail: String,
    },
}

impl Fault {
    /// The slot the fault is about (0 for faults of the whole file).
    pub fn slot(&self) -> u64 {
        match self {
            Fault::File(_) | Fault::Statistics { .. } => 0,
            Fault::Padding { slot, .. } | Fault::Value { slot, .. } | Fault::Successor { slot, .. } => *slot,
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::File(e) => write!(f, "{e}"),
            Fault::Statistics { field, header, payload } => {
                write!(f, "header says {field} = {header}, the payload holds {payload}")
            }
            Fault::Padding { slot, detail } => write!(f, "slot {slot}: {detail}"),
            Fault::Value { slot, position, stored, derived, witness } => {
                write!(f, "{position} (slot {slot}): stored {stored:?}, but its moves give {derived:?} ({witness})")
            }
            Fault::Successor { slot, position, detail } => {
                write!(f, "{position} (slot {slot}): cannot re-derive: {detail}")
            }
        }
    }
}

/// What verifying one table found.
#[derive(Debug, Clone)]
pub struct TableReport {
    /// The sector.
    pub sector: Sector,
    /// The table file.
    pub path: PathBuf,
    /// Canonical positions whose value was re-derived.
    pub positions: u64,
    /// Faults found (all of them counted in `fault_count`); at most the
    /// verifier's limit, the lowest slots first.
    pub faults: Vec<Fault>,
    /// Every fault found.
    pub fault_count: u64,
    /// Of those, the [`Fault::Successor`] ones: values that could not be
    /// re-derived because a table a move leads to is missing or unusable.
    pub successor_faults: u64,
    /// The sectors of the tables those moves led to, sorted: a table that
    /// fails with only such faults was not checked rather than found wrong
    /// when one of them is damaged (`morris verify` says so).
    pub unusable: Vec<Sector>,
    /// Positions derived a second time, slowly and with witnesses, because
    /// the fast derivation disagreed with the stored value or could not
    /// look a successor up. On a sound table this is 0 under every rule set
    /// but those where a line wins or misère play (which take the slow path
    /// throughout), so a count above the faults points at the fast path.
    pub rederived: u64,
    /// Wall time, seconds.
    pub seconds: f64,
}

impl TableReport {
    /// Whether the table passed every check.
    pub fn is_ok(&self) -> bool {
        self.fault_count == 0
    }
}

/// A table that moves lead to, loaded: its index and entries, or why it
/// cannot be used.
type Loaded = Result<(SectorIndex, Vec<u16>), String>;

/// What identifies a table file's contents cheaply: path, size,
/// modification time and (on Unix) inode. Tables are written under a
/// temporary name and renamed, so a new table has a new inode.
pub(crate) type Stamp = (PathBuf, u64, Option<SystemTime>, u64);

/// Verifies the tables of one rule set in one directory.
pub struct Verifier {
    dir: PathBuf,
    rules: RuleSet,
    max_faults: usize,
    /// The successor tables the last [`Verifier::verify`] loaded, with the
    /// stamps of their files when loaded: the next call takes those it
    /// needs whose files are unchanged instead of reading them again (the
    /// order of [`Verifier::reading_order`] makes consecutive sectors share
    /// most of them).
    kept: Mutex<Vec<(Sector, Option<Stamp>, Loaded)>>,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier").field("dir", &self.dir).field("rules", &self.rules.name()).finish()
    }
}

/// The tables a sector's moves lead to, found by sector.
struct Successors {
    tables: Vec<(Sector, Loaded)>,
    /// `by_move[placed][removed]`: the index in `tables` of the usable table
    /// that a move of `sector` leads to when it places a stone (1) or moves
    /// one (0) and removes `removed` stones (0 to 3); `None` when that table
    /// is missing or damaged (the slow path says which).
    by_move: [[Option<usize>; 4]; 2],
}

impl Successors {
    /// The successor tables of `sector`, loaded.
    fn new(sector: Sector, tables: Vec<(Sector, Loaded)>) -> Successors {
        let mut by_move = [[None; 4]; 2];
        for (placed, row) in by_move.iter_mut().enumerate() {
            for (removed, cell) in row.iter_mut().enumerate() {
                *cell = sector
                    .after_move(placed as u8, removed as u8)
                    .and_then(|child| tables.iter().position(|(s, t)| *s == child && t.is_ok()));
            }
        }
        Successors { tables, by_move }
    }

    /// The entries of the usable table at `tables[ti]`; `None` when it is
    /// unusable.
    #[inline]
    fn entries(&self, ti: usize) -> Option<&[u16]> {
        self.tables[ti].1.as_ref().ok().map(|(_, entries)| entries.as_slice())
    }

    #[inline]
    fn get(&self, sector: Sector) -> Option<&Loaded> {
        self.tables.iter().find(|(s, _)| *s == sector).map(|(_, t)| t)
    }
}

/// What the positions whose opponent's stones are one orbit representative
/// share when their successors are looked up.
struct ThemOrbit {
    /// The opponent's stones (an orbit representative).
    them: Bitboard,
    /// Per successor table (as in [`Successors::tables`]) whose side to
    /// move has as many stones as `them`: where `them` lies in its index
    /// (orbit and symmetry) and, when that symmetry is the identity and the
    /// orbit's stabiliser is trivial, the orbit's block (slots of moves
    /// without capture ranked directly).
    quiet: Vec<(Option<Located>, Option<OrbitBlock>)>,
    /// Per point `r` of `them`: where `them` less `r` lies among the sets of
    /// one stone fewer (for captures; `None` without such a table).
    removed: [Option<Located>; 32],
    /// A mill closed against `them` removes a stone ([`mill_removes`]).
    removes: bool,
    /// The stones of `them` a mill may remove ([`removable`]).
    victims: Bitboard,
    /// A capture leaves the opponent fewer than 3 stones on the board and
    /// in hand: the side to move wins at once by closing a mill.
    capture_wins: bool,
}

impl ThemOrbit {
    /// What the positions of `sector` whose opponent's stones are `them`
    /// share.
    fn new(rules: &RuleSet, sector: Sector, them: Bitboard, successors: &Successors) -> ThemOrbit {
        let n = them.count_ones();
        let quiet = successors
            .tables
            .iter()
            .map(|(s, t)| match t {
                Ok((cindex, _)) if u32::from(s.w) == n => {
                    let at = cindex.locate(them);
                    let block = if at.sym() == 0 { cindex.orbit_block(at.orbit()) } else { None };
                    (Some(at), block)
                }
                _ => (None, None),
            })
            .collect();
        let mut removed = [None; 32];
        let fewer = successors.tables.iter().find_map(|(s, t)| match t {
            Ok((cindex, _)) if u32::from(s.w) + 1 == n => Some(cindex),
            _ => None,
        });
        if let Some(cindex) = fewer {
            for r in Points(them) {
                removed[r as usize] = Some(cindex.locate(them & !(1 << r)));
            }
        }
        ThemOrbit {
            them,
            quiet,
            removed,
            removes: mill_removes(rules, them),
            victims: removable(rules, them),
            // `them` less one stone, plus its hand, below 3 (written
            // without the subtraction: `them` may be empty, with no capture).
            capture_wins: them.count_ones() + u32::from(sector.bh) < 4,
        }
    }
}

/// Per-thread totals of a table's verification.
#[derive(Default)]
struct Totals {
    /// The stored values of the canonical positions.
    values: Tally,
    faults: Vec<Fault>,
    fault_count: u64,
    /// The [`Fault::Successor`] faults among them, and the sectors of the
    /// tables they could not use.
    successor_faults: u64,
    unusable: Vec<Sector>,
    /// Positions sent to the slow path ([`TableReport::rederived`]).
    rederived: u64,
    /// Scratch: the successors' (table, slot) of the general path.
    slots: Vec<(usize, usize)>,
    /// Scratch: the slots of one orbit's positions and their entries as
    /// re-derived (`None`: to be derived again, slowly).
    derived: Vec<(u64, Option<u16>)>,
    /// Scratch: the best capture after each mill of one orbit's positions,
    /// as [`Best::pack`]: a move that closes a mill and leaves the mover's
    /// stones `after` has the same captures (one per removable stone of the
    /// orbit's representative) from whichever position it is made, and a
    /// set with a mill is left by several positions' moves (a placement
    /// onto any point of the mill; a slide onto it from any empty
    /// neighbour), so each set's captures are read once rather than once
    /// per move. By the rank of `after` in the opponent's orbit block of
    /// the quiet moves' table; reset for every orbit.
    memo: BlockMemo,
}

impl Totals {
    fn fault(&mut self, limit: usize, fault: Fault) {
        // Faults come in no slot order: keep the `limit` lowest slots.
        self.fault_count += 1;
        self.faults.push(fault);
        if self.faults.len() >= 2 * limit {
            self.faults.sort_by_key(Fault::slot);
            self.faults.truncate(limit);
        }
    }

    fn merge(mut self, other: Totals, limit: usize) -> Totals {
        self.values = self.values.merge(other.values);
        self.fault_count += other.fault_count;
        self.successor_faults += other.successor_faults;
        self.rederived += other.rederived;
        for s in other.unusable {
            if !self.unusable.contains(&s) {
                self.unusable.push(s);
            }
        }
        self.faults.extend(other.faults);
        self.faults.sort_by_key(Fault::slot);
        self.faults.truncate(limit);
        self
    }
}

/// What a position's moves give: the value and the move that decides it.
struct Derived {
    value: Value,
    witness: Option<(Move, Value)>,
}

impl Verifier {
    /// A verifier of the tables of `rules` in `dir`, reporting at most 10
    /// faults per table.
    pub fn new(dir: impl AsRef<Path>, rules: RuleSet) -> Verifier {
        Verifier { dir: dir.as_ref().to_path_buf(), rules, max_faults: 10, kept: Mutex::new(Vec::new()) }
    }

    /// Reports at most `n` faults per table (all are counted).
    pub fn max_faults(mut self, n: usize) -> Verifier {
        self.max_faults = n.max(1);
        self
    }

    /// The rule set.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The database directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The sectors whose tables of this rule set are in the directory, in
    /// solving order (fewest stones first; [`Verifier::reading_order`] is
    /// the order that reads them fastest).
    ///
    /// # Errors
    /// When the directory cannot be read.
    pub fn sectors(&self) -> std::io::Result<Vec<Sector>> {
        Store::new(&self.dir).dtm_sectors(&self.rules)
    }

    /// The slots of `sector` (for sizing a progress bar).
    ///
    /// # Errors
    /// When the sector cannot exist under the rule set.
    pub fn slots(&self, sector: Sector) -> Result<u64, SectorError> {
        Ok(self.rules.sector_index(sector)?.len())
    }

    /// Loads the table of `sector` into memory (random look-ups in memory
    /// are several times faster than in a mapped file), after checking its
    /// header, size and payload checksum.
    fn load(&self, sector: Sector) -> Loaded {
        let index = self.rules.sector_index(sector).map_err(|e| e.to_string())?;
        Table::open(&self.dir, &self.rules, sector, index.len())
            .and_then(|t| t.verify_checksum().map(|()| t))
            .and_then(|t| t.entries())
            .map(|entries| (index, entries))
            .map_err(|e| match e {
                TableError::Missing { .. } => format!(
                    "the table of sector {sector} is missing ({})",
                    table_path(&self.dir, &self.rules, sector).display()
                ),
                e => format!("the table of sector {sector} is unusable: {e}"),
            })
    }

    /// The stamp of `sector`'s table file; `None` when there is none.
    pub(crate) fn stamp(&self, sector: Sector) -> Option<Stamp> {
        let path = Store::new(&self.dir).dtm_file(&self.rules, sector)?;
        let meta = std::fs::metadata(&path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Some((path, meta.len(), meta.modified().ok(), inode))
    }

    /// The successor tables of `sector` ([`Verifier::successor_sectors`]),
    /// loaded, with the stamps their files had just before (in the same
    /// order): those the previous [`Verifier::verify`] kept whose files are
    /// unchanged are taken as they are, the rest read. The kept tables no
    /// longer needed are dropped first, so that memory holds at most one
    /// sector's successors.
    fn load_successors(&self, sector: Sector) -> (Vec<(Sector, Loaded)>, Vec<Option<Stamp>>) {
        let needed = self.successor_sectors(sector);
        let mut kept = std::mem::take(&mut *self.kept.lock().unwrap_or_else(|e| e.into_inner()));
        kept.retain(|(s, _, _)| needed.contains(s));
        needed
            .into_iter()
            .map(|s| {
                // Taken before the file is read: a file replaced meanwhile
                // has another stamp next time, and is read again.
                let stamp = self.stamp(s);
                match kept.iter().position(|(k, at, _)| *k == s && *at == stamp && stamp.is_some()) {
                    Some(i) => ((s, kept.swap_remove(i).2), stamp),
                    None => ((s, self.load(s)), stamp),
                }
            })
            .unzip()
    }

    /// Keeps `tables` (a sector's successors) for the next
    /// [`Verifier::verify`], with the stamps [`Verifier::load_successors`]
    /// gave them.
    fn keep(&self, tables: Vec<(Sector, Loaded)>, stamps: Vec<Option<Stamp>>) {
        let stamped = tables.into_iter().zip(stamps).map(|((s, t), stamp)| (s, stamp, t)).collect();
        *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = stamped;
    }

    /// `sectors` in the order that reads fewest successor tables: by the
    /// sectors their moves lead to (the side to move's stones after a
    /// placement or a slide, both hands after it), then by the opponent's
    /// stones, so that consecutive sectors share all but one of their
    /// successor tables ([`Verifier::verify`] keeps the last sector's). The
    /// values checked do not depend on the order.
    pub fn reading_order(&self, sectors: &[Sector]) -> Vec<Sector> {
        let mut out = sectors.to_vec();
        out.sort_by_key(|s| {
            let placed = u8::from(s.wh > 0);
            (s.w + placed, s.wh - placed, s.bh, s.b)
        });
        out
    }

    /// The sectors that moves from `sector` can lead to, where the side to
    /// move there still has 3 stones ([`RuleSet::successor_sectors`]: one
    /// stone removed at most, up to 3 with one removal per mill): the
    /// tables [`Verifier::verify`] reads besides the sector's own (which is
    /// among them when a move can lead back into the sector), in a fixed
    /// order. Some may not exist in a database (a sector no position
    /// reaches); a value that needs a missing one is a fault, and so is a
    /// move into a sector not among them.
    pub fn successor_sectors(&self, sector: Sector) -> Vec<Sector> {
        self.rules.successor_sectors(sector)
    }

    /// Verifies one table: opens it (header, size, rule set, sector), checks
    /// its payload checksum, re-derives every canonical position's value
    /// from its successors (in parallel, calling `progress` with the number
    /// of slots done after each block), and checks the header's counts.
    pub fn verify(&self, sector: Sector, progress: &(dyn Fn(u64) + Sync)) -> TableReport {
        let start = Instant::now();
        let path = table_path(&self.dir, &self.rules, sector);
        let mut report = TableReport {
            sector,
            path: path.clone(),
            positions: 0,
            faults: Vec::new(),
            fault_count: 0,
            successor_faults: 0,
            unusable: Vec::new(),
            rederived: 0,
            seconds: 0.0,
        };
        let index = match self.rules.sector_index(sector) {
            Ok(index) => index,
            Err(e) => {
                report.fault_count = 1;
                report.faults.push(Fault::File(e.to_string()));
                return report;
            }
        };
        let table = match Table::open(&self.dir, &self.rules, sector, index.len()) {
            Ok(t) => t,
            Err(e) => {
                report.fault_count = 1;
                report.faults.push(Fault::File(e.to_string()));
                report.seconds = start.elapsed().as_secs_f64();
                return report;
            }
        };
        let mut file_faults = Vec::new();
        if let Err(e) = table.verify_checksum() {
            // Go on: re-deriving values shows where the damage is.
            file_faults.push(Fault::File(e.to_string()));
        }
        let (tables, stamps) = self.load_successors(sector);
        let successors = Successors::new(sector, tables);
        let limit = self.max_faults;
        // Pass 1, in slot order: padding and the statistics, read from the
        // stored values in memory: the table's own entries when it is one of
        // its successors (loaded already), else its blocks decompressed on
        // all threads ([`Table::entries`]). A table some of whose blocks do
        // not decompress is read slot by slot instead (into a copy), so that
        // the faults name the slots.
        let block = index.opponent_sets().max(1) as usize;
        let orbits = index.orbit_table().len();
        let own: Option<&[u16]> = match successors.get(sector) {
            Some(Ok((_, entries))) => Some(entries),
            _ => None,
        };
        let decoded = if own.is_none() { table.entries().ok() } else { None };
        let loaded = own.or(decoded.as_deref());
        let mut copy = None;
        let mut totals = match loaded {
            Some(stored) => (0..orbits)
                .into_par_iter()
                .fold(Totals::default, |mut t, orbit| {
                    self.sweep_orbit(&index, sector, |slot| stored.get(slot as usize).copied(), orbit, None, &mut t);
                    t
                })
                .reduce(Totals::default, |a, b| a.merge(b, limit)),
            None => {
                let mut entries = vec![PADDING_ENTRY; index.len() as usize];
                let totals = entries
                    .par_chunks_mut(block)
                    .enumerate()
                    .fold(Totals::default, |mut t, (orbit, chunk)| {
                        self.sweep_orbit(&index, sector, |slot| table.entry(slot), orbit, Some(chunk), &mut t);
                        t
                    })
                    .reduce(Totals::default, |a, b| a.merge(b, limit));
                copy = Some(entries);
                totals
            }
        };
        let stored: &[u16] = loaded.or(copy.as_deref()).unwrap_or(&[]);
        // Pass 2, by the orbit of the opponent's stones: the positions whose
        // opponent sets share an orbit have their moves without capture lead
        // into one block of the next table (and their captures into a few),
        // so the successors' look-ups stay in the cache; in slot order each
        // position read a different block. Each canonical position is
        // visited once, as the mirrored sector's index enumerates it.
        let by_them = self.rules.indexer().sector(sector.mirrored());
        let them_orbits = by_them.orbit_table().len();
        let len = index.len() as u128;
        let derived = (0..them_orbits)
            .into_par_iter()
            .fold(Totals::default, |mut t, orbit| {
                self.verify_by_them(sector, &index, &by_them, stored, &successors, orbit, &mut t);
                // The progress in this sector's slots, in equal shares per
                // orbit (every orbit has as many slots in the mirrored index).
                let share = |k: usize| (len * k as u128 / them_orbits as u128) as u64;
                progress(share(orbit + 1) - share(orbit));
                t
            })
            .reduce(Totals::default, |a, b| a.merge(b, limit));
        totals.fault_count += derived.fault_count;
        totals.faults.extend(derived.faults);
        report.successor_faults = derived.successor_faults;
        report.rederived = derived.rederived;
        report.unusable = derived.unusable;
        report.unusable.sort();
        totals.faults.sort_by_key(Fault::slot);
        totals.faults.truncate(limit);
        let h = table.header();
        for (field, header, payload) in [
            ("canonical positions", h.canonical_positions, totals.values.positions()),
            ("wins", h.wins, totals.values.wins),
            ("losses", h.losses, totals.values.losses),
            ("draws", h.draws, totals.values.draws),
            ("longest win", h.own.max_win.into(), totals.values.max_win().into()),
            ("longest loss", h.own.max_loss.into(), totals.values.max_loss().into()),
        ] {
            if header != payload {
                file_faults.push(Fault::Statistics { field, header, payload });
            }
        }
        report.positions = totals.values.positions();
        report.fault_count = totals.fault_count + file_faults.len() as u64;
        file_faults.extend(totals.faults);
        file_faults.truncate(limit.max(1));
        report.faults = file_faults;
        self.keep(successors.tables, stamps);
        report.seconds = start.elapsed().as_secs_f64();
        report
    }

    /// Checks the slots of one orbit of the side to move's stone sets in
    /// slot order, reading each slot's entry through `entry`: padding slots
    /// hold the padding entry, canonical ones a value (counted into the
    /// statistics, and copied into `copy`, the orbit's slots, when given).
    fn sweep_orbit(
        &self,
        index: &SectorIndex,
        sector: Sector,
        entry: impl Fn(u64) -> Option<u16>,
        orbit: usize,
        mut copy: Option<&mut [u16]>,
        t: &mut Totals,
    ) {
        let limit = self.max_faults;
        let base = orbit as u64 * index.opponent_sets();
        let end = base + index.opponent_sets();
        let mut next = base;
        let check_padding = |from: u64, to: u64, t: &mut Totals| {
            for slot in from..to {
                let e = entry(slot);
                if e != Some(PADDING_ENTRY) {
                    t.fault(
                        limit,
                        Fault::Padding {
                            slot,
                            detail: format!(
                                "not a canonical position, but holds entry {}",
                                e.map_or("(none)".to_string(), |e| format!("{e:#06x}"))
                            ),
                        },
                    );
                }
            }
        };
        index.for_each_in_orbit(orbit, |slot, us, them| {
            check_padding(next, slot, t);
            next = slot + 1;
            let position =
                || Setup::from_relative(us, them, Color::White, sector.wh, sector.bh).to_text(self.rules.board());
            if self.rules.line_wins() && self.rules.has_line(us) {
                // The side to move has a line: not a position of a game
                // (a line ends it), stored as padding.
                if let Some(v) = entry(slot).and_then(Value::from_entry) {
                    t.fault(
                        limit,
                        Fault::Padding {
                            slot,
                            detail: format!(
                                "{} cannot arise in a game (the side to move has a line), but holds {v:?}",
                                position()
                            ),
                        },
                    );
                }
                return;
            }
            let stored_entry = entry(slot);
            let Some(stored) = stored_entry.and_then(Value::from_entry) else {
                t.fault(limit, Fault::Padding { slot, detail: format!("{} holds the padding entry", position()) });
                return;
            };
            if let (Some(copy), Some(e)) = (copy.as_deref_mut(), stored_entry) {
                copy[(slot - base) as usize] = e;
            }
            t.values.add(stored);
        });
        check_padding(next, end, t);
    }

    /// Re-derives the values of the canonical positions whose opponent's
    /// stones are in orbit `orbit` (of the mirrored sector's index
    /// `by_them`), comparing them with `stored`, the table's entries. A
    /// position the slot-order pass found without a value (padding where a
    /// value belongs, or a position that cannot arise) is skipped: it is a
    /// fault already.
    #[allow(clippy::too_many_arguments)]
    fn verify_by_them(
        &self,
        sector: Sector,
        index: &SectorIndex,
        by_them: &SectorIndex,
        stored: &[u16],
        successors: &Successors,
        orbit: usize,
        t: &mut Totals,
    ) {
        let ctx = ThemOrbit::new(&self.rules, sector, by_them.orbit_table().representative(orbit), successors);
        // The stored values are read after the orbit's values are derived,
        // back to back: reads at scattered slots that the processor overlaps
        // (read one by one, each stalled the derivation).
        let mut derived = std::mem::take(&mut t.derived);
        derived.clear();
        // The captures after a mill are shared by the positions whose
        // moves leave the same stones (`Totals::memo`), within this orbit.
        let quiet_sets = successors.by_move[usize::from(sector.wh > 0)][0]
            .and_then(|ti| successors.tables[ti].1.as_ref().ok())
            .map_or(0, |(qindex, _)| qindex.opponent_sets() as usize);
        t.memo.reset(quiet_sets);
        by_them.for_each_in_orbit(orbit, |_, them, us| {
            if self.rules.line_wins() && self.rules.has_line(us) {
                return;
            }
            let slot = index.index(us, them);
            let fast = self.derive_fast(us, &ctx, sector, successors, &mut t.slots, &mut t.memo);
            derived.push((slot, fast));
        });
        for &(slot, fast) in &derived {
            let Some((entry, value)) = stored.get(slot as usize).and_then(|&e| Some((e, Value::from_entry(e)?))) else {
                continue;
            };
            if fast != Some(entry) {
                t.rederived += 1;
                self.check_value(index, sector, slot, value, successors, t);
            }
        }
        t.derived = derived;
    }
    /// The slow path of a position whose fast re-derivation disagrees with
    /// `stored` or could not look a successor up: derives its value again,
    /// with witnesses, from the table's canonical form of the position at
    /// `slot`, and records the fault, if any.
    fn check_value(
        &self,
        index: &SectorIndex,
        sector: Sector,
        slot: u64,
        stored: Value,
        successors: &Successors,
        t: &mut Totals,
    ) {
        let limit = self.max_faults;
        let board = self.rules.board();
        let Some((us, them)) = index.position(slot) else {
            return;
        };
        let position = || Setup::from_relative(us, them, Color::White, sector.wh, sector.bh).to_text(board);
        match self.derive(us, them, sector, successors) {
            Ok(d) if d.value == stored => {}
            Ok(d) => {
                let witness = match d.witness {
                    Some((mv, v)) => {
                        let what = match d.value {
                            Value::Win(_) => "the shortest win",
                            Value::Loss(_) => "the longest loss",
                            Value::Draw => "a draw, and no move wins",
                        };
                        format!("{} leads to {v:?} for the opponent: {what}", mv.notation(board))
                    }
                    None => "no legal move".to_string(),
                };
                t.fault(limit, Fault::Value { slot, position: position(), stored, derived: d.value, witness });
            }
            Err((child, detail)) => {
                t.successor_faults += 1;
                if !t.unusable.contains(&child) {
                    t.unusable.push(child);
                }
                t.fault(limit, Fault::Successor { slot, position: position(), detail })
            }
        }
    }

    /// [`Verifier::derive`] without witnesses, fast, as a table entry: each
    /// successor's entry is read as soon as its slot is known and kept as a
    /// running best ([`Best`]). `None` when a successor cannot be looked up
    /// or holds padding (the slow path says why).
    #[inline]
    fn derive_fast(
        &self,
        us: Bitboard,
        ctx: &ThemOrbit,
        sector: Sector,
        successors: &Successors,
        slots: &mut Vec<(usize, usize)>,
        memo: &mut BlockMemo,
    ) -> Option<u16> {
        let rules = &self.rules;
        // Misère (where a mill to two stones loses) takes the slow path.
        if rules.line_wins() || rules.misere() || us.count_ones() + (sector.wh as u32) < 3 {
            return None;
        }
        if sector.wh > 0 && !rules.lasker() && !rules.remove_per_mill() {
            if let Some(e) = self.derive_placing(us, ctx, successors, memo) {
                return Some(e);
            }
        }
        if sector.wh == 0 && !rules.remove_per_mill() {
            if let Some(e) = self.derive_moving(us, ctx, successors, memo) {
                return Some(e);
            }
        }
        let them = ctx.them;
        slots.clear();
        let mut immediate_win = false;
        let mut any = false;
        let mut problem = false;
        // Placements without capture lead into one orbit block: the slots of
        // `us` plus one point are prepared once, then cost O(1) per point
        // ([`OrbitBlock::extensions`]).
        let placements = successors.by_move[1][0]
            .filter(|_| sector.wh > 0)
            .and_then(|ti| ctx.quiet[ti].1.as_ref())
            .map(|block| block.extensions(us));

        for_each_move(rules, us, them, sector.wh, |mv, mover| {
            any = true;
            if immediate_win || problem {
                return;
            }
            let taken = mv.removals();
            let victim = them & !taken;
            if victim.count_ones() + (sector.bh as u32) < 3 {
                immediate_win = true;
                return;
            }
            let placed = mv.from.is_none();
            let Some(ti) = successors.by_move[placed as usize][taken.count_ones() as usize] else {
                problem = true;
                return;
            };
            let Ok((cindex, _)) = &successors.tables[ti].1 else {
                problem = true;
                return;
            };
            let slot = if taken == 0 {
                match (&placements, &ctx.quiet[ti]) {
                    (Some(e), _) if placed => e.slot(mv.to),
                    (_, (_, Some(block))) => block.slot(mover),
                    (_, (Some(at), None)) => cindex.index_at(*at, mover),
                    (_, (None, None)) => cindex.index(victim, mover),
                }
            } else if let (1, Some(at)) = (taken.count_ones(), ctx.removed[taken.trailing_zeros() as usize]) {
                cindex.index_at(at, mover)
            } else {
                cindex.index(victim, mover)
            };
            slots.push((ti, slot as usize));
        });
        if problem {
            return None;
        }
        if immediate_win {
            return Some(Value::LOST.back().to_entry());
        }
        if !any {
            let full = us | them == rules.board().all();
            let value = if full && rules.full_board() == FullBoardOutcome::Draw { Value::Draw } else { Value::LOST };
            return Some(value.to_entry());
        }
        let mut best = Best::default();
        for &(ti, slot) in slots.iter() {
            best.add(*successors.entries(ti)?.get(slot)?);
        }
        best.entry()
    }

    /// [`Verifier::derive_fast`] for a position placing a stone without the
    /// Lasker rule, where a mill removes one stone: the empty points whose
    /// placement closes a mill are found at once
    /// ([`Board::completing_points`](morris_db::Board::completing_points),
    /// which a test holds to [`Board::closes_mill`](morris_db::Board::closes_mill),
    /// as [`for_each_move`] uses it), each paired with every removable stone;
    /// the other empty points are quiet placements, ranked through the
    /// prepared [`OrbitBlock::extensions`]. No move is built. `None` where it
    /// does not apply (the opponent's set has a symmetry, a successor table
    /// is unusable): the caller takes the general path.
    #[inline]
    fn derive_placing(
        &self,
        us: Bitboard,
        ctx: &ThemOrbit,
        successors: &Successors,
        memo: &mut BlockMemo,
    ) -> Option<u16> {
        let board = self.rules.board();
        let empty = board.all() & !us & !ctx.them;
        if empty == 0 {
            return None;
        }
        let quiet = successors.by_move[1][0]?;
        let block = ctx.quiet[quiet].1.as_ref()?;
        let placements = block.extensions(us);
        let quiet_entries = successors.entries(quiet)?;
        let closing = if ctx.removes { board.completing_points(us, empty) } else { 0 };
        let mut best = Best::default();
        if closing != 0 {
            if ctx.capture_wins {
                return Some(Value::LOST.back().to_entry());
            }
            let captures = Captures::new(successors, 1)?;
            for p in Points(closing) {
                // The stones after the placement rank as a quiet
                // placement's child would: the memo's cell.
                let at = placements.slot(p) - block.first();
                best.merge(Best::unpack(memo.get(at, || captures.best(ctx, us | 1 << p).map(Best::pack))?));
            }
        }
        for p in Points(empty & !closing) {
            best.add(*quiet_entries.get(placements.slot(p) as usize)?);
        }
        best.entry()
    }

    /// [`Verifier::derive_fast`] for a position moving a stone (slides, or
    /// flights where the rule set lets it fly), where a mill removes one
    /// stone: each step's target is tested for a mill
    /// ([`Board::closes_mill`](morris_db::Board::closes_mill), as [`for_each_move`] does) and paired with
    /// every removable stone, or ranked in the opponent's orbit block. No
    /// move is built. `None` where it does not apply (the opponent's set
    /// has a symmetry, a successor table is unusable, no legal move): the
    /// caller takes the general path.
    #[inline]
    fn derive_moving(
        &self,
        us: Bitboard,
        ctx: &ThemOrbit,
        successors: &Successors,
        memo: &mut BlockMemo,
    ) -> Option<u16> {
        let board = self.rules.board();
        let empty = board.all() & !us & !ctx.them;
        let quiet = successors.by_move[0][0]?;
        let block = ctx.quiet[quiet].1.as_ref()?;
        let quiet_entries = successors.entries(quiet)?;
        let flying = self.rules.flies(us.count_ones());
        // Set up on the first mill.
        let mut captures: Option<Captures> = None;
        let mut best = Best::default();
        for from in Points(us) {
            let targets = if flying { empty } else { board.adjacent(from) & empty };
            let rest = us & !(1 << from);
            for to in Points(targets) {
                let after = rest | 1 << to;
                let slot = block.slot(after);
                if ctx.removes && board.closes_mill(after, to) {
                    if ctx.capture_wins {
                        return Some(Value::LOST.back().to_entry());
                    }
                    let c = match &captures {
                        Some(c) => c,
                        None => captures.insert(Captures::new(successors, 0)?),
                    };
                    let at = slot - block.first();
                    best.merge(Best::unpack(memo.get(at, || c.best(ctx, after).map(Best::pack))?));
                } else {
                    best.add(*quiet_entries.get(slot as usize)?);
                }
            }
        }
        best.entry()
    }

    /// The value of the position `us` (to move) against `them` in `sector`,
    /// from the stored values of the positions its moves lead to.
    /// # Errors
    /// When a move leads to a table that is missing or unusable, or holds
    /// no value for the position: that table's sector, and what is wrong.
    fn derive(
        &self,
        us: Bitboard,
        them: Bitboard,
        sector: Sector,
        successors: &Successors,
    ) -> Result<Derived, (Sector, String)> {
        let rules = &self.rules;
        let board = rules.board();
        let has_line = |set: Bitboard| rules.has_line(set);
        // Decided against the side to move: lost, or won under misère.
        let decided = rules.decided_value();
        if us.count_ones() + (sector.wh as u32) < 3 || (rules.line_wins() && has_line(them)) {
            return Ok(Derived { value: decided, witness: None });
        }
        let mut shortest_loss: Option<(Move, Even)> = None;
        let mut draw: Option<Move> = None;
        let mut longest_win: Option<(Move, Odd)> = None;
        let mut problem: Option<(Sector, String)> = None;
        // The opponent's orbit is shared by every move that removes nothing.
        // (Its orbit table depends only on its stone count.)
        let mut quiet: Option<(usize, usize)> = None;
        for_each_move(rules, us, them, sector.wh, |mv, _| {
            let (mover, victim) = apply_move(us, them, mv);
            let mover_hand = sector.wh - u8::from(mv.from.is_none());
            let child = if victim.count_ones() + (sector.bh as u32) < 3 || (rules.line_wins() && has_line(mover)) {
                decided
            } else {
                let cs =
                    Sector { w: victim.count_ones() as u8, b: mover.count_ones() as u8, wh: sector.bh, bh: mover_hand };
                match successors.get(cs) {
                    Some(Ok((cindex, centries))) => {
                        let slot = if victim == them {
                            let (o, s) = *quiet.get_or_insert_with(|| cindex.orbit_table().orbit_of(them));
                            cindex.index_with_orbit(o, s, mover)
                        } else {
                            cindex.index(victim, mover)
                        };
                        match centries.get(slot as usize).and_then(|&e| Value::from_entry(e)) {
                            Some(v) => v,
                            None => {
                                problem.get_or_insert((
                                    cs,
                                    format!(
                                        "{} leads to {} in sector {cs}, whose slot {slot} holds no value",
                                        mv.notation(board),
                                        Setup::from_relative(victim, mover, Color::Black, sector.bh, mover_hand)
                                            .to_text(board)
                                    ),
                                ));
                                return;
                            }
                        }
                    }
                    Some(Err(e)) => {
                        problem.get_or_insert((cs, format!("{} leads to {e}", mv.notation(board))));
                        return;
                    }
                    None => {
                        problem.get_or_insert((
                            cs,
                            format!("{} leads to sector {cs}, which this verifier did not expect", mv.notation(board)),
                        ));
                        return;
                    }
                }
            };
            match child {
                Value::Loss(n) => {
                    if !matches!(shortest_loss, Some((_, m)) if m <= n) {
                        shortest_loss = Some((mv, n));
                    }
                }
                Value::Draw => {
                    draw.get_or_insert(mv);
                }
                Value::Win(n) => {
                    if !matches!(longest_win, Some((_, m)) if m >= n) {
                        longest_win = Some((mv, n));
                    }
                }
            }
        });
        // A win in one needs no table; anything else needs every successor.
        if let Some(p) = problem.filter(|_| !matches!(shortest_loss, Some((_, n)) if n.get() == 0)) {
            return Err(p);
        }
        Ok(if let Some((mv, n)) = shortest_loss {
            Derived { value: Value::Loss(n).back(), witness: Some((mv, Value::Loss(n))) }
        } else if let Some(mv) = draw {
            Derived { value: Value::Draw, witness: Some((mv, Value::Draw)) }
        } else if let Some((mv, n)) = longest_win {
            Derived { value: Value::Win(n).back(), witness: Some((mv, Value::Win(n))) }
        } else {
            // No legal move: decided, unless a full board is a draw.
            let full = us | them == board.all();
            Derived {
                value: if full && rules.full_board() == FullBoardOutcome::Draw { Value::Draw } else { decided },
                witness: None,
            }
        })
    }
}

/// Where a position's captures lead: the successor table of the moves that
/// place (`placed` 1) or move (0) a stone and remove one (the stones they
/// may remove are [`ThemOrbit::victims`]).
struct Captures<'a> {
    index: &'a SectorIndex,
    entries: &'a [u16],
}

impl<'a> Captures<'a> {
    /// The captures by a move that places a stone (`placed` 1) or moves one
    /// (0); `None` when their table is missing or unusable.
    fn new(successors: &'a Successors, placed: usize) -> Option<Captures<'a>> {
        let Ok((index, entries)) = &successors.tables[successors.by_move[placed][1]?].1 else {
            return None;
        };
        Some(Captures { index, entries })
    }

    /// The best of the captures by a move leaving the mover's stones
    /// `after`, one per removable stone of `ctx.them`; `None` when the set
    /// less a stone is not located (no table of one stone fewer in `ctx`)
    /// or a slot lies outside the table.
    #[inline]
    fn best(&self, ctx: &ThemOrbit, after: Bitboard) -> Option<Best> {
        let mut best = Best::default();
        for r in Points(ctx.victims) {
            best.add(*self.entries.get(self.index.index_at(ctx.removed[r as usize]?, after) as usize)?);
        }
        Some(best)
    }
}

/// The best of a position's successors for its side to move, kept as a
/// running minimum over their table entries (module `value`'s encoding:
/// 0 a draw, `n + 1` a DTM of `n` plies, odd entries losses for the
/// successor's side to move, even ones wins): the shortest loss for the
/// opponent, else a draw, else the longest win. Branch-free, so that the
/// reads of a position's successors overlap.
#[derive(Debug, Clone, Copy)]
struct Best {
    /// The smallest key so far: an odd entry `e` (the opponent loses) is
    /// `e`, a draw `0x1_0000`, an even entry `e` (the opponent wins)
    /// `0x3_0000 - e`; `u32::MAX` before the first.
    key: u32,
    /// Some successor slot held the padding entry.
    padding: bool,
}

impl Default for Best {
    fn default() -> Best {
        Best { key: u32::MAX, padding: false }
    }
}

impl Best {
    /// Takes one successor's entry into account.
    #[inline(always)]
    fn add(&mut self, entry: u16) {
        let e = u32::from(entry);
        let key = if e & 1 == 1 {
            e
        } else if e == 0 {
            0x1_0000
        } else {
            0x3_0000 - e
        };
        self.key = self.key.min(key);
        self.padding |= entry == PADDING_ENTRY;
    }

    /// Takes a set of successors' best into account.
    #[inline(always)]
    fn merge(&mut self, other: Best) {
        self.key = self.key.min(other.key);
        self.padding |= other.padding;
    }

    /// The best in 32 bits: the key, with bit 31 for padding; before the
    /// first successor [`BlockMemo::UNKNOWN`], which a memo does not keep
    /// (keys of entries stay below 2^18).
    #[inline]
    fn pack(self) -> u32 {
        if self.key == u32::MAX {
            BlockMemo::UNKNOWN
        } else {
            self.key | u32::from(self.padding) << 31
        }
    }

    /// The inverse of [`Best::pack`].
    #[inline]
    fn unpack(packed: u32) -> Best {
        if packed == BlockMemo::UNKNOWN {
            return Best::default();
        }
        Best { key: packed & !(1 << 31), padding: packed >> 31 == 1 }
    }

    /// The entry of the position, one ply before its best successor: a
    /// successor's loss in `n` (entry `n + 1`) makes a win in `n + 1`
    /// (entry `n + 2`), a win in `n` a loss in `n + 1`, a draw a draw.
    /// `None` when no successor was added or one held padding.
    #[inline]
    fn entry(self) -> Option<u16> {
        if self.padding || self.key == u32::MAX {
            return None;
        }
        Some(if self.key < 0x1_0000 {
            self.key as u16 + 1
        } else if self.key == 0x1_0000 {
            0
        } else {
            (0x3_0000 - self.key) as u16 + 1
        })
    }
}
