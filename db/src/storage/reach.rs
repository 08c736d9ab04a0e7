//! Reachability bitmaps: for one sector's table, which of its canonical
//! positions can arise in a game from the start position by legal play, one
//! bit per slot of the sector's index (`morris reach`; the search is
//! `morris_solver::reach`). The file sits beside the sector's table, named
//! `<rule set>_<w>_<b>_<wh>_<bh>.reach` ([`Store::reach_path`]).
//!
//! The shared 128-byte header ([`crate::storage::header`]) with magic
//! `MORRISRC`, version [`REACH_FORMAT_VERSION`] and entry encoding
//! [`ENCODING_REACH_BITS`]; its counts are of the *reachable* canonical
//! positions (bytes 64..96: reachable, and of them wins, losses, draws
//! for the side to move, read from the DTM table), and bytes 96..104 hold
//! the payload checksum of the DTM table those values were read from
//! ([`ReachFields`]). The payload, after the header, little-endian:
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 128 | 8 | reachable positions on the board: each reachable canonical position counted once per distinct symmetric image |
//! | 136 | 8 | of them, wins for the side to move |
//! | 144 | 8 | losses |
//! | 152 | 8 | draws |
//! | 160 | 8 `ceil(slots / 64)` | the bitmap: slot `s` is bit `s % 64` (least significant first) of the u64 word `s / 64`, set when the position is reachable; padding slots and the bits past the last slot are 0 |
//!
//! Files are written under a temporary name and renamed
//! ([`write_reach`]); opening checks the header (rule set, sector, slot
//! count), the file size and that the board counts add up; the payload
//! checksum is checked by [`ReachMap::verify_checksum`].

use std::io::Write;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::rules::RuleSet;
use crate::sector::Sector;
pub use crate::storage::header::ENCODING_REACH_BITS;
use crate::storage::header::{check_file_size, Format, Header, MappedFile, OwnFields};
use crate::store::Store;
use crate::table::{write_atomically, TableError, HEADER_SIZE};

/// The magic of reachability bitmaps.
pub const REACH_MAGIC: [u8; 8] = *b"MORRISRC";
/// The reachability format version this library reads and writes.
pub const REACH_FORMAT_VERSION: u32 = 1;
/// Bytes of the board counts at the start of the payload
/// ([`BoardCounts`]: four u64).
pub const BOARD_COUNTS_BYTES: usize = 32;

/// A reachability bitmap's own header field (bytes 96..104).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReachFields {
    /// XXH3-64 of the payload of the DTM table whose values the counts
    /// were read from: a bitmap counted from another table is recomputed.
    pub source_checksum: u64,
}

/// The header of a reachability bitmap: identity and size, the counts of
/// reachable canonical positions (`canonical_positions`, `wins`, `losses`,
/// `draws`) and the source table's checksum ([`ReachFields`]).
pub type ReachHeader = Header<ReachFields>;

/// An open, memory-mapped reachability bitmap.
pub type ReachMap = MappedFile<ReachFields>;

impl OwnFields for ReachFields {
    const FORMAT: Format = Format {
        magic: REACH_MAGIC,
        version: REACH_FORMAT_VERSION,
        encodings: &[ENCODING_REACH_BITS],
        retired: &[],
        version_name: "reachability format version",
        version_remedy: "run `morris reach` again or use a matching release",
        wrong_magic: |_| "not a morris reachability bitmap (magic is not MORRISRC)",
        noun: "reachability bitmap",
    };

    type Layout = ();

    fn layout(header: &ReachHeader, map: &[u8], path: &Path) -> Result<(), TableError> {
        check_file_size(header, map.len(), payload_size(header.entry_count), path)?;
        let board = BoardCounts::read(&map[HEADER_SIZE..]);
        let sum = board.wins.checked_add(board.losses).and_then(|s| s.checked_add(board.draws));
        if sum != Some(board.positions) || board.positions < header.canonical_positions {
            return Err(TableError::corrupt(
                path,
                "board counts",
                "wins + losses + draws on the board do not add up, or are fewer than the canonical positions",
            ));
        }
        Ok(())
    }

    /// The bitmap beside the tables ([`reach_path`]); missing when
    /// `morris reach` has not been run.
    fn locate(dir: &Path, rules: &RuleSet, sector: Sector) -> (Option<PathBuf>, PathBuf) {
        let path = reach_path(dir, rules, sector);
        (crate::store::may_exist(&path).then(|| path.clone()), path)
    }

    fn to_bytes(&self) -> [u8; 8] {
        self.source_checksum.to_le_bytes()
    }

    fn from_bytes(bytes: [u8; 8]) -> ReachFields {
        ReachFields { source_checksum: u64::from_le_bytes(bytes) }
    }
}

/// Words of the bitmap of a sector of `slots` slots: `ceil(slots / 64)`.
pub fn bitmap_words(slots: u64) -> u64 {
    slots.div_ceil(64)
}

/// The payload size in bytes of a bitmap of `slots` slots: the board
/// counts and the words; `None` when it overflows.
pub fn payload_size(slots: u64) -> Option<u64> {
    bitmap_words(slots).checked_mul(8)?.checked_add(BOARD_COUNTS_BYTES as u64)
}

/// Reachable positions on the board, as opposed to canonical positions:
/// each canonical position counted once per distinct image under the
/// board's symmetries (relative to the side to move, as the tables are),
/// and of them the wins, losses and draws for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BoardCounts {
    /// Reachable positions on the board.
    pub positions: u64,
    /// Of them, won by the side to move.
    pub wins: u64,
    /// Lost by the side to move.
    pub losses: u64,
    /// Drawn.
    pub draws: u64,
}

impl BoardCounts {
    /// The 32 bytes at the start of the payload.
    pub fn to_bytes(&self) -> [u8; BOARD_COUNTS_BYTES] {
        let mut b = [0u8; BOARD_COUNTS_BYTES];
        for (i, n) in [self.positions, self.wins, self.losses, self.draws].into_iter().enumerate() {
            b[8 * i..8 * i + 8].copy_from_slice(&n.to_le_bytes());
        }
        b
    }

    /// Reads the first 32 bytes of `payload` (zeros where it is shorter).
    fn read(payload: &[u8]) -> BoardCounts {
        let at = |i: usize| payload.get(8 * i..8 * i + 8).and_then(|b| b.try_into().ok()).map_or(0, u64::from_le_bytes);
        BoardCounts { positions: at(0), wins: at(1), losses: at(2), draws: at(3) }
    }
}

/// The path of `sector`'s reachability bitmap of `rules` in `dir`.
pub fn reach_path(dir: &Path, rules: &RuleSet, sector: Sector) -> PathBuf {
    Store::new(dir).reach_path(rules, sector)
}

impl ReachMap {
    /// Whether the position at `slot` is reachable; `false` past the end.
    #[inline]
    pub fn contains(&self, slot: u64) -> bool {
        if slot >= self.header().entry_count {
            return false;
        }
        let at = HEADER_SIZE + BOARD_COUNTS_BYTES + (slot / 8) as usize;
        self.bytes().get(at).is_some_and(|b| b >> (slot % 8) & 1 == 1)
    }

    /// The bitmap's bytes: slot `s` is bit `s % 8` of byte `s / 8`
    /// (`ceil(slots / 64)` little-endian words, the module documentation).
    pub fn bitmap_bytes(&self) -> &[u8] {
        &self.bytes()[HEADER_SIZE + BOARD_COUNTS_BYTES..]
    }

    /// The reachable positions on the board and their values.
    pub fn board_counts(&self) -> BoardCounts {
        BoardCounts::read(&self.bytes()[HEADER_SIZE..])
    }
}

/// Writes a reachability bitmap atomically (to `<path>.tmp`, synced,
/// renamed): `header` with its payload checksum filled in, `board`, then
/// `words` (the bitmap, [`bitmap_words`] of the header's entry count).
/// Returns the header written.
///
/// # Errors
/// [`TableError::Io`] naming the file; [`TableError::Corrupt`] (field
/// `entry count`) when `words` does not fit the header's slot count or
/// sets a bit past the last slot.
pub fn write_reach(
    path: &Path,
    mut header: ReachHeader,
    board: BoardCounts,
    words: &[u64],
) -> Result<ReachHeader, TableError> {
    let slots = header.entry_count;
    let tail_bits = words.last().copied().unwrap_or(0) >> (slots % 64) as u32;
    if words.len() as u64 != bitmap_words(slots) || (slots & 63 != 0 && tail_bits != 0) {
        return Err(TableError::corrupt(
            path,
            "entry count",
            format!("{} bitmap words for {slots} slots, or bits set past the last slot", words.len()),
        ));
    }
    header.encoding = ENCODING_REACH_BITS;
    let board_bytes = board.to_bytes();
    let mut hasher = Xxh3::new();
    hasher.update(&board_bytes);
    let bytes_of = |chunk: &[u64]| chunk.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    for chunk in words.chunks(1 << 16) {
        hasher.update(&bytes_of(chunk));
    }
    header.payload_checksum = hasher.digest();
    write_atomically(path, |w| {
        w.write_all(&header.encode())?;
        w.write_all(&board_bytes)?;
        for chunk in words.chunks(1 << 16) {
            w.write_all(&bytes_of(chunk))?;
        }
        Ok(())
    })?;
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(rules: &RuleSet, sector: Sector, slots: u64, reachable: u64) -> ReachHeader {
        ReachHeader {
            rules_fingerprint: rules.fingerprint(),
            rules_name: rules.header_name().to_string(),
            sector,
            encoding: ENCODING_REACH_BITS,
            entry_count: slots,
            canonical_positions: reachable,
            wins: reachable,
            losses: 0,
            draws: 0,
            own: ReachFields { source_checksum: 7 },
            payload_checksum: 0,
        }
    }

    /// Slot `s` is bit `s % 8` of payload byte `32 + s / 8` (the layout
    /// written in the module documentation and docs/formats.md), read back
    /// through the mapping; a damaged byte fails the checksum; a bitmap
    /// with a bit past the last slot is refused.
    #[test]
    fn bits_round_trip_through_the_file() {
        let rules = RuleSet::preset("three").unwrap();
        // A sector whose last bitmap word is partly used.
        let sector = [Sector::sliding(3, 3), Sector::sliding(3, 2), Sector { w: 2, b: 3, wh: 1, bh: 0 }]
            .into_iter()
            .find(|&s| {
                let n = rules.indexer().sector(s).len();
                n > 64 && n & 63 != 0
            })
            .unwrap();
        let slots = rules.indexer().sector(sector).len();
        let set = [0u64, 5, 63, 64, slots - 1];
        let mut words = vec![0u64; bitmap_words(slots) as usize];
        for s in set {
            words[(s / 64) as usize] |= 1 << (s % 64);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = reach_path(dir.path(), &rules, sector);
        let s = sector;
        assert!(path.ends_with(format!("three_{}_{}_{}_{}.reach", s.w, s.b, s.wh, s.bh)), "{}", path.display());
        let board = BoardCounts { positions: 9, wins: 9, losses: 0, draws: 0 };
        write_reach(&path, header(&rules, sector, slots, 5), board, &words).unwrap();
        let map = ReachMap::open(dir.path(), &rules, sector, slots).unwrap();
        map.verify_checksum().unwrap();
        assert_eq!(map.board_counts(), board);
        let read: Vec<u64> = (0..slots + 70).filter(|&s| map.contains(s)).collect();
        assert_eq!(read, set);
        let raw = std::fs::read(&path).unwrap();
        assert_eq!(raw.len() as u64, 128 + 32 + 8 * bitmap_words(slots));
        assert_eq!(&raw[0..8], b"MORRISRC");
        assert_eq!(raw[160], 0b0010_0001, "slots 0 and 5 in the first bitmap byte");
        assert_eq!(raw[160 + 7], 0b1000_0000, "slot 63");
        let mut damaged = raw.clone();
        damaged[161] ^= 1;
        std::fs::write(&path, damaged).unwrap();
        let map = ReachMap::open(dir.path(), &rules, sector, slots).unwrap();
        assert!(map.verify_checksum().is_err());
        // A bit past the last slot.
        let last = words.len() - 1;
        words[last] |= 1 << 63;
        assert!(write_reach(&path, header(&rules, sector, slots, 5), board, &words).is_err());
        // Another sector's file, and a missing one.
        assert!(ReachMap::open(dir.path(), &rules, Sector::sliding(4, 4), slots).is_err());
    }
}
