//! The 128-byte little-endian header that every file of ours starts with:
//! DTM tables ([`crate::table`], also compressed: [`crate::compressed`]) and
//! WDL files ([`crate::wdl`]). [`Header`] is its one home: it encodes and
//! decodes the fields every format shares and checks them; each format has
//! its own magic, version and entry encodings ([`Format`]) and uses the 8
//! bytes at offset 96 its own way ([`OwnFields`]):
//! [`TableHeader`](crate::TableHeader) is `Header<DtmFields>`,
//! [`WdlHeader`](crate::wdl::WdlHeader) is `Header<WdlFields>`.
//! [`MappedFile`] is an open file of either format: path, checked header
//! and mapping ([`Table`](crate::Table) is `MappedFile<DtmFields>`,
//! [`WdlTable`](crate::wdl::WdlTable) is `MappedFile<WdlFields>`).
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 | magic |
//! | 8 | 4 | format version |
//! | 12 | 4 | header size in bytes (128) |
//! | 16 | 8 | rule-set fingerprint ([`crate::RuleSet::fingerprint`]) |
//! | 24 | 16 | rule-set name, UTF-8, zero-padded |
//! | 40 | 4 | sector: w, b, wh, bh (one byte each) |
//! | 44 | 4 | index scheme version ([`INDEX_VERSION`]) |
//! | 48 | 4 | entry encoding |
//! | 52 | 4 | reserved, zero |
//! | 56 | 8 | entry count (slots) |
//! | 64 | 8 | canonical positions |
//! | 72 | 8 | wins |
//! | 80 | 8 | losses |
//! | 88 | 8 | draws |
//! | 96 | 8 | the format's own field(s) |
//! | 104 | 8 | XXH3-64 of the payload |
//! | 112 | 8 | reserved, zero |
//! | 120 | 8 | XXH3-64 of header bytes 0..120 |

use std::io::Read;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use xxhash_rust::xxh3::xxh3_64;

use crate::mapped::{map_file, open_file, Guard};
use crate::rules::RuleSet;
use crate::sector::Sector;
use crate::table::TableError;
use crate::value::Tally;

/// The size of the header in bytes.
pub const HEADER_SIZE: usize = 128;
/// The index scheme this library uses ([`crate::index`]).
pub const INDEX_VERSION: u32 = 1;

// The entry encodings (offset 48), one number each across all formats.
/// Entry encoding of DTM tables: 16-bit DTM entries ([`crate::value`]).
pub const ENCODING_DTM16: u32 = 1;
/// Entry encoding of compressed DTM tables before padding was left to the
/// index: code bytes in zstd blocks of 4096 slots, padding stored as code
/// 255 ([`crate::compressed`]); still read, no longer written.
pub const ENCODING_DTM8_ZSTD: u32 = 2;
/// Entry encoding of compressed DTM tables: code bytes in zstd blocks of
/// 4096 to 65536 slots, the padding slots that the sector's index tells
/// given the code of the slot before them ([`crate::compressed`]).
pub const ENCODING_DTM8_ZSTD_PADLESS: u32 = 8;
/// Entry encoding of WDL files: five slots per byte in base 3
/// ([`crate::wdl`]).
pub const ENCODING_WDL_BASE3: u32 = 3;
/// Entry encoding of compressed WDL files: the same bytes in blocks of
/// 1 KiB compressed one by one with zstd ([`crate::wdl`]).
pub const ENCODING_WDL_BASE3_ZSTD: u32 = 4;
/// Entry encoding of grouped WDL files: groups of 256 slots, each as one
/// value, its most frequent value and exceptions, an enumerative code of
/// two values, a two-value bitmap or base 3, in runs of 64 groups, a run of
/// one value stored as that value alone ([`crate::wdl`]).
pub const ENCODING_WDL_GROUPS: u32 = 11;
/// Entry encoding of reachability bitmaps: one bit per slot
/// ([`crate::reach`]).
pub const ENCODING_REACH_BITS: u32 = 7;
/// The grouped WDL coding before uniform runs; no longer read.
pub const ENCODING_WDL_GROUPS_V1: u32 = 5;
/// The grouped WDL coding before group kinds and enumerative codes (every
/// group with a body, no enumerative form); no longer read.
pub const ENCODING_WDL_GROUPS_V2: u32 = 6;
/// Entry encoding of single-sided stubs (`.mtd`): no values, they are
/// derived by one ply of search from the tables the sector's moves lead
/// to ([`crate::derived`]).
pub const ENCODING_DTM_DERIVED: u32 = 9;
/// Entry encoding of single-sided WDL stubs (`.mwdl` with no payload): no
/// values, they are derived by one ply of search from the WDL files of the
/// sectors the sector's moves lead to ([`crate::wdl`]).
pub const ENCODING_WDL_DERIVED: u32 = 10;

/// What tells one file format from another in the shared header.
#[derive(Debug)]
pub struct Format {
    /// The magic.
    pub magic: [u8; 8],
    /// The version this library reads and writes.
    pub version: u32,
    /// The entry encodings the format allows.
    pub encodings: &'static [u32],
    /// Entry encodings this format's readers refuse (written once and no
    /// longer read, or read by another reader), each with what to do about
    /// a file in it.
    pub retired: &'static [(u32, &'static str)],
    /// How the version is named in errors (`format version`, `WDL format
    /// version`).
    pub version_name: &'static str,
    /// What to do about another version.
    pub version_remedy: &'static str,
    /// Why a file with another magic is not of this format.
    pub wrong_magic: fn(&[u8]) -> &'static str,
    /// How a file of this format is named in errors (`table`, `file`).
    pub noun: &'static str,
}

/// A format's own part of the header: the 8 bytes at offset 96, and the
/// [`Format`] that tells its files from others.
pub trait OwnFields: Clone + std::fmt::Debug + PartialEq + Eq {
    /// The format these fields belong to.
    const FORMAT: Format;
    /// Bytes 96..104.
    fn to_bytes(&self) -> [u8; 8];
    /// Reads bytes 96..104.
    fn from_bytes(bytes: [u8; 8]) -> Self;
    /// What the format reads from the file when it is opened (where a
    /// compressed table's blocks lie; `()` for none).
    type Layout: std::fmt::Debug + Send + Sync;
    /// Checks the size of a mapped file whose header is `header` and reads
    /// its [`OwnFields::Layout`].
    ///
    /// # Errors
    /// [`TableError::Corrupt`] naming the first part that is wrong (see
    /// [`check_file_size`]).
    fn layout(header: &Header<Self>, map: &[u8], path: &Path) -> Result<Self::Layout, TableError>;
    /// Where `sector`'s file of `rules` lies in `dir`: the file a reader
    /// opens (`None` when there is none, or none it may search for) and
    /// the path an error names when it is missing.
    fn locate(dir: &Path, rules: &RuleSet, sector: Sector) -> (Option<PathBuf>, PathBuf);
}

/// Checks that a mapped file of `len` bytes is the header and
/// `payload` bytes (`None`: more than can be addressed).
///
/// # Errors
/// [`TableError::Corrupt`], field `file size`.
pub fn check_file_size<F>(header: &Header<F>, len: usize, payload: Option<u64>, path: &Path) -> Result<(), TableError> {
    let expected = payload.and_then(|p| p.checked_add(HEADER_SIZE as u64));
    if expected != Some(len as u64) {
        return Err(TableError::corrupt(
            path,
            "file size",
            format!(
                "{len} bytes, but the header's {} entries need {} bytes (cut short or extended)",
                header.entry_count,
                expected.map_or("too many".to_string(), |e| e.to_string())
            ),
        ));
    }
    Ok(())
}

/// The header of a file of ours: the fields every format shares, and the
/// format's own ([`OwnFields`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header<F> {
    /// Fingerprint of the rule set the file was made under.
    pub rules_fingerprint: u64,
    /// Name of that rule set (at most 16 bytes are stored).
    pub rules_name: String,
    /// The sector.
    pub sector: Sector,
    /// How the payload is stored: one of the format's
    /// [`Format::encodings`].
    pub encoding: u32,
    /// Slots (entries) in the payload.
    pub entry_count: u64,
    /// Canonical positions (slots that are not padding).
    pub canonical_positions: u64,
    /// Positions won by the side to move.
    pub wins: u64,
    /// Positions lost by the side to move.
    pub losses: u64,
    /// Drawn positions.
    pub draws: u64,
    /// The format's own fields (bytes 96..104).
    pub own: F,
    /// XXH3-64 of the payload bytes.
    pub payload_checksum: u64,
}

impl<F> Header<F> {
    /// Sets the counts (canonical positions, wins, losses, draws) to those
    /// of `tally`.
    pub fn set_counts(&mut self, tally: &Tally) {
        self.canonical_positions = tally.positions();
        self.wins = tally.wins;
        self.losses = tally.losses;
        self.draws = tally.draws;
    }
}

impl<F: OwnFields> Header<F> {
    /// Checks that the file at `path` with this header belongs to `rules`,
    /// holds `sector` and has `expected_entries` slots.
    ///
    /// # Errors
    /// [`TableError::RuleSetMismatch`], [`TableError::SectorMismatch`], or
    /// [`TableError::Corrupt`] (field `entry count`).
    pub fn check(&self, path: &Path, rules: &RuleSet, sector: Sector, expected_entries: u64) -> Result<(), TableError> {
        if self.rules_fingerprint != rules.fingerprint() {
            return Err(TableError::RuleSetMismatch {
                path: path.to_path_buf(),
                found: self.rules_name.clone(),
                found_fingerprint: self.rules_fingerprint,
                expected: rules.name().to_string(),
                expected_fingerprint: rules.fingerprint(),
            });
        }
        if self.sector != sector {
            return Err(TableError::SectorMismatch { path: path.to_path_buf(), found: self.sector, expected: sector });
        }
        if self.entry_count != expected_entries {
            return Err(TableError::corrupt(
                path,
                "entry count",
                format!("{}, but sector {sector} has {expected_entries} slots", self.entry_count),
            ));
        }
        Ok(())
    }

    /// Compares the XXH3-64 of `payload` (the file's bytes after the
    /// header) with the header's.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] with field `payload checksum` on a mismatch.
    pub fn check_payload(&self, path: &Path, payload: &[u8]) -> Result<(), TableError> {
        let sum = xxh3_64(payload);
        if sum != self.payload_checksum {
            return Err(TableError::corrupt(
                path,
                "payload checksum",
                format!("{sum:016x}, header says {:016x}: the {} is damaged", self.payload_checksum, F::FORMAT.noun),
            ));
        }
        Ok(())
    }

    /// The 128 header bytes.
    pub fn encode(&self) -> [u8; HEADER_SIZE] {
        let format = &F::FORMAT;
        let mut b = [0u8; HEADER_SIZE];
        b[0..8].copy_from_slice(&format.magic);
        b[8..12].copy_from_slice(&format.version.to_le_bytes());
        b[12..16].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
        b[16..24].copy_from_slice(&self.rules_fingerprint.to_le_bytes());
        let name = self.rules_name.as_bytes();
        let n = name.len().min(16);
        b[24..24 + n].copy_from_slice(&name[..n]);
        b[40..44].copy_from_slice(&[self.sector.w, self.sector.b, self.sector.wh, self.sector.bh]);
        b[44..48].copy_from_slice(&INDEX_VERSION.to_le_bytes());
        b[48..52].copy_from_slice(&self.encoding.to_le_bytes());
        b[56..64].copy_from_slice(&self.entry_count.to_le_bytes());
        b[64..72].copy_from_slice(&self.canonical_positions.to_le_bytes());
        b[72..80].copy_from_slice(&self.wins.to_le_bytes());
        b[80..88].copy_from_slice(&self.losses.to_le_bytes());
        b[88..96].copy_from_slice(&self.draws.to_le_bytes());
        b[96..104].copy_from_slice(&self.own.to_bytes());
        b[104..112].copy_from_slice(&self.payload_checksum.to_le_bytes());
        let sum = xxh3_64(&b[0..120]);
        b[120..128].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// Reads and checks a header: size, magic, version, header checksum,
    /// header size, index scheme, entry encoding, rule-set name, and the
    /// consistency of the counts.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] naming the first field that is wrong.
    pub fn decode(bytes: &[u8], path: &Path) -> Result<Header<F>, TableError> {
        let format = &F::FORMAT;
        if bytes.len() < HEADER_SIZE {
            return Err(TableError::corrupt(
                path,
                "file size",
                format!("{} bytes, shorter than the {HEADER_SIZE}-byte header", bytes.len()),
            ));
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap_or([0; 4]));
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap_or([0; 8]));
        if bytes[0..8] != format.magic {
            return Err(TableError::corrupt(path, "magic", (format.wrong_magic)(&bytes[0..8])));
        }
        let version = u32_at(8);
        if version != format.version {
            return Err(TableError::corrupt(
                path,
                "version",
                format!(
                    "{} {version}; this program reads version {}: {}",
                    format.version_name, format.version, format.version_remedy
                ),
            ));
        }
        if xxh3_64(&bytes[0..120]) != u64_at(120) {
            return Err(TableError::corrupt(path, "header checksum", "the header was changed or damaged"));
        }
        if u32_at(12) as usize != HEADER_SIZE {
            return Err(TableError::corrupt(path, "header size", format!("{}, expected {HEADER_SIZE}", u32_at(12))));
        }
        if u32_at(44) != INDEX_VERSION {
            return Err(TableError::corrupt(
                path,
                "index version",
                format!("{}, expected {INDEX_VERSION}", u32_at(44)),
            ));
        }
        let encoding = u32_at(48);
        if !format.encodings.contains(&encoding) {
            let expected: Vec<String> = format.encodings.iter().map(u32::to_string).collect();
            let remedy = match format.retired.iter().find(|(e, _)| *e == encoding) {
                Some((_, remedy)) => format!(" ({remedy})"),
                None => String::new(),
            };
            return Err(TableError::corrupt(
                path,
                "entry encoding",
                format!("{encoding}, expected {}{remedy}", expected.join(" or ")),
            ));
        }
        let name_bytes: Vec<u8> = bytes[24..40].iter().copied().take_while(|&c| c != 0).collect();
        let rules_name =
            String::from_utf8(name_bytes).map_err(|_| TableError::corrupt(path, "rule-set name", "not UTF-8"))?;
        let mut own = [0u8; 8];
        own.copy_from_slice(&bytes[96..104]);
        let h = Header {
            rules_fingerprint: u64_at(16),
            rules_name,
            sector: Sector { w: bytes[40], b: bytes[41], wh: bytes[42], bh: bytes[43] },
            encoding,
            entry_count: u64_at(56),
            canonical_positions: u64_at(64),
            wins: u64_at(72),
            losses: u64_at(80),
            draws: u64_at(88),
            own: F::from_bytes(own),
            payload_checksum: u64_at(104),
        };
        let sum = h.wins.checked_add(h.losses).and_then(|s| s.checked_add(h.draws));
        if sum != Some(h.canonical_positions) || h.canonical_positions > h.entry_count {
            return Err(TableError::corrupt(
                path,
                "statistics",
                "wins + losses + draws do not add up to the canonical positions",
            ));
        }
        Ok(h)
    }
}

/// The error for a guarded file that shrank underneath its mapping of
/// `mapped` bytes.
fn shrank_error(path: &Path, mapped: usize) -> TableError {
    TableError::corrupt(
        path,
        "file size",
        format!(
            "the file shrank while it was open (it had {mapped} bytes): truncated or rewritten in place; \
             replace a table by renaming a complete file over it"
        ),
    )
}

/// An open, memory-mapped file of ours: its path, its checked header, the
/// mapping and what its format read from it when it was opened
/// ([`OwnFields::Layout`]). The file's size was checked when it was opened;
/// the payload checksum is checked by [`MappedFile::verify_checksum`] (a
/// full read).
///
/// A file opened guarded ([`MappedFile::open_guarded`]) survives
/// being truncated underneath: a read past the new end finds zeros instead
/// of killing the process, and [`MappedFile::check_intact`] reports it
/// (see [`crate::mapped::Guard`]). [`MappedFile::is_current`] tells whether
/// the path still names the file that is mapped.
#[derive(Debug)]
pub struct MappedFile<F: OwnFields> {
    path: PathBuf,
    header: Header<F>,
    /// Declared before `map`, so that it is dropped before the mapping is
    /// unmapped.
    guard: Option<Guard>,
    map: Mmap,
    layout: F::Layout,
    stamp: FileStamp,
}

/// What identifies the file a path named when it was opened: device,
/// inode, size and modification time. Another stamp for the same path
/// means the file was replaced (a rename), or changed in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    /// Device and inode (0, 0 off Unix).
    id: (u64, u64),
    /// Size in bytes.
    len: u64,
    /// Modification time, where the file system keeps one.
    modified: Option<std::time::SystemTime>,
}

impl FileStamp {
    /// The stamp of a file's metadata.
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        #[cfg(unix)]
        let id = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let id = (0, 0);
        FileStamp { id, len: meta.len(), modified: meta.modified().ok() }
    }
}

impl<F: OwnFields> MappedFile<F> {
    /// Opens a file and checks its header and size, without knowing the
    /// rule set (for `morris stats`).
    ///
    /// # Errors
    /// [`TableError::Io`] if it cannot be read, [`TableError::Corrupt`] for
    /// a bad header or a size that does not match the entry count.
    pub fn open_unchecked(path: &Path) -> Result<MappedFile<F>, TableError> {
        MappedFile::open_mapped(path, false)
    }

    /// As [`MappedFile::open_unchecked`], the mapping covered by a
    /// [`Guard`] from the start when `guarded`.
    ///
    /// # Errors
    /// As [`MappedFile::open_unchecked`].
    pub(crate) fn open_mapped(path: &Path, guarded: bool) -> Result<MappedFile<F>, TableError> {
        let io = |e| TableError::io(path, e);
        let mut file = open_file(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        let stamp = FileStamp::of(&meta);
        if meta.len() < HEADER_SIZE as u64 {
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes).map_err(io)?;
            Header::<F>::decode(&bytes, path)?;
        }
        // Our files are written under a temporary name and renamed into
        // place, never changed afterwards (`map_file`'s contract).
        let map = map_file(&file).map_err(io)?;
        let guard = guarded.then(|| Guard::new(&map));
        let opened = (|| {
            let header = Header::<F>::decode(&map, path)?;
            let layout = F::layout(&header, &map, path)?;
            Ok((header, layout))
        })();
        let file = match opened {
            Ok((header, layout)) => MappedFile { path: path.to_path_buf(), header, guard, map, layout, stamp },
            Err(e) => {
                let shrank = guard.as_ref().is_some_and(Guard::tripped);
                return Err(if shrank { shrank_error(path, map.len()) } else { e });
            }
        };
        file.check_intact()?;
        Ok(file)
    }

    /// Opens `sector`'s file of `rules` in `dir` (the file
    /// [`OwnFields::locate`] finds: for a DTM table the `.mtb` file, else
    /// the compressed `.mtz` one) and checks that it belongs to that rule
    /// set and sector and has `expected_entries` slots.
    ///
    /// # Errors
    /// [`TableError::Missing`] when the file does not exist,
    /// [`TableError::RuleSetMismatch`], [`TableError::SectorMismatch`],
    /// [`TableError::Corrupt`] and [`TableError::Io`] as their names say.
    pub fn open(
        dir: &Path,
        rules: &RuleSet,
        sector: Sector,
        expected_entries: u64,
    ) -> Result<MappedFile<F>, TableError> {
        MappedFile::open_located(F::locate(dir, rules, sector), rules, sector, expected_entries, false)
    }

    /// As [`MappedFile::open`], the mapping guarded against the file
    /// shrinking underneath ([`Guard`]): for long-running readers such as a
    /// server, which call [`MappedFile::check_intact`] after reading.
    ///
    /// # Errors
    /// As [`MappedFile::open`].
    pub fn open_guarded(
        dir: &Path,
        rules: &RuleSet,
        sector: Sector,
        expected_entries: u64,
    ) -> Result<MappedFile<F>, TableError> {
        MappedFile::open_located(F::locate(dir, rules, sector), rules, sector, expected_entries, true)
    }

    /// Opens `found`, the file of `sector` of `rules` that
    /// [`OwnFields::locate`] found, and checks that it belongs to that rule
    /// set and sector and has `expected_entries` slots; `None` when there
    /// is none, `missing` then being the path named in the error.
    /// `guarded`: see [`MappedFile::open_mapped`].
    ///
    /// # Errors
    /// [`TableError::Missing`], [`TableError::RuleSetMismatch`],
    /// [`TableError::SectorMismatch`], [`TableError::Corrupt`] and
    /// [`TableError::Io`] as their names say.
    fn open_located(
        (found, missing): (Option<PathBuf>, PathBuf),
        rules: &RuleSet,
        sector: Sector,
        expected_entries: u64,
        guarded: bool,
    ) -> Result<MappedFile<F>, TableError> {
        let Some(path) = found else {
            return Err(TableError::Missing { sector, path: missing });
        };
        let file = MappedFile::open_mapped(&path, guarded)?;
        file.check(rules, sector, expected_entries)?;
        Ok(file)
    }

    /// `Ok` unless the file is guarded and a read past its end was caught
    /// (it shrank underneath: what was read from it since may be zeros).
    /// Readers of a guarded file call this after reading and discard what
    /// they read when it fails.
    ///
    /// # Errors
    /// [`TableError::Corrupt`], field `file size`, naming the file.
    #[inline]
    pub fn check_intact(&self) -> Result<(), TableError> {
        match &self.guard {
            Some(g) if g.tripped() => Err(shrank_error(&self.path, self.map.len())),
            _ => Ok(()),
        }
    }

    /// Whether the file's path still names the file that is mapped, as it
    /// was: the same device, inode, size and modification time. `false`
    /// when the file was replaced (renamed over), changed in place or
    /// removed: reopen it to read what is there now. A stat of the path.
    pub fn is_current(&self) -> bool {
        std::fs::metadata(&self.path).is_ok_and(|m| FileStamp::of(&m) == self.stamp)
    }

    /// Checks the header against a rule set, sector and entry count.
    ///
    /// # Errors
    /// [`TableError::RuleSetMismatch`], [`TableError::SectorMismatch`], or
    /// [`TableError::Corrupt`] (field `entry count`).
    pub fn check(&self, rules: &RuleSet, sector: Sector, expected_entries: u64) -> Result<(), TableError> {
        self.header.check(&self.path, rules, sector, expected_entries)
    }

    /// Reads the whole payload and compares its XXH3-64 with the header's.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] with field `payload checksum` on a mismatch.
    pub fn verify_checksum(&self) -> Result<(), TableError> {
        self.header.check_payload(&self.path, &self.map[HEADER_SIZE..])
    }

    /// The header.
    pub fn header(&self) -> &Header<F> {
        &self.header
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The same file, its bytes copied into memory backed by huge pages
    /// ([`crate::mapped::huge_page_copy`]): for a table read at random many
    /// times over, such as a solved sector whose positions captures lead to.
    /// The copy holds the file's size in memory (not evictable); the file
    /// itself is no longer read.
    ///
    /// # Errors
    /// [`TableError::Io`] when the memory cannot be mapped.
    pub fn into_resident(self) -> Result<MappedFile<F>, TableError> {
        let map = crate::mapped::huge_page_copy(&self.map).map_err(|e| TableError::io(&self.path, e))?;
        self.check_intact()?;
        Ok(MappedFile { map, guard: None, ..self })
    }

    /// The size of the file in bytes.
    pub fn file_size(&self) -> u64 {
        self.map.len() as u64
    }

    /// The whole file, header included.
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// What the format read when the file was opened.
    #[inline]
    pub(crate) fn layout(&self) -> &F::Layout {
        &self.layout
    }
}
