//! Compressed DTM tables (`.mtz`): the values of a `.mtb` table, exact DTM
//! included, at about a tenth of its size, read directly by the probe.
//!
//! Each slot becomes one code byte: 0 a draw, `1..=253` the 16-bit entry
//! itself (DTM + 1, see [`crate::value`]), 255 padding, and 254 "look the
//! entry up in the overflow list" (a DTM above 252 plies). The codes are
//! cut into blocks of 4096, 16384 or 65536 slots ([`DEFAULT_BLOCK_SLOTS`]),
//! and each block is compressed on its own with zstd, so a look-up
//! decompresses one block (each thread keeps the last few blocks it used,
//! so scans and nearby look-ups decompress once: `storage::blocks`, which
//! also gives the layout of the block offsets below).
//!
//! In the current entry encoding, [`ENCODING_DTM8_ZSTD_PADLESS`] (8), the
//! padding slots that the sector's index tells (opponent sets that are not
//! the minimal image under their orbit's symmetries) are not stored as
//! code 255: each takes the code of the slot before it in its block (0 for
//! a block's first slot), which zstd stores almost for free, and a reader
//! asks the index whether a slot is padding before it reads its code. Code
//! 255 remains for padding the index does not tell. The board whose index
//! that is is named in the file (the sub-header's second word,
//! [`BoardKind::code`]), so a file is read without its rule set. The older
//! encoding [`ENCODING_DTM8_ZSTD`] (2: blocks of 4096 slots, every padding
//! slot code 255, that word zero) is still read.
//!
//! The file starts with the 128-byte header of [`crate::table`], with its
//! entry encoding and the XXH3-64 of everything after the header as
//! payload checksum; the statistics are those of the `.mtb` table. After
//! it, little-endian:
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 128 | 4 | slots per block: 4096, 16384 or 65536 (encoding 2: 4096) |
//! | 132 | 4 | the board ([`BoardKind::code`]; encoding 2: zero) |
//! | 136 | 8 | blocks `n` (slots / block size, rounded up) |
//! | 144 | 8 | overflow entries `m` |
//! | 152 | 8 | compressed data size `d`, bytes |
//! | 160 | 8 (n + 1) | start of each block in the data, then `d` |
//! | … | 16 m | overflow: slot (u64), entry (u16), 6 zero bytes; slots ascending |
//! | … | d | the zstd frames of the blocks, in order |

use std::io;
use std::path::Path;

use rayon::prelude::*;

use crate::index::SectorIndex;
use crate::rules::{BoardKind, RuleSet};
use crate::sector::Sector;
#[cfg(test)]
use crate::storage::blocks::SUBHEADER_SIZE;
use crate::storage::blocks::{pack, u64_at, Blocks};
use crate::store::{FileKind, Store};
use crate::table::{write_checked, write_table, Table, TableError, TableHeader, HEADER_SIZE};
use crate::value::PADDING_ENTRY;

pub use crate::storage::header::{ENCODING_DTM8_ZSTD, ENCODING_DTM8_ZSTD_PADLESS};
pub use crate::store::COMPRESSED_EXTENSION;
/// Slots per block of encoding [`ENCODING_DTM8_ZSTD`], and the smallest
/// block of [`ENCODING_DTM8_ZSTD_PADLESS`].
pub const BLOCK_ENTRIES: usize = 4096;
/// The slots per block that [`ENCODING_DTM8_ZSTD_PADLESS`] allows.
pub const BLOCK_SIZES: [usize; 3] = [4096, 16384, 65536];
/// Slots per block that [`compress_table`] writes by default. Measured on
/// 37 tables of `nine` (docs/performance.md): blocks of 16384 slots take
/// 0.94 of the bytes of blocks of 4096 and 65536 slots 0.91, but random
/// look-ups run at 0.3 and 0.1 of the rate, so larger blocks are for files
/// that are downloaded more than they are probed (`compress --block-slots`).
pub const DEFAULT_BLOCK_SLOTS: usize = 4096;
/// The zstd level [`compress_table`] uses by default. On the code bytes of
/// DTM tables level 1 is both faster and smaller than level 3 (0.90 of the
/// CPU time and 0.986 of the bytes on `nine`'s sliding tables of up to 12
/// stones, 0.993 on two placement tables; docs/performance.md also gives
/// level 9's sizes and times).
pub const DEFAULT_LEVEL: i32 = 1;

/// How [`compress_table`] compresses: the zstd level (1 to 22) and the
/// slots per block (one of [`BLOCK_SIZES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompressOptions {
    /// zstd level, 1 (fastest) to 22 (smallest).
    pub level: i32,
    /// Slots per block: one of [`BLOCK_SIZES`].
    pub block_slots: usize,
}

impl Default for CompressOptions {
    fn default() -> CompressOptions {
        CompressOptions { level: DEFAULT_LEVEL, block_slots: DEFAULT_BLOCK_SLOTS }
    }
}

const CODE_OVERFLOW: u8 = 254;
const CODE_PADDING: u8 = 255;
const OVERFLOW_RECORD: usize = 16;

/// The code byte of a 16-bit entry ([`CODE_OVERFLOW`] when it does not fit).
fn code_of(entry: u16) -> u8 {
    match entry {
        PADDING_ENTRY => CODE_PADDING,
        e if e < CODE_OVERFLOW as u16 => e as u8,
        _ => CODE_OVERFLOW,
    }
}

/// Where the parts of a compressed table's payload lie in its file (read
/// when a [`Table`] is opened; its fields are private).
#[derive(Debug)]
pub struct CompressedLayout {
    blocks: Blocks,
    /// Slots of the table.
    slots: u64,
    /// The sector's index, which tells the padding slots
    /// ([`ENCODING_DTM8_ZSTD_PADLESS`]); `None` in encoding 2, where every
    /// padding slot is code 255.
    padding: Option<SectorIndex>,
}

impl CompressedLayout {
    /// Reads and checks the sub-header, the block offsets and the overflow
    /// list of a mapped compressed table whose header is `header`, and in
    /// encoding [`ENCODING_DTM8_ZSTD_PADLESS`] finds the index of the board
    /// it names.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] naming the first part that is inconsistent
    /// (sizes, offsets not ascending, overflow slots not ascending, a board
    /// code this library does not know, a sector that does not fit the
    /// board or whose index has another number of slots).
    pub(crate) fn parse(map: &[u8], header: &TableHeader, path: &Path) -> Result<CompressedLayout, TableError> {
        let padless = header.encoding == ENCODING_DTM8_ZSTD_PADLESS;
        let allowed: &[usize] = if padless { &BLOCK_SIZES } else { &[BLOCK_ENTRIES] };
        let blocks = Blocks::parse(map, header.entry_count, allowed, OVERFLOW_RECORD, path)?;
        let padding = if padless { Some(padding_index(Blocks::word(map), header, path)?) } else { None };
        let (at, count) = blocks.list();
        let mut previous_slot = None;
        for i in 0..count {
            let slot = u64_at(map, at + OVERFLOW_RECORD * i).unwrap_or(u64::MAX);
            if slot >= header.entry_count || previous_slot.is_some_and(|p| p >= slot) {
                return Err(TableError::corrupt(
                    path,
                    "overflow list",
                    format!("record {i} names slot {slot}, out of order"),
                ));
            }
            previous_slot = Some(slot);
        }
        Ok(CompressedLayout { blocks, slots: header.entry_count, padding })
    }

    /// Slots per block.
    pub(crate) fn block_slots(&self) -> usize {
        self.blocks.block_bytes()
    }

    /// Whether `slot` (below the table's slots) is padding that the index
    /// tells, so that its stored code is a filler.
    #[inline]
    fn index_padding(&self, slot: u64) -> bool {
        self.padding.as_ref().is_some_and(|index| index.is_padding(slot))
    }

    /// The 16-bit entry of `slot`; `None` past the end or when its block
    /// does not decompress to the right size (a damaged file).
    #[inline]
    pub(crate) fn entry(&self, map: &[u8], slot: u64) -> Option<u16> {
        if slot < self.slots && self.index_padding(slot) {
            return Some(PADDING_ENTRY);
        }
        self.decode(map, slot, self.blocks.byte(map, slot)?)
    }

    /// The 16-bit entry of `slot` from its code byte `code` (the overflow
    /// list read for [`CODE_OVERFLOW`]); `None` when the list lacks it.
    #[inline]
    fn decode(&self, map: &[u8], slot: u64, code: u8) -> Option<u16> {
        match code {
            CODE_PADDING => Some(PADDING_ENTRY),
            CODE_OVERFLOW => self.overflow(map, slot),
            c => Some(c as u16),
        }
    }

    /// The entries of block `block` (slots `block * block_slots()` on) into
    /// `out`, which must be exactly as long as the block; `None` when the
    /// block does not decompress to that length or an overflow entry is
    /// missing (a damaged file). Padding the index tells is found orbit by
    /// orbit: only orbits whose representative has a symmetry hold any.
    pub(crate) fn block_entries(&self, map: &[u8], block: u64, out: &mut [u16]) -> Option<()> {
        let mut codes = vec![0u8; self.block_slots()];
        let n = self.blocks.block_into(map, block, &mut codes)?;
        if n != out.len() {
            return None;
        }
        let first = block * self.block_slots() as u64;
        // Codes below CODE_OVERFLOW are their entries; the two codes above
        // are decoded one by one, except at padding the index tells, whose
        // code is a filler (overwritten below).
        for (i, (e, &c)) in out.iter_mut().zip(&codes[..n]).enumerate() {
            *e = if c < CODE_OVERFLOW {
                c as u16
            } else if self.index_padding(first + i as u64) {
                PADDING_ENTRY
            } else {
                self.decode(map, first + i as u64, c)?
            };
        }
        if let Some(index) = &self.padding {
            index.for_each_padding(first..first + n as u64, |slot| out[(slot - first) as usize] = PADDING_ENTRY);
        }
        Some(())
    }

    /// The entry of an overflow slot, by binary search in the list.
    fn overflow(&self, map: &[u8], slot: u64) -> Option<u16> {
        let (at, count) = self.blocks.list();
        let (mut lo, mut hi) = (0, count);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let at = at + OVERFLOW_RECORD * mid;
            let s = u64_at(map, at)?;
            match s.cmp(&slot) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let b = map.get(at + 8..at + 10)?;
                    return Some(u16::from_le_bytes([b[0], b[1]]));
                }
            }
        }
        None
    }
}

/// Marks in `out` the padding slots of `index` among slots `first..first +
/// out.len()` ([`SectorIndex::for_each_padding`]).
fn mark_padding(index: &SectorIndex, first: u64, out: &mut [bool]) {
    out.fill(false);
    index.for_each_padding(first..first + out.len() as u64, |slot| out[(slot - first) as usize] = true);
}

/// The index of `header`'s sector on the board of code `code` (the
/// sub-header's second word), checked to have the header's slots.
///
/// # Errors
/// [`TableError::Corrupt`], field `board`, when no board has that code,
/// the sector does not fit on it or its index has another number of slots.
fn padding_index(code: u32, header: &TableHeader, path: &Path) -> Result<SectorIndex, TableError> {
    let corrupt = |detail: String| TableError::corrupt(path, "board", detail);
    let kind = BoardKind::from_code(code)
        .ok_or_else(|| corrupt(format!("code {code} names no board this version knows (1 to 7)")))?;
    let indexer = kind.indexer();
    let (s, points) = (header.sector, indexer.board().len());
    if s.w as usize + s.b as usize > points {
        return Err(corrupt(format!("sector {s} does not fit on the board of code {code} ({points} points)")));
    }
    let index = indexer.sector(s);
    if index.len() != header.entry_count {
        return Err(corrupt(format!(
            "sector {s} has {} slots on the board of code {code}, but the header says {}",
            index.len(),
            header.entry_count
        )));
    }
    Ok(index)
}

/// Sizes of a compressed table.
#[derive(Debug, Clone)]
pub struct CompressReport {
    /// The header written (encoding [`ENCODING_DTM8_ZSTD`]).
    pub header: TableHeader,
    /// Size of the compressed file, bytes.
    pub bytes: u64,
    /// Entries kept in the overflow list (DTM above 252 plies).
    pub overflow: u64,
}

/// Writes the compressed form of `table` (a table of a rule set on board
/// `board`) to `path` in encoding [`ENCODING_DTM8_ZSTD_PADLESS`],
/// compressing blocks in parallel as `options` says, and checks it before
/// it gets its name: the file is written to `<path>.tmp` and synced, then
/// opened, its checksum and header compared, and every slot read back and
/// compared with `table`'s; only then is it renamed to `path`. So a file
/// with the final name always holds `table`'s values, whenever the process
/// is killed. The bytes depend only on the values and `options`, not on
/// the threads. Holds the compressed data in memory (about 0.1 to 0.4
/// bytes per slot).
///
/// # Errors
/// [`TableError::Corrupt`] when a slot of `table` cannot be read (a damaged
/// compressed source), a slot that the index says is padding holds a value
/// (field `payload`: the table was not made by this index; verify it), the
/// sector does not fit `board`, or the written file differs from `table`
/// (field `compressed payload`, naming the first slot found);
/// [`TableError::Io`] when `options` are out of range, or compressing or
/// writing fails (a full disk among them); nothing is left under `path`
/// then.
pub fn compress_table(
    table: &Table,
    path: &Path,
    board: BoardKind,
    options: CompressOptions,
) -> Result<CompressReport, TableError> {
    let source = table.header();
    let entry_count = source.entry_count;
    let block = options.block_slots;
    if !BLOCK_SIZES.contains(&block) {
        let detail = format!("{block} slots per block: the format allows 4096, 16384 or 65536");
        return Err(TableError::io(path, io::Error::new(io::ErrorKind::InvalidInput, detail)));
    }
    let index = padding_index(board.code(), source, table.path())?;
    let mut packed = pack(
        entry_count,
        block,
        board.code(),
        options.level,
        path,
        |b, codes| {
            let start = b * block as u64;
            let mut padding = vec![false; ((start + block as u64).min(entry_count) - start) as usize];
            mark_padding(&index, start, &mut padding);
            // The source's entries in one run: a `.mtz` source's blocks
            // decompressed once each (`--recompress`), not slot by slot.
            let mut entries = vec![0u16; padding.len()];
            table.entries_into(start, &mut entries)?;
            // Written into place (not pushed, whose length the loop kept
            // storing): a padding slot the index tells takes the code
            // before it, and must hold the padding entry.
            codes.clear();
            codes.resize(padding.len(), 0);
            let mut previous = 0;
            let mut stray = false;
            for ((c, &padding), &e) in codes.iter_mut().zip(&padding).zip(&entries) {
                stray |= padding && e != PADDING_ENTRY;
                *c = if padding { previous } else { code_of(e) };
                previous = *c;
            }
            if stray {
                let (slot, e) = (start..)
                    .zip(padding.iter().zip(&entries))
                    .find_map(|(slot, (&padding, &e))| (padding && e != PADDING_ENTRY).then_some((slot, e)))
                    .unwrap_or_default();
                return Err(TableError::corrupt(
                    table.path(),
                    "payload",
                    format!("slot {slot} is not a canonical position but holds entry {e:#06x}; verify the table"),
                ));
            }
            // Entries above the code range, kept in the overflow list (few
            // blocks have any: DTM above 252 plies).
            if !codes.contains(&CODE_OVERFLOW) {
                return Ok(Vec::new());
            }
            let overflow = (start..)
                .zip(codes.iter().zip(&padding).zip(&entries))
                .filter(|(_, ((&c, &padding), _))| c == CODE_OVERFLOW && !padding)
                .map(|(slot, (_, &e))| (slot, e))
                .collect();
            Ok(overflow)
        },
        |frames| frames.iter().map(|f| f.1.len() as u64).sum(),
    )?;
    // The overflow list, after the block offsets.
    let mut list = Vec::with_capacity(OVERFLOW_RECORD * packed.list_count as usize);
    for &(slot, e) in packed.frames.iter().flat_map(|f| &f.1) {
        list.extend_from_slice(&slot.to_le_bytes());
        list.extend_from_slice(&e.to_le_bytes());
        list.extend_from_slice(&[0; 6]);
    }
    packed.head.extend_from_slice(&list);
    let header =
        TableHeader { encoding: ENCODING_DTM8_ZSTD_PADLESS, payload_checksum: packed.checksum(), ..source.clone() };
    write_checked(path, |w| packed.write(w, &header.encode()), |tmp| check_same(table, tmp, &header))?;
    Ok(CompressReport { header, bytes: HEADER_SIZE as u64 + packed.payload_len(), overflow: packed.list_count })
}

/// Checks the compressed file at `path` against its source `table`: the
/// header written, the payload checksum, and every slot (in parallel, block
/// by block).
fn check_same(table: &Table, path: &Path, header: &TableHeader) -> Result<(), TableError> {
    let packed = Table::open_unchecked(path)?;
    if packed.header() != header || !packed.is_compressed() {
        return Err(TableError::Corrupt {
            path: path.to_path_buf(),
            field: "header",
            detail: "reads back other than written".to_string(),
        });
    }
    packed.verify_checksum()?;
    let len = header.entry_count;
    let Some(layout) = packed.layout() else {
        return Err(TableError::corrupt(path, "header", "reads back uncompressed"));
    };
    // Block by block, as `Table::entries` reads it; the look-up of one slot
    // is tested on its own.
    let block = layout.block_slots() as u64;
    // Both read a block at a time: the source through `Table::entries_into`
    // (a `.mtz` source's block decompressed once), then compared whole.
    let mismatch = (0..len.div_ceil(block)).into_par_iter().find_map_any(|b| {
        let first = b * block;
        let mut read = vec![0u16; ((first + block).min(len) - first) as usize];
        let mut source = vec![0u16; read.len()];
        if layout.block_entries(packed.bytes(), b, &mut read).is_none()
            || table.entries_into(first, &mut source).is_err()
        {
            return Some(first);
        }
        if read == source {
            return None;
        }
        (first..).zip(read.iter().zip(&source)).find(|(_, (r, s))| r != s).map(|(slot, _)| slot)
    });
    match mismatch {
        Some(slot) => Err(TableError::Corrupt {
            path: path.to_path_buf(),
            field: "compressed payload",
            detail: format!("slot {slot} differs from the source table {}", table.path().display()),
        }),
        None => Ok(()),
    }
}

/// What [`compress_sector`] did.
#[derive(Debug, Clone)]
pub struct SectorCompression {
    /// The compressed file's header and sizes.
    pub report: CompressReport,
    /// Size of the `.mtb` table it was made from, bytes.
    pub original_bytes: u64,
    /// Whether the `.mtb` table was removed.
    pub removed: bool,
}

/// Compresses `sector`'s `.mtb` table of `rules` in directory `dir` into its
/// `.mtz` twin at zstd `level` and [`DEFAULT_BLOCK_SLOTS`]
/// ([`compress_sector_with`]). This is what `morris solve --compress` does
/// to each table no later unit reads.
///
/// # Errors
/// As [`compress_sector_with`].
pub fn compress_sector(
    dir: &Path,
    rules: &RuleSet,
    sector: Sector,
    level: i32,
    remove_original: bool,
) -> Result<SectorCompression, TableError> {
    let options = CompressOptions { level, ..CompressOptions::default() };
    compress_sector_with(dir, rules, sector, options, remove_original)
}

/// Compresses `sector`'s `.mtb` table of `rules` in directory `dir` into its
/// `.mtz` twin as `options` say ([`compress_table`]: written under a
/// temporary name, every slot checked, then renamed), after checking the
/// table's header and checksum; with `remove_original`, then deletes the
/// `.mtb` file. This is what `morris compress` does per table. A kill at
/// any point leaves the `.mtb` table (with at most a `.tmp` file or a
/// checked `.mtz` twin beside it), or the checked `.mtz` alone; running it
/// again finishes the job.
///
/// # Errors
/// [`TableError::Missing`] when there is no `.mtb` table, the errors of
/// [`Table::open`] and [`Table::verify_checksum`] for it, those of
/// [`compress_table`], and [`TableError::Io`] when it cannot be removed.
pub fn compress_sector_with(
    dir: &Path,
    rules: &RuleSet,
    sector: Sector,
    options: CompressOptions,
    remove_original: bool,
) -> Result<SectorCompression, TableError> {
    let store = Store::new(dir);
    let original = store.path(rules.name(), sector, FileKind::Dtm);
    let source = open_verified(&original, rules, sector)?;
    let original_bytes =
        std::fs::metadata(&original).map_err(|error| TableError::Io { path: original.clone(), error })?.len();
    let report =
        compress_table(&source, &store.path(rules.name(), sector, FileKind::Compressed), rules.board_kind(), options)?;
    drop(source);
    if remove_original {
        std::fs::remove_file(&original).map_err(|error| TableError::Io { path: original.clone(), error })?;
    }
    Ok(SectorCompression { report, original_bytes, removed: remove_original })
}

/// Writes `sector`'s `.mtz` table of `rules` in `dir` again as `options`
/// say (another block size or zstd level), in place: the new file is
/// written under a temporary name and every slot read back against the
/// old one ([`compress_table`]) before it takes the old one's name, so a
/// kill leaves the old file or the new, both whole. `original_bytes` is
/// the old file's size; `removed` is false.
///
/// # Errors
/// [`TableError::Missing`] when there is no `.mtz` file, the errors of
/// [`Table::open`] and [`Table::verify_checksum`] for it, and those of
/// [`compress_table`].
pub fn recompress_sector(
    dir: &Path,
    rules: &RuleSet,
    sector: Sector,
    options: CompressOptions,
) -> Result<SectorCompression, TableError> {
    let path = Store::new(dir).path(rules.name(), sector, FileKind::Compressed);
    let source = open_verified(&path, rules, sector)?;
    let original_bytes = std::fs::metadata(&path).map_err(|error| TableError::Io { path: path.clone(), error })?.len();
    let report = compress_table(&source, &path, rules.board_kind(), options)?;
    Ok(SectorCompression { report, original_bytes, removed: false })
}

/// Opens one form of `sector`'s table at `path` (the `.mtb` or the `.mtz`
/// file, whichever `path` names) and checks its header against the rule
/// set and sector and its payload against the header's checksum.
///
/// # Errors
/// [`TableError::Missing`] when `path` does not exist, else the errors of
/// [`Table::open_unchecked`], [`Table::check`] and [`Table::verify_checksum`].
fn open_verified(path: &Path, rules: &RuleSet, sector: Sector) -> Result<Table, TableError> {
    let table = match Table::open_unchecked(path) {
        Err(TableError::Io { error, .. }) if error.kind() == io::ErrorKind::NotFound => {
            return Err(TableError::Missing { sector, path: path.to_path_buf() });
        }
        other => other?,
    };
    table.check(rules, sector, rules.indexer().sector(sector).len())?;
    table.verify_checksum()?;
    Ok(table)
}

/// Writes the `.mtb` table of `sector` from its `.mtz` twin in `dir`
/// (atomically, as [`write_table`]; the `.mtz` file is kept), after checking
/// the `.mtz` file's header and checksum and that the values read back give
/// the header's counts. For a solver that reads the table at random: a
/// look-up in a `.mtz` file decompresses a block of thousands of slots. Holds the
/// entries in memory (two bytes a slot).
///
/// # Errors
/// [`TableError::Missing`] when there is no `.mtz` file, the errors of
/// [`Table::open`] and [`Table::verify_checksum`] for it,
/// [`TableError::Corrupt`] when a block does not decompress or the counts
/// differ from its header, [`TableError::Io`] when writing fails.
pub fn expand_sector(dir: &Path, rules: &RuleSet, sector: Sector) -> Result<TableHeader, TableError> {
    let store = Store::new(dir);
    let packed_path = store.path(rules.name(), sector, FileKind::Compressed);
    let packed = open_verified(&packed_path, rules, sector)?;
    // The entry count was checked against the sector's index by `open_verified`.
    let entries = packed.entries()?;
    let header = TableHeader::for_entries(rules, sector, &entries);
    let source = packed.header();
    if (header.canonical_positions, header.wins, header.losses, header.draws, header.own)
        != (source.canonical_positions, source.wins, source.losses, source.draws, source.own)
    {
        return Err(TableError::Corrupt {
            path: packed_path,
            field: "payload",
            detail: "its values do not give the counts of its header".to_string(),
        });
    }
    write_table(&store.path(rules.name(), sector, FileKind::Dtm), &header, &entries)?;
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{table_path, write_table};
    use crate::{RuleSet, Sector, Value};

    const BOARD: BoardKind = BoardKind::TwentyFour;

    /// Entries for every slot of `sector` of `nine`: the padding entry
    /// exactly where the index says (as a solver writes it), else draws,
    /// wins, losses, DTMs past the one-byte range, and every 97th
    /// canonical slot padding too (as for a position that cannot arise).
    fn sample(sector: Sector, salt: u64) -> Vec<u16> {
        let index = RuleSet::preset("nine").unwrap().indexer().sector(sector);
        (0..index.len())
            .map(|slot| {
                let i = slot + salt;
                if index.is_padding(slot) || i % 97 == 5 {
                    PADDING_ENTRY
                } else {
                    match i % 7 {
                        0 => 0,
                        2 => 1 + (i % 300) as u16,
                        3 => 600 + (i % 5) as u16,
                        _ => 1 + (i % 40) as u16,
                    }
                }
            })
            .collect()
    }

    /// Writes `entries` as `sector`'s `.mtb` table in `dir` and opens it.
    fn plain_table(dir: &Path, sector: Sector, entries: &[u16]) -> Table {
        let rules = RuleSet::preset("nine").unwrap();
        let plain = table_path(dir, &rules, sector);
        write_table(&plain, &TableHeader::for_entries(&rules, sector, entries), entries).unwrap();
        Table::open_unchecked(&plain).unwrap()
    }

    fn options(level: i32, block_slots: usize) -> CompressOptions {
        CompressOptions { level, block_slots }
    }

    #[test]
    fn round_trip_every_slot_at_every_block_size() {
        let dir = tempfile::tempdir().unwrap();
        let rules = RuleSet::preset("nine").unwrap();
        let sector = Sector::sliding(3, 3);
        let entries = sample(sector, 0);
        let index = rules.indexer().sector(sector);
        assert!((0..entries.len() as u64).any(|s| index.is_padding(s)));
        let table = plain_table(dir.path(), sector, &entries);
        let packed = table.path().with_extension(COMPRESSED_EXTENSION);
        for block_slots in BLOCK_SIZES {
            let report = compress_table(&table, &packed, BOARD, options(DEFAULT_LEVEL, block_slots)).unwrap();
            assert!(report.overflow > 0);
            assert_eq!(std::fs::metadata(&packed).unwrap().len(), report.bytes);
            let z = Table::open_unchecked(&packed).unwrap();
            z.verify_checksum().unwrap();
            assert_eq!(z.header().encoding, ENCODING_DTM8_ZSTD_PADLESS);
            assert_eq!(z.header().wins, table.header().wins);
            // Backwards, so that every look-up crosses blocks: padding
            // slots (told by the index or stored) read as padding.
            for slot in (0..entries.len() as u64).rev() {
                assert_eq!(z.entry(slot), Some(entries[slot as usize]), "slot {slot}, blocks of {block_slots}");
            }
            assert_eq!(z.entry(entries.len() as u64), None);
            // Whole, in parallel by block (the last block short).
            assert_eq!(z.entries().unwrap(), entries, "blocks of {block_slots}");
            check_ranges(&z, &entries);
        }
        assert_eq!(table.entries().unwrap(), entries);
        check_ranges(&table, &entries);
        // With the plain file gone, `Table::open` finds the compressed one.
        drop(table);
        std::fs::remove_file(table_path(dir.path(), &rules, sector)).unwrap();
        let z = Table::open(dir.path(), &rules, sector, entries.len() as u64).unwrap();
        assert_eq!(z.value(2), Value::from_entry(entries[2]));
    }

    /// `Table::entries_into` over ranges that start and end inside blocks,
    /// span several, hold one slot or none, or end at the table's end
    /// (in its short last block), against `entries`; a range past the end
    /// is refused, naming its first slot.
    fn check_ranges(t: &Table, entries: &[u16]) {
        let n = entries.len();
        let b = t.layout().as_ref().map_or(BLOCK_ENTRIES, |l| l.block_slots());
        assert!(n > 2 * b + 1, "{n} slots, blocks of {b}");
        for (from, to) in [(0, n), (1, 2), (5, 5), (b - 1, b + 1), (b, 2 * b), (3, 2 * b + 1), (b + 7, n), (n - 1, n)] {
            let mut out = vec![0xbeefu16; to - from];
            t.entries_into(from as u64, &mut out).unwrap();
            assert!(out == entries[from..to], "slots {from}..{to}, blocks of {b}");
        }
        let mut out = vec![0u16; 2];
        let err = t.entries_into(n as u64 - 1, &mut out).unwrap_err();
        assert!(err.to_string().contains(&format!("slot {} cannot be read", n - 1)), "{err}");
    }

    /// The stored codes, block by block: each padding slot that the index
    /// tells holds the code of the slot before it (0 at a block's start),
    /// every other slot its own code; the board's code is in the
    /// sub-header (docs/formats.md).
    #[test]
    fn padding_told_by_the_index_takes_the_code_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let sector = Sector::sliding(3, 4);
        let entries = sample(sector, 3);
        let index = RuleSet::preset("nine").unwrap().indexer().sector(sector);
        let table = plain_table(dir.path(), sector, &entries);
        let packed = table.path().with_extension(COMPRESSED_EXTENSION);
        compress_table(&table, &packed, BOARD, options(1, 4096)).unwrap();
        let file = std::fs::read(&packed).unwrap();
        assert_eq!(u32_at(&file, HEADER_SIZE), 4096);
        assert_eq!(u32_at(&file, HEADER_SIZE + 4), 1, "the 24-point board's code");
        let blocks = u64_at(&file, HEADER_SIZE + 8).unwrap() as usize;
        let overflow = u64_at(&file, HEADER_SIZE + 16).unwrap() as usize;
        let offsets = HEADER_SIZE + SUBHEADER_SIZE;
        let data = offsets + 8 * (blocks + 1) + OVERFLOW_RECORD * overflow;
        let (mut fillers, mut padding_stored) = (0, 0);
        for b in 0..blocks {
            let (start, end) = (u64_at(&file, offsets + 8 * b).unwrap(), u64_at(&file, offsets + 8 * b + 8).unwrap());
            let codes = zstd::bulk::decompress(&file[data + start as usize..data + end as usize], 4096).unwrap();
            for (i, &c) in codes.iter().enumerate() {
                let slot = (b * 4096 + i) as u64;
                let expected = if index.is_padding(slot) {
                    fillers += 1;
                    if i == 0 {
                        0
                    } else {
                        codes[i - 1]
                    }
                } else {
                    padding_stored += (entries[slot as usize] == PADDING_ENTRY) as usize;
                    code_of(entries[slot as usize])
                };
                assert_eq!(c, expected, "slot {slot}");
            }
        }
        assert!(fillers > 1000 && padding_stored > 100, "{fillers} {padding_stored}");
    }

    fn u32_at(bytes: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

    /// A file of the previous encoding (2: blocks of 4096 slots, padding
    /// code 255), written here byte by byte as docs/formats.md gave it, is
    /// still read, every slot.
    #[test]
    fn encoding_2_is_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let sector = Sector::sliding(3, 3);
        let entries = sample(sector, 1);
        let table = plain_table(dir.path(), sector, &entries);
        let path = table.path().with_extension(COMPRESSED_EXTENSION);
        let mut packed = pack(
            entries.len() as u64,
            BLOCK_ENTRIES,
            0,
            3,
            &path,
            |b, codes| {
                let first = b as usize * BLOCK_ENTRIES;
                let block = &entries[first..(first + BLOCK_ENTRIES).min(entries.len())];
                codes.extend(block.iter().map(|&e| code_of(e)));
                Ok((first..).zip(block).filter(|p| *p.1 > 253 && *p.1 != PADDING_ENTRY).count() as u64)
            },
            |frames| frames.iter().map(|f| f.1).sum(),
        )
        .unwrap();
        for (slot, &e) in entries.iter().enumerate().filter(|p| *p.1 > 253 && *p.1 != PADDING_ENTRY) {
            packed.head.extend_from_slice(&(slot as u64).to_le_bytes());
            packed.head.extend_from_slice(&e.to_le_bytes());
            packed.head.extend_from_slice(&[0; 6]);
        }
        let header =
            TableHeader { encoding: ENCODING_DTM8_ZSTD, payload_checksum: packed.checksum(), ..table.header().clone() };
        crate::table::write_atomically(&path, |w| packed.write(w, &header.encode())).unwrap();
        let z = Table::open_unchecked(&path).unwrap();
        z.verify_checksum().unwrap();
        assert_eq!(z.entries().unwrap(), entries);
        for slot in (0..entries.len() as u64).step_by(7) {
            assert_eq!(z.entry(slot), Some(entries[slot as usize]), "slot {slot}");
        }
        assert_eq!(z.values_checksum().unwrap(), table.header().payload_checksum);
    }

    /// The same table compressed on one thread and on three gives the same
    /// bytes (the ledger of verified tables and the release's checksums
    /// rely on it).
    #[test]
    fn compressing_is_deterministic_whatever_the_threads() {
        let dir = tempfile::tempdir().unwrap();
        let sector = Sector::sliding(3, 4);
        let table = plain_table(dir.path(), sector, &sample(sector, 2));
        let mut files = Vec::new();
        for threads in [1, 3] {
            let path = dir.path().join(format!("t{threads}.mtz"));
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| compress_table(&table, &path, BOARD, options(3, 16384))).unwrap();
            files.push(std::fs::read(&path).unwrap());
        }
        assert_eq!(files[0], files[1]);
    }

    /// A table whose padding slot (by the index) holds a value is refused,
    /// naming the slot, and nothing is written; so is a block size the
    /// format does not allow.
    #[test]
    fn a_value_in_a_padding_slot_or_a_bad_block_size_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let sector = Sector::sliding(3, 3);
        let index = RuleSet::preset("nine").unwrap().indexer().sector(sector);
        let mut entries = sample(sector, 0);
        let slot = (0..entries.len() as u64).find(|&s| index.is_padding(s)).unwrap();
        entries[slot as usize] = 3;
        let table = plain_table(dir.path(), sector, &entries);
        let packed = table.path().with_extension(COMPRESSED_EXTENSION);
        let err = compress_table(&table, &packed, BOARD, CompressOptions::default()).unwrap_err();
        assert!(err.to_string().contains(&format!("slot {slot} is not a canonical position")), "{err}");
        assert!(!packed.exists());
        let err = compress_table(&table, &packed, BOARD, options(3, 8192)).unwrap_err();
        assert!(err.to_string().contains("8192 slots per block"), "{err}");
        assert!(!packed.exists());
    }

    /// The values checksum is the `.mtb` payload checksum, whichever form
    /// holds the values: a `.mtz` file (whose header checksums its
    /// compressed bytes) gives the same number, over more than one batch
    /// of blocks and a short last block; another value gives another one.
    #[test]
    fn values_checksum_is_the_same_in_either_form() {
        let dir = tempfile::tempdir().unwrap();
        let rules = RuleSet::preset("nine").unwrap();
        let sector = Sector::sliding(3, 5);
        let mut entries = sample(sector, 0);
        let header = TableHeader::for_entries(&rules, sector, &entries);
        let table = plain_table(dir.path(), sector, &entries);
        assert_eq!(table.values_checksum().unwrap(), header.payload_checksum);
        let packed = table.path().with_extension(COMPRESSED_EXTENSION);
        compress_table(&table, &packed, BOARD, options(1, 16384)).unwrap();
        let z = Table::open_unchecked(&packed).unwrap();
        assert_ne!(z.header().payload_checksum, header.payload_checksum);
        assert_eq!(z.values_checksum().unwrap(), header.payload_checksum);

        let changed = (0..entries.len() - 100).rev().find(|&i| entries[i] != PADDING_ENTRY).unwrap();
        entries[changed] = if entries[changed] == 7 { 9 } else { 7 };
        let other = TableHeader::for_entries(&rules, sector, &entries);
        drop((table, z));
        let table = plain_table(dir.path(), sector, &entries);
        compress_table(&table, &packed, BOARD, options(1, 16384)).unwrap();
        let z = Table::open_unchecked(&packed).unwrap();
        assert_ne!(z.values_checksum().unwrap(), header.payload_checksum);
        assert_eq!(z.values_checksum().unwrap(), other.payload_checksum);

        // A damaged compressed payload has no values checksum.
        let mut bad = std::fs::read(&packed).unwrap();
        let last = bad.len() - 40;
        bad[last] ^= 0x5a;
        std::fs::write(&packed, &bad).unwrap();
        let err = Table::open_unchecked(&packed).unwrap().values_checksum().unwrap_err();
        assert!(err.to_string().contains("payload checksum"), "{err}");
    }

    /// A `.mtz` table whose second block no longer decompresses: each WDL
    /// export (plain, zstd, grouped) fails naming the block's first slot,
    /// and leaves no file, finished or temporary.
    #[test]
    fn a_wdl_export_of_a_damaged_table_fails_and_leaves_nothing() {
        use crate::wdl::{export_table, export_table_compressed, export_table_grouped, wdl_path, WDL_DEFAULT_LEVEL};
        let dir = tempfile::tempdir().unwrap();
        let rules = RuleSet::preset("nine").unwrap();
        let sector = Sector::sliding(3, 3);
        let table = plain_table(dir.path(), sector, &sample(sector, 4));
        let packed = table.path().with_extension(COMPRESSED_EXTENSION);
        compress_table(&table, &packed, BOARD, options(1, 4096)).unwrap();
        let mut bad = std::fs::read(&packed).unwrap();
        let data_at = bad.len() - u64_at(&bad, HEADER_SIZE + 24).unwrap() as usize;
        let second = data_at + u64_at(&bad, HEADER_SIZE + SUBHEADER_SIZE + 8).unwrap() as usize;
        bad[second..second + 8].fill(0);
        std::fs::write(&packed, &bad).unwrap();
        let z = Table::open_unchecked(&packed).unwrap();
        let out = tempfile::tempdir().unwrap();
        let path = wdl_path(out.path(), &rules, sector);
        let exports: [(&str, &dyn Fn() -> Result<_, TableError>); 3] = [
            ("plain", &|| export_table(&z, &path)),
            ("zstd", &|| export_table_compressed(&z, &path, WDL_DEFAULT_LEVEL)),
            ("grouped", &|| export_table_grouped(&z, &path)),
        ];
        for (form, export) in exports {
            let err = export().unwrap_err();
            assert!(err.to_string().contains(&format!("slot {BLOCK_ENTRIES} cannot be read")), "{form}: {err}");
            assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "{form}");
        }
    }

    #[test]
    fn damage_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let sector = Sector::sliding(3, 3);
        let entries = sample(sector, 4);
        let table = plain_table(dir.path(), sector, &entries);
        let packed = table.path().with_extension(COMPRESSED_EXTENSION);
        compress_table(&table, &packed, BOARD, options(1, 4096)).unwrap();
        let good = std::fs::read(&packed).unwrap();
        // A byte in the data: the checksum says so, and look-ups give
        // values or None, never a panic.
        let mut bad = good.clone();
        let last = bad.len() - 40;
        bad[last] ^= 0x5a;
        std::fs::write(&packed, &bad).unwrap();
        let t = Table::open_unchecked(&packed).unwrap();
        assert!(t.verify_checksum().unwrap_err().to_string().contains("payload checksum"));
        for slot in 0..entries.len() as u64 {
            let _ = t.entry(slot);
        }
        // Read whole: an error naming the payload, or (if the flipped byte
        // did not stop the block decompressing) entries; never a panic.
        match t.entries() {
            Err(e) => assert!(e.to_string().contains("payload"), "{e}"),
            Ok(read) => assert_eq!(read.len(), entries.len()),
        }
        // A frame cut into: its block no longer decompresses, and a whole
        // read names the block's first slot.
        let mut bad = good.clone();
        let data_at = bad.len() - u64_at(&bad, HEADER_SIZE + 24).unwrap() as usize;
        let second = data_at + u64_at(&bad, HEADER_SIZE + SUBHEADER_SIZE + 8).unwrap() as usize;
        for b in &mut bad[second..second + 8] {
            *b = 0;
        }
        std::fs::write(&packed, &bad).unwrap();
        let err = Table::open_unchecked(&packed).unwrap().entries().unwrap_err();
        assert!(err.to_string().contains(&format!("slot {BLOCK_ENTRIES} cannot be read")), "{err}");
        // An offset out of order is found at open.
        let mut bad = good.clone();
        bad[HEADER_SIZE + SUBHEADER_SIZE + 15] = 0xff;
        std::fs::write(&packed, &bad).unwrap();
        let err = Table::open_unchecked(&packed).unwrap_err();
        assert!(err.to_string().contains("block offsets"), "{err}");
        // A block size or a board the format does not know. (The header's
        // payload checksum is checked later, on first use.)
        for (at, value, says) in [(0, 8192u32, "block size"), (4, 0, "board"), (4, 99, "board")] {
            let mut bad = good.clone();
            bad[HEADER_SIZE + at..HEADER_SIZE + at + 4].copy_from_slice(&value.to_le_bytes());
            std::fs::write(&packed, &bad).unwrap();
            let err = Table::open_unchecked(&packed).unwrap_err();
            assert!(err.to_string().contains(says), "{err}");
        }
        // The six-point board's code: sector 3-3 has other slots there.
        let mut bad = good.clone();
        bad[HEADER_SIZE + 4..HEADER_SIZE + 8].copy_from_slice(&BoardKind::Sixteen.code().to_le_bytes());
        std::fs::write(&packed, &bad).unwrap();
        let err = Table::open_unchecked(&packed).unwrap_err();
        assert!(err.to_string().contains("board") && err.to_string().contains("slots"), "{err}");
        // Cut short.
        std::fs::write(&packed, &good[..good.len() - 1]).unwrap();
        let err = Table::open_unchecked(&packed).unwrap_err();
        assert!(err.to_string().contains("file size"), "{err}");
    }
}
