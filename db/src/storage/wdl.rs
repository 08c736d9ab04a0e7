//! The compact WDL export format: one file per sector holding only win,
//! draw or loss for the side to move, five slots of the sector's index per
//! byte (1.6 bits per slot), for distribution and for engines that need no
//! distance to mate.
//!
//! A WDL file has the same identity fields as a DTM table ([`crate::table`])
//! and its own magic, so neither is ever read as the other. Its name is the
//! table's with the extension `mwdl`: `<preset>_<w>_<b>_<wh>_<bh>.mwdl`.
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 | magic `MORRISWD` |
//! | 8 | 4 | format version ([`WDL_FORMAT_VERSION`]) |
//! | 12 | 4 | header size in bytes (128) |
//! | 16 | 8 | rule-set fingerprint ([`crate::RuleSet::fingerprint`]) |
//! | 24 | 16 | rule-set name, UTF-8, zero-padded |
//! | 40 | 4 | sector: w, b, wh, bh (one byte each) |
//! | 44 | 4 | index scheme version ([`crate::table::INDEX_VERSION`]) |
//! | 48 | 4 | entry encoding ([`ENCODING_WDL_BASE3`], [`ENCODING_WDL_BASE3_ZSTD`], [`ENCODING_WDL_GROUPS`] or [`ENCODING_WDL_DERIVED`]) |
//! | 52 | 4 | reserved, zero |
//! | 56 | 8 | entry count (slots) |
//! | 64 | 8 | canonical positions |
//! | 72 | 8 | wins |
//! | 80 | 8 | losses |
//! | 88 | 8 | draws |
//! | 96 | 8 | XXH3-64 of the payload of the DTM table it was exported from |
//! | 104 | 8 | XXH3-64 of the payload |
//! | 112 | 8 | reserved, zero |
//! | 120 | 8 | XXH3-64 of header bytes 0..120 |
//!
//! The payload is `ceil(slots / 5)` bytes. Byte `s / 5` holds slot `s` as
//! its base-3 digit `s % 5` (the byte is `d0 + 3 d1 + 9 d2 + 27 d3 + 81 d4`,
//! at most 242):
//!
//! | digit | meaning |
//! |---:|---|
//! | 0 | draw; also padding slots (not canonical positions, never probed) and the unused digits of the last byte |
//! | 1 | win for the side to move |
//! | 2 | loss for the side to move |
//!
//! A byte above 242 is damage: [`WdlTable::wdl`] reads no value from it.
//!
//! **Compressed** (encoding [`ENCODING_WDL_BASE3_ZSTD`], same extension
//! and header; `morris export-wdl --compress`): the same payload bytes in
//! blocks of [`WDL_BLOCK_BYTES`] (5,120 slots) by default, or of another of
//! [`WDL_BLOCK_SIZES`] (`--block-bytes`), each compressed on its own
//! with zstd, laid out as `storage::blocks` describes (no list of
//! its own; its sub-header gives the block size); the payload checksum
//! covers everything after the header. A look-up decompresses one block
//! unless the thread has it already: larger blocks take fewer bytes and
//! make a look-up that misses slower. Files with blocks other than 1 KiB
//! are read from release 0.1.0 of 2026-12-05 on. Most sectors are nearly all wins or all losses for the side to
//! move, so this takes a third or less of the plain file's bytes.
//!
//! **Grouped** (encoding [`ENCODING_WDL_GROUPS`], same extension and
//! header; `morris export-wdl --compress`, the default form of it): groups
//! of 256 slots, each stored as one value (two bits), or as its most
//! frequent value and a list or a mask of the slots that differ, an
//! enumerative code of where the rarer of two values is, a two-value
//! bitmap, or in base 3, whichever is shortest, behind a directory of two
//! bytes per group with a body, in runs of 64 groups; a run whose slots
//! all hold one value is stored as that value alone
//! (`db/src/storage/groups.rs` describes the bytes). A look-up reads the
//! run's word and kinds, the directory and a few bytes of one group, with
//! nothing to decompress.
//! Padding slots may read as any value in this form.
//!
//! **Single-sided stub** (encoding [`ENCODING_WDL_DERIVED`], same
//! extension and header, no payload; `morris export-wdl --single-sided`):
//! the sector's values are not stored. A probe values a position of it by
//! one ply of search, the best of its moves into the WDL files of the
//! sectors they lead to, none of which is a stub
//! ([`crate::derived::choose`] picks the sectors, as for DTM stubs). The
//! header keeps the counts of the table it stands for and its payload
//! checksum; the payload checksum field is that of no bytes.
//!
//! Files are written under a temporary name (`.tmp` appended), synced and
//! renamed; the compressed and grouped forms are read back against the
//! source table before the rename. Opening checks every header field and
//! the file size; the payload checksum is checked by
//! [`WdlTable::verify_checksum`].

use std::fmt;
use std::io::{self, Seek, Write};
use std::ops::Neg;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use xxhash_rust::xxh3::Xxh3;

use crate::rules::RuleSet;
use crate::sector::Sector;
use crate::storage::blocks::{pack, Blocks};
use crate::storage::groups::{self, base3_byte, base3_digit, Groups, NO_HEAD};
use crate::storage::header::{check_file_size, Format, Header, MappedFile, OwnFields};
use crate::store::{FileKind, Store, TableFile};
use crate::table::{write_atomically, write_checked, Table, TableError, HEADER_SIZE};
use crate::value::{Tally, Value};

/// The magic of WDL files.
pub const WDL_MAGIC: [u8; 8] = *b"MORRISWD";
/// The WDL format version this library reads and writes.
pub const WDL_FORMAT_VERSION: u32 = 1;
pub use crate::storage::groups::SLOTS_PER_BYTE;
pub use crate::storage::header::{
    ENCODING_WDL_BASE3, ENCODING_WDL_BASE3_ZSTD, ENCODING_WDL_DERIVED, ENCODING_WDL_GROUPS, ENCODING_WDL_GROUPS_V1,
    ENCODING_WDL_GROUPS_V2,
};
/// Payload bytes per independently compressed block of a compressed WDL
/// file by default (5,120 slots).
pub const WDL_BLOCK_BYTES: usize = 1024;
/// The block sizes a compressed WDL file may have, payload bytes (five
/// slots a byte).
pub const WDL_BLOCK_SIZES: [usize; 3] = [WDL_BLOCK_BYTES, 4096, 16384];
/// The zstd level of `morris export-wdl --compress` by default.
pub const WDL_DEFAULT_LEVEL: i32 = 9;
pub use crate::store::WDL_EXTENSION;

const CODE_DRAW: u8 = 0;
const CODE_WIN: u8 = 1;
const CODE_LOSS: u8 = 2;
/// Padding slots are stored as draws.
const CODE_PADDING: u8 = CODE_DRAW;
/// Win, draw or loss for the side to move, without distance.
///
/// | variant | meaning | [`Wdl::signum`] |
/// |---|---|---:|
/// | `Loss` | the side to move loses under perfect play | -1 |
/// | `Draw` | neither side can force a win | 0 |
/// | `Win` | the side to move wins | 1 |
///
/// Ordered from the side to move's point of view: `Loss < Draw < Win`.
/// Negation gives the value for the other side, so the value of a move for
/// the mover is `-wdl(position after the move)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins.
    Win,
}

impl Wdl {
    /// -1 for a loss, 0 for a draw, 1 for a win.
    pub fn signum(self) -> i32 {
        match self {
            Wdl::Loss => -1,
            Wdl::Draw => 0,
            Wdl::Win => 1,
        }
    }

    /// The base-3 digit of this value in a WDL file.
    fn code(self) -> u8 {
        match self {
            Wdl::Draw => CODE_DRAW,
            Wdl::Win => CODE_WIN,
            Wdl::Loss => CODE_LOSS,
        }
    }

    /// The value of a base-3 digit.
    #[inline]
    fn from_code(code: u8) -> Wdl {
        // A table rather than a match: the codes a probe reads are as good
        // as random to a branch predictor.
        const BY_CODE: [Wdl; 4] = {
            let mut t = [Wdl::Draw; 4];
            t[CODE_WIN as usize] = Wdl::Win;
            t[CODE_LOSS as usize] = Wdl::Loss;
            t
        };
        BY_CODE.get(usize::from(code)).copied().unwrap_or(Wdl::Draw)
    }
}

impl Neg for Wdl {
    type Output = Wdl;

    /// The value for the other side.
    fn neg(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }
}

impl From<Value> for Wdl {
    /// Forgets the distance.
    fn from(v: Value) -> Wdl {
        match v {
            Value::Win(_) => Wdl::Win,
            Value::Loss(_) => Wdl::Loss,
            Value::Draw => Wdl::Draw,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        })
    }
}

/// The WDL file name of `sector` for a rule set named `preset`.
pub fn wdl_file_name(preset: &str, sector: Sector) -> String {
    TableFile { rules_name: preset.to_string(), sector, kind: FileKind::Wdl }.file_name()
}

/// Parses a name made by [`wdl_file_name`]: the preset and the sector.
pub fn parse_wdl_file_name(name: &str) -> Option<(String, Sector)> {
    TableFile::parse(name).filter(|f| f.kind == FileKind::Wdl).map(|f| (f.rules_name, f.sector))
}

/// The path of `sector`'s WDL file for `rules` in `dir`.
pub fn wdl_path(dir: &Path, rules: &RuleSet, sector: Sector) -> PathBuf {
    Store::new(dir).path(rules.name(), sector, FileKind::Wdl)
}

/// The payload size in bytes of a WDL file with `slots` slots.
pub fn payload_size(slots: u64) -> Option<u64> {
    slots.checked_add(SLOTS_PER_BYTE - 1).map(|s| s / SLOTS_PER_BYTE)
}

/// The header of a WDL file: identity, size and statistics, and the
/// checksum of the DTM table it was exported from ([`WdlFields`]).
pub type WdlHeader = Header<WdlFields>;

/// A WDL file's own header field (bytes 96..104).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WdlFields {
    /// XXH3-64 of the payload of the DTM table this file was exported from.
    pub source_checksum: u64,
}

impl OwnFields for WdlFields {
    const FORMAT: Format = Format {
        magic: WDL_MAGIC,
        version: WDL_FORMAT_VERSION,
        encodings: &[ENCODING_WDL_BASE3, ENCODING_WDL_BASE3_ZSTD, ENCODING_WDL_GROUPS, ENCODING_WDL_DERIVED],
        retired: &[
            (
                ENCODING_WDL_GROUPS_V1,
                "grouped WDL files written before uniform runs are no longer read: export them again with `morris export-wdl --compress`",
            ),
            (
                ENCODING_WDL_GROUPS_V2,
                "grouped WDL files written before enumerative codes (2026-12-07) are no longer read: export them again with `morris export-wdl --compress`",
            ),
        ],
        version_name: "WDL format version",
        version_remedy: "export the file again or use a matching release",
        wrong_magic: |magic| {
            if magic == crate::table::MAGIC {
                "this is a DTM table (magic MORRISTB), not a WDL file: name it .mtb, or export a WDL file from it"
            } else {
                "not a morris WDL file (magic is not MORRISWD)"
            }
        },
        noun: "file",
    };

    type Layout = WdlLayout;

    fn locate(dir: &Path, rules: &RuleSet, sector: Sector) -> (Option<PathBuf>, PathBuf) {
        let path = wdl_path(dir, rules, sector);
        (crate::store::may_exist(&path).then(|| path.clone()), path)
    }

    fn layout(header: &WdlHeader, map: &[u8], path: &Path) -> Result<WdlLayout, TableError> {
        match header.encoding {
            ENCODING_WDL_BASE3_ZSTD => {
                let bytes = payload_size(header.entry_count)
                    .ok_or_else(|| TableError::corrupt(path, "entry count", "too large".to_string()))?;
                Ok(WdlLayout { form: Form::Zstd(Blocks::parse(map, bytes, &WDL_BLOCK_SIZES, 0, path)?) })
            }
            ENCODING_WDL_GROUPS => Ok(WdlLayout { form: Form::Groups(Groups::parse(map, header.entry_count, path)?) }),
            ENCODING_WDL_DERIVED => {
                check_file_size(header, map.len(), Some(0), path)?;
                Ok(WdlLayout { form: Form::Derived })
            }
            _ => {
                check_file_size(header, map.len(), payload_size(header.entry_count), path)?;
                Ok(WdlLayout { form: Form::Plain })
            }
        }
    }

    fn to_bytes(&self) -> [u8; 8] {
        self.source_checksum.to_le_bytes()
    }

    fn from_bytes(bytes: [u8; 8]) -> WdlFields {
        WdlFields { source_checksum: u64::from_le_bytes(bytes) }
    }
}

/// Where a WDL file's values lie (read when it is opened), by its form.
#[derive(Debug)]
pub struct WdlLayout {
    form: Form,
}

#[derive(Debug)]
enum Form {
    /// Right after the header, five slots a byte.
    Plain,
    /// The plain bytes in zstd blocks.
    Zstd(Blocks),
    /// Groups of 256 slots.
    Groups(Groups),
    /// No values: a single-sided stub.
    Derived,
}

/// The forms a WDL file's values may take (its entry encoding), as
/// `morris export-wdl` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WdlCoding {
    /// [`ENCODING_WDL_BASE3`]: 1.6 bits a slot, the fastest look-ups.
    Plain,
    /// [`ENCODING_WDL_GROUPS`]: random access without decompressing.
    Groups,
    /// [`ENCODING_WDL_BASE3_ZSTD`]: the fewest bytes, slowest look-ups.
    Zstd,
    /// [`ENCODING_WDL_DERIVED`]: no values; a single-sided stub, whose
    /// positions a probe values by one ply of search.
    Derived,
}

/// The header of the WDL file of `table` (counts still zero).
fn header_for(table: &Table, encoding: u32) -> WdlHeader {
    let src = table.header();
    WdlHeader {
        rules_fingerprint: src.rules_fingerprint,
        rules_name: src.rules_name.clone(),
        sector: src.sector,
        entry_count: src.entry_count,
        canonical_positions: 0,
        wins: 0,
        losses: 0,
        draws: 0,
        own: WdlFields { source_checksum: src.payload_checksum },
        encoding,
        payload_checksum: 0,
    }
}

/// The WDL code of a table entry, counted into `tally`; `None` for an
/// entry that holds no value (padding).
#[inline]
fn code_of(entry: u16, tally: &mut Tally) -> Option<u8> {
    Value::from_entry(entry).map(|v| {
        tally.add(v);
        Wdl::from(v).code()
    })
}

/// Payload bytes `first..first + n` of the WDL file of `table` (slots
/// `5 first .. 5 (first + n)`), appended to `buf`; returns the tally of
/// their positions (padding slots and slots past the end are not
/// counted). The slots are read in one run ([`Table::entries_into`]), so a
/// compressed table's blocks are decompressed once each.
///
/// # Errors
/// What [`Table::entries_into`] returns for a damaged table.
fn payload_bytes(table: &Table, first: u64, n: u64, buf: &mut Vec<u8>) -> Result<Tally, TableError> {
    let count = table.header().entry_count;
    let from = (first * SLOTS_PER_BYTE).min(count);
    let to = ((first + n) * SLOTS_PER_BYTE).min(count);
    let mut entries = vec![0u16; (to - from) as usize];
    table.entries_into(from, &mut entries)?;
    let mut tally = Tally::default();
    let mut chunks = entries.chunks(SLOTS_PER_BYTE as usize);
    for _ in 0..n {
        let slots = chunks.next().unwrap_or(&[]);
        let codes: [u8; SLOTS_PER_BYTE as usize] =
            std::array::from_fn(|k| slots.get(k).and_then(|&e| code_of(e, &mut tally)).unwrap_or(CODE_PADDING));
        buf.push(base3_byte(codes.into_iter()));
    }
    Ok(tally)
}

/// Writes the WDL file of a DTM table to `path`, atomically (under
/// `<path>.tmp`, synced, renamed), streaming: the table is read once. Slots
/// the table marks as padding stay padding.
///
/// The caller should check the table first ([`Table::open`],
/// [`Table::verify_checksum`]); the header's counts are taken from the
/// entries, and the source's payload checksum is recorded.
///
/// # Errors
/// [`TableError::Io`] naming the file (a full disk among them); what
/// [`Table::entries_into`] returns for a damaged `table`. Nothing is left
/// under `path` then.
pub fn export_table(table: &Table, path: &Path) -> Result<WdlHeader, TableError> {
    let mut h = header_for(table, ENCODING_WDL_BASE3);
    let mut tally = Tally::default();
    // A damaged source: its own error, not one of writing `path`.
    let mut unreadable = None;
    let written = write_atomically(path, |w| {
        // The header is written last, once the counts are known.
        w.write_all(&[0u8; HEADER_SIZE])?;
        let mut hasher = Xxh3::new();
        const CHUNK: u64 = 1 << 16;
        let mut buf = Vec::with_capacity(CHUNK as usize);
        let bytes = payload_size(h.entry_count).unwrap_or(0);
        for first in (0..bytes).step_by(CHUNK as usize) {
            buf.clear();
            match payload_bytes(table, first, CHUNK.min(bytes - first), &mut buf) {
                Ok(t) => tally = tally.merge(t),
                Err(e) => {
                    let message = e.to_string();
                    unreadable = Some(e);
                    return Err(io::Error::other(message));
                }
            }
            hasher.update(&buf);
            w.write_all(&buf)?;
        }
        h.set_counts(&tally);
        h.payload_checksum = hasher.digest();
        w.seek(io::SeekFrom::Start(0))?;
        w.write_all(&h.encode())
    });
    match unreadable {
        Some(e) => Err(e),
        None => written.map(|()| h),
    }
}

/// Writes the compressed WDL file of a DTM table to `path` (encoding
/// [`ENCODING_WDL_BASE3_ZSTD`], blocks compressed in parallel at zstd
/// `level`, 1–22; [`WDL_DEFAULT_LEVEL`]), and checks it before it gets its
/// name: written to `<path>.tmp` and synced, then opened, its header and
/// checksum compared and every slot read back against `table`; only then
/// renamed. Holds the compressed payload in memory (well under a bit a
/// slot). What [`export_table`] says of padding, checks and counts holds
/// here too.
///
/// # Errors
/// [`TableError::Io`] naming the file (a full disk among them; zstd
/// failing), [`TableError::Corrupt`] when the file reads back other than
/// `table` (field `compressed payload`, naming the slot), or what
/// [`Table::entries_into`] returns for a damaged `table`; nothing is left
/// under `path` then.
pub fn export_table_compressed(table: &Table, path: &Path, level: i32) -> Result<WdlHeader, TableError> {
    export_table_compressed_with(table, path, level, WDL_BLOCK_BYTES)
}

/// [`export_table_compressed`] in blocks of `block_bytes` payload bytes,
/// one of [`WDL_BLOCK_SIZES`].
///
/// # Errors
/// As [`export_table_compressed`]; [`TableError::Io`] (invalid input)
/// for a block size not among [`WDL_BLOCK_SIZES`], before anything is
/// written.
pub fn export_table_compressed_with(
    table: &Table,
    path: &Path,
    level: i32,
    block_bytes: usize,
) -> Result<WdlHeader, TableError> {
    if !WDL_BLOCK_SIZES.contains(&block_bytes) {
        return Err(TableError::io(
            path,
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{block_bytes} bytes a block; a compressed WDL file has blocks of {WDL_BLOCK_SIZES:?}"),
            ),
        ));
    }
    let mut h = header_for(table, ENCODING_WDL_BASE3_ZSTD);
    let bytes = payload_size(h.entry_count).unwrap_or(0);
    let packed = pack(
        bytes,
        block_bytes,
        0,
        level,
        path,
        |b, buf| {
            let first = b * block_bytes as u64;
            payload_bytes(table, first, (block_bytes as u64).min(bytes - first), buf)
        },
        |_| 0,
    )?;
    let tally = packed.frames.iter().fold(Tally::default(), |t, f| t.merge(f.1));
    h.set_counts(&tally);
    h.payload_checksum = packed.checksum();
    write_checked(path, |w| packed.write(w, &h.encode()), |tmp| check_read_back(tmp, &h, table))?;
    Ok(h)
}

/// Writes the grouped WDL file of a DTM table to `path` (encoding
/// [`ENCODING_WDL_GROUPS`], groups encoded in parallel), and checks it as
/// [`export_table_compressed`] does before it gets its name. Holds the
/// payload in memory (well under a bit a slot in most sectors, 1.7 bits at
/// most). Padding slots are free: they may read back as any value. What
/// [`export_table`] says of checks and counts holds here too.
///
/// # Errors
/// As [`export_table_compressed`].
pub fn export_table_grouped(table: &Table, path: &Path) -> Result<WdlHeader, TableError> {
    let mut h = header_for(table, ENCODING_WDL_GROUPS);
    let (payload, tally) = groups::pack(h.entry_count, |first, codes| {
        let mut entries = vec![0u16; codes.len()];
        table.entries_into(first, &mut entries)?;
        let mut tally = Tally::default();
        for (code, &e) in codes.iter_mut().zip(&entries) {
            *code = code_of(e, &mut tally);
        }
        Ok(tally)
    })?;
    h.set_counts(&tally);
    h.payload_checksum = xxhash_rust::xxh3::xxh3_64(&payload);
    write_checked(
        path,
        |w| {
            w.write_all(&h.encode())?;
            w.write_all(&payload)
        },
        |tmp| check_read_back(tmp, &h, table),
    )?;
    Ok(h)
}

/// Writes the single-sided stub of `table`'s sector to `path` (encoding
/// [`ENCODING_WDL_DERIVED`], atomically, read back before it gets its
/// name): the header of the WDL file it stands for, with `table`'s counts
/// and payload checksum, and no payload. A probe values the sector's
/// positions by one ply of search into the WDL files of the sectors its
/// moves lead to, which must hold values
/// ([`crate::derived::choose`] picks such sectors); nothing of `table` is
/// read but its header.
///
/// # Errors
/// [`TableError::Io`] naming the file (a full disk among them), or what
/// opening it again returns.
pub fn write_stub(table: &Table, path: &Path) -> Result<WdlHeader, TableError> {
    let src = table.header();
    let mut h = header_for(table, ENCODING_WDL_DERIVED);
    h.canonical_positions = src.canonical_positions;
    (h.wins, h.losses, h.draws) = (src.wins, src.losses, src.draws);
    h.payload_checksum = xxhash_rust::xxh3::xxh3_64(&[]);
    write_checked(
        path,
        |w| w.write_all(&h.encode()),
        |tmp| {
            let back = WdlTable::open_unchecked(tmp)?;
            back.verify_checksum()?;
            if back.header() != &h {
                return Err(TableError::corrupt(tmp, "header", "reads back other than written".to_string()));
            }
            Ok(())
        },
    )?;
    Ok(h)
}

/// Opens the just-written WDL file `tmp` and checks it against the header
/// `h` it was written with and the DTM `table` it was exported from: the
/// header, the payload checksum, and the value of every slot that is a
/// position (padding slots are not compared), in parallel.
///
/// # Errors
/// [`TableError::Corrupt`] (field `header` or `payload`, naming the first
/// slot found to differ), or what opening the file returns.
fn check_read_back(tmp: &Path, h: &WdlHeader, table: &Table) -> Result<(), TableError> {
    let back = WdlTable::open_unchecked(tmp)?;
    if back.header() != h {
        return Err(TableError::corrupt(tmp, "header", "reads back other than written".to_string()));
    }
    back.verify_checksum()?;
    // Four of the largest compressed blocks of slots per task, read from
    // the source in one run.
    let chunk = 4 * WDL_BLOCK_SIZES[WDL_BLOCK_SIZES.len() - 1] as u64 * SLOTS_PER_BYTE;
    let mismatch = (0..h.entry_count.div_ceil(chunk)).into_par_iter().find_map_any(|b| {
        let first = b * chunk;
        let mut entries = vec![0u16; (chunk.min(h.entry_count - first)) as usize];
        if let Err(e) = table.entries_into(first, &mut entries) {
            return Some(Err(e));
        }
        let differs = |(slot, &e): (u64, &u16)| match Value::from_entry(e) {
            Some(v) => back.wdl(slot) != Some(Wdl::from(v)),
            None => back.wdl(slot).is_none(),
        };
        (first..).zip(&entries).find(|&p| differs(p)).map(|(slot, _)| Ok(slot))
    });
    match mismatch {
        Some(Ok(slot)) => Err(TableError::corrupt(
            tmp,
            "payload",
            format!("slot {slot} differs from the source table {}", table.path().display()),
        )),
        Some(Err(e)) => Err(e),
        None => Ok(()),
    }
}

/// An open, memory-mapped WDL file: [`MappedFile`]'s path, header, checks
/// and checksum, and the values read below.
pub type WdlTable = MappedFile<WdlFields>;

impl WdlTable {
    /// Whether the file is in one of the smaller forms (zstd or grouped).
    pub fn is_compressed(&self) -> bool {
        self.coding() != WdlCoding::Plain
    }

    /// The form of the file's values.
    #[inline]
    pub fn coding(&self) -> WdlCoding {
        match self.layout().form {
            Form::Plain => WdlCoding::Plain,
            Form::Zstd(_) => WdlCoding::Zstd,
            Form::Groups(_) => WdlCoding::Groups,
            Form::Derived => WdlCoding::Derived,
        }
    }

    /// Whether the file is a single-sided stub ([`ENCODING_WDL_DERIVED`]):
    /// it holds no value, its positions are valued by one ply of search.
    #[inline]
    pub fn is_derived(&self) -> bool {
        self.coding() == WdlCoding::Derived
    }

    /// The bytes of payload in a block of a zstd-compressed file (one of
    /// [`WDL_BLOCK_SIZES`]); `None` for the other forms.
    pub fn block_bytes(&self) -> Option<usize> {
        match &self.layout().form {
            Form::Zstd(blocks) => Some(blocks.block_bytes()),
            _ => None,
        }
    }

    /// The value at `slot`; `None` past the end, where the bytes are
    /// damaged, and everywhere in a single-sided stub (which holds no
    /// value). Padding slots (not canonical positions) read as draws,
    /// except in grouped files, where they may read as any value.
    #[inline]
    pub fn wdl(&self, slot: u64) -> Option<Wdl> {
        // The reads of `head`, `step` and `wdl_after`, with one look at the
        // form.
        if slot >= self.header().entry_count {
            return None;
        }
        let byte = match &self.layout().form {
            Form::Groups(groups) => return groups.code(self.bytes(), slot).map(Wdl::from_code),
            Form::Zstd(blocks) => blocks.byte(self.bytes(), slot / SLOTS_PER_BYTE)?,
            Form::Plain => self.plain_byte(slot)?,
            Form::Derived => return None,
        };
        base3_digit(byte, (slot % SLOTS_PER_BYTE) as usize).map(Wdl::from_code)
    }

    /// The byte of a plain file's payload that holds `slot`.
    #[inline]
    fn plain_byte(&self, slot: u64) -> Option<u8> {
        let i = usize::try_from(slot / SLOTS_PER_BYTE).ok()?;
        self.bytes().get(HEADER_SIZE.checked_add(i)?).copied()
    }

    /// The first read of [`WdlTable::wdl`] at `slot`, which
    /// [`WdlTable::step`] takes: the word of its run in a grouped file, its
    /// byte in a plain one (nothing in the other forms). A caller with many
    /// slots to read makes each read for all of them before the next
    /// ([`WdlTable::step`], then [`WdlTable::wdl_after`]), so that the
    /// processor overlaps the reads of different slots (in a file larger
    /// than the caches each is a wait for memory) rather than waiting for
    /// each in turn.
    #[inline]
    pub fn head(&self, slot: u64) -> u64 {
        match &self.layout().form {
            Form::Groups(groups) => groups.head(self.bytes(), slot),
            Form::Plain => self.plain_byte(slot).map_or(NO_HEAD, u64::from),
            Form::Zstd(_) | Form::Derived => 0,
        }
    }

    /// The second read of [`WdlTable::wdl`] at `slot`, from its
    /// [`WdlTable::head`]: in a grouped file the run's kinds and directory,
    /// which say where the group's body is (the other forms have none:
    /// `head` itself).
    #[inline]
    pub fn step(&self, slot: u64, head: u64) -> u64 {
        match &self.layout().form {
            Form::Groups(groups) => groups.locate(self.bytes(), slot, head),
            _ => head,
        }
    }

    /// [`WdlTable::wdl`] at `slot`, given what [`WdlTable::step`] found
    /// for it (another value reads as damage or as another slot's value).
    #[inline]
    pub fn wdl_after(&self, slot: u64, step: u64) -> Option<Wdl> {
        if slot >= self.header().entry_count {
            return None;
        }
        let byte = match &self.layout().form {
            Form::Groups(groups) => return groups.code_in(self.bytes(), slot, step).map(Wdl::from_code),
            Form::Zstd(blocks) => blocks.byte(self.bytes(), slot / SLOTS_PER_BYTE)?,
            Form::Plain => u8::try_from(step).ok()?,
            Form::Derived => return None,
        };
        base3_digit(byte, (slot % SLOTS_PER_BYTE) as usize).map(Wdl::from_code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{table_path, write_table, TableHeader};
    use crate::value::PADDING_ENTRY;
    use std::fs;

    #[test]
    fn export_open_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let rules = RuleSet::preset("nine").unwrap();
        let sector = Sector::sliding(3, 3);
        let entries = vec![0u16, 2, 3, PADDING_ENTRY, 27, 0, 2];
        let header = TableHeader::for_entries(&rules, sector, &entries);
        write_table(&table_path(dir.path(), &rules, sector), &header, &entries).unwrap();
        let table = Table::open(dir.path(), &rules, sector, 7).unwrap();
        let path = wdl_path(dir.path(), &rules, sector);
        let h = export_table(&table, &path).unwrap();
        assert_eq!((h.wins, h.losses, h.draws), (2, 2, 2));
        let w = WdlTable::open(dir.path(), &rules, sector, 7).unwrap();
        w.verify_checksum().unwrap();
        assert_eq!(w.file_size(), HEADER_SIZE as u64 + 2);
        let got: Vec<Option<Wdl>> = (0..8).map(|s| w.wdl(s)).collect();
        use Wdl::*;
        let (d, wi, l) = (Some(Draw), Some(Win), Some(Loss));
        // Padding (slot 3) reads as a draw; past the end there is nothing.
        assert_eq!(got, [d, wi, l, d, l, d, wi, None]);
        let mut bytes = fs::read(&path).unwrap();
        bytes[HEADER_SIZE] = 243;
        let damaged = dir.path().join("damaged.mwdl");
        fs::write(&damaged, &bytes).unwrap();
        let w = WdlTable::open_unchecked(&damaged).unwrap();
        assert_eq!(w.wdl(0), None);
        assert!(w.verify_checksum().is_err());
        assert_eq!(parse_wdl_file_name(&wdl_file_name("nine", sector)), Some(("nine".to_string(), sector)));
        assert_eq!(-Win, Loss);
        assert!(Loss < Draw && Draw < Win);
    }
}
