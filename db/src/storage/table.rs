//! The table file format: one file per sector, a fixed little-endian header
//! of 128 bytes followed by one 16-bit little-endian entry per slot of the
//! sector's index (see [`crate::value`] for the entry encoding).
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 | magic `MORRISTB` |
//! | 8 | 4 | format version ([`FORMAT_VERSION`]) |
//! | 12 | 4 | header size in bytes (128) |
//! | 16 | 8 | rule-set fingerprint ([`crate::RuleSet::fingerprint`]) |
//! | 24 | 16 | rule-set name, UTF-8, zero-padded |
//! | 40 | 4 | sector: w, b, wh, bh (one byte each) |
//! | 44 | 4 | index scheme version ([`INDEX_VERSION`]) |
//! | 48 | 4 | entry encoding ([`ENCODING_DTM16`], or for a compressed `.mtz` table [`ENCODING_DTM8_ZSTD_PADLESS`], older ones [`ENCODING_DTM8_ZSTD`]) |
//! | 52 | 4 | reserved, zero |
//! | 56 | 8 | entry count (slots) |
//! | 64 | 8 | canonical positions |
//! | 72 | 8 | wins |
//! | 80 | 8 | losses |
//! | 88 | 8 | draws |
//! | 96 | 4 | longest win, plies |
//! | 100 | 4 | longest loss, plies |
//! | 104 | 8 | XXH3-64 of the payload |
//! | 112 | 8 | reserved, zero |
//! | 120 | 8 | XXH3-64 of header bytes 0..120 |
//!
//! Files are written under a temporary name (`.tmp` appended), synced and
//! renamed, so a file with the final name is always complete. Opening checks
//! every header field and the file size; the payload checksum is checked by
//! [`Table::verify_checksum`] (a full read).
//!
//! A [`Table`] also reads the compressed form of the same values
//! ([`crate::compressed`]); [`Table::open`] takes the `.mtb` file when both
//! exist.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use xxhash_rust::xxh3::Xxh3;

use crate::compressed::{CompressedLayout, ENCODING_DTM8_ZSTD, ENCODING_DTM8_ZSTD_PADLESS};
use crate::rules::RuleSet;
use crate::sector::Sector;
use crate::storage::header::{check_file_size, Format, Header, MappedFile, OwnFields};
use crate::store::Store;
use crate::value::{Tally, Value, PADDING_ENTRY};

/// The file magic.
pub const MAGIC: [u8; 8] = *b"MORRISTB";
/// The format version this library reads and writes.
pub const FORMAT_VERSION: u32 = 1;
pub use crate::storage::header::{ENCODING_DTM16, HEADER_SIZE, INDEX_VERSION};

/// What is wrong with a table file. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The table does not exist.
    #[error("no table for sector {sector}: {path} does not exist")]
    Missing {
        /// The sector asked for.
        sector: Sector,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// Reading or writing failed.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error. Shown in the message and so not
        /// also given as [`std::error::Error::source`], which would make an
        /// error chain print it twice.
        error: io::Error,
    },
    /// A header field or the file size is wrong.
    #[error("{path}: corrupt table: {field}: {detail}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The field that is wrong (`magic`, `version`, `header checksum`,
        /// `file size`, `payload checksum`, ...).
        field: &'static str,
        /// What was found and what was expected.
        detail: String,
    },
    /// The table belongs to another rule set.
    #[error("{path}: table of rule set `{found}` (fingerprint {found_fingerprint:016x}), but the database is opened for rule set `{expected}` (fingerprint {expected_fingerprint:016x})")]
    RuleSetMismatch {
        /// The file.
        path: PathBuf,
        /// The rule-set name in the header.
        found: String,
        /// Its fingerprint.
        found_fingerprint: u64,
        /// The rule set asked for.
        expected: String,
        /// Its fingerprint.
        expected_fingerprint: u64,
    },
    /// The table holds another sector than its name says.
    #[error("{path}: holds sector {found}, expected {expected}")]
    SectorMismatch {
        /// The file.
        path: PathBuf,
        /// The sector in the header.
        found: Sector,
        /// The sector asked for.
        expected: Sector,
    },
}

impl TableError {
    /// A [`TableError::Corrupt`] of `path`.
    pub(crate) fn corrupt(path: &Path, field: &'static str, detail: impl Into<String>) -> TableError {
        TableError::Corrupt { path: path.to_path_buf(), field, detail: detail.into() }
    }

    /// A [`TableError::Io`] of `path`.
    pub(crate) fn io(path: &Path, source: io::Error) -> TableError {
        TableError::Io { path: path.to_path_buf(), error: source }
    }
}

/// The header of a table file: identity, size and statistics, and the
/// longest win and loss ([`DtmFields`]).
pub type TableHeader = Header<DtmFields>;

/// A DTM table's own header fields (bytes 96..104).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DtmFields {
    /// Longest win, in plies (0 when there are no wins).
    pub max_win: u32,
    /// Longest loss, in plies (0 when there are no losses or only `Loss(0)`).
    pub max_loss: u32,
}

impl DtmFields {
    /// The longest win and loss of `tally`.
    pub fn of(tally: &Tally) -> DtmFields {
        DtmFields { max_win: tally.max_win(), max_loss: tally.max_loss() }
    }
}

impl OwnFields for DtmFields {
    const FORMAT: Format = Format {
        magic: MAGIC,
        version: FORMAT_VERSION,
        encodings: &[ENCODING_DTM16, ENCODING_DTM8_ZSTD, ENCODING_DTM8_ZSTD_PADLESS],
        retired: &[(
            crate::storage::header::ENCODING_DTM_DERIVED,
            "a single-sided stub (`.mtd`): its values are derived by search when probed \
             (`morris value`, `query`, `serve`); other commands need the table it replaced",
        )],
        version_name: "format version",
        version_remedy: "re-solve the table or use a matching release",
        wrong_magic: |_| "not a morris table (magic is not MORRISTB)",
        noun: "table",
    };

    /// `Some` for a compressed table: where its blocks lie.
    type Layout = Option<CompressedLayout>;

    fn layout(header: &TableHeader, map: &[u8], path: &Path) -> Result<Option<CompressedLayout>, TableError> {
        if header.encoding == ENCODING_DTM8_ZSTD || header.encoding == ENCODING_DTM8_ZSTD_PADLESS {
            return CompressedLayout::parse(map, header, path).map(Some);
        }
        check_file_size(header, map.len(), header.entry_count.checked_mul(2), path)?;
        Ok(None)
    }

    /// The `.mtb` table, else the `.mtz` one ([`Store::dtm_file`]), else
    /// a single-sided stub (`.mtd`, refused when opened, with its reason).
    fn locate(dir: &Path, rules: &RuleSet, sector: Sector) -> (Option<PathBuf>, PathBuf) {
        let store = Store::new(dir);
        let stub = store.path(rules.name(), sector, crate::store::FileKind::Derived);
        let found = store.dtm_file(rules, sector).or_else(|| crate::store::may_exist(&stub).then_some(stub));
        (found, store.table_path(rules, sector))
    }

    fn to_bytes(&self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0..4].copy_from_slice(&self.max_win.to_le_bytes());
        b[4..8].copy_from_slice(&self.max_loss.to_le_bytes());
        b
    }

    fn from_bytes(bytes: [u8; 8]) -> DtmFields {
        let [w0, w1, w2, w3, l0, l1, l2, l3] = bytes;
        DtmFields { max_win: u32::from_le_bytes([w0, w1, w2, w3]), max_loss: u32::from_le_bytes([l0, l1, l2, l3]) }
    }
}

impl TableHeader {
    /// The header for `entries` of `sector` under `rules`: counts, longest
    /// distances and checksum computed from the entries (the counts over
    /// all threads, beside the checksum, which reads the entries in order).
    pub fn for_entries(rules: &RuleSet, sector: Sector, entries: &[u16]) -> TableHeader {
        let count = || {
            entries
                .par_chunks(1 << 16)
                .map(|chunk| chunk.iter().filter_map(|&e| Value::from_entry(e)).collect::<Tally>())
                .reduce(Tally::default, Tally::merge)
        };
        let checksum = || {
            let mut hasher = Xxh3::new();
            hash_payload(&mut hasher, entries);
            hasher.digest()
        };
        let (tally, payload_checksum) = rayon::join(count, checksum);
        let mut h = TableHeader {
            rules_fingerprint: rules.fingerprint(),
            rules_name: rules.header_name().to_string(),
            sector,
            entry_count: entries.len() as u64,
            canonical_positions: 0,
            wins: 0,
            losses: 0,
            draws: 0,
            own: DtmFields::of(&tally),
            encoding: ENCODING_DTM16,
            payload_checksum: 0,
        };
        h.set_counts(&tally);
        h.payload_checksum = payload_checksum;
        h
    }
}

/// Calls `f` with the little-endian bytes of `entries` (a table's
/// payload, two bytes a slot), in order: on a little-endian machine the
/// entries' own memory, in one piece (no copy: hashing and writing a table
/// of a GB took longer converting it than hashing or writing it); elsewhere
/// converted, a chunk of 64 Ki entries at a time. Stops at `f`'s first
/// error and returns it.
fn for_payload_bytes(entries: &[u16], mut f: impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
    if cfg!(target_endian = "little") {
        return f(bytemuck::cast_slice(entries));
    }
    let mut bytes = Vec::with_capacity(2 << 16);
    for chunk in entries.chunks(1 << 16) {
        bytes.clear();
        bytes.extend(chunk.iter().flat_map(|e| e.to_le_bytes()));
        f(&bytes)?;
    }
    Ok(())
}

/// Feeds `hasher` the little-endian bytes of `entries`, as a `.mtb`
/// payload holds them ([`for_payload_bytes`]): the payload checksum of a
/// table written, and the values checksum of any form.
fn hash_payload(hasher: &mut Xxh3, entries: &[u16]) {
    let hashed = for_payload_bytes(entries, |bytes| {
        hasher.update(bytes);
        Ok(())
    });
    debug_assert!(hashed.is_ok(), "hashing does not fail");
}

/// The path of `sector`'s table for `rules` in directory `dir`.
pub fn table_path(dir: &Path, rules: &RuleSet, sector: Sector) -> PathBuf {
    Store::new(dir).table_path(rules, sector)
}

/// Writes a table atomically: to `<path>.tmp`, synced, then renamed to
/// `path`. On any error the temporary file is removed and nothing with the
/// final name is created.
///
/// # Errors
/// [`TableError::Io`] naming the file (a full disk among them).
pub fn write_table(path: &Path, header: &TableHeader, entries: &[u16]) -> Result<(), TableError> {
    write_atomically(path, |w| {
        w.write_all(&header.encode())?;
        for_payload_bytes(entries, |bytes| w.write_all(bytes))
    })
}

/// Writes a file atomically: `write` fills `<path>.tmp`, which is synced
/// and renamed to `path`. On any error the temporary file is removed.
///
/// # Errors
/// [`TableError::Io`] naming `path`.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut io::BufWriter<File>) -> io::Result<()>,
) -> Result<(), TableError> {
    write_checked(path, write, |_| Ok(()))
}

/// As [`write_atomically`], but `check` reads the synced temporary file
/// (its path given) before it is renamed: when `check` fails the temporary
/// file is removed and its error returned, so a file with the final name
/// has always passed `check`.
///
/// # Errors
/// [`TableError::Io`] naming `path`, or the error of `check`.
pub(crate) fn write_checked(
    path: &Path,
    write: impl FnOnce(&mut io::BufWriter<File>) -> io::Result<()>,
    check: impl FnOnce(&Path) -> Result<(), TableError>,
) -> Result<(), TableError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let written = (|| -> io::Result<()> {
        let file = File::create(&tmp)?;
        let mut w = io::BufWriter::with_capacity(1 << 20, file);
        write(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
    })();
    let result = written.map_err(|e| TableError::io(path, e)).and_then(|()| check(&tmp)).and_then(|()| {
        fs::rename(&tmp, path).map_err(|e| TableError::io(path, e))?;
        // The rename is durable once the directory is synced (best effort:
        // the file itself is complete either way).
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            let _ = File::open(parent).and_then(|d| d.sync_all());
        }
        Ok(())
    });
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// An open, memory-mapped table (a `.mtb` file, or its compressed `.mtz`
/// twin): [`MappedFile`]'s path, header, checks and checksum, and the
/// entries read below.
pub type Table = MappedFile<DtmFields>;

/// The entries of an uncompressed table ([`Table::entries_view`]): its
/// payload, two bytes a slot, little-endian.
#[derive(Debug, Clone, Copy)]
pub struct Entries<'a>(&'a [u8]);

impl Entries<'_> {
    /// The raw entry of `slot`; `None` past the end.
    #[inline(always)]
    pub fn get(self, slot: u64) -> Option<u16> {
        let o = usize::try_from(slot).ok()?.checked_mul(2)?;
        let b = self.0.get(o..o.checked_add(2)?)?;
        Some(u16::from_le_bytes([b[0], b[1]]))
    }
}

impl Table {
    /// Whether the table is stored compressed ([`crate::compressed`]).
    pub fn is_compressed(&self) -> bool {
        self.layout().is_some()
    }

    /// The raw entry of `slot`; `None` past the end (and, in a compressed
    /// table, for a block that does not decompress).
    #[inline]
    pub fn entry(&self, slot: u64) -> Option<u16> {
        if let Some(layout) = self.layout() {
            return layout.entry(self.bytes(), slot);
        }
        Entries(self.bytes().get(HEADER_SIZE..)?).get(slot)
    }

    /// The entries of an uncompressed table, for readers that look up
    /// many slots in a hot loop ([`Entries::get`] is [`Table::entry`]
    /// without the check for compression); `None` for a compressed table.
    #[inline]
    pub fn entries_view(&self) -> Option<Entries<'_>> {
        self.layout().is_none().then(|| Entries(&self.bytes()[HEADER_SIZE..]))
    }

    /// Hints the processor to fetch `slot`'s entry ahead of a
    /// [`Table::entry`] or [`Table::value`] of it ([`crate::mapped::prefetch`]):
    /// callers that know several slots they will read ask for all of them
    /// first, so the cache misses overlap. Does nothing for a compressed
    /// table (its look-up decompresses a block) or past the end.
    #[inline]
    pub fn prefetch(&self, slot: u64) {
        if self.layout().is_none() {
            let at = usize::try_from(slot).ok().and_then(|s| s.checked_mul(2)?.checked_add(HEADER_SIZE));
            if let Some(byte) = at.and_then(|o| self.bytes().get(o)) {
                crate::mapped::prefetch(byte);
            }
        }
    }

    /// The value at `slot`; `None` for padding or past the end.
    #[inline]
    pub fn value(&self, slot: u64) -> Option<Value> {
        self.entry(slot).and_then(Value::from_entry)
    }

    /// Whether the slot is padding (not a canonical position).
    pub fn is_padding(&self, slot: u64) -> bool {
        self.entry(slot) == Some(PADDING_ENTRY)
    }

    /// The entries of slots `first..first + out.len()`, into `out`: each
    /// compressed block the range touches is decompressed once (a
    /// slot-by-slot read through [`Table::entry`] goes through the
    /// per-thread block cache and asks the index whether the slot is
    /// padding, for every slot), an uncompressed table's bytes copied. For
    /// readers of long runs of slots on one thread ([`Table::entries`]
    /// splits the table into blocks over all threads): the WDL exports.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] (field `payload`), naming the first slot of
    /// a block that does not decompress to its length or whose overflow
    /// entry is missing (a damaged file), or of a range that runs past the
    /// table's end.
    pub fn entries_into(&self, first: u64, out: &mut [u16]) -> Result<(), TableError> {
        let unreadable = |slot: u64| self.unreadable(slot);
        let count = self.header().entry_count;
        let end = first.checked_add(out.len() as u64).filter(|&e| e <= count).ok_or_else(|| unreadable(first))?;
        let Some(layout) = self.layout() else {
            let at = usize::try_from(first).ok().and_then(|f| f.checked_mul(2)?.checked_add(HEADER_SIZE));
            let bytes = at.and_then(|a| self.bytes().get(a..a + 2 * out.len())).ok_or_else(|| unreadable(first))?;
            for (e, b) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                *e = u16::from_le_bytes([b[0], b[1]]);
            }
            return Ok(());
        };
        let block_len = layout.block_slots() as u64;
        let mut block = Vec::new();
        let mut slot = first;
        while slot < end {
            let b = slot / block_len;
            let block_first = b * block_len;
            let block_end = (block_first + block_len).min(count);
            let (from, to) = ((slot - first) as usize, (block_end.min(end) - first) as usize);
            if slot == block_first && block_end <= end {
                // The whole block: straight into place.
                layout.block_entries(self.bytes(), b, &mut out[from..to]).ok_or_else(|| unreadable(block_first))?;
            } else {
                block.resize((block_end - block_first) as usize, 0);
                layout.block_entries(self.bytes(), b, &mut block).ok_or_else(|| unreadable(block_first))?;
                let skip = (slot - block_first) as usize;
                out[from..to].copy_from_slice(&block[skip..skip + (to - from)]);
            }
            slot = block_end.min(end);
        }
        Ok(())
    }

    /// The error of a slot that cannot be read: [`TableError::Corrupt`],
    /// field `payload`.
    fn unreadable(&self, slot: u64) -> TableError {
        TableError::corrupt(self.path(), "payload", format!("slot {slot} cannot be read"))
    }

    /// Every entry, in slot order, in memory (two bytes a slot), read on
    /// all of rayon's threads, a block of slots a task through
    /// [`Table::entries_into`]. For readers of whole tables: `verify`'s
    /// successors, expanding a `.mtz` file.
    ///
    /// # Errors
    /// As [`Table::entries_into`]; a table whose entry count does not fit
    /// this machine's memory addressing.
    pub fn entries(&self) -> Result<Vec<u16>, TableError> {
        let chunk_len = self.layout().as_ref().map_or(crate::compressed::BLOCK_ENTRIES, |l| l.block_slots());
        let count = self.header().entry_count;
        let len = usize::try_from(count).map_err(|_| self.unreadable(0))?;
        let mut entries = vec![0u16; len];
        entries
            .par_chunks_mut(chunk_len)
            .enumerate()
            .try_for_each(|(b, chunk)| self.entries_into((b * chunk_len) as u64, chunk))?;
        Ok(entries)
    }

    /// The table's values checksum: the XXH3-64 of its entries as a `.mtb`
    /// payload holds them (each slot's 16-bit entry, little-endian, in slot
    /// order), so the same number whichever form holds the values. A `.mtb`
    /// table's payload checksum is exactly that, and is returned once the
    /// payload has been read and found to match it. A `.mtz` table's header
    /// checksums its compressed bytes instead: those are checked first,
    /// then every block is decompressed (in parallel, a batch at a time)
    /// and its entries hashed in slot order. For the ledger of verified
    /// tables (`morris verify`), which must recognise a table after it was
    /// compressed or expanded.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] when the payload does not match the header's
    /// checksum (field `payload checksum`) or a block does not decompress
    /// (field `payload`), as [`Table::verify_checksum`] and
    /// [`Table::entries`].
    pub fn values_checksum(&self) -> Result<u64, TableError> {
        self.verify_checksum()?;
        let Some(layout) = self.layout() else {
            return Ok(self.header().payload_checksum);
        };
        let block_len = layout.block_slots();
        // About a million slots a batch, whatever the block size.
        let batch_len = (1 << 20) / block_len;
        let count = self.header().entry_count;
        let blocks = count.div_ceil(block_len as u64);
        let mut hasher = Xxh3::new();
        let mut entries = vec![0u16; block_len * batch_len];
        for first in (0..blocks).step_by(batch_len) {
            let start = first * block_len as u64;
            let len = usize::try_from((count - start).min((block_len * batch_len) as u64))
                .map_err(|_| self.unreadable(start))?;
            let batch = &mut entries[..len];
            batch
                .par_chunks_mut(block_len)
                .enumerate()
                .try_for_each(|(i, chunk)| self.entries_into(start + (i * block_len) as u64, chunk))?;
            hash_payload(&mut hasher, batch);
        }
        Ok(hasher.digest())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file whose check fails never gets its name, and its temporary
    /// file is removed; one whose check passes is renamed, and the check
    /// saw the whole file before that.
    #[test]
    fn a_written_file_gets_its_name_only_after_its_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.mtz");
        let tmp = dir.path().join("t.mtz.tmp");
        let err = write_checked(
            &path,
            |w| w.write_all(b"abc"),
            |p| Err(TableError::corrupt(p, "compressed payload", "differs")),
        )
        .unwrap_err();
        assert!(err.to_string().contains("differs"), "{err}");
        assert!(!path.exists() && !tmp.exists());
        write_checked(
            &path,
            |w| w.write_all(b"abc"),
            |p| {
                assert_eq!(fs::read(p).unwrap(), b"abc");
                assert!(!path.exists());
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"abc");
        assert!(!tmp.exists());
    }

    #[test]
    fn write_open_and_detect_damage() {
        let dir = tempfile::tempdir().unwrap();
        let rules = RuleSet::preset("nine").unwrap();
        let sector = Sector::sliding(3, 3);
        let entries = vec![0u16, 2, 3, PADDING_ENTRY, 27];
        let header = TableHeader::for_entries(&rules, sector, &entries);
        assert_eq!(
            (header.wins, header.losses, header.draws, header.own.max_win, header.own.max_loss),
            (1, 2, 1, 1, 26)
        );
        let path = table_path(dir.path(), &rules, sector);
        write_table(&path, &header, &entries).unwrap();
        let t = Table::open(dir.path(), &rules, sector, 5).unwrap();
        t.verify_checksum().unwrap();
        assert_eq!(t.value(4), Some(Value::loss(26).unwrap()));
        assert_eq!(t.value(3), None);
        drop(t);

        let other = RuleSet::preset("nine-noflying").unwrap();
        assert!(matches!(
            Table::open_unchecked(&path).unwrap().check(&other, sector, 5),
            Err(TableError::RuleSetMismatch { .. })
        ));

        let good = fs::read(&path).unwrap();
        let mut bad = good.clone();
        bad[HEADER_SIZE + 1] ^= 1;
        fs::write(&path, &bad).unwrap();
        let err = Table::open(dir.path(), &rules, sector, 5).unwrap().verify_checksum().unwrap_err();
        assert!(err.to_string().contains("payload checksum"), "{err}");

        let mut bad = good.clone();
        bad[60] ^= 1;
        fs::write(&path, &bad).unwrap();
        let err = Table::open(dir.path(), &rules, sector, 5).unwrap_err();
        assert!(err.to_string().contains("header checksum"), "{err}");

        fs::write(&path, &good[..good.len() - 1]).unwrap();
        let err = Table::open(dir.path(), &rules, sector, 5).unwrap_err();
        assert!(err.to_string().contains("file size"), "{err}");

        fs::write(&path, &good[..50]).unwrap();
        assert!(Table::open(dir.path(), &rules, sector, 5).is_err());
    }

    /// A table copied into huge-page memory reads what the file holds,
    /// slot by slot, header and checksum included; the file may then be
    /// replaced without the copy changing. Prefetching any slot, past the
    /// end too, changes nothing.
    #[test]
    fn a_resident_copy_reads_what_the_file_holds() {
        let dir = tempfile::tempdir().unwrap();
        let rules = RuleSet::preset("nine").unwrap();
        let sector = Sector::sliding(3, 3);
        let entries: Vec<u16> =
            (0..100_000u32).map(|i| if i % 7 == 3 { PADDING_ENTRY } else { (i % 300) as u16 }).collect();
        let header = TableHeader::for_entries(&rules, sector, &entries);
        let path = table_path(dir.path(), &rules, sector);
        write_table(&path, &header, &entries).unwrap();
        let resident = Table::open(dir.path(), &rules, sector, entries.len() as u64).unwrap().into_resident().unwrap();
        fs::remove_file(&path).unwrap();
        write_table(&path, &header, &vec![0u16; entries.len()]).unwrap();
        resident.verify_checksum().unwrap();
        assert_eq!(resident.file_size(), (HEADER_SIZE + 2 * entries.len()) as u64);
        for (slot, &e) in entries.iter().enumerate() {
            resident.prefetch(slot as u64);
            assert_eq!(resident.entry(slot as u64), Some(e), "slot {slot}");
        }
        resident.prefetch(u64::MAX);
        assert_eq!(resident.entry(entries.len() as u64), None);
    }
    /// Entries of a table big enough to span many pages, each slot's value
    /// known from its number.
    fn many_entries(n: u32, salt: u32) -> Vec<u16> {
        (0..n).map(|i| if i % 7 == 3 { PADDING_ENTRY } else { ((i + salt) % 300) as u16 }).collect()
    }

    /// Writing a table over an existing one replaces the file (a new inode,
    /// by rename): a table mapped before keeps reading the old values, sees
    /// that its path names another file now, and a new open reads the new
    /// values. This is what keeps a server's mapped tables valid while a
    /// solve or an export rewrites them (`write_table`, and the WDL exports
    /// through the same `write_checked`).
    #[test]
    fn rewriting_a_table_renames_a_new_file_over_it() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let rules = RuleSet::preset("nine").unwrap();
        let sector = Sector::sliding(3, 3);
        let (old, new) = (many_entries(50_000, 0), many_entries(50_000, 1));
        let path = table_path(dir.path(), &rules, sector);
        write_table(&path, &TableHeader::for_entries(&rules, sector, &old), &old).unwrap();
        let inode = fs::metadata(&path).unwrap().ino();
        let before = Table::open(dir.path(), &rules, sector, 50_000).unwrap();
        assert!(before.is_current());
        write_table(&path, &TableHeader::for_entries(&rules, sector, &new), &new).unwrap();
        assert_ne!(fs::metadata(&path).unwrap().ino(), inode, "the file was rewritten in place");
        assert!(!before.is_current());
        before.verify_checksum().unwrap();
        let after = Table::open(dir.path(), &rules, sector, 50_000).unwrap();
        for slot in [0u64, 1, 4, 49_999] {
            assert_eq!(before.entry(slot), Some(old[slot as usize]), "slot {slot}");
            assert_eq!(after.entry(slot), Some(new[slot as usize]), "slot {slot}");
        }
    }

    /// A guarded table truncated underneath does not kill the process: the
    /// read past the new end finds something, and `check_intact` then says
    /// the file shrank, naming it; a guarded table of another file is not
    /// affected, and reopening the truncated one fails on its size.
    /// A directory with `nine`'s tables 3-3 and 4-3, both holding
    /// [`many_entries`]`(100_000, 0)`.
    fn two_tables_of_100_000() -> (tempfile::TempDir, RuleSet, Vec<u16>) {
        let dir = tempfile::tempdir().unwrap();
        let rules = RuleSet::preset("nine").unwrap();
        let entries = many_entries(100_000, 0);
        for sector in [Sector::sliding(3, 3), Sector::sliding(4, 3)] {
            let header = TableHeader::for_entries(&rules, sector, &entries);
            write_table(&table_path(dir.path(), &rules, sector), &header, &entries).unwrap();
        }
        (dir, rules, entries)
    }

    #[test]
    fn a_guarded_table_truncated_underneath_reports_it() {
        let (dir, rules, entries) = two_tables_of_100_000();
        let open = |s| Table::open_guarded(dir.path(), &rules, s, 100_000).unwrap();
        let (shrunk, other) = (open(Sector::sliding(3, 3)), open(Sector::sliding(4, 3)));
        assert_eq!(shrunk.entry(90_000), Some(entries[90_000]));
        shrunk.check_intact().unwrap();
        let path = table_path(dir.path(), &rules, Sector::sliding(3, 3));
        fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(HEADER_SIZE as u64).unwrap();
        assert!(!shrunk.is_current());
        // Past the new end: SIGBUS without the guard (`black_box`, or the
        // optimiser drops a read whose value is unused).
        std::hint::black_box(shrunk.entry(90_000));
        let err = shrunk.check_intact().unwrap_err();
        assert!(matches!(err, TableError::Corrupt { field: "file size", .. }), "{err}");
        assert!(err.to_string().contains("nine_3_3") && err.to_string().contains("shrank"), "{err}");
        assert_eq!(other.entry(90_000), Some(entries[90_000]));
        other.check_intact().unwrap();
        let err = Table::open_guarded(dir.path(), &rules, Sector::sliding(3, 3), 100_000).unwrap_err();
        assert!(err.to_string().contains("file size"), "{err}");
    }

    /// The guard covers only guarded mappings: a read past the end of an
    /// unguarded one (the solver's, which must not read zeros as values)
    /// still dies of SIGBUS, in a child process running this test, after a
    /// guarded mapping has installed the handler.
    #[cfg(unix)]
    #[test]
    fn an_unguarded_mapping_truncated_underneath_still_dies_of_sigbus() {
        use std::os::unix::process::ExitStatusExt;
        const NAME: &str = "storage::table::tests::an_unguarded_mapping_truncated_underneath_still_dies_of_sigbus";
        if std::env::var_os("MORRIS_SIGBUS_CHILD").is_none() {
            let status = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", NAME, "--test-threads", "1"])
                .env("MORRIS_SIGBUS_CHILD", "1")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .unwrap();
            assert_eq!(status.signal(), Some(libc::SIGBUS), "{status:?}");
            return;
        }
        let (dir, rules, _) = two_tables_of_100_000();
        let _guarded = Table::open_guarded(dir.path(), &rules, Sector::sliding(4, 3), 100_000).unwrap();
        let plain = Table::open(dir.path(), &rules, Sector::sliding(3, 3), 100_000).unwrap();
        let path = table_path(dir.path(), &rules, Sector::sliding(3, 3));
        fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(HEADER_SIZE as u64).unwrap();
        std::hint::black_box(plain.entry(90_000));
        // Reached only if the read survived: the parent sees exit 0, not SIGBUS.
        std::process::exit(0);
    }
}
