//! Compressed DTM tables (`.mtz`): the values of a `.mtb` table, exact DTM
//! included, at about a fifth of its size, read directly by the probe.
//!
//! Each slot becomes one code byte: 0 a draw, `1..=253` the 16-bit entry
//! itself (DTM + 1, see [`crate::value`]), 255 padding, and 254 "look the
//! entry up in the overflow list" (a DTM above 252 plies). The codes are
//! cut into blocks of [`BLOCK_ENTRIES`] slots, and each block is compressed
//! on its own with zstd, so a look-up decompresses one block of 4 KiB (a
//! few microseconds; each thread keeps the last few blocks it used, so
//! scans and nearby look-ups decompress once: `storage::blocks`,
//! which also gives the layout of the block offsets below).
//!
//! The file starts with the 128-byte header of [`crate::table`], with entry
//! encoding [`ENCODING_DTM8_ZSTD`] and the XXH3-64 of everything after the
//! header as payload checksum; the statistics are those of the `.mtb`
//! table. After it, little-endian:
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 128 | 4 | slots per block ([`BLOCK_ENTRIES`]) |
//! | 132 | 4 | reserved, zero |
//! | 136 | 8 | blocks `n` (slots / block size, rounded up) |
//! | 144 | 8 | overflow entries `m` |
//! | 152 | 8 | compressed data size `d`, bytes |
//! | 160 | 8 (n + 1) | start of each block in the data, then `d` |
//! | … | 16 m | overflow: slot (u64), entry (u16), 6 zero bytes; slots ascending |
//! | … | d | the zstd frames of the blocks, in order |

use std::io;
use std::path::Path;

use rayon::prelude::*;

use crate::rules::RuleSet;
use crate::sector::Sector;
#[cfg(test)]
use crate::storage::blocks::SUBHEADER_SIZE;
use crate::storage::blocks::{pack, u64_at, Blocks};
use crate::store::{FileKind, Store};
use crate::table::{write_checked, write_table, Table, TableError, TableHeader, HEADER_SIZE};
use crate::value::PADDING_ENTRY;

pub use crate::storage::header::ENCODING_DTM8_ZSTD;
pub use crate::store::COMPRESSED_EXTENSION;
/// Slots per independently compressed block.
pub const BLOCK_ENTRIES: usize = 4096;
/// The zstd level [`compress_table`] uses by default (measured on nine:
/// about 0.4 bytes per slot at level 3, and 10% smaller at level 19 at
/// many times the time).
pub const DEFAULT_LEVEL: i32 = 3;

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
}

impl CompressedLayout {
    /// Reads and checks the sub-header, the block offsets and the overflow
    /// list of a mapped compressed table whose header is `header`.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] naming the first part that is inconsistent
    /// (sizes, offsets not ascending, overflow slots not ascending).
    pub(crate) fn parse(map: &[u8], header: &TableHeader, path: &Path) -> Result<CompressedLayout, TableError> {
        let blocks = Blocks::parse(map, header.entry_count, BLOCK_ENTRIES, OVERFLOW_RECORD, path)?;
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
        Ok(CompressedLayout { blocks })
    }

    /// The 16-bit entry of `slot`; `None` past the end or when its block
    /// does not decompress to the right size (a damaged file).
    pub(crate) fn entry(&self, map: &[u8], slot: u64) -> Option<u16> {
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

    /// The entries of block `block` (slots `block * BLOCK_ENTRIES` on) into
    /// `out`, which must be exactly as long as the block; `None` when the
    /// block does not decompress to that length or an overflow entry is
    /// missing (a damaged file).
    pub(crate) fn block_entries(&self, map: &[u8], block: u64, out: &mut [u16]) -> Option<()> {
        let mut codes = [0u8; BLOCK_ENTRIES];
        let n = self.blocks.block_into(map, block, &mut codes)?;
        if n != out.len() {
            return None;
        }
        let first = block * BLOCK_ENTRIES as u64;
        for (i, (e, &c)) in out.iter_mut().zip(&codes[..n]).enumerate() {
            *e = self.decode(map, first + i as u64, c)?;
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

/// Writes the compressed form of `table` to `path`, compressing blocks in
/// parallel at zstd `level` (1–22; [`DEFAULT_LEVEL`]), and checks it before
/// it gets its name: the file is written to `<path>.tmp` and synced, then
/// opened, its checksum and header compared, and every slot read back and
/// compared with `table`'s; only then is it renamed to `path`. So a file
/// with the final name always holds `table`'s values, whenever the process
/// is killed. Holds the compressed data in memory (about 0.4 bytes per
/// slot).
///
/// # Errors
/// [`TableError::Corrupt`] when a slot of `table` cannot be read (a damaged
/// compressed source) or the written file differs from `table` (field
/// `compressed payload`, naming the first slot found), [`TableError::Io`]
/// when compressing or writing fails (a full disk among them); nothing is
/// left under `path` then.
pub fn compress_table(table: &Table, path: &Path, level: i32) -> Result<CompressReport, TableError> {
    let source = table.header();
    let entry_count = source.entry_count;
    let unreadable = |slot: u64| TableError::Corrupt {
        path: table.path().to_path_buf(),
        field: "payload",
        detail: format!("slot {slot} cannot be read"),
    };
    let mut packed = pack(
        entry_count,
        BLOCK_ENTRIES,
        level,
        path,
        |b, codes| {
            let mut overflow = Vec::new();
            let start = b * BLOCK_ENTRIES as u64;
            for slot in start..(start + BLOCK_ENTRIES as u64).min(entry_count) {
                let e = table.entry(slot).ok_or_else(|| unreadable(slot))?;
                let c = code_of(e);
                if c == CODE_OVERFLOW {
                    overflow.push((slot, e));
                }
                codes.push(c);
            }
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
    let header = TableHeader { encoding: ENCODING_DTM8_ZSTD, payload_checksum: packed.checksum(), ..source.clone() };
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
    let blocks = len.div_ceil(BLOCK_ENTRIES as u64);
    let mismatch = (0..blocks).into_par_iter().find_map_any(|b| {
        let first = b * BLOCK_ENTRIES as u64;
        (first..(first + BLOCK_ENTRIES as u64).min(len)).find(|&slot| packed.entry(slot) != table.entry(slot))
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
/// `.mtz` twin ([`compress_table`]: written under a temporary name, every
/// slot checked, then renamed), after checking the table's header and
/// checksum; with `remove_original`, then deletes the `.mtb` file. This is
/// what `morris compress` does per table and what `morris solve --compress`
/// does to each table no later unit reads. A kill at any point leaves the
/// `.mtb` table (with at most a `.tmp` file or a checked `.mtz` twin beside
/// it), or the checked `.mtz` alone; running it again finishes the job.
///
/// # Errors
/// [`TableError::Missing`] when there is no `.mtb` table, the errors of
/// [`Table::open`] and [`Table::verify_checksum`] for it, those of
/// [`compress_table`], and [`TableError::Io`] when it cannot be removed.
pub fn compress_sector(
    dir: &Path,
    rules: &RuleSet,
    sector: Sector,
    level: i32,
    remove_original: bool,
) -> Result<SectorCompression, TableError> {
    let store = Store::new(dir);
    let original = store.path(rules.name(), sector, FileKind::Dtm);
    let source = open_verified(&original, rules, sector)?;
    let original_bytes =
        std::fs::metadata(&original).map_err(|error| TableError::Io { path: original.clone(), error })?.len();
    let report = compress_table(&source, &store.path(rules.name(), sector, FileKind::Compressed), level)?;
    drop(source);
    if remove_original {
        std::fs::remove_file(&original).map_err(|error| TableError::Io { path: original.clone(), error })?;
    }
    Ok(SectorCompression { report, original_bytes, removed: remove_original })
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
/// look-up in a `.mtz` file decompresses a block of 4096 slots. Holds the
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

    fn sample(n: usize) -> Vec<u16> {
        // Draws, wins, losses, padding and DTMs past the one-byte range.
        (0..n)
            .map(|i| match i % 7 {
                0 => 0,
                1 => PADDING_ENTRY,
                2 => 1 + (i % 300) as u16,
                3 => 600 + (i % 5) as u16,
                _ => 1 + (i % 40) as u16,
            })
            .collect()
    }

    #[test]
    fn round_trip_every_slot() {
        let dir = tempfile::tempdir().unwrap();
        let rules = RuleSet::preset("nine").unwrap();
        let sector = Sector::sliding(3, 3);
        let entries = sample(3 * BLOCK_ENTRIES + 17);
        let header = TableHeader::for_entries(&rules, sector, &entries);
        let plain = table_path(dir.path(), &rules, sector);
        write_table(&plain, &header, &entries).unwrap();
        let table = Table::open_unchecked(&plain).unwrap();
        let packed = plain.with_extension(COMPRESSED_EXTENSION);
        let report = compress_table(&table, &packed, DEFAULT_LEVEL).unwrap();
        assert!(report.overflow > 0);
        assert_eq!(std::fs::metadata(&packed).unwrap().len(), report.bytes);
        let z = Table::open_unchecked(&packed).unwrap();
        z.verify_checksum().unwrap();
        assert_eq!(z.header().wins, header.wins);
        // Backwards, so that every look-up crosses blocks.
        for slot in (0..entries.len() as u64).rev() {
            assert_eq!(z.entry(slot), Some(entries[slot as usize]), "slot {slot}");
        }
        assert_eq!(z.entry(entries.len() as u64), None);
        // Whole, in parallel by block: the same entries from either file
        // (the last block short, overflow and padding slots included).
        assert_eq!(z.entries().unwrap(), entries);
        assert_eq!(table.entries().unwrap(), entries);
        // With the plain file gone, `Table::open` finds the compressed one.
        std::fs::remove_file(&plain).unwrap();
        let z = Table::open(dir.path(), &rules, sector, entries.len() as u64).unwrap();
        assert_eq!(z.value(2), Value::from_entry(entries[2]));
    }

    /// The values checksum is the `.mtb` payload checksum, whichever form
    /// holds the values: a `.mtz` file (whose header checksums its
    /// compressed bytes) gives the same number, over more than one batch
    /// of blocks and a short last block; another value gives another one.
    #[test]
    fn values_checksum_is_the_same_in_either_form() {
        let dir = tempfile::tempdir().unwrap();
        let rules = RuleSet::preset("nine").unwrap();
        let sector = Sector::sliding(3, 3);
        let mut entries = sample(300 * BLOCK_ENTRIES + 5);
        let header = TableHeader::for_entries(&rules, sector, &entries);
        let plain = table_path(dir.path(), &rules, sector);
        write_table(&plain, &header, &entries).unwrap();
        let table = Table::open_unchecked(&plain).unwrap();
        assert_eq!(table.values_checksum().unwrap(), header.payload_checksum);
        let packed = plain.with_extension(COMPRESSED_EXTENSION);
        compress_table(&table, &packed, 1).unwrap();
        let z = Table::open_unchecked(&packed).unwrap();
        assert_ne!(z.header().payload_checksum, header.payload_checksum);
        assert_eq!(z.values_checksum().unwrap(), header.payload_checksum);

        entries[299 * BLOCK_ENTRIES] = 7;
        let other = TableHeader::for_entries(&rules, sector, &entries);
        drop((table, z));
        write_table(&plain, &other, &entries).unwrap();
        let table = Table::open_unchecked(&plain).unwrap();
        compress_table(&table, &packed, 1).unwrap();
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

    #[test]
    fn damage_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let rules = RuleSet::preset("nine").unwrap();
        let sector = Sector::sliding(3, 4);
        let entries = sample(2 * BLOCK_ENTRIES);
        let plain = table_path(dir.path(), &rules, sector);
        write_table(&plain, &TableHeader::for_entries(&rules, sector, &entries), &entries).unwrap();
        let packed = plain.with_extension(COMPRESSED_EXTENSION);
        compress_table(&Table::open_unchecked(&plain).unwrap(), &packed, 1).unwrap();
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
        // Cut short.
        std::fs::write(&packed, &good[..good.len() - 1]).unwrap();
        let err = Table::open_unchecked(&packed).unwrap_err();
        assert!(err.to_string().contains("file size"), "{err}");
    }
}
