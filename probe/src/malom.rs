//! Reading Malom's databases (Gévay and Danner): the `.sec2` sector files and
//! the `.secval` sector values of the standard game (`std_`), Morabaraba
//! (`mora_`) and Lasker Morris (`lask_`), so that users can probe the files
//! they already have, and so that our tables can be checked against them
//! position by position ([`compare_sector`]).
//!
//! # Files
//!
//! - `<game>_<W>_<B>_<WF>_<BF>.sec2`: one sector; W, B stones on the board of
//!   the side to move and of the opponent, WF, BF their stones in hand (a
//!   position with Black to move is looked up with colours swapped, which is
//!   what our relative positions do anyway).
//! - `<game>.secval`: text; `virt_loss_val: L`, `virt_win_val: V`, the number
//!   of sectors, then one line `W B WF BF value` per sector.
//!
//! # Sector file layout (little-endian)
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 4 | version, 2 |
//! | 4 | 4 | bytes per entry, 3 |
//! | 8 | 4 | width of field 1 in bits (12 standard, 14 Morabaraba and Lasker) |
//! | 12 | 1 | flag, 0 |
//! | 13 | 51 | zeros |
//! | 64 | 3 N | N entries, N = orbits(W) x C(24 - W, B) |
//! | 64 + 3 N | 4 | n, entries of the overflow table |
//! | 68 + 3 N | 8 n | n pairs (slot, true field 2), sorted by slot |
//!
//! An entry is a 24-bit integer: field 1 in the low bits, field 2 in the
//! rest, each signed (two's complement).
//!
//! | field 1 | field 2 | meaning |
//! |---|---|---|
//! | 0 | < 0 | pointer: apply Malom's symmetry `-field2 - 1` and look up again |
//! | 0 | >= 0 | a draw that stays in the sector (field 2 is a left-over counter) |
//! | else | | A = field 1 + the sector's value: A = `virt_win_val` a win, A = `virt_loss_val` a loss, both with DTM = field 2; anything else a draw ranked by A |
//!
//! Field 2 equal to the smallest number of its width (-2048 for 12 bits)
//! means the true field 2 is in the overflow table.
//!
//! # Index
//!
//! The slot of a position is `orbit(us) x C(24 - W, B) + colex rank of the
//! opponent's stones among the points the orbit representative leaves
//! empty`, after mapping both colours by a symmetry that takes `us` to its
//! representative (the numerically smallest image). The point order is ours
//! (Malom's square order), the orbits are numbered by increasing
//! representative as ours are, and the canonical position of a class is the
//! same as ours (the smallest opponent set under the representative's
//! stabiliser); the other slots hold pointers. Malom's symmetry numbers
//! differ from ours; [`malom_symmetry`] gives them as point permutations.
//!
//! Everything above was checked on real files (`tests/tests/malom.rs`).

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;
use morris_db::board::{Bitboard, Board, Point, Points};
use morris_db::index::{colex_unrank, expand_into_empty, rank_among_empty, SectorIndex};
use morris_db::mapped::map_file;
use morris_db::store::{file_names, sort_sectors};
use morris_db::wdl::Wdl;
use morris_db::{Color, Move, Position, RuleSet, Sector, Setup, Table, TableError, Tally, Value};
use rayon::prelude::*;

use crate::tables::{Answer, Encoding, Tables};
use crate::{Database, MissingHint, ProbeError};

/// The size of a sector file's header in bytes.
pub const HEADER_SIZE: usize = 64;
/// The sector file version this reader understands.
pub const SECTOR_VERSION: i32 = 2;
/// Bytes per entry.
pub const ENTRY_BYTES: usize = 3;
/// The extension of sector files.
pub const SECTOR_EXTENSION: &str = "sec2";

/// One of Malom's games, with its file-name prefix and our rule set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MalomGame {
    /// The standard game (`std_`), our rule set `nine`.
    Standard,
    /// Morabaraba (`mora_`), our rule set `morabaraba`.
    Morabaraba,
    /// Lasker Morris (`lask_`), our rule set `lasker`.
    Lasker,
}

impl MalomGame {
    /// Every game Malom solved.
    pub const ALL: [MalomGame; 3] = [MalomGame::Standard, MalomGame::Morabaraba, MalomGame::Lasker];

    /// The game of a rule set, if Malom has a database for it.
    pub fn for_rules(rules: &RuleSet) -> Option<MalomGame> {
        MalomGame::ALL.into_iter().find(|g| g.preset() == rules.name())
    }

    /// The file-name prefix: `std`, `mora` or `lask`.
    pub fn prefix(self) -> &'static str {
        match self {
            MalomGame::Standard => "std",
            MalomGame::Morabaraba => "mora",
            MalomGame::Lasker => "lask",
        }
    }

    /// Our preset for the game: `nine`, `morabaraba` or `lasker`.
    pub fn preset(self) -> &'static str {
        match self {
            MalomGame::Standard => "nine",
            MalomGame::Morabaraba => "morabaraba",
            MalomGame::Lasker => "lasker",
        }
    }

    /// The sector file name, e.g. `std_3_4_0_0.sec2`.
    pub fn file_name(self, sector: Sector) -> String {
        format!("{}_{}_{}_{}_{}.{SECTOR_EXTENSION}", self.prefix(), sector.w, sector.b, sector.wh, sector.bh)
    }

    /// The sector values file name, e.g. `std.secval`.
    pub fn values_file_name(self) -> String {
        format!("{}.secval", self.prefix())
    }

    /// Parses a sector file name made by [`MalomGame::file_name`].
    pub fn parse_file_name(name: &str) -> Option<(MalomGame, Sector)> {
        let stem = name.strip_suffix(&format!(".{SECTOR_EXTENSION}"))?;
        let mut parts = stem.split('_');
        let prefix = parts.next()?;
        let game = MalomGame::ALL.into_iter().find(|g| g.prefix() == prefix)?;
        let mut num = || parts.next()?.parse::<u8>().ok();
        let sector = Sector { w: num()?, b: num()?, wh: num()?, bh: num()? };
        if parts.next().is_some() {
            return None;
        }
        Some((game, sector))
    }
}

/// Malom's symmetry number `s` as a permutation of the 24 points: `image[k]`
/// is the point the stone on point `k` goes to; `None` for `s > 15`.
///
/// With `k = 8 ring + p` (ring 0 outer, 1 middle, 2 inner; p from the west
/// midpoint clockwise): 0: p+2 (rotation by 90 degrees clockwise), 1: p+4,
/// 2: p+6, 3: 4-p, 4: -p, 5: 2-p, 6: 6-p (p mod 8, ring unchanged); 7: ring
/// -> 2 - ring (inner and outer rings swapped); 8..14: the swap and then
/// 0..6; 15: the identity.
pub fn malom_symmetry(s: u8) -> Option<[Point; 24]> {
    if s > 15 {
        return None;
    }
    let mut image = [0; 24];
    for (k, slot) in image.iter_mut().enumerate() {
        let (ring, p) = (k / 8, k as i32 % 8);
        let ring = if (7..15).contains(&s) { 2 - ring } else { ring };
        let turn = if s >= 8 { s.wrapping_sub(8) } else { s };
        let p = match turn {
            0 => p + 2,
            1 => p + 4,
            2 => p + 6,
            3 => 4 - p,
            4 => -p,
            5 => 2 - p,
            6 => 6 - p,
            _ => p,
        }
        .rem_euclid(8);
        *slot = (8 * ring as i32 + p) as Point;
    }
    Some(image)
}

/// The image of a set of points under a permutation from [`malom_symmetry`].
pub fn apply_permutation(image: &[Point; 24], set: Bitboard) -> Bitboard {
    Points(set).fold(0, |acc, p| acc | 1 << image[p as usize])
}

/// A raw sector-file entry, decoded (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MalomEntry {
    /// A value: field 1 (Malom's A minus the sector's value) and field 2
    /// (DTM of a win or loss, or the overflow sentinel).
    Value {
        /// Field 1.
        field1: i32,
        /// Field 2.
        field2: i32,
    },
    /// Field 1 = 0, field 2 >= 0: a draw that stays in the sector.
    Count(i32),
    /// Field 1 = 0, field 2 < 0: apply Malom's symmetry `-field2 - 1` and
    /// look up again.
    Symmetry(u32),
}

impl MalomEntry {
    /// Decodes a 24-bit entry whose field 1 has `field1_bits` bits.
    pub fn decode(raw: u32, field1_bits: u32) -> MalomEntry {
        let field2_bits = 24 - field1_bits;
        let field1 = sign_extend(raw & ((1 << field1_bits) - 1), field1_bits);
        let field2 = sign_extend((raw >> field1_bits) & ((1 << field2_bits) - 1), field2_bits);
        match (field1, field2) {
            (0, f2) if f2 < 0 => MalomEntry::Symmetry((-f2 - 1) as u32),
            (0, f2) => MalomEntry::Count(f2),
            (field1, field2) => MalomEntry::Value { field1, field2 },
        }
    }

    /// Whether the entry is a symmetry pointer.
    pub fn is_pointer(&self) -> bool {
        matches!(self, MalomEntry::Symmetry(_))
    }
}

fn sign_extend(v: u32, bits: u32) -> i32 {
    ((v << (32 - bits)) as i32) >> (32 - bits)
}

/// A value from Malom's database: ours, plus Malom's evaluation A (for the
/// side to move), which ranks draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MalomValue {
    /// Win, loss (with DTM in plies) or draw.
    pub value: Value,
    /// Malom's A: `virt_win_val` for a win, `virt_loss_val` for a loss, and
    /// for a draw a rank (the value of the sliding sector the draw ends in
    /// under Malom's play; 0 with equal stones; higher is better for the
    /// side to move).
    pub a: i32,
}

impl MalomValue {
    /// Malom's draw ranking A when the value is a draw.
    pub fn draw_rank(&self) -> Option<i32> {
        (self.value == Value::Draw).then_some(self.a)
    }

    /// The value of a move for the mover, given this value of the position
    /// it leads to ([`Value::back`], and A negated).
    pub fn back(self) -> MalomValue {
        MalomValue { value: self.value.back(), a: -self.a }
    }

    /// Orders values best first: [`Value::best_first`], draws by higher A.
    pub fn best_first(x: &MalomValue, y: &MalomValue) -> std::cmp::Ordering {
        Value::best_first(&x.value, &y.value).then_with(|| match x.value {
            Value::Draw => y.a.cmp(&x.a),
            _ => std::cmp::Ordering::Equal,
        })
    }
}

impl Answer for MalomValue {
    fn back(self) -> MalomValue {
        MalomValue::back(self)
    }

    fn best_first(a: &MalomValue, b: &MalomValue) -> std::cmp::Ordering {
        MalomValue::best_first(a, b)
    }

    fn wdl(self) -> Wdl {
        Wdl::from(self.value)
    }
}

impl std::fmt::Display for MalomValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.draw_rank() {
            Some(a) => write!(f, "{:?} (Malom A = {a})", self.value),
            None => write!(f, "{:?}", self.value),
        }
    }
}

/// The contents of a `.secval` file: the win and loss values and each
/// sector's value.
#[derive(Debug, Clone)]
pub struct SectorValues {
    /// `virt_loss_val`: A of a loss.
    pub loss: i32,
    /// `virt_win_val`: A of a win.
    pub win: i32,
    values: HashMap<Sector, i32>,
}

impl SectorValues {
    /// Parses the text of a `.secval` file (`path` names it in errors).
    ///
    /// # Errors
    /// [`TableError::Corrupt`] naming the line that is wrong.
    pub fn parse(text: &str, path: &Path) -> Result<SectorValues, TableError> {
        let bad = |line: usize, detail: String| TableError::Corrupt {
            path: path.to_path_buf(),
            field: "sector values",
            detail: format!("line {line}: {detail}"),
        };
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty());
        let mut keyed = |key: &str| -> Result<i32, TableError> {
            let (n, line) = lines.next().ok_or_else(|| bad(0, format!("`{key}:` is missing")))?;
            line.strip_prefix(key)
                .and_then(|r| r.strip_prefix(':'))
                .and_then(|r| r.trim().parse().ok())
                .ok_or_else(|| bad(n, format!("expected `{key}: <number>`, found `{line}`")))
        };
        let loss = keyed("virt_loss_val")?;
        let win = keyed("virt_win_val")?;
        if win <= 0 || loss != -win {
            return Err(bad(2, format!("win value {win} and loss value {loss} are not opposite")));
        }
        let (n, line) = lines.next().ok_or_else(|| bad(3, "the number of sectors is missing".into()))?;
        let count: usize =
            line.parse().map_err(|_| bad(n, format!("expected the number of sectors, found `{line}`")))?;
        let mut values = HashMap::with_capacity(count);
        for (n, line) in lines {
            let nums: Vec<i32> = line
                .split_whitespace()
                .map(|t| t.parse().ok())
                .collect::<Option<_>>()
                .ok_or_else(|| bad(n, format!("expected `W B WF BF value`, found `{line}`")))?;
            let [w, b, wh, bh, v] = nums[..] else {
                return Err(bad(n, format!("expected `W B WF BF value`, found `{line}`")));
            };
            let byte = |x: i32| u8::try_from(x).map_err(|_| bad(n, format!("stone count {x} out of range")));
            let sector = Sector { w: byte(w)?, b: byte(b)?, wh: byte(wh)?, bh: byte(bh)? };
            if values.insert(sector, v).is_some() {
                return Err(bad(n, format!("sector {sector} is listed twice")));
            }
        }
        if values.len() != count {
            return Err(bad(3, format!("says {count} sectors, but {} are listed", values.len())));
        }
        Ok(SectorValues { loss, win, values })
    }

    /// Reads a `.secval` file.
    ///
    /// # Errors
    /// [`TableError::Io`] when it cannot be read, [`TableError::Corrupt`] as
    /// in [`SectorValues::parse`].
    pub fn read(path: &Path) -> Result<SectorValues, TableError> {
        let text = std::fs::read_to_string(path).map_err(|e| TableError::Io { path: path.to_path_buf(), error: e })?;
        SectorValues::parse(&text, path)
    }

    /// The value of a sector, if listed.
    pub fn get(&self, sector: Sector) -> Option<i32> {
        self.values.get(&sector).copied()
    }

    /// Number of sectors listed.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no sector is listed.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Counts over a whole sector file ([`MalomSector::census`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MalomCensus {
    /// Slots (entries).
    pub slots: u64,
    /// Symmetry pointers.
    pub pointers: u64,
    /// The values of the other slots (draws: value entries and counters).
    pub values: Tally,
}

/// One mapped sector file.
#[derive(Debug)]
pub struct MalomSector {
    path: PathBuf,
    sector: Sector,
    field1_bits: u32,
    sector_value: i32,
    win: i32,
    loss: i32,
    board: Arc<Board>,
    index: SectorIndex,
    slots: u64,
    overflow: Vec<(u64, i32)>,
    map: Mmap,
}

impl MalomSector {
    /// Maps and checks the file of `sector` at `path`: header, size and the
    /// overflow table; `values` gives the sector's value.
    ///
    /// # Errors
    /// [`TableError::Missing`] when the file does not exist,
    /// [`TableError::Io`] when it cannot be read, [`TableError::Corrupt`]
    /// naming the field that is wrong (also when `values` lacks the sector).
    pub fn open(
        path: &Path,
        sector: Sector,
        rules: &RuleSet,
        values: &SectorValues,
    ) -> Result<MalomSector, TableError> {
        let corrupt =
            |field: &'static str, detail: String| TableError::Corrupt { path: path.to_path_buf(), field, detail };
        let io = |e: std::io::Error| TableError::Io { path: path.to_path_buf(), error: e };
        let file = match morris_db::mapped::open_file(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(TableError::Missing { sector, path: path.to_path_buf() })
            }
            Err(e) => return Err(io(e)),
        };
        let len = file.metadata().map_err(io)?.len();
        if len < HEADER_SIZE as u64 {
            return Err(corrupt("file size", format!("{len} bytes, shorter than the {HEADER_SIZE}-byte header")));
        }
        if rules.board().len() != 24 || sector.w as usize + sector.b as usize > 24 {
            return Err(corrupt("sector", format!("sector {sector} is not a sector of the 24-point board")));
        }
        // Malom's files are read-only downloads that no program here
        // writes (`map_file`'s contract).
        let map = map_file(&file).map_err(io)?;
        let i32_at = |o: usize| i32::from_le_bytes([map[o], map[o + 1], map[o + 2], map[o + 3]]);
        let version = i32_at(0);
        if version != SECTOR_VERSION {
            return Err(corrupt(
                "version",
                format!(
                    "{version}; this reader understands Malom's sector files of version {SECTOR_VERSION} (`.sec2`)"
                ),
            ));
        }
        if i32_at(4) != ENTRY_BYTES as i32 {
            return Err(corrupt("entry size", format!("{} bytes per entry, expected {ENTRY_BYTES}", i32_at(4))));
        }
        let field1_bits = i32_at(8);
        if !(2..=22).contains(&field1_bits) {
            return Err(corrupt(
                "field 1 width",
                format!("{field1_bits} bits, expected 2..22 (12 standard, 14 Morabaraba and Lasker)"),
            ));
        }
        if map[12] != 0 {
            return Err(corrupt(
                "flag",
                format!("{}, expected 0 (other kinds of Malom files are not supported)", map[12]),
            ));
        }
        if let Some(o) = (13..HEADER_SIZE).find(|&o| map[o] != 0) {
            return Err(corrupt("header", format!("byte {o} is {}, expected 0", map[o])));
        }
        let index = rules.sector_index(sector).map_err(|e| corrupt("file name", e.to_string()))?;
        let slots = index.len();
        let entries_end = HEADER_SIZE as u64 + ENTRY_BYTES as u64 * slots;
        let size_error =
            |detail: String| corrupt("file size", format!("{len} bytes: {detail} (cut short or extended)"));
        if len < entries_end + 4 {
            return Err(size_error(format!(
                "sector {sector} has {slots} slots, which need {} bytes with an empty overflow table",
                entries_end + 4
            )));
        }
        let n = i32_at(entries_end as usize);
        if n < 0 || len != entries_end + 4 + 8 * n as u64 {
            return Err(size_error(format!(
                "{slots} slots and an overflow table of {n} entries need {} bytes",
                entries_end as i64 + 4 + 8 * n as i64
            )));
        }
        let mut overflow = Vec::with_capacity(n as usize);
        for i in 0..n as usize {
            let o = entries_end as usize + 4 + 8 * i;
            let (slot, value) = (i32_at(o), i32_at(o + 4));
            if slot < 0 || slot as u64 >= slots || overflow.last().is_some_and(|&(s, _)| s >= slot as u64) {
                return Err(corrupt("overflow table", format!("entry {i}: slot {slot} out of range or out of order")));
            }
            overflow.push((slot as u64, value));
        }
        let sector_value = values
            .get(sector)
            .ok_or_else(|| corrupt("sector values", format!("the `.secval` file has no value for sector {sector}")))?;
        Ok(MalomSector {
            path: path.to_path_buf(),
            sector,
            field1_bits: field1_bits as u32,
            sector_value,
            win: values.win,
            loss: values.loss,
            board: rules.board_arc().clone(),
            index,
            slots,
            overflow,
            map,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The sector.
    pub fn sector(&self) -> Sector {
        self.sector
    }

    /// Number of slots.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// The width of field 1 in bits.
    pub fn field1_bits(&self) -> u32 {
        self.field1_bits
    }

    /// The sector's value from the `.secval` file.
    pub fn sector_value(&self) -> i32 {
        self.sector_value
    }

    /// The overflow table: (slot, true field 2), sorted by slot.
    pub fn overflow(&self) -> &[(u64, i32)] {
        &self.overflow
    }

    fn corrupt(&self, field: &'static str, detail: String) -> ProbeError {
        ProbeError::Table(TableError::Corrupt { path: self.path.clone(), field, detail })
    }

    /// The decoded entry of `slot`; `None` past the end.
    #[inline]
    pub fn entry(&self, slot: u64) -> Option<MalomEntry> {
        if slot >= self.slots {
            return None;
        }
        let o = HEADER_SIZE + ENTRY_BYTES * slot as usize;
        let raw = u32::from_le_bytes([self.map[o], self.map[o + 1], self.map[o + 2], 0]);
        Some(MalomEntry::decode(raw, self.field1_bits))
    }

    /// Malom's slot of a position of this sector (`us` the side to move's
    /// stones): both colours mapped by a symmetry that takes `us` to its
    /// orbit representative, the opponent's stones ranked among the points
    /// the representative leaves empty. Not minimised over the
    /// representative's stabiliser: such a slot may hold a pointer.
    pub fn slot_of(&self, us: Bitboard, them: Bitboard) -> u64 {
        let orbits = self.index.orbit_table();
        let (orbit, sym) = orbits.orbit_of(us);
        let rep = orbits.representative(orbit);
        let them = self.board.symmetries()[sym].apply(them);
        orbit as u64 * self.index.opponent_sets() + rank_among_empty(rep, them)
    }

    /// The position a slot stands for: the orbit representative and the
    /// opponent's stones (`None` past the end).
    pub fn position_at(&self, slot: u64) -> Option<(Bitboard, Bitboard)> {
        if slot >= self.slots {
            return None;
        }
        let sets = self.index.opponent_sets();
        let rep = self.index.orbit_table().representative((slot / sets) as usize);
        let them = expand_into_empty(rep, colex_unrank(slot % sets, self.index.b()), 24);
        Some((rep, them))
    }

    /// Follows the pointer at `slot`, if any, to the slot that holds the
    /// value: applies Malom's symmetry to the slot's position and looks it up
    /// again. Returns that slot and its entry.
    ///
    /// # Errors
    /// [`ProbeError::Table`] (corrupt) for a slot out of range, a symmetry
    /// number above 15, or a pointer that leads to another pointer.
    pub fn resolve(&self, slot: u64) -> Result<(u64, MalomEntry), ProbeError> {
        let entry = self
            .entry(slot)
            .ok_or_else(|| self.corrupt("slot", format!("slot {slot} is past the {} slots", self.slots)))?;
        let MalomEntry::Symmetry(s) = entry else {
            return Ok((slot, entry));
        };
        let image = u8::try_from(s)
            .ok()
            .and_then(malom_symmetry)
            .ok_or_else(|| self.corrupt("payload", format!("slot {slot} points to symmetry {s}; Malom has 16")))?;
        let (us, them) = self.position_at(slot).unwrap_or_default();
        let target = self.slot_of(apply_permutation(&image, us), apply_permutation(&image, them));
        match self.entry(target) {
            Some(e) if !e.is_pointer() => Ok((target, e)),
            _ => Err(self.corrupt(
                "payload",
                format!("the pointer at slot {slot} (symmetry {s}) leads to slot {target}, which holds no value"),
            )),
        }
    }

    /// The value at `slot`, following a pointer.
    ///
    /// # Errors
    /// As [`MalomSector::resolve`], and for a win or loss whose DTM has the
    /// wrong parity, is negative or is missing from the overflow table.
    pub fn value_at(&self, slot: u64) -> Result<MalomValue, ProbeError> {
        let (slot, entry) = self.resolve(slot)?;
        self.decode_value(slot, entry)
    }

    /// The value of a position of this sector (`us` to move).
    ///
    /// # Errors
    /// As [`MalomSector::value_at`].
    pub fn lookup(&self, us: Bitboard, them: Bitboard) -> Result<MalomValue, ProbeError> {
        self.value_at(self.slot_of(us, them))
    }

    fn decode_value(&self, slot: u64, entry: MalomEntry) -> Result<MalomValue, ProbeError> {
        let (field1, field2) = match entry {
            MalomEntry::Count(_) => return Ok(MalomValue { value: Value::Draw, a: self.sector_value }),
            MalomEntry::Symmetry(_) => {
                return Err(self.corrupt("payload", format!("slot {slot} holds a pointer where a value was expected")))
            }
            MalomEntry::Value { field1, field2 } => (field1, field2),
        };
        let a = field1 + self.sector_value;
        if a != self.win && a != self.loss {
            return Ok(MalomValue { value: Value::Draw, a });
        }
        let sentinel = -(1i32 << (23 - self.field1_bits));
        let dtm = if field2 == sentinel {
            match self.overflow.binary_search_by_key(&slot, |&(s, _)| s) {
                Ok(i) => self.overflow[i].1,
                Err(_) => {
                    return Err(self.corrupt(
                        "overflow table",
                        format!("slot {slot} says its distance is in the overflow table, which lacks it"),
                    ))
                }
            }
        } else {
            field2
        };
        let win = a == self.win;
        let value = u16::try_from(dtm).ok().and_then(|d| if win { Value::win(d) } else { Value::loss(d) }).ok_or_else(
            || {
                self.corrupt(
                    "payload",
                    format!(
                        "slot {slot}: a {} in {dtm} plies (a win takes an odd number of plies, a loss an even one)",
                        if win { "win" } else { "loss" }
                    ),
                )
            },
        )?;
        Ok(MalomValue { value, a })
    }

    /// Counts pointers, wins, losses and draws over the whole file, and the
    /// longest win and loss.
    ///
    /// # Errors
    /// As [`MalomSector::value_at`], for the first bad value entry.
    pub fn census(&self) -> Result<MalomCensus, ProbeError> {
        let mut c = MalomCensus { slots: self.slots, ..MalomCensus::default() };
        for slot in 0..self.slots {
            let entry = self.entry(slot).unwrap_or(MalomEntry::Symmetry(0));
            if entry.is_pointer() {
                c.pointers += 1;
                continue;
            }
            c.values.add(self.decode_value(slot, entry)?.value);
        }
        Ok(c)
    }
}

/// Malom's files ([`MalomSector`], `.sec2`, with the game's `.secval`
/// file read when the database is opened): values with DTM and Malom's A.
#[derive(Debug)]
pub struct MalomFiles {
    game: MalomGame,
    values: SectorValues,
}

impl Encoding for MalomFiles {
    type File = MalomSector;
    type Answer = MalomValue;

    fn open(&self, dir: &Path, rules: &RuleSet, sector: Sector) -> Result<MalomSector, TableError> {
        MalomSector::open(&dir.join(self.game.file_name(sector)), sector, rules, &self.values)
    }

    fn verify(&self, _file: &MalomSector) -> Result<(), TableError> {
        // Malom's files have no checksum; `open` checked the header, the
        // size and the overflow table.
        Ok(())
    }

    #[inline]
    fn slot(
        &self,
        file: &MalomSector,
        _rules: &RuleSet,
        _index: Option<&SectorIndex>,
        us: Bitboard,
        them: Bitboard,
    ) -> u64 {
        file.slot_of(us, them)
    }

    #[inline]
    fn at_slot(&self, file: &MalomSector, slot: u64, _step: u64) -> Result<MalomValue, ProbeError> {
        file.value_at(slot)
    }

    fn lost(&self) -> MalomValue {
        MalomValue { value: Value::LOST, a: self.values.loss }
    }

    fn missing(&self, _dir: &Path, rules: &RuleSet, sector: Sector) -> (String, MissingHint) {
        let hint = if self.values.get(sector).is_none() {
            MissingHint::NotInMalom { values_file: self.game.values_file_name() }
        } else {
            MissingHint::InMalomFull { rules: rules.name().to_string() }
        };
        (self.game.file_name(sector), hint)
    }

    fn no_directory(&self) -> &'static str {
        "does not exist"
    }

    fn sectors(&self, dir: &Path, rules: &RuleSet) -> std::io::Result<Vec<Sector>> {
        let mut v: Vec<Sector> = file_names(dir)?
            .iter()
            .filter_map(|name| MalomGame::parse_file_name(name))
            .filter(|&(g, s)| g == self.game && rules.sector_fits(s))
            .map(|(_, s)| s)
            .collect();
        sort_sectors(&mut v);
        Ok(v)
    }
}

/// A directory of Malom's files for one game, answering the queries of
/// [`Database`] through the same front-end ([`Tables`] over
/// [`MalomFiles`]). Opening reads the small `.secval` file; each sector
/// file is mapped on first use and kept. `Send + Sync + 'static`; a clone
/// is cheap and shares the mapped files.
#[derive(Debug, Clone)]
pub struct MalomDatabase {
    tables: Tables<MalomFiles>,
}

impl MalomDatabase {
    /// Opens Malom's database of the game of `rules` (`nine`: `std_*`,
    /// `morabaraba`: `mora_*`, `lasker`: `lask_*`) in `dir`, reading its
    /// `.secval` file.
    ///
    /// # Errors
    /// [`ProbeError::NoDatabase`] when `dir` is not a directory, Malom has no
    /// database for the rule set, or the `.secval` file is missing;
    /// [`ProbeError::Table`] when that file cannot be read or is malformed.
    pub fn open(dir: impl AsRef<Path>, rules: RuleSet) -> Result<MalomDatabase, ProbeError> {
        let dir = dir.as_ref().to_path_buf();
        let no = |why: String| ProbeError::NoDatabase { path: dir.clone(), why };
        if !dir.is_dir() {
            return Err(no(if dir.exists() { "not a directory".into() } else { "does not exist".into() }));
        }
        let game = MalomGame::for_rules(&rules).ok_or_else(|| {
            no(format!(
                "Malom's databases exist for the rule sets nine (std_*), morabaraba (mora_*) and lasker (lask_*), not for `{}`",
                rules.name()
            ))
        })?;
        let values_path = dir.join(game.values_file_name());
        if !values_path.is_file() {
            let found = present_games(&dir);
            let hint = if found.is_empty() {
                String::new()
            } else {
                format!("; it holds Malom files of {}: is the rule set right?", found.join(", "))
            };
            return Err(no(format!(
                "no {} (Malom's sector values for rule set {}){hint}",
                game.values_file_name(),
                rules.name()
            )));
        }
        let values = SectorValues::read(&values_path)?;
        // Malom's files carry no checksum: nothing to verify on first use.
        let options = crate::ProbeOptions { verify_checksums: false };
        Ok(MalomDatabase { tables: Tables::with_encoding(dir, rules, options, MalomFiles { game, values })? })
    }

    /// The front-end these queries go through.
    pub fn tables(&self) -> &Tables<MalomFiles> {
        &self.tables
    }

    /// The rule set.
    pub fn rules(&self) -> &RuleSet {
        self.tables.rules()
    }

    /// The game.
    pub fn game(&self) -> MalomGame {
        self.tables.encoding().game
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        self.tables.dir()
    }

    /// The sector values of the `.secval` file.
    pub fn sector_values(&self) -> &SectorValues {
        &self.tables.encoding().values
    }

    /// The sectors whose files are in the directory, sorted.
    pub fn sectors_present(&self) -> Vec<Sector> {
        let mut v = self.tables.sectors().unwrap_or_default();
        v.sort();
        v
    }

    /// The file of `sector`, mapped and checked on first use.
    ///
    /// # Errors
    /// [`ProbeError::MissingTable`] when the file is not there,
    /// [`ProbeError::Table`] when it is damaged.
    pub fn sector(&self, sector: Sector) -> Result<Arc<MalomSector>, ProbeError> {
        self.tables.table(sector)
    }

    /// The value of `pos` with Malom's A (see [`MalomValue`]).
    ///
    /// # Errors
    /// As [`Database::value`].
    pub fn evaluate(&self, pos: &Position) -> Result<MalomValue, ProbeError> {
        self.tables.value(pos)
    }

    /// The value of `pos` for the side to move, as [`Database::value`].
    ///
    /// # Errors
    /// As [`Database::value`].
    pub fn value(&self, pos: &Position) -> Result<Value, ProbeError> {
        Ok(self.evaluate(pos)?.value)
    }

    /// Every legal move with its value for the mover, best first: shortest
    /// win, then draws by Malom's A for the mover (highest first), then the
    /// longest loss; ties in notation order.
    ///
    /// # Errors
    /// As [`MalomDatabase::value`], for the position or any position a move
    /// leads to.
    pub fn analyze_ranked(&self, pos: &Position) -> Result<Vec<(Move, MalomValue)>, ProbeError> {
        self.tables.analyze(pos)
    }

    /// Every legal move with its value, as [`Database::analyze`] (in the
    /// order of [`MalomDatabase::analyze_ranked`]).
    ///
    /// # Errors
    /// As [`MalomDatabase::analyze_ranked`].
    pub fn analyze(&self, pos: &Position) -> Result<Vec<(Move, Value)>, ProbeError> {
        Ok(self.analyze_ranked(pos)?.into_iter().map(|(m, v)| (m, v.value)).collect())
    }

    /// A best move with its value; among draws the one Malom ranks highest.
    /// `None` when the game is over.
    ///
    /// # Errors
    /// As [`MalomDatabase::analyze_ranked`].
    pub fn best_move(&self, pos: &Position) -> Result<Option<(Move, Value)>, ProbeError> {
        Ok(self.analyze(pos)?.into_iter().next())
    }
}

/// The prefixes of the Malom games whose `.secval` or sector files are in `dir`.
fn present_games(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = file_names(dir)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|name| {
            MalomGame::parse_file_name(&name)
                .map(|(g, _)| g)
                .or_else(|| MalomGame::ALL.into_iter().find(|g| g.values_file_name() == name))
        })
        .map(|g| format!("{} (rule set {})", g.prefix(), g.preset()))
        .collect();
    found.sort();
    found.dedup();
    found
}

/// A position where our table and Malom's disagree.
#[derive(Debug, Clone)]
pub struct Mismatch {
    /// The slot (the same in both layouts).
    pub slot: u64,
    /// The position, White to move, as Malom's file gives it (not checked:
    /// it is only written out).
    pub position: Setup,
    /// Our value.
    pub ours: Value,
    /// Malom's value, or why it could not be read.
    pub malom: Result<MalomValue, String>,
}

/// The result of comparing one sector ([`compare_sector`]).
#[derive(Debug, Clone)]
pub struct SectorComparison {
    /// The sector.
    pub sector: Sector,
    /// Canonical positions of ours compared.
    pub compared: u64,
    /// Positions whose values differ (WDL, or DTM of a win or loss).
    pub mismatches: u64,
    /// The first mismatches in slot order (at most the number asked for).
    pub examples: Vec<Mismatch>,
    /// Slots that are padding in our table but hold a value in Malom's, or
    /// the other way round (the canonical choice differs; not a value
    /// disagreement, since values are compared through Malom's pointers).
    pub layout_differences: u64,
}

impl SectorComparison {
    fn empty(sector: Sector) -> SectorComparison {
        SectorComparison { sector, compared: 0, mismatches: 0, examples: Vec::new(), layout_differences: 0 }
    }

    fn merge(mut self, other: SectorComparison, keep: usize) -> SectorComparison {
        self.compared += other.compared;
        self.mismatches += other.mismatches;
        self.layout_differences += other.layout_differences;
        let room = keep.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
        self
    }
}

/// Compares the slots `slots` of our table `ours` with Malom's sector
/// `malom` (same sector, same layout): every slot that is a canonical
/// position of ours must have the same WDL in Malom's (following pointers),
/// and the same DTM for wins and losses. Keeps the first `keep` mismatches.
pub fn compare_slots(ours: &Table, malom: &MalomSector, slots: Range<u64>, keep: usize) -> SectorComparison {
    let sector = malom.sector();
    let mut out = SectorComparison::empty(sector);
    for slot in slots {
        let malom_pointer = malom.entry(slot).is_some_and(|e| e.is_pointer());
        let Some(value) = ours.value(slot) else {
            out.layout_differences += u64::from(!malom_pointer);
            continue;
        };
        out.layout_differences += u64::from(malom_pointer);
        out.compared += 1;
        let theirs = malom.value_at(slot).map_err(|e| e.to_string());
        if theirs.as_ref().map(|v| v.value) != Ok(value) {
            out.mismatches += 1;
            if out.examples.len() < keep {
                let (us, them) = malom.position_at(slot).unwrap_or_default();
                let position = Setup::from_relative(us, them, Color::White, sector.wh, sector.bh);
                out.examples.push(Mismatch { slot, position, ours: value, malom: theirs });
            }
        }
    }
    out
}

/// Compares sector `sector` of our database with Malom's, in parallel
/// ([`compare_slots`] on chunks of slots); `progress` is called with the
/// number of slots of each chunk done.
///
/// # Errors
/// The errors of [`Database::table`] and [`MalomDatabase::sector`] (a
/// missing or damaged table on either side).
pub fn compare_sector(
    ours: &Database,
    malom: &MalomDatabase,
    sector: Sector,
    keep: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<SectorComparison, ProbeError> {
    let file = ours.table(sector)?;
    let table = file.stored().ok_or_else(|| {
        ProbeError::Unsupported(format!("{}: a single-sided stub holds no values to compare", file.path().display()))
    })?;
    let theirs = malom.sector(sector)?;
    const CHUNK: u64 = 1 << 15;
    let slots = theirs.slots();
    let parts: Vec<SectorComparison> = (0..slots.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let range = c * CHUNK..((c + 1) * CHUNK).min(slots);
            let n = range.end - range.start;
            let part = compare_slots(table, &theirs, range, keep);
            progress(n);
            part
        })
        .collect();
    Ok(parts.into_iter().fold(SectorComparison::empty(sector), |acc, p| acc.merge(p, keep)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_are_automorphisms_with_the_documented_inverses() {
        let board = Board::twenty_four(false);
        let diagonal = Board::twenty_four(true);
        let mut seen = std::collections::HashSet::new();
        for s in 0..16u8 {
            let image = malom_symmetry(s).unwrap();
            assert!(seen.insert(image), "symmetry {s} repeats another");
            for b in [&board, &diagonal] {
                for &m in b.mills() {
                    assert!(b.mills().contains(&apply_permutation(&image, m)), "symmetry {s} breaks a mill");
                }
                for p in 0..24u8 {
                    let adj = apply_permutation(&image, b.adjacent(p));
                    assert_eq!(adj, b.adjacent(image[p as usize]), "symmetry {s} breaks adjacency at {p}");
                }
            }
            let inverse = match s {
                0 => 2,
                2 => 0,
                8 => 10,
                10 => 8,
                s => s,
            };
            let back = malom_symmetry(inverse).unwrap();
            assert!((0..24).all(|p| back[image[p] as usize] as usize == p), "inverse of {s}");
        }
        assert_eq!(malom_symmetry(15).unwrap(), std::array::from_fn(|p| p as Point));
        assert!(malom_symmetry(16).is_none());
        // 0 turns a4 (west) to d7 (north): clockwise.
        let a4 = board.point("a4").unwrap();
        assert_eq!(board.point_name(malom_symmetry(0).unwrap()[a4 as usize]), "d7");
    }

    #[test]
    fn entries_decode() {
        // The empty board of the standard game: field 1 = -21, field 2 = 2.
        assert_eq!(MalomEntry::decode(0x002feb, 12), MalomEntry::Value { field1: -21, field2: 2 });
        // A win of 3-3: field 1 = 299, field 2 = 17.
        assert_eq!(MalomEntry::decode(17 << 12 | 299, 12), MalomEntry::Value { field1: 299, field2: 17 });
        assert_eq!(MalomEntry::decode(0xffa << 12, 12), MalomEntry::Symmetry(5));
        assert_eq!(MalomEntry::decode(3 << 12, 12), MalomEntry::Count(3));
        // Morabaraba's empty board: 14-bit field 1 = 18, field 2 = 49.
        assert_eq!(MalomEntry::decode(0x0c4012, 14), MalomEntry::Value { field1: 18, field2: 49 });
    }

    #[test]
    fn file_names_round_trip() {
        let s = Sector { w: 3, b: 4, wh: 5, bh: 6 };
        for g in MalomGame::ALL {
            assert_eq!(MalomGame::parse_file_name(&g.file_name(s)), Some((g, s)));
        }
        assert_eq!(MalomGame::Standard.file_name(s), "std_3_4_5_6.sec2");
        assert_eq!(MalomGame::parse_file_name("std_3_4_0.sec2"), None);
        assert_eq!(MalomGame::parse_file_name("nine_3_4_0_0.mtb"), None);
    }

    #[test]
    fn sector_values_parse_and_reject() {
        let p = Path::new("std.secval");
        let v =
            SectorValues::parse("virt_loss_val: -299\nvirt_win_val: 299\n2\n3 3 0 0  0\n4 3 0 0  -40\n", p).unwrap();
        assert_eq!((v.loss, v.win, v.len()), (-299, 299, 2));
        assert_eq!(v.get(Sector::sliding(4, 3)), Some(-40));
        assert!(SectorValues::parse("virt_loss_val: -299\nvirt_win_val: 299\n3\n3 3 0 0  0\n", p).is_err());
        assert!(SectorValues::parse("virt_win_val: 299\n", p).is_err());
        assert!(SectorValues::parse("virt_loss_val: -299\nvirt_win_val: 299\n1\n3 3 0 x 0\n", p).is_err());
    }

    #[test]
    fn index_helpers_invert() {
        let occupied = 0b1011_0000_0000_0001;
        for rank in 0..morris_db::index::BINOMIAL[20][3] {
            let them = expand_into_empty(occupied, colex_unrank(rank, 3), 24);
            assert_eq!(them & occupied, 0);
            assert_eq!(rank_among_empty(occupied, them), rank);
        }
    }
}
